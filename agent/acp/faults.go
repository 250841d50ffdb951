package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/jsonrpc/errdata"
)

// The operations a fault's message and details.operation name.
const (
	opInitialize = "initialize"
	opNewSession = acpsdk.AgentMethodSessionNew
	opPrompt     = acpsdk.AgentMethodSessionPrompt
	opCancel     = acpsdk.AgentMethodSessionCancel
)

// Causes the pool sets on a request's context, so that the fault says why
// the request ended.
var (
	errClosed    = errors.New("acp: pool closed")
	errDown      = errors.New("acp: worker exited")
	errMalformed = errors.New("acp: malformed response")
	errAbandoned = errors.New("acp: prompt abandoned by its caller")
	errForgotten = errors.New("acp: session forgotten")
	errCancelled = errors.New("acp: worker did not answer session/cancel in time")
)

// opts are the options every fault of the pool takes: Source and
// details.agentId name the agent, details.workerId the worker, when known.
func (p *Pool) opts(workerID string, more ...fault.Option) []fault.Option {
	o := make([]fault.Option, 0, 3+len(more))
	if p != nil && p.cfg.Source != "" {
		o = append(o, fault.WithSource(p.cfg.Source), fault.WithDetail("agentId", p.cfg.Source))
	}
	if workerID != "" {
		o = append(o, fault.WithDetail("workerId", workerID))
	}
	return append(o, more...)
}

// notStarted is seed 002's "Executor not started": the pool is used before
// Start or after Close.
func (p *Pool) notStarted() *fault.Error {
	return fault.New(fault.InternalError, "Executor not started", p.opts("")...)
}

// startFailed is seed 002's "Failed to start StdioBus": a worker could not
// be spawned or initialized. No session exists yet. Its details say why:
// details.reason (a startError's), and the worker's own error
// (workerErrorCode, workerErrorMessage) when it answered initialize with
// one.
func (p *Pool) startFailed(workerID string, cause error, extra ...fault.Option) *fault.Error {
	o := []fault.Option{fault.WithRetryable(true), fault.WithSessionValid(false)}
	var se *startError
	if errors.As(cause, &se) {
		o = append(o, fault.WithDetail("reason", se.reason))
	}
	o = append(o, workerError(cause)...)
	return fault.Wrap(cause, fault.TransportError, "Failed to start worker", p.opts(workerID, append(o, extra...)...)...)
}

// maxWorkerMessage bounds the worker's own error message a fault's details
// carry.
const maxWorkerMessage = 512

// workerError is the details of the JSON-RPC error a worker answered with,
// when err holds one: its code (workerErrorCode) and its message
// (workerErrorMessage), redacted and cut to maxWorkerMessage bytes. Its
// data is not copied: an agent may put anything there.
func workerError(err error) []fault.Option {
	var re *acpsdk.RequestError
	if !errors.As(err, &re) {
		return nil
	}
	return []fault.Option{fault.WithDetail("workerErrorCode", re.Code),
		fault.WithDetail("workerErrorMessage", cut(safeText(re.Message), maxWorkerMessage))}
}

// failed is seed 002's "Worker {workerId} failed: {operation}": the worker
// answered with a JSON-RPC error, whose code and message the details carry
// (workerErrorCode, workerErrorMessage). It is not retryable unless the error's
// data says retryable: true, and the session survives unless the data says
// sessionValid: false (or there is no session yet); a delay and a code the
// table knows (details.workerCode) in the data are kept too. The data is
// read as Triage's (wire/jsonrpc/errdata, the inverse of the jsonrpc.From
// a Triage worker answers with); data of another shape says
// nothing.
func (p *Pool) failed(w *worker, op, sessionID string, re *acpsdk.RequestError, sessionValid bool) *fault.Error {
	w.log.Debug("worker answered with an error", "operation", op, "code", re.Code, "message", safeText(re.Message))
	o := p.opts(w.id, fault.WithDetail("operation", op), fault.WithRetryable(false),
		fault.WithSessionValid(sessionValid), fault.WithDebug("rpc_code", re.Code))
	o = append(o, workerError(re)...)
	if sessionID != "" {
		o = append(o, fault.WithDetail("sessionId", sessionID))
	}
	if d := peerData(re); d != nil {
		if d.Retryable != nil {
			o = append(o, fault.WithRetryable(*d.Retryable))
		}
		if d.SessionValid != nil && sessionValid {
			o = append(o, fault.WithSessionValid(*d.SessionValid))
		}
		if d.RetryAfter != nil && *d.RetryAfter > 0 {
			o = append(o, fault.WithRetryAfter(*d.RetryAfter))
		}
		if d.Code != nil && d.Code.Known() {
			o = append(o, fault.WithDetail("workerCode", string(*d.Code)))
		}
	}
	return fault.Wrap(re, fault.UpstreamError, fmt.Sprintf("Worker %s failed: %s", w.id, op), o...)
}

