package bridge

import (
	"context"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/fault"
)

// CallFailure is a failed tool call, as OnFailure's func is told of it,
// once its answer has been written.
type CallFailure struct {
	// Tool is the tool that failed.
	Tool string
	// Fault is the failure the call was answered with.
	Fault *fault.Error
	// AgentID is the agent the call was about: the fault's agentId
	// detail, else the agentId its arguments carried (a string, as the
	// caller sent it: check it before trusting it); "" for none.
	AgentID string
	// SessionID is the MCP session's id (the go-sdk's; "" over stdio).
	SessionID string
	// Owner is the call's owner (Config.Owner; "" without one).
	Owner string
	// Header is the HTTP request's header, over streamable HTTP (its
	// traceparent, say); nil over stdio.
	Header http.Header
}

// OnFailure has fn told of every failed tool call, for recording it (as
// triage serve and a triage bridge pointed at a service do): after the
// call's answer has been written, or the call cancelled, so that it never
// delays or changes the answer. fn runs on a goroutine of its own, with a
// context that is not cancelled; Shutdown waits for it as it waits for
// the calls' answers, so fn should hand the failure over quickly (enqueue
// it) rather than do slow work. A call the bridge's shutdown answered is
// not told: it is no failure of the call. Call OnFailure before serving;
// nil tells no one.
func (b *Bridge) OnFailure(fn func(ctx context.Context, c CallFailure)) {
	b.failed.Store(&fn)
}

// failCall answers a failed call (fail), and has it told to OnFailure's
// func once the answer is written: when call, the SDK's context of the
// call, ends.
func (b *Bridge) failCall(call context.Context, req *mcp.CallToolRequest, tool string, err error, sent map[string]sentID) (*mcp.CallToolResult, error) {
	f := fault.From(err)
	if fn := b.failed.Load(); fn != nil && *fn != nil && !errors.Is(f, ErrShutdown) {
		c := CallFailure{Tool: tool, Fault: f, Owner: b.owner(call, req)}
		if id, ok := f.Details["agentId"].(string); ok {
			c.AgentID = id
		} else if id := sent["agentId"]; id.str {
			c.AgentID = id.shown
		}
		if req.Session != nil {
			c.SessionID = req.Session.ID()
		}
		if req.Extra != nil {
			c.Header = req.Extra.Header
		}
		b.after(call, func() { (*fn)(context.WithoutCancel(call), c) })
	}
	return b.fail(tool, f, sent)
}

// after runs fn once ctx ends, counted with the calls Shutdown waits for.
func (b *Bridge) after(ctx context.Context, fn func()) {
	b.mu.Lock()
	b.pending++
	b.mu.Unlock()
	context.AfterFunc(ctx, func() {
		defer b.done()
		fn()
	})
}
