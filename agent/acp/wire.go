package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sync/atomic"

	acpsdk "github.com/coder/acp-go-sdk"
)

// What the SDK does with a line from the worker that is not JSON: it logs
// the raw line and goes on reading. The pool does as the ACP SDKs do (the
// TypeScript SDK answers such a line with a parse error and reads on): it
// reads the worker's output through inTap, which finds such lines before
// the SDK sees them, logs and counts each, answers it with a JSON-RPC parse
// error (id null), and drops it. A stray line (an agent that prints to its
// standard output by mistake) fails no request: the worker's next answers
// are read as usual. Only a line that is an answer cut short, one that
// names the id of a request in flight, fails that request: outTap records
// the JSON-RPC id of every request the pool sends, and inTap answers the
// request in the SDK's place with a parse error, in order, so that the
// SDK's bookkeeping (notifications before the answer are delivered first)
// still holds. Answers that are JSON but do not decode as the result the
// request expects are attributed the same way. The pool turns the mark
// into PROTOCOL_ERROR "Invalid worker response: malformed ... result".

// maxLine is the longest line the pool reads from a worker, the SDK's own
// limit. A longer line ends the connection, and the worker with it.
const maxLine = 10 << 20

// rpc is one request of the pool's on the wire: the operation, its JSON-RPC
// id once sent, and whether its answer was malformed.
type rpc struct {
	op        string
	id        string // set by outTap, under worker.mu
	malformed atomic.Bool
	abort     context.CancelCauseFunc
}

// outTap is the worker's standard input as the SDK writes it: one message
// per Write. It records the id of each tracked request before the request
// leaves, writes the session/cancel queued for a prompt right after the
// prompt (see Pool.cancelTurn), and takes the worker down when a write
// fails (a worker that no longer reads its input is gone).
type outTap struct{ w *worker }

func (t outTap) Write(b []byte) (int, error) {
	cancel := t.w.outbound(b)
	t.w.writeMu.Lock()
	n, err := t.w.stdin.Write(b)
	if err == nil && cancel != nil {
		_, err = t.w.stdin.Write(cancel)
		n = len(b) // the SDK's message is written; only the worker is down
	}
	t.w.writeMu.Unlock()
	if err != nil {
		t.w.setDown()
	}
	return n, err
}

