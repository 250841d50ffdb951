package bridge

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/wire/present"
)

// The tools' inputs and outputs. Their JSON schemas are inferred from these
// types; every output schema also allows the failure object under "error".

type (
	healthIn  struct{}
	healthOut struct {
		Ready         bool                `json:"ready" jsonschema:"whether the bridge takes requests"`
		Version       string              `json:"version"`
		Agents        []agent.AgentHealth `json:"agents" jsonschema:"each agent's readiness, and the sessions this client's tenant holds with it and may hold"`
		Sessions      int                 `json:"sessions" jsonschema:"open sessions of this client's tenant, all agents"`
		InFlight      int                 `json:"inFlight" jsonschema:"tool calls of this client's tenant running now"`
		MaxConcurrent int                 `json:"maxConcurrent" jsonschema:"tool calls this client's tenant may run at once"`
	}

	discoverIn struct {
		Capability string `json:"capability,omitempty" jsonschema:"only agents with this capability"`
	}
	discoverOut struct {
		Agents []agent.Info `json:"agents"`
	}

	createIn struct {
		AgentID  string         `json:"agentId" jsonschema:"the agent to open a session with (see agents_discover)"`
		Metadata map[string]any `json:"metadata,omitempty" jsonschema:"kept with the session (at most 64 KiB as JSON)"`
	}
	sessionOut struct {
		SessionID string      `json:"sessionId"`
		AgentID   string      `json:"agentId"`
		State     agent.State `json:"state" jsonschema:"idle, running, cancelled, closed or failed"`
	}

	promptIn struct {
		SessionID string         `json:"sessionId"`
		Prompt    string         `json:"prompt" jsonschema:"the prompt (at most 1 MiB)"`
		Metadata  map[string]any `json:"metadata,omitempty"`
	}
	promptOut struct {
		SessionID  string      `json:"sessionId"`
		AgentID    string      `json:"agentId"`
		Text       string      `json:"text" jsonschema:"the agent's whole answer"`
		StopReason string      `json:"stopReason" jsonschema:"end_turn for a whole answer; tool_call when the answer ends in calls to your tools (toolCalls)"`
		State      agent.State `json:"state"`
		ToolCalls  []toolCall  `json:"toolCalls,omitempty" jsonschema:"the calls to your tools the answer makes, in order (at most 16): run each and send its result in the next prompt"`
		// ToolCallsOmitted counts the calls past the first 16.
		ToolCallsOmitted int `json:"toolCallsOmitted,omitempty" jsonschema:"how many more calls the answer made, past the first 16"`
	}
	toolCall struct {
		ID             string `json:"id"`
		Name           string `json:"name" jsonschema:"the tool to call"`
		Arguments      string `json:"arguments" jsonschema:"the arguments, the JSON text the agent wrote (at most 64 KiB: cut short when truncated is set)"`
		ArgumentsBytes int    `json:"argumentsBytes" jsonschema:"the arguments' whole size"`
		Truncated      bool   `json:"truncated,omitempty" jsonschema:"the arguments were larger than 64 KiB and are cut short: not JSON any more"`
	}

	sessionIn struct {
		SessionID string `json:"sessionId"`
	}
	cancelOut struct {
		SessionID string      `json:"sessionId"`
		Cancelled bool        `json:"cancelled" jsonschema:"whether a running prompt was asked to stop"`
		State     agent.State `json:"state"`
	}
	closeOut struct {
		SessionID string `json:"sessionId"`
		Closed    bool   `json:"closed"`
	}

	delegateIn struct {
		AgentID  string         `json:"agentId"`
		Prompt   string         `json:"prompt"`
		Metadata map[string]any `json:"metadata,omitempty"`
	}
)

func ptr[T any](v T) *T { return &v }

// The annotations of seed 002's idempotent and non-idempotent operations.
var (
	readOnly   = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
	creates    = &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: false, OpenWorldHint: ptr(true)}
	stops      = &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(false)}
	stopsAgain = &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)}
)

