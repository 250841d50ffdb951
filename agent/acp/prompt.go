package acp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/triage-go/triage/fault"
)

// session is a session on a worker.
type session struct {
	id   string
	w    *worker
	turn *turn // the prompt on the wire, guarded by w.mu
}

// turn is one session/prompt. The SDK call runs in its own goroutine (run)
// until the worker answers, even when the caller has gone (a cancelled or
// timed-out prompt waits up to CancelGrace for the worker's "cancelled"):
// the turn stays on its session until then, so that chunks the worker still
// streams for it never reach the session's next prompt.
type turn struct {
	s   *session
	rpc *rpc
	ctx context.Context // the SDK call's; rpc.abort ends it

	mu     sync.Mutex
	chunks []string
	grace  *time.Timer // aborts the call CancelGrace after the caller went
	ended  bool        // the call has ended: no grace to arm

	wake       chan struct{} // a chunk is waiting
	result     chan promptResult
	done       chan struct{} // the call has ended and the turn left its session
	cancelReq  chan struct{} // closed by Cancel
	cancelOnce sync.Once
	forgot     chan struct{} // closed by Forget
	forgetOnce sync.Once
	abandoned  atomic.Bool // the caller has gone: chunks are dropped

	cancelQueued bool // a cancel waits for the request to be sent, guarded by s.w.mu
}

type promptResult struct {
	resp acpsdk.PromptResponse
	err  error
}

// push queues a chunk for the caller. It runs on the SDK's notification
// goroutine, which it never blocks: the caller's onChunk runs on the
// caller's goroutine.
func (t *turn) push(text string) {
	if t.abandoned.Load() {
		return
	}
	t.mu.Lock()
	t.chunks = append(t.chunks, text)
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// deliver hands the queued chunks to onChunk, in order.
func (t *turn) deliver(onChunk func(string)) {
	t.mu.Lock()
	chunks := t.chunks
	t.chunks = nil
	t.mu.Unlock()
	if onChunk == nil {
		return
	}
	for _, c := range chunks {
		onChunk(c)
	}
}

// Prompt sends text to the session and waits for the turn to end, within
// PromptTimeout. Each agent_message_chunk the worker streams is passed to
// onChunk (which may be nil) on the calling goroutine, in order, never
// after Prompt returns. It returns the stop reason: "end_turn",
// "max_tokens", "max_turn_requests" or "refusal".
//
// One prompt runs on a session at a time: another is SESSION_BUSY. Its
// faults, each with details.sessionId:
//   - UPSTREAM_ERROR "Worker {id} failed: session/prompt" when the worker
//     answers with a JSON-RPC error: not retryable unless the error's data
//     says so, and the session survives unless it says otherwise;
//   - TIMEOUT (category TRANSPORT) "Worker {id} timed out" after
//     PromptTimeout or when ctx's deadline passes: the worker is sent
//     session/cancel and the session stays valid while the worker lives;
//   - CANCELLED when ctx is cancelled (the worker is sent session/cancel),
//     when Cancel was called and the worker stopped, or when the worker
//     answers "cancelled" on its own;
//   - PROTOCOL_ERROR (category UPSTREAM) "Invalid worker response: malformed
//     prompt result" for an answer that is not JSON, does not decode, or
//     has a stop reason ACP does not define;
//   - TRANSPORT_ERROR "Worker {id} exited", retryable, SessionValid false,
//     when the worker's process ends (or Close stops it) during the turn:
//     every session on it is gone, and the pool respawns it;
//   - SESSION_NOT_FOUND "Session not found: {id}" for a session the pool
//     does not have, forgot, or lost with its worker;
//   - INTERNAL_ERROR "Executor not started" before Start or after Close.
func (p *Pool) Prompt(ctx context.Context, sessionID, text string, onChunk func(text string)) (string, error) {
	if !p.usable() {
		return "", p.notStarted()
	}
	s := p.lookup(sessionID)
	if s == nil || s.w.isDown() {
		return "", p.sessionNotFound(sessionID)
	}
	w := s.w
	if ctx.Err() != nil {
		return "", p.ctxFault(w, opPrompt, sessionID, true, ctx)
	}
	timer := time.NewTimer(p.cfg.PromptTimeout)
	defer timer.Stop()
	t, err := p.begin(ctx, s, timer.C)
	if err != nil {
		return "", err
	}
	req := acpsdk.PromptRequest{SessionId: acpsdk.SessionId(sessionID), Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(text)}}
	if !p.goTracked(func() { p.run(t, req) }) {
		p.end(t)
		return "", p.notStarted()
	}

	cancelReq := t.cancelReq
	var grace <-chan time.Time
	for {
		select {
		case <-t.wake:
			t.deliver(onChunk)
		case r := <-t.result:
			t.deliver(onChunk)
			return p.outcome(ctx, t, r)
		case <-ctx.Done():
			p.abandon(t)
			return "", p.ctxFault(w, opPrompt, sessionID, !w.isDown(), ctx)
		case <-timer.C:
			p.abandon(t)
			return "", p.timedOut(w, opPrompt, sessionID, !w.isDown())
		case <-t.forgot:
			// The session is closed: the caller gets its answer now, the
			// worker is asked to stop the turn and given its grace.
			p.abandon(t)
			return "", p.cancelled(w, opPrompt, sessionID, false, errForgotten)
		case <-cancelReq:
			cancelReq = nil
			g := time.NewTimer(p.cfg.CancelGrace)
			defer g.Stop()
			grace = g.C
		case <-grace:
			t.abandoned.Store(true)
			t.rpc.abort(errCancelled)
			return "", p.cancelled(w, opPrompt, sessionID, !w.isDown(), errCancelled)
		}
	}
}

