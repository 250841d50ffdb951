package aguirun

import (
	"context"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/graph"
)

// AgentState is the state of an agent's run: what it was asked and what it
// answered.
type AgentState struct {
	// AgentID is the agent; Owner the tenant whose run it is.
	AgentID string `json:"agentId"`
	Owner   string `json:"-"`
	// Prompt is what the agent is asked: the run's last user message.
	Prompt string `json:"prompt"`
	// MessageID is the id of the answer's text message.
	MessageID string `json:"messageId"`
	// Answer and StopReason are the agent's answer, once it has one.
	Answer     string `json:"answer,omitempty"`
	StopReason string `json:"stopReason,omitempty"`
}

// AgentGraph is an agent of the registry as a graph, so that an AG-UI run
// of any agent is a graph run: one node, named after the agent, which
// opens a session with it, sends the prompt, streams the answer as Text
// and closes the session. A new kind of agent is a new graph, not a new
// endpoint. Its failures are the Manager's faults (seed 002's), which Run
// writes as RUN_ERROR.
func AgentGraph(m *agent.Manager, agentID string) (*graph.Runnable[AgentState], error) {
	node := func(ctx context.Context, s AgentState) (AgentState, error) {
		res, _, err := m.Delegate(ctx, s.Owner, s.AgentID, s.Prompt, nil, func(c agent.Chunk) {
			graph.Emit(ctx, Text{MessageID: s.MessageID, Delta: c.Text})
		})
		s.Answer, s.StopReason = res.Text, res.StopReason
		return s, err
	}
	return graph.New[AgentState]().
		AddNode(agentID, node).
		AddEdge(agentID, graph.End).
		SetEntry(agentID).
		Compile(nil)
}