func (b *Bridge) addTools() {
	addTool(b, &mcp.Tool{Name: "bridge_health", Title: "Bridge health",
		Description: "Whether the bridge is ready, and the load of this client's tenant: its sessions with each agent and its calls in flight. Safe to call at any time, for example after a failure.",
		Annotations: readOnly}, b.health)
	addTool(b, &mcp.Tool{Name: "agents_discover", Title: "Discover agents",
		Description: "Lists the agents sessions can be opened with: id, description, capabilities, executor and session capacity.",
		Annotations: readOnly}, b.discover)
	addTool(b, &mcp.Tool{Name: "sessions_create", Title: "Create a session",
		Description: "Opens a session with an agent. Not idempotent: each call opens a new session and takes one of the agent's session slots until it is closed.",
		Annotations: creates}, b.create)
	addTool(b, &mcp.Tool{Name: "sessions_prompt", Title: "Prompt a session",
		Description: "Sends a prompt to a session's agent and returns its whole answer; with a progress token, the answer also streams as progress notifications. Not idempotent: retry only a failure marked retryable.",
		Annotations: creates}, b.prompt)
	addTool(b, &mcp.Tool{Name: "sessions_status", Title: "Session status",
		Description: "A session's state (idle, running, cancelled, closed, failed), its agent and its prompt count.",
		Annotations: readOnly}, b.status)
	addTool(b, &mcp.Tool{Name: "sessions_cancel", Title: "Cancel a prompt",
		Description: "Asks the session's running prompt to stop; the prompt then fails as CANCELLED and the session takes new prompts.",
		Annotations: stops}, b.cancel)
	addTool(b, &mcp.Tool{Name: "sessions_close", Title: "Close a session",
		Description: "Closes a session, stopping a running prompt and freeing its slot. Idempotent: closing a closed or unknown session succeeds silently.",
		Annotations: stopsAgain}, b.close)
	addTool(b, &mcp.Tool{Name: "tasks_delegate", Title: "Delegate a task",
		Description: "Creates a session with an agent, sends it the prompt and closes it, in one call. Not idempotent.",
		Annotations: creates}, b.delegate)
}

// health reports the caller's own load, not the bridge's: served to many
// tenants, one must not read another's sessions or calls. Over stdio
// there is one owner, and its load is all of it.
func (b *Bridge) health(ctx context.Context, req *mcp.CallToolRequest, _ healthIn) (healthOut, error) {
	owner := b.owner(ctx, req)
	h := b.cfg.Manager.HealthOf(owner)
	return healthOut{Ready: h.Ready, Version: b.cfg.Version, Agents: h.Agents, Sessions: h.Sessions,
		InFlight: b.inFlight(owner), MaxConcurrent: min(b.cfg.MaxPerOwner, b.cfg.MaxConcurrent)}, nil
}

