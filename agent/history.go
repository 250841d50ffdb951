package agent

import (
	"context"
)

// Turn is one exchange of a conversation the caller holds: what the user
// said and what the agent answered.
type Turn struct {
	User      string
	Assistant string
}

// seeder is a Backend whose sessions keep a conversation and can start
// from one the caller holds: the provider agents.
type seeder interface {
	seed(session string, turns []Turn)
}

// DelegateWithHistory is Delegate for a prompt that continues a
// conversation the caller holds (an AG-UI frontend sends the whole thread
// with each run): an agent that keeps a conversation (the provider
// agents) starts the session from history, within its usual bounds (the
// oldest turns dropped first); the others (script, ACP worker and team
// agents) are sent the prompt alone.
func (m *Manager) DelegateWithHistory(ctx context.Context, owner, agentID string, history []Turn, text string, metadata map[string]any, emit func(Chunk)) (Result, Session, error) {
	return m.delegate(ctx, owner, agentID, history, text, metadata, emit)
}

// seedLocked starts the session's conversation from history, when its
// backend keeps one. Callers hold mu.
func (m *Manager) seedLocked(id string, history []Turn) {
	s, ok := m.sessions[id]
	if !ok || len(history) == 0 {
		return
	}
	if b, ok := m.agents[s.AgentID].backend.(seeder); ok {
		b.seed(s.backendID, history)
	}
}
