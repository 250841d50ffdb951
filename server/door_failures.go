package server

import (
	"context"

	"github.com/triage-go/triage/bridge"
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
	f, ok := c.Failure(ctx, s.cfg.Agents)
	if !ok {
		return
	}
	tenant := c.Owner
	if tenant == "" {
		tenant = DefaultTenant
	}
	s.svc.RecordFailure(ctx, tenant, f)
}