// parseError is the pool's answer to a line from the worker that is not
// JSON, as JSON-RPC 2.0 words it (the id could not be read, so it is null)
// and the ACP SDKs send it.
var parseError = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` + "\n")

// answerParseError sends the worker parseError, from a goroutine of its
// own: inTap runs on the SDK's reading goroutine, which a worker that does
// not read its input must not block. One answer is on its way at a time; a
// flood of broken lines gets fewer answers than lines.
func (w *worker) answerParseError() {
	if w.pool == nil || w.stdin == nil || !w.answering.CompareAndSwap(false, true) {
		return
	}
	if !w.pool.goTracked(func() {
		defer w.answering.Store(false)
		w.writeMu.Lock()
		defer w.writeMu.Unlock()
		_, _ = w.stdin.Write(parseError)
	}) {
		w.answering.Store(false)
	}
}

// outbound records the JSON-RPC id of a request the pool tracks: the
// initialize, session/new or session/prompt being sent. For a prompt whose
// cancel was asked for before it was sent, it returns the session/cancel
// line to write right after it.
func (w *worker) outbound(b []byte) (cancel []byte) {
	if !bytes.Contains(b, []byte(`"method"`)) {
		return nil // an answer to one of the worker's requests
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			SessionID string `json:"sessionId"`
		} `json:"params"`
	}
	if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var r *rpc
	var t *turn
	switch m.Method {
	case opInitialize:
		r = w.sending.init
	case opNewSession:
		r = w.sending.newSession
	case opPrompt:
		if s := w.sessions[m.Params.SessionID]; s != nil && s.turn != nil {
			t = s.turn
		} else {
			t = w.unsentTurn(m.Params.SessionID) // its session was forgotten meanwhile
		}
		if t != nil {
			r = t.rpc
		}
	}
	if r == nil || r.id != "" {
		return nil
	}
	r.id = string(m.ID)
	w.rpcs[r.id] = r
	if t == nil || !t.cancelQueued {
		return nil
	}
	line, _ := json.Marshal(struct {
		JSONRPC string                    `json:"jsonrpc"`
		Method  string                    `json:"method"`
		Params  acpsdk.CancelNotification `json:"params"`
	}{"2.0", acpsdk.AgentMethodSessionCancel, acpsdk.CancelNotification{SessionId: acpsdk.SessionId(m.Params.SessionID)}})
	return append(line, '\n')
}

// unsentTurn returns the turn on the wire for the session whose request
// has not been sent yet, nil when there is none. w.mu is held.
func (w *worker) unsentTurn(sessionID string) *turn {
	for t := range w.turns {
		if t.s.id == sessionID && t.rpc.id == "" {
			return t
		}
	}
	return nil
}

// forget drops r's id once its request has ended.
func (w *worker) forget(r *rpc) {
	w.mu.Lock()
	if r.id != "" && w.rpcs[r.id] == r {
		delete(w.rpcs, r.id)
	}
	w.mu.Unlock()
}

// take returns and drops the request with the given id.
func (w *worker) take(id string) *rpc {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.rpcs[id]
	delete(w.rpcs, id)
	return r
}

// inTap is the worker's standard output as the SDK reads it, a line at a
// time through inbound.
// Nothing is read before open is closed: the SDK starts reading as the
// connection is made, before the pool has set the connection's logger.
type inTap struct {
	w    *worker
	open chan struct{}
	sc   *bufio.Scanner
	out  []byte // what inbound passed on and Read has not returned yet
	buf  []byte
}

func newInTap(w *worker, r io.Reader) *inTap {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	return &inTap{w: w, open: make(chan struct{}), sc: sc}
}

func (t *inTap) Read(p []byte) (int, error) {
	<-t.open
	for len(t.out) == 0 {
		if !t.sc.Scan() {
			if err := t.sc.Err(); err != nil {
				t.w.log.Debug("worker output unreadable", "err", err)
				return 0, err
			}
			return 0, io.EOF
		}
		t.out = t.w.inbound(t.sc.Bytes(), t.buf[:0])
		t.buf = t.out[:0]
	}
	n := copy(p, t.out)
	t.out = t.out[n:]
	return n, nil
}

// inbound checks one line from the worker and appends to dst what the SDK
// is to read instead: the line itself, nothing, or a parse error answering
// the request a broken line was meant to answer.
func (w *worker) inbound(line, dst []byte) []byte {
	if len(bytes.TrimSpace(line)) == 0 {
		return dst
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return w.broken(line, dst)
	}
	if m.Method == "" && len(m.ID) > 0 && string(m.ID) != "null" {
		if r := w.take(string(m.ID)); r != nil && len(m.Error) == 0 && !decodes(r.op, m.Result) {
			w.log.Debug("worker answered with a malformed result", "operation", r.op, "line", safeText(string(line)))
			r.malformed.Store(true)
		}
	}
	return append(append(dst, line...), '\n')
}

// decodes reports whether result decodes as op's result, as the SDK will
// decode it.
func decodes(op string, result json.RawMessage) bool {
	if len(result) == 0 {
		return true // the SDK leaves the result zero; the pool checks it
	}
	var err error
	switch op {
	case opInitialize:
		err = json.Unmarshal(result, new(acpsdk.InitializeResponse))
	case opNewSession:
		err = json.Unmarshal(result, new(acpsdk.NewSessionResponse))
	case opPrompt:
		err = json.Unmarshal(result, new(acpsdk.PromptResponse))
	}
	return err == nil
}

// lineID finds a JSON-RPC id in a line that is not JSON: the first "id"
// member with a number or a string value.
var lineID = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")`)