// begin puts a new turn on the session. When the session's last prompt was
// given up by its caller and the worker has not answered it yet, begin
// waits for that answer (CancelGrace at most); when another caller's
// prompt is running, the session is busy.
func (p *Pool) begin(ctx context.Context, s *session, timeout <-chan time.Time) (*turn, error) {
	w := s.w
	for {
		w.mu.Lock()
		if w.sessions[s.id] != s {
			w.mu.Unlock()
			return nil, p.sessionNotFound(s.id)
		}
		prev := s.turn
		if prev == nil {
			rctx, abort := context.WithCancelCause(p.ctx)
			t := &turn{s: s, ctx: rctx, rpc: &rpc{op: opPrompt, abort: abort},
				wake: make(chan struct{}, 1), result: make(chan promptResult, 1),
				done: make(chan struct{}), cancelReq: make(chan struct{}), forgot: make(chan struct{})}
			s.turn = t
			w.turns[t] = struct{}{}
			w.mu.Unlock()
			return t, nil
		}
		w.mu.Unlock()
		if !prev.abandoned.Load() {
			return nil, p.busy(w, s.id)
		}
		select {
		case <-prev.done:
		case <-ctx.Done():
			return nil, p.ctxFault(w, opPrompt, s.id, !w.isDown(), ctx)
		case <-timeout:
			return nil, p.timedOut(w, opPrompt, s.id, !w.isDown())
		}
	}
}

// run is the SDK call of a turn.
func (p *Pool) run(t *turn, req acpsdk.PromptRequest) {
	resp, err := t.s.w.conn.Prompt(t.ctx, req)
	p.end(t)
	t.result <- promptResult{resp, err}
	close(t.done)
}

// end takes the turn off its session and releases its context.
func (p *Pool) end(t *turn) {
	w := t.s.w
	t.mu.Lock()
	t.ended = true
	if t.grace != nil {
		t.grace.Stop()
	}
	t.mu.Unlock()
	w.mu.Lock()
	if t.s.turn == t {
		t.s.turn = nil
	}
	delete(w.turns, t)
	w.mu.Unlock()
	w.forget(t.rpc)
	t.rpc.abort(nil)
}

