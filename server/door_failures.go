package server

import (
	"context"

	"github.com/google/uuid"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/service"
)

// recordsFailures says whether a run of agentID records its failure: the
// agent's registry entry says so (recordFailures, true by default).
func (s *Server) recordsFailures(agentID string) bool {
	if s.cfg.Agents == nil {
		return true
	}
	known, record := s.cfg.Agents.RecordsFailures(agentID)
	return !known || record
}

// recordCall has a failed /mcp tool call recorded as an occurrence
// (bridge.Bridge.OnFailure's func): its answer is written already.
func (s *Server) recordCall(ctx context.Context, c bridge.CallFailure) {
	f, ok := MCPFailure(ctx, s.cfg.Agents, c)
	if !ok {
		return
	}
	tenant := c.Owner
	if tenant == "" {
		tenant = DefaultTenant
	}
	s.svc.RecordFailure(ctx, tenant, f)
}

// MCPFailure is a failed MCP tool call as the service records it
// (service.Failure: DoorMCP, its session, tool, a new call id, and the
// request's traceparent), and whether it is recorded: a call about an
// agent of m is the agent's, unless its registry entry opted out
// (recordFailures: false; ok is false then); a call about no agent, or
// about one m does not have, is service.BridgeAgent's, so that a caller
// cannot make up agents in the records. /mcp and triage bridge --service
// both record with it.
func MCPFailure(ctx context.Context, m *agent.Manager, c bridge.CallFailure) (f service.Failure, ok bool) {
	agentID := service.BridgeAgent
	if known, record := m.RecordsFailures(c.AgentID); known {
		if !record {
			return service.Failure{}, false
		}
		agentID = c.AgentID
	}
	return service.Failure{Door: service.DoorMCP, AgentID: agentID, Fault: c.Fault, SessionID: c.SessionID, Tool: c.Tool,
		CallID: uuid.NewString(), TraceParent: service.TraceParent(ctx, c.Header)}, true
}
