package aguirun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/wire/agui"
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
	// History is the conversation before Prompt (see Conversation): the
	// agents that keep one (the provider agents) start from it.
	History []agent.Turn `json:"-"`
}

// Clone copies the state for a fan-out's branch. History is never
// changed by a node, so the branches share it.
func (s AgentState) Clone() AgentState { return s }

// Conversation reads a run's thread as what an agent is asked: prompt, the
// text of the last user message, and history, the exchanges before it.
// Each assistant message's text answers the user messages since the
// previous answer (joined by a blank line), and consecutive assistant
// messages are one answer (a team answers in one message per member);
// user messages no answer followed before the prompt (a run that failed)
// are left out, as are messages of other roles and assistant messages
// without text (tool calls).
func Conversation(in *agui.RunAgentInput) (history []agent.Turn, prompt string) {
	last := -1
	for i := len(in.Messages) - 1; i >= 0; i-- {
		if in.Messages[i].Role == agui.RoleUser {
			last = i
			break
		}
	}
	if last < 0 {
		return nil, ""
	}
	var asked []string
	for i := range in.Messages[:last] {
		m := &in.Messages[i]
		switch m.Role {
		case agui.RoleUser:
			if t := m.Text(); t != "" {
				asked = append(asked, t)
			}
		case agui.RoleAssistant:
			switch {
			case m.Content == "":
			case len(asked) > 0:
				history = append(history, agent.Turn{User: strings.Join(asked, "\n\n"), Assistant: m.Content})
				asked = nil
			case len(history) > 0: // a second message of the same answer (a team's)
				history[len(history)-1].Assistant += "\n\n" + m.Content
			}
		}
	}
	return history, in.Messages[last].Text()
}

// AgentGraph is an agent of the registry as a graph, so that an AG-UI run
// of any agent is a graph run. A new kind of agent is a new graph, not a
// new endpoint. Its failures are the Manager's faults (seed 002's), which
// Run writes as RUN_ERROR.
//
// An agent that answers itself is one node, named after the agent, which
// opens a session with it, sends the prompt, streams the answer as Text
// and closes the session. A team (agent.KindTeam) is the team agent's own
// run, agent.TeamGraph: a node named after the team, then one branch per
// member, run in parallel, each
// streaming its answer as a text message of its own (MessageID-member),
// then the fan-in node "{team}/answer", which joins the members' answers
// in the team's order. The first member to fail ends the run with its
// fault, naming the member in details.agentId and the branch in
// details.node; the other members are cancelled.
//
// A team's graph delegates to its members directly, so its own capacity
// is not held by a session: hold it with Manager.Reserve for the run.
func AgentGraph(m *agent.Manager, agentID string) (*graph.Runnable[AgentState], error) {
	var info agent.Info
	for _, a := range m.Agents() {
		if a.ID == agentID {
			info = a
		}
	}
	if info.Kind != agent.KindTeam {
		return graph.New[AgentState]().
			AddNode(agentID, delegate(m, agentID, "")).
			AddEdge(agentID, graph.End).
			SetEntry(agentID).
			Compile(nil)
	}
	return agent.TeamGraph(agentID, info.Members,
		func(member string) graph.Node[AgentState] { return delegate(m, member, "-"+member) },
		func(s AgentState) agent.Result { return agent.Result{Text: s.Answer, StopReason: s.StopReason} },
		func(s AgentState, answer agent.Result) AgentState {
			s.Answer, s.StopReason = answer.Text, answer.StopReason
			return s
		})
}

// delegate is the node that runs one prompt of agentID, streaming its
// answer as the text message MessageID+suffix, its notices as seed 001's
// user_error (a CUSTOM event; the run goes on), and its tool calls as
// TOOL_CALL_START, _ARGS and _END, the calls' parent message that one.
// A call the prompt's failure interrupted is left open (see
// agui.Writer.WriteError). Its failure's session_valid is the thread's:
// the code's own (agent.DelegatedFault), since the agent session the
// prompt ran in is the run's, closed after it, and to an AG-UI client the
// thread is the session, which its next run goes on with.
func delegate(m *agent.Manager, agentID, suffix string) graph.Node[AgentState] {
	return func(ctx context.Context, s AgentState) (AgentState, error) {
		id := BoundedID(s.MessageID + suffix)
		res, _, err := m.DelegateWithHistory(ctx, s.Owner, agentID, s.History, s.Prompt, nil, func(c agent.Chunk) {
			if tc := c.ToolCall; tc != nil {
				// The agent's id is its own (a provider's, a worker's, a
				// script's count): two members, or two runs of one thread,
				// may use one. Within its message, the run's, it is unique.
				callID := BoundedID(id + "." + tc.ID)
				if tc.Name != "" {
					graph.Emit(ctx, &agui.ToolCallStart{ToolCallID: callID, ToolCallName: tc.Name, ParentMessageID: id})
				}
				if tc.Args != "" {
					graph.Emit(ctx, &agui.ToolCallArgs{ToolCallID: callID, Delta: tc.Args})
				}
				if tc.End {
					graph.Emit(ctx, &agui.ToolCallEnd{ToolCallID: callID})
				}
			}
			if c.Text != "" {
				graph.Emit(ctx, Text{MessageID: id, Delta: c.Text})
			}
			if c.Notice != nil {
				graph.Notify(ctx, c.Notice)
			}
		})
		s.Answer, s.StopReason = res.Text, res.StopReason
		return s, agent.DelegatedFault(err)
	}
}

// BoundedID is id if it is at most agui.MaxInputIDBytes long, else "id-"
// and 32 hex digits of its SHA-256: an id the run writes (a message's, a
// tool call's) comes back in the client's next RunAgentInput, whose ids
// are refused past that bound.
func BoundedID(id string) string {
	if len(id) <= agui.MaxInputIDBytes {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "id-" + hex.EncodeToString(sum[:16])
}

// MessageID is the id of a run's answer: "msg-" and the run's id, bounded
// as BoundedID bounds it.
func MessageID(runID string) string { return BoundedID("msg-" + runID) }