// timedOut is seed 002's "Worker {workerId} timed out": TIMEOUT in category
// TRANSPORT, retryable.
func (p *Pool) timedOut(w *worker, op, sessionID string, sessionValid bool) *fault.Error {
	o := p.opts(w.id, fault.WithCategory(fault.CategoryTransport), fault.WithRetryable(true),
		fault.WithSessionValid(sessionValid), fault.WithDetail("operation", op))
	if sessionID != "" {
		o = append(o, fault.WithDetail("sessionId", sessionID))
	}
	return fault.New(fault.Timeout, fmt.Sprintf("Worker %s timed out", w.id), o...)
}

// exited says the worker's process ended (it crashed, or Close stopped it)
// while a request was in flight: TRANSPORT, retryable (the pool respawns the
// worker), and every session on the worker is gone. It waits up to wait for
// the process to be reaped, to say how it ended.
func (p *Pool) exited(w *worker, op, sessionID string, wait time.Duration) *fault.Error {
	dbg, cause := w.debug(wait)
	o := p.opts(w.id, append(dbg, fault.WithRetryable(true), fault.WithSessionValid(false),
		fault.WithDetail("operation", op))...)
	if sessionID != "" {
		o = append(o, fault.WithDetail("sessionId", sessionID))
	}
	return fault.Wrap(cause, fault.TransportError, fmt.Sprintf("Worker %s exited", w.id), o...)
}

// debug is what a fault about w keeps in Debug: the pid, how the process
// ended (waiting up to wait for it to be reaped) and its last stderr lines,
// already redacted. The error says the worker exited, and how.
func (w *worker) debug(wait time.Duration) ([]fault.Option, error) {
	o := []fault.Option{fault.WithDebug("pid", w.pid)}
	st, cause := w.exitStatus(wait)
	if st != "" {
		o = append(o, fault.WithDebug("exit", st))
	}
	if tail := w.stderr.tail(); len(tail) > 0 {
		o = append(o, fault.WithDebug("stderr", tail))
	}
	return o, cause
}

// malformed is seed 002's "Invalid worker response: malformed prompt
// result" (and the same for another operation's result), in the seed's
// category UPSTREAM.
func (p *Pool) malformed(w *worker, op, sessionID string, sessionValid bool, extra ...fault.Option) *fault.Error {
	what := op + " result"
	if op == opPrompt {
		what = "prompt result"
	}
	o := p.opts(w.id, fault.WithCategory(fault.CategoryUpstream), fault.WithSessionValid(sessionValid),
		fault.WithDetail("operation", op))
	if sessionID != "" {
		o = append(o, fault.WithDetail("sessionId", sessionID))
	}
	o = append(o, extra...)
	return fault.Wrap(errMalformed, fault.ProtocolError, "Invalid worker response: malformed "+what, o...)
}

// missingSessionID is seed 002's "Invalid worker response: missing
// sessionId": session/new answered without one.
func (p *Pool) missingSessionID(w *worker) *fault.Error {
	return fault.New(fault.ProtocolError, "Invalid worker response: missing sessionId", p.opts(w.id,
		fault.WithCategory(fault.CategoryUpstream), fault.WithSessionValid(false),
		fault.WithDetail("operation", opNewSession))...)
}

// duplicateSessionID says session/new answered with the id of a session the
// pool already has (on another worker, say): routing by it would mix the
// two sessions.
func (p *Pool) duplicateSessionID(w *worker, id string) *fault.Error {
	return fault.New(fault.ProtocolError, "Invalid worker response: duplicate sessionId", p.opts(w.id,
		fault.WithCategory(fault.CategoryUpstream), fault.WithSessionValid(false),
		fault.WithDetail("operation", opNewSession), fault.WithDetail("sessionId", id))...)
}

// sessionNotFound is seed 002's "Session not found: {sessionId}".
func (p *Pool) sessionNotFound(id string) *fault.Error {
	return fault.New(fault.SessionNotFound, "Session not found: "+id,
		p.opts("", fault.WithDetail("sessionId", id))...)
}

// busy says the session is running another prompt.
func (p *Pool) busy(w *worker, id string) *fault.Error {
	return fault.New(fault.SessionBusy, "", p.opts(w.id, fault.WithDetail("sessionId", id))...)
}

// cancelled says the caller cancelled the operation (its context, Cancel,
// Forget).
func (p *Pool) cancelled(w *worker, op, sessionID string, sessionValid bool, cause error) *fault.Error {
	workerID := ""
	if w != nil {
		workerID = w.id
	}
	o := p.opts(workerID, fault.WithSessionValid(sessionValid), fault.WithDetail("operation", op))
	if sessionID != "" {
		o = append(o, fault.WithDetail("sessionId", sessionID))
	}
	return fault.Wrap(cause, fault.Cancelled, "", o...)
}

// peerData is the error's data read as Triage's (see errdata.Data), or
// nil when it has none or another shape. The SDK decoded it already: it is
// encoded again to be read as a JSON-RPC error's data member.
func peerData(re *acpsdk.RequestError) *errdata.Data {
	if re.Data == nil {
		return nil
	}
	raw, err := json.Marshal(re.Data)
	if err != nil {
		return nil
	}
	d, err := errdata.Parse(raw)
	if err != nil {
		return nil
	}
	return d
}
