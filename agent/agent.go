package agent

import (
	"context"

	"github.com/triage-go/triage/fault"
)

// Kind names how an agent runs.
type Kind string

// The kinds an agents file may name.
const (
	// KindScript is a scripted agent described in the file: its reply, the
	// delay between chunks, and the failures it plays. It needs no key and
	// no network, so the bridge runs on a fresh machine.
	KindScript Kind = "script"
	// KindOpenAI, KindAnthropic and KindGemini call a model provider
	// through its official SDK, in process. Their packages register them
	// (provider/openai/openaiagent, provider/anthropic/anthropicagent,
	// provider/gemini/geminiagent): a program runs agents of the kinds
	// whose package it imports. Other providers register kinds of their
	// own (RegisterProvider).
	KindOpenAI    Kind = "openai"
	KindAnthropic Kind = "anthropic"
	KindGemini    Kind = "gemini"
	// KindACP is a command spawned as a pool of worker processes speaking
	// the Agent Client Protocol over stdio.
	KindACP Kind = "acp"
	// KindTeam is agents of the registry run in parallel on one prompt:
	// its answer is theirs, member by member, and the first member to fail
	// fails it. Over AG-UI a team's run is a fan-out graph, one branch a
	// member.
	KindTeam Kind = "team"
)

// The executors of seed 002: an agent runs in process or in workers.
const (
	ExecutorInProcess = "in-process"
	ExecutorWorker    = "worker"
)

// Info describes an agent, as discovery shows it.
type Info struct {
	ID           string   `json:"id"`
	Kind         Kind     `json:"kind"`
	Description  string   `json:"description"`
	Capabilities []string `json:"capabilities"`
	// Executor is ExecutorInProcess or ExecutorWorker.
	Executor string `json:"executor"`
	// MaxSessions is how many sessions the agent holds at once.
	MaxSessions int `json:"maxSessions"`
	// Model is the provider's model, for provider agents.
	Model string `json:"model,omitempty"`
	// Members are a team's agents, in order.
	Members []string `json:"members,omitempty"`
	// RecordFailures says whether the agent's failures become error
	// records (Config.RecordsFailures). Not shown by the API.
	RecordFailures bool `json:"-"`
}

// Chunk is one piece of an agent's answer, as it streams: text, or a
// piece of a tool call.
type Chunk struct {
	Text string
	// ToolCall, when set, is a piece of a call the agent makes to a tool
	// its caller offers (an AG-UI frontend's tools): the caller runs the
	// tool and sends its result in a later prompt.
	ToolCall *ToolCall
	// Notice, when set, is a failure the agent reports while it carries
	// on (a source it could not reach, a fallback it took): seed 001's
	// user_error, which does not end the prompt.
	Notice *fault.Error
}

// ToolCall is a piece of a tool call as it streams. The first piece of an
// ID names the tool; each piece's Args is a fragment of the arguments'
// JSON; the piece with End says the arguments are complete. A call whose
// prompt fails before its End is left incomplete: its arguments must not
// be used.
type ToolCall struct {
	ID   string
	Name string
	Args string
	End  bool
}

// StopToolCall is the stop reason of an answer that ends in a tool call,
// waiting for the caller to run the tool.
const StopToolCall = "tool_call"

// Result is a finished prompt: the whole answer and why it stopped.
type Result struct {
	Text string `json:"text"`
	// StopReason is "end_turn" for a complete answer, "cancelled" when the
	// caller cancelled, or what the agent said (ACP's stop reasons).
	StopReason string `json:"stopReason"`
}

// Backend is what one kind of agent implements: the sessions of one agent.
// The Manager owns the session lifecycle, the limits and the error
// contract; a Backend only talks to its agent.
//
// Every error a Backend returns should be a *fault.Error; anything else is
// reported as seed 002's "Agent {id} failed" (UPSTREAM).
type Backend interface {
	// Start prepares the agent: checks credentials, spawns workers.
	Start(ctx context.Context) error
	// NewSession opens a session with the agent and returns the backend's
	// own id for it.
	NewSession(ctx context.Context) (string, error)
	// Prompt sends one prompt and streams the answer to emit, which is
	// never called after Prompt returns. ctx is cancelled when the caller
	// cancels or the prompt's deadline passes.
	Prompt(ctx context.Context, session, text string, emit func(Chunk)) (Result, error)
	// Cancel asks the agent to stop the session's running prompt.
	Cancel(ctx context.Context, session string) error
	// CloseSession forgets a session.
	CloseSession(session string)
	// Close stops the agent and releases what Start acquired.
	Close() error
}
