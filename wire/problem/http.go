package problem

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/triage-go/triage/fault"
)

// maxBody bounds the problem document ReadResponse reads: 1 MiB.
const maxBody = 1 << 20

// ErrNotProblem is the error ReadResponse wraps when a response's
// Content-Type is not application/problem+json.
var ErrNotProblem = errors.New("problem: response is not " + ContentType)

// Write writes err to w as a problem document (see From), in reply to r.
//
// The response's status is the problem's status, and so always equals its
// "status" member. Write sets Content-Type to application/problem+json and
// X-Content-Type-Options to nosniff, deletes any Content-Length the caller
// set, as http.Error does, and sets Retry-After to the "retry_after" member
// when the fault carries a delay (deleting it otherwise), so that header and
// body agree. Instance is chosen by opts (see Options.Instance); a nil r
// leaves it out.
//
// Details and debug values that cannot be encoded as JSON (a NaN, a
// channel) are dropped rather than fail the response.
//
// A nil err is written as INTERNAL_ERROR (500): writing a failure for no
// error is a programming mistake of the caller's, and the client must not
// take the response for a success.
func Write(w http.ResponseWriter, r *http.Request, err error, opts *Options) {
	if err == nil {
		err = fault.New(fault.InternalError, "")
	}
	p := From(err, opts)
	p.Instance = opts.instance(r)
	body, merr := json.Marshal(p)
	if merr != nil {
		p.Details, p.Debug = nil, nil
		body, _ = json.Marshal(p) // strings, numbers and field errors always encode
	}
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", ContentType)
	h.Set("X-Content-Type-Options", "nosniff")
	if p.RetryAfter > 0 {
		h.Set("Retry-After", strconv.FormatInt(p.RetryAfter, 10))
	} else {
		h.Del("Retry-After")
	}
	w.WriteHeader(p.Status)
	w.Write(append(body, '\n'))
}

// HandlerFunc is an HTTP handler that returns an error instead of writing
// one. Its ServeHTTP writes a returned error as a problem with the default
// Options (see Write); Handler chooses the Options.
//
// A HandlerFunc that returns an error must not have written a response: the
// status it wrote could not be the problem's. If it has, ServeHTTP panics
// with http.ErrAbortHandler, which the server answers by aborting the
// response, so that a client never takes a partial response for a
// complete one.
type HandlerFunc func(http.ResponseWriter, *http.Request) error

// ServeHTTP calls f(w, r) and writes the error it returns, if any.
func (f HandlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	serve(f, w, r, nil)
}

// Handler returns an http.Handler that calls f and writes the error it
// returns as a problem with opts, as HandlerFunc does.
func Handler(f HandlerFunc, opts *Options) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serve(f, w, r, opts)
	})
}

func serve(f HandlerFunc, w http.ResponseWriter, r *http.Request, opts *Options) {
	rw := &responseWriter{ResponseWriter: w}
	err := f(rw, r)
	if err == nil {
		return
	}
	if rw.wrote {
		panic(http.ErrAbortHandler)
	}
	Write(w, r, err, opts)
}

// responseWriter records whether a handler has started its response.
type responseWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *responseWriter) WriteHeader(status int) {
	if status >= 200 { // 1xx responses are informational; the real one is still to come
		w.wrote = true
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *responseWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Flush lets a handler stream through a HandlerFunc; it fails silently, as
// http.Flusher does, when the underlying writer cannot flush.
func (w *responseWriter) Flush() {
	w.wrote = true
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ReadResponse reads the problem document in resp's body, for a client. It
// returns an error wrapping ErrNotProblem when resp's Content-Type is not
// application/problem+json, and an error when the body is longer than 1 MiB
// or is not a JSON object (see Parse). It does not close the body.
//
// The response fills in what the document leaves out: Status is the
// response's status, and RetryAfter the delay its Retry-After header asks
// for (see fault.ParseRetryAfter).
func ReadResponse(resp *http.Response) (*Problem, error) {
	ct := resp.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != ContentType {
		return nil, fmt.Errorf("%w: Content-Type is %q", ErrNotProblem, fault.Redact(ct))
	}
	if resp.Body == nil {
		return nil, errors.New("problem: response has no body")
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("problem: read body: %w", err)
	}
	if len(data) > maxBody {
		return nil, fmt.Errorf("problem: body is longer than %d bytes", maxBody)
	}
	p, err := Parse(data)
	if err != nil {
		return nil, err
	}
	if p.Status == 0 && resp.StatusCode >= 100 && resp.StatusCode <= 599 {
		p.Status = resp.StatusCode
	}
	if p.RetryAfter == 0 {
		if d, ok := fault.ParseRetryAfter(resp.Header, time.Now()); ok {
			p.RetryAfter = fault.Seconds(d)
		}
	}
	return p, nil
}