// abandon gives the turn up for its caller: the worker is sent
// session/cancel, and the SDK call ends with the worker's answer, or after
// CancelGrace.
func (p *Pool) abandon(t *turn) {
	t.abandoned.Store(true)
	t.mu.Lock()
	if !t.ended {
		t.grace = time.AfterFunc(p.cfg.CancelGrace, func() { t.rpc.abort(errAbandoned) })
	}
	t.mu.Unlock()
	p.goTracked(func() { _ = p.cancelTurn(context.Background(), t) })
}

// cancelTurn sends the worker session/cancel for the turn. A cancel must
// follow its session/prompt on the wire: one that comes first finds the
// session idle, and the turn waits out its CancelGrace. So when the turn's
// request has not been sent yet (the call has just begun), the cancel is
// queued, and outbound writes it right after the request.
func (p *Pool) cancelTurn(ctx context.Context, t *turn) error {
	w := t.s.w
	w.mu.Lock()
	if t.rpc.id == "" {
		t.cancelQueued = true
		w.mu.Unlock()
		return nil
	}
	w.mu.Unlock()
	return w.conn.Cancel(ctx, acpsdk.CancelNotification{SessionId: acpsdk.SessionId(t.s.id)})
}

// outcome turns the SDK call's result into Prompt's.
func (p *Pool) outcome(ctx context.Context, t *turn, r promptResult) (string, error) {
	w, id := t.s.w, t.s.id
	if (r.err != nil || r.resp.StopReason == acpsdk.StopReasonCancelled) && p.closing() {
		// Close cancelled the turn: the session is gone with its worker.
		return "", p.exited(w, opPrompt, id, 0)
	}
	if r.err != nil || t.rpc.malformed.Load() {
		f := p.requestFault(w, t.rpc, t.ctx, ctx, opPrompt, id, true, r.err)
		if !f.SessionValid && f.Code == fault.UpstreamError {
			p.Forget(id) // the worker says the session is gone
		}
		return "", f
	}
	switch sr := r.resp.StopReason; sr {
	case acpsdk.StopReasonEndTurn, acpsdk.StopReasonMaxTokens, acpsdk.StopReasonMaxTurnRequests, acpsdk.StopReasonRefusal:
		return string(sr), nil
	case acpsdk.StopReasonCancelled:
		return "", p.cancelled(w, opPrompt, id, true, nil)
	default:
		return "", p.malformed(w, opPrompt, id, true, fault.WithDebug("stop_reason", safeText(string(sr))))
	}
}

// requestFault is the fault of a request (op) that ended with err, or whose
// answer was malformed. rctx is the request's own context, ctx the
// caller's; sessionValid is whether the session survives a failure the
// worker reports (false for session/new, which has none yet).
func (p *Pool) requestFault(w *worker, r *rpc, rctx, ctx context.Context, op, sessionID string, sessionValid bool, err error) *fault.Error {
	cause := context.Cause(rctx)
	switch {
	case r.malformed.Load():
		return p.malformed(w, op, sessionID, sessionValid && !w.isDown())
	case errors.Is(cause, errClosed):
		return p.exited(w, op, sessionID, 0)
	case w.isDown():
		return p.exited(w, op, sessionID, waitDelay)
	case errors.Is(cause, errCancelled), errors.Is(cause, errAbandoned):
		return p.cancelled(w, op, sessionID, sessionValid, cause)
	case ctx.Err() != nil:
		return p.ctxFault(w, op, sessionID, sessionValid, ctx)
	}
	var re *acpsdk.RequestError
	if errors.As(err, &re) {
		return p.failed(w, op, sessionID, re, sessionValid)
	}
	o := p.opts(w.id, fault.WithDetail("operation", op), fault.WithSessionValid(sessionValid))
	return fault.Wrap(err, fault.UpstreamError, fmt.Sprintf("Worker %s failed: %s", w.id, op), o...)
}

// ctxFault is the fault of a caller's context that ended: CANCELLED when
// it was cancelled, TIMEOUT when its deadline passed.
func (p *Pool) ctxFault(w *worker, op, sessionID string, sessionValid bool, ctx context.Context) *fault.Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return p.timedOut(w, op, sessionID, sessionValid)
	}
	return p.cancelled(w, op, sessionID, sessionValid, context.Cause(ctx))
}
