package server

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/service"
)

// failingAgent is the agent id a door's failure about agentID is recorded
// under, and whether it is recorded: a registered agent's own id, unless
// its registry entry opted out (recordFailures: false); any other id (a
// call about no agent, or one the registry does not have) is
// service.BridgeAgent, recorded, so that a caller cannot make up agents
// in the records.
func (s *Server) failingAgent(agentID string) (string, bool) {
	if s.cfg.Agents != nil && agentID != "" {
		for _, a := range s.cfg.Agents.Agents() {
			if a.ID == agentID {
				return a.ID, a.RecordFailures
			}
		}
	}
	return service.BridgeAgent, true
}

// recordCall has a failed /mcp tool call recorded as an occurrence
// (bridge.Bridge.OnFailure's func): its answer is written already.
func (s *Server) recordCall(ctx context.Context, c bridge.CallFailure) {
	agentID, ok := s.failingAgent(c.AgentID)
	if !ok {
		return
	}
	tenant := c.Owner
	if tenant == "" {
		tenant = DefaultTenant
	}
	s.svc.RecordFailure(ctx, tenant, service.Failure{Door: service.DoorMCP, AgentID: agentID, Fault: c.Fault,
		SessionID: c.SessionID, Tool: c.Tool, CallID: uuid.NewString(), TraceParent: traceParent(ctx, c.Header)})
}

// traceParent is the W3C traceparent of the request: its span's when the
// service traces (Config.TracerProvider), else the one its header
// carried, if valid; "" for none.
func traceParent(ctx context.Context, h http.Header) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		if h == nil {
			return ""
		}
		ctx = propagation.TraceContext{}.Extract(context.Background(), propagation.HeaderCarrier(h))
		if !trace.SpanContextFromContext(ctx).IsValid() {
			return ""
		}
	}
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return c["traceparent"]
}
