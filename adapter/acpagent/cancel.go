package acpagent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"

	acpsdk "github.com/coder/acp-go-sdk"
)

// How a session/cancel reaches its turn. The SDK runs each request on a
// goroutine of its own and the notifications, in order, on another, and it
// cancels the turn it has registered for the session when it handles the
// cancel. So a cancel that follows its prompt at once on the wire may be
// handled before the prompt's turn is registered, and is lost (the client
// waits out its grace); and a cancel sent just before a prompt (on an idle
// session, or racing the end of the last turn) may be handled after the
// new prompt's turn is registered, and stops it.
//
// The worker therefore takes session/cancel off the wire before the SDK
// reads it (input), where the order the client wrote is still known. Each
// session counts its prompts as input passes them, and numbers its turns
// as they begin; a cancel stops every turn numbered up to the count of
// prompts sent before it: those running, and those whose prompts were
// read but whose turns have not begun, which begin cancelled. A prompt sent
// after the cancel runs as usual. Turns are numbered in the order they
// begin, which is the order of their prompts when the client waits for
// each answer before its next prompt, as ACP asks.

// session is the agent's bookkeeping of one session's turns.
type session struct {
	read      int                        // session/prompt requests input has passed
	begun     int                        // turns begun, numbered in the order they begin
	cancelled int                        // turns numbered up to this are cancelled
	running   map[int]context.CancelFunc // the turns in progress, by number
}

func newSession() *session { return &session{running: make(map[int]context.CancelFunc)} }

// prompted counts a session/prompt request of the session as sent.
func (a *agent) prompted(id acpsdk.SessionId) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[id]; s != nil {
		s.read++
	}
}

// cancel stops the session's turns for the prompts sent before the cancel:
// those in progress, and those whose turns have not begun yet.
func (a *agent) cancel(id acpsdk.SessionId) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[id]
	if s == nil {
		return
	}
	s.cancelled = s.read
	for n, stop := range s.running {
		if n <= s.cancelled {
			stop()
		}
	}
}

// begin registers a turn of the session and returns its context, already
// cancelled when a cancel came for its prompt before it began, and the
// function that ends it. ok is false for a session the agent does not
// know.
func (a *agent) begin(ctx context.Context, id acpsdk.SessionId) (_ context.Context, end func(), ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[id]
	if s == nil {
		return ctx, func() {}, false
	}
	s.begun++
	// A prompt input did not count (none should be) still gets a number
	// of its own, after every prompt sent so far.
	s.read = max(s.read, s.begun)
	n := s.begun
	ctx, stop := context.WithCancel(ctx)
	if n <= s.cancelled {
		stop()
	}
	s.running[n] = stop
	return ctx, func() {
		a.mu.Lock()
		delete(s.running, n)
		a.mu.Unlock()
		stop()
	}, true
}

// maxLine is the longest line the SDK reads; a longer one ends the
// connection.
const maxLine = 10 << 20

// input is the worker's input as the SDK reads it, a line at a time. It
// blocks reads until open is closed. It counts each session/prompt request
// it passes, and handles each session/cancel notification itself, in the
// order they come, and drops it: the SDK never sees a cancel.
type input struct {
	r    *bufio.Reader
	open chan struct{}
	a    *agent

	line []byte // what is left of the line being passed on
	err  error  // the error that ended the input, once line is passed on
}

func (in *input) Read(p []byte) (int, error) {
	<-in.open
	for len(in.line) == 0 {
		if in.err != nil {
			return 0, in.err
		}
		in.line, in.err = in.next()
		if in.handled(in.line) {
			in.line = nil
		}
	}
	n := copy(p, in.line)
	in.line = in.line[n:]
	return n, nil
}

// next reads the next line, its line break included; a line longer than
// the SDK reads is returned as far as maxLine (the SDK ends the connection
// on it).
func (in *input) next() ([]byte, error) {
	var line []byte
	for {
		chunk, err := in.r.ReadSlice('\n')
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) || len(line) > maxLine {
			if errors.Is(err, bufio.ErrBufferFull) {
				err = nil
			}
			return line, err
		}
	}
}

// handled counts a line that is a session/prompt request the SDK hands to
// Prompt, and handles a session/cancel the SDK would hand to Cancel: lines
// that decode and validate as the SDK's do. It reports whether the line is
// to be dropped: a cancel notification is; the SDK answers a cancel sent
// as a request, which is not ACP's, with its no-op Cancel.
func (in *input) handled(line []byte) bool {
	if !bytes.Contains(line, []byte(`"session/`)) {
		return false
	}
	var m struct {
		ID     *json.RawMessage `json:"id"`
		Method string           `json:"method"`
		Params json.RawMessage  `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil {
		return false
	}
	switch m.Method {
	case acpsdk.AgentMethodSessionPrompt:
		var req acpsdk.PromptRequest
		if json.Unmarshal(m.Params, &req) == nil && req.Validate() == nil {
			in.a.prompted(req.SessionId)
		}
	case acpsdk.AgentMethodSessionCancel:
		var n acpsdk.CancelNotification
		if json.Unmarshal(m.Params, &n) == nil && n.Validate() == nil {
			in.a.cancel(n.SessionId)
			return m.ID == nil // a request (not ACP's) is still answered
		}
	}
	return false
}