func (b *Bridge) discover(_ context.Context, _ *mcp.CallToolRequest, in discoverIn) (discoverOut, error) {
	out := discoverOut{Agents: []agent.Info{}}
	for _, a := range b.cfg.Manager.Agents() {
		if in.Capability == "" || contains(a.Capabilities, in.Capability) {
			out.Agents = append(out.Agents, a)
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

func (b *Bridge) create(ctx context.Context, req *mcp.CallToolRequest, in createIn) (sessionOut, error) {
	if err := b.checkMetadata(in.Metadata); err != nil {
		return sessionOut{}, err
	}
	s, err := b.cfg.Manager.Create(ctx, b.owner(ctx, req), in.AgentID, in.Metadata)
	if err != nil {
		return sessionOut{}, err
	}
	return sessionOut{SessionID: s.ID, AgentID: s.AgentID, State: s.State}, nil
}

func (b *Bridge) prompt(ctx context.Context, req *mcp.CallToolRequest, in promptIn) (promptOut, error) {
	if err := b.checkPrompt(in.Prompt, in.Metadata); err != nil {
		return promptOut{SessionID: in.SessionID}, err
	}
	owner := b.owner(ctx, req)
	var calls toolCalls
	res, err := b.cfg.Manager.Prompt(ctx, owner, in.SessionID, in.Prompt, calls.collect(b.progress(ctx, req)))
	s, _ := b.cfg.Manager.Status(owner, in.SessionID)
	out := promptOut{SessionID: in.SessionID, AgentID: s.AgentID, Text: res.Text, StopReason: res.StopReason, State: s.State}
	out.ToolCalls, out.ToolCallsOmitted = calls.result()
	return out, err
}

func (b *Bridge) status(ctx context.Context, req *mcp.CallToolRequest, in sessionIn) (agent.Session, error) {
	return b.cfg.Manager.Status(b.owner(ctx, req), in.SessionID)
}

func (b *Bridge) cancel(ctx context.Context, req *mcp.CallToolRequest, in sessionIn) (cancelOut, error) {
	s, running, err := b.cfg.Manager.Cancel(ctx, b.owner(ctx, req), in.SessionID)
	if err != nil {
		return cancelOut{SessionID: in.SessionID}, err
	}
	return cancelOut{SessionID: s.ID, Cancelled: running, State: s.State}, nil
}

func (b *Bridge) close(ctx context.Context, req *mcp.CallToolRequest, in sessionIn) (closeOut, error) {
	if err := b.cfg.Manager.Close(b.owner(ctx, req), in.SessionID); err != nil {
		return closeOut{SessionID: in.SessionID}, err
	}
	return closeOut{SessionID: in.SessionID, Closed: true}, nil
}

func (b *Bridge) delegate(ctx context.Context, req *mcp.CallToolRequest, in delegateIn) (promptOut, error) {
	if err := b.checkPrompt(in.Prompt, in.Metadata); err != nil {
		return promptOut{AgentID: in.AgentID}, err
	}
	var calls toolCalls
	res, s, err := b.cfg.Manager.Delegate(ctx, b.owner(ctx, req), in.AgentID, in.Prompt, in.Metadata, calls.collect(b.progress(ctx, req)))
	out := promptOut{SessionID: s.ID, AgentID: in.AgentID, Text: res.Text, StopReason: res.StopReason, State: s.State}
	out.ToolCalls, out.ToolCallsOmitted = calls.result()
	return out, err
}

// The bounds of the tool calls an answer's result carries.
const (
	maxToolCalls     = 16
	maxToolCallBytes = 64 << 10
)

// toolCalls gathers the calls to the client's tools an answer makes, from
// its chunks, for the result: a client that asked for no progress sees
// them there. Each call's pieces are joined in order; only a call whose
// last piece came (End) is reported.
type toolCalls struct {
	mu      sync.Mutex
	calls   []*toolCall
	byID    map[string]*toolCall
	done    map[string]bool
	omitted int
}

// collect returns the emit function that gathers the calls and passes
// every chunk on to next, when there is one.
func (tc *toolCalls) collect(next func(agent.Chunk)) func(agent.Chunk) {
	return func(c agent.Chunk) {
		if c.ToolCall != nil {
			tc.add(c.ToolCall)
		}
		if next != nil {
			next(c)
		}
	}
}

func (tc *toolCalls) add(p *agent.ToolCall) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	call := tc.byID[p.ID]
	if call == nil {
		if tc.byID == nil {
			tc.byID, tc.done = map[string]*toolCall{}, map[string]bool{}
		}
		if len(tc.byID) >= maxToolCalls {
			if p.End {
				tc.omitted++
			}
			return
		}
		call = &toolCall{ID: p.ID, Name: p.Name}
		tc.byID[p.ID] = call
		tc.calls = append(tc.calls, call)
	}
	if call.Name == "" {
		call.Name = p.Name
	}
	call.ArgumentsBytes += len(p.Args)
	if room := maxToolCallBytes - len(call.Arguments); len(p.Args) <= room {
		call.Arguments += p.Args
	} else {
		call.Arguments += cutUTF8(p.Args, room)
		call.Truncated = true
	}
	if p.End {
		tc.done[p.ID] = true
	}
}

// result returns the complete calls, in the order they began, and how
// many more the answer made past maxToolCalls.
func (tc *toolCalls) result() ([]toolCall, int) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	var out []toolCall
	for _, c := range tc.calls {
		if tc.done[c.ID] {
			out = append(out, *c)
		}
	}
	return out, tc.omitted
}

// cutUTF8 returns s cut to at most n bytes, on a rune boundary.
func cutUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func (b *Bridge) owner(ctx context.Context, req *mcp.CallToolRequest) string {
	if b.cfg.Owner == nil {
		return ""
	}
	return b.cfg.Owner(ctx, req)
}

func (b *Bridge) checkPrompt(prompt string, metadata map[string]any) error {
	if len(prompt) > b.cfg.MaxPromptBytes {
		return errTooLarge("Prompt", len(prompt), b.cfg.MaxPromptBytes)
	}
	return b.checkMetadata(metadata)
}

func (b *Bridge) checkMetadata(metadata map[string]any) error {
	if len(metadata) == 0 {
		return nil
	}
	data, err := json.Marshal(metadata)
	if err != nil {
		return err
	}
	if len(data) > b.cfg.MaxMetadataBytes {
		return errTooLarge("Metadata", len(data), b.cfg.MaxMetadataBytes)
	}
	return nil
}

// progress sends each chunk of the answer as a progress notification when
// the client asked for progress.
func (b *Bridge) progress(ctx context.Context, req *mcp.CallToolRequest) func(agent.Chunk) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil
	}
	var n atomic.Int64
	return func(c agent.Chunk) {
		msg := c.Text
		if msg == "" && c.ToolCall != nil && c.ToolCall.Name != "" {
			msg = "calling tool " + c.ToolCall.Name
		}
		if msg == "" && c.Notice != nil {
			msg = "notice: " + present.UserErrorFrom(c.Notice).Message
		}
		if msg == "" {
			return // a tool call's later pieces
		}
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: float64(n.Add(1)), Message: msg,
		})
	}
}