// broken handles a line that is not JSON: it is logged (at warning level
// the 1st, 2nd, 4th, 8th... time, the line itself at debug level), counted
// in Stats, answered with a parse error and dropped. It fails a request
// only when it reads as that request's answer cut short: an object ({...)
// with no method and the id of a request in flight, which then gets a
// parse error in its place. Anything else (a worker's stray print, a
// broken message of its own) fails nothing.
func (w *worker) broken(line, dst []byte) []byte {
	n := w.strayLine()
	if n&(n-1) == 0 {
		w.log.Warn("worker wrote a line that is not JSON-RPC to its output; ignored (the line is logged at debug level)", "strayLines", n)
	}
	w.log.Debug("worker wrote a line that is not JSON", "line", safeText(string(line)))
	w.answerParseError()
	if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) || bytes.Contains(line, []byte(`"method"`)) {
		return dst
	}
	m := lineID.FindSubmatch(line)
	if m == nil {
		return dst
	}
	id := string(m[1])
	r := w.take(id)
	if r == nil {
		return dst
	}
	r.malformed.Store(true)
	return fmt.Appendf(dst, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32700,"message":"Parse error"}}`+"\n", id)
}

// strayLine counts a line that is not JSON in the pool's Stats and returns
// the count.
func (w *worker) strayLine() int64 {
	if w.pool == nil {
		return 0
	}
	return w.pool.strays.Add(1)
}

// client answers the worker's requests to the pool. The pool is not an
// editor: it streams agent_message_chunk text to the prompt's caller,
// refuses every permission request (choosing a reject option when there is
// one, cancelling otherwise) and has no file system or terminal to offer,
// which it does not advertise either.
type client struct{ w *worker }

var _ acpsdk.Client = client{}

func (c client) SessionUpdate(_ context.Context, n acpsdk.SessionNotification) error {
	chunk := n.Update.AgentMessageChunk
	if chunk == nil || chunk.Content.Text == nil {
		return nil
	}
	c.w.mu.Lock()
	var t *turn
	if s := c.w.sessions[string(n.SessionId)]; s != nil {
		t = s.turn
	}
	c.w.mu.Unlock()
	if t != nil {
		t.push(chunk.Content.Text.Text)
	}
	return nil
}

func (c client) RequestPermission(_ context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	c.w.log.Debug("refused a permission request", "sessionId", string(p.SessionId))
	for _, kind := range []acpsdk.PermissionOptionKind{acpsdk.PermissionOptionKindRejectOnce, acpsdk.PermissionOptionKindRejectAlways} {
		for _, o := range p.Options {
			if o.Kind == kind {
				return acpsdk.RequestPermissionResponse{Outcome: acpsdk.RequestPermissionOutcome{
					Selected: &acpsdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}, nil
			}
		}
	}
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.RequestPermissionOutcome{
		Cancelled: &acpsdk.RequestPermissionOutcomeCancelled{}}}, nil
}

func (c client) refuse(method string) error {
	c.w.log.Debug("refused a client request", "method", method)
	return acpsdk.NewMethodNotFound(method)
}

func (c client) ReadTextFile(context.Context, acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	return acpsdk.ReadTextFileResponse{}, c.refuse(acpsdk.ClientMethodFsReadTextFile)
}

func (c client) WriteTextFile(context.Context, acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	return acpsdk.WriteTextFileResponse{}, c.refuse(acpsdk.ClientMethodFsWriteTextFile)
}

func (c client) CreateTerminal(context.Context, acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	return acpsdk.CreateTerminalResponse{}, c.refuse(acpsdk.ClientMethodTerminalCreate)
}

func (c client) KillTerminal(context.Context, acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	return acpsdk.KillTerminalResponse{}, c.refuse(acpsdk.ClientMethodTerminalKill)
}

func (c client) TerminalOutput(context.Context, acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	return acpsdk.TerminalOutputResponse{}, c.refuse(acpsdk.ClientMethodTerminalOutput)
}

func (c client) ReleaseTerminal(context.Context, acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	return acpsdk.ReleaseTerminalResponse{}, c.refuse(acpsdk.ClientMethodTerminalRelease)
}

func (c client) WaitForTerminalExit(context.Context, acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	return acpsdk.WaitForTerminalExitResponse{}, c.refuse(acpsdk.ClientMethodTerminalWaitForExit)
}
