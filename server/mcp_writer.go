package server

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/triage-go/triage/fault"
)

// mcpWriter is the ResponseWriter the go-sdk writes an /mcp answer to. It
//
//   - calls started once, as the answer's header is written (before the
//     client can read the session id and send its next request);
//   - turns the go-sdk's plain-text errors (http.Error: 400, 403, 404,
//     405, 409, 413, 415, 500) into problems, through fail; the JSON-RPC
//     errors it writes (application/json) go out as they are;
//   - adds a retry field (SEP-1699) to the priming event that opens a
//     POST's SSE stream, and to the comment that opens a GET's;
//   - bounds the writing: each piece of at most mcpWriteChunk bytes must
//     be taken by the client within stall (and the whole answer end by
//     deadline, when set), or the connection is cut. An unread answer
//     otherwise holds its encoded copies in memory (about five times its
//     size, in the go-sdk's buffers) until the client goes away.
type mcpWriter struct {
	http.ResponseWriter
	rc       *http.ResponseController
	stall    time.Duration
	deadline time.Time // zero: none
	retry    string    // the retry field's value, in milliseconds
	started  func()
	fail     func(status int, text string)

	once      sync.Once
	header    bool // WriteHeader was called
	code      int  // the status the go-sdk wrote
	capture   bool // the answer is an http.Error being captured
	status    int
	text      bytes.Buffer
	sse       bool
	firstBody bool // the first piece of the body was written
}

// mcpWriteChunk is the piece of an answer that must be written within the
// stall timeout.
const mcpWriteChunk = 64 << 10

func (w *mcpWriter) start() {
	if w.started != nil {
		w.once.Do(w.started)
	}
}

func (w *mcpWriter) WriteHeader(code int) {
	if w.header {
		return
	}
	w.header, w.code = true, code
	w.start()
	ct := w.Header().Get("Content-Type")
	if code >= 400 && strings.HasPrefix(ct, "text/plain") {
		w.capture, w.status = true, code
		return
	}
	w.sse = strings.HasPrefix(ct, "text/event-stream")
	w.ResponseWriter.WriteHeader(code)
}

func (w *mcpWriter) Write(p []byte) (int, error) {
	if !w.header {
		w.WriteHeader(http.StatusOK)
	}
	if w.capture {
		if room := 4096 - w.text.Len(); room > 0 {
			w.text.Write(p[:min(len(p), room)])
		}
		return len(p), nil
	}
	n := len(p)
	if w.sse && !w.firstBody {
		p = w.withRetry(p)
	}
	w.firstBody = true
	for len(p) > 0 {
		piece := p[:min(len(p), mcpWriteChunk)]
		w.setDeadline()
		if _, err := w.ResponseWriter.Write(piece); err != nil {
			return 0, err
		}
		p = p[len(piece):]
	}
	return n, nil
}

// withRetry adds the retry field to the first event of an SSE answer: the
// go-sdk's priming event ("event: prime\nid: …\ndata: \n\n") or the
// comment that opens a GET stream (": ok\n\n").
func (w *mcpWriter) withRetry(p []byte) []byte {
	retry := "retry: " + w.retry + "\n"
	switch {
	case bytes.HasPrefix(p, []byte("event: prime\n")):
		if i := bytes.Index(p, []byte("\ndata: ")); i >= 0 {
			return append(append(append([]byte{}, p[:i+1]...), retry...), p[i+1:]...)
		}
	case bytes.HasPrefix(p, []byte(": ok\n\n")):
		return append([]byte(": ok\n"+retry+"\n"), p[len(": ok\n\n"):]...)
	}
	return p
}

func (w *mcpWriter) setDeadline() {
	d := time.Now().Add(w.stall)
	if !w.deadline.IsZero() && w.deadline.Before(d) {
		d = w.deadline
	}
	_ = w.rc.SetWriteDeadline(d)
}

// Flush flushes what was written, within the stall timeout.
func (w *mcpWriter) Flush() {
	if w.capture {
		return
	}
	if !w.header {
		w.WriteHeader(http.StatusOK)
	}
	w.setDeadline()
	_ = w.rc.Flush()
}

// finish writes a captured error as a problem, and leaves the connection
// the stall timeout to write the answer's end.
func (w *mcpWriter) finish() {
	w.start()
	if w.capture {
		w.capture = false
		w.fail(w.status, w.text.String())
	}
	w.setDeadline()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *mcpWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// mcpFault is the problem for a plain-text error of the go-sdk's: status
// and text are what it passed to http.Error.
func mcpFault(status int, text string) *fault.Error {
	text = strings.TrimSpace(text)
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	if len(text) > 300 {
		text = text[:300]
	}
	text = fault.Redact(text)
	switch {
	case status == http.StatusNotFound, text == "session user mismatch":
		// Another tenant's session is not found either: a tenant learns
		// nothing of another's sessions, and 404 tells a client to
		// initialize again.
		return fault.New(fault.SessionNotFound, "The MCP session was not found: it expired, was closed or never existed. Initialize a new session (POST an initialize request without Mcp-Session-Id).")
	case strings.HasPrefix(text, "Forbidden: invalid Host header"):
		return fault.New(fault.InvalidRequest, "The Host header names another host than the loopback address the request came to (DNS rebinding protection).",
			fault.WithStatus(http.StatusForbidden))
	case status == http.StatusRequestEntityTooLarge:
		return fault.New(fault.PayloadTooLarge, "The request body is too large for /mcp.")
	case status == http.StatusConflict:
		return fault.New(fault.SessionBusy, "Another request is reading this stream now: "+text+".", fault.WithRetryAfter(time.Second))
	case status >= 500:
		return fault.New(fault.InternalError, "The MCP transport failed to handle the request.")
	}
	if !fault.InvalidRequest.Documents(status) {
		status = http.StatusBadRequest // the code table lists every status a code comes with
	}
	return fault.New(fault.InvalidRequest, "The MCP request is not valid: "+text+".", fault.WithStatus(status))
}

// retryMillis is a retry field's value.
func retryMillis(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
