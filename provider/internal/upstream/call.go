package upstream

import (
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/triage-go/triage/fault"
)

// callError marks an error that a provider client's HTTP transport returned
// (a refused connection, a reset, a deadline while waiting for the answer):
// nothing in such an error says which provider it came from, so the clients
// that the provider packages build tag it. It adds nothing to the text and
// unwraps to the transport's error.
type callError struct {
	provider string
	err      error
}

func (e *callError) Error() string { return e.err.Error() }
func (e *callError) Unwrap() error { return e.err }

// Tag marks err as coming from the transport of provider's client. A nil err
// stays nil.
func Tag(provider string, err error) error {
	if err == nil {
		return nil
	}
	return &callError{provider: provider, err: err}
}

// Wrap marks err, an error that a call through provider's client returned,
// as provider's, so that FromCall names the provider whatever the error is:
// the bare context error an SDK returns when a deadline passes or the caller
// cancels, an answer the SDK could not decode. A nil err, an error already
// marked as provider's and an error holding a fault are returned as they
// are.
func Wrap(provider string, err error) error {
	if err == nil {
		return nil
	}
	if c, ok := errors.AsType[*callError](err); ok && c != nil && c.provider == provider {
		return err
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	return Tag(provider, err)
}

// Middleware returns an SDK middleware (the shape openai-go's and
// anthropic-sdk-go's option.Middleware share) that tags the errors of the
// calls it passes on, and those of reading their answers' bodies (a stream
// cut short, a deadline passing mid-stream). Installed last, it is the
// innermost middleware, next to the transport.
func Middleware(provider string) func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		res, err := next(req)
		tagBody(provider, res)
		return res, Tag(provider, err)
	}
}

// tagBody makes the errors of reading res's body tagged as provider's.
func tagBody(provider string, res *http.Response) {
	if res == nil || res.Body == nil || res.Body == http.NoBody {
		return
	}
	res.Body = &body{provider: provider, rc: res.Body}
}

// body is an answer's body whose read errors are tagged. io.EOF, which
// readers compare with ==, is returned as it is.
type body struct {
	provider string
	rc       io.ReadCloser
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF {
		err = Tag(b.provider, err)
	}
	return n, err
}

func (b *body) Close() error { return b.rc.Close() }

// Transport returns a RoundTripper that tags the errors of next
// (http.DefaultTransport when nil), and those of reading its answers'
// bodies.
func Transport(provider string, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return roundTripper{provider: provider, next: next}
}

type roundTripper struct {
	provider string
	next     http.RoundTripper
}

func (t roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(req)
	tagBody(t.provider, res)
	return res, Tag(t.provider, err)
}

// FromCall classifies an error tagged by p's client, or marked by Wrap.
// fault's own rules decide the code (a refused connection is
// TRANSPORT_ERROR with rule connection_refused, a deadline TIMEOUT, a
// cancellation CANCELLED); the fault then names the provider. What fault
// does not recognise, and a JSON error (the SDK's, decoding an answer), is
// seed 002's unknown provider error: UPSTREAM_ERROR, not retryable. It
// reports false for errors that carry no tag of p's, so that fault's rules
// apply to them directly.
func (p Provider) FromCall(err error) (*fault.Error, bool) {
	c, ok := errors.AsType[*callError](err)
	if !ok || c == nil || c.provider != p.ID || c.err == nil {
		return nil, false
	}
	// The tag is not in c.err's chain, so this classifier declines it there
	// and fault's own rules run.
	f := fault.From(c.err).Clone()
	switch {
	case f.Classification.Method == fault.MethodFallback:
		f = p.Fault(err, Answer{Debug: f.Debug.Cause}, Unknown(), time.Time{})
	case f.Classification.Method == fault.MethodDecode:
		// A JSON error here is the SDK's, decoding the provider's answer
		// (Wrap marks it): not the caller's invalid request, but seed 002's
		// unknown provider error.
		f = p.Fault(err, Answer{Debug: c.err.Error()}, Unknown(), time.Time{})
	case f.Code == fault.TransportError, f.Code == fault.Timeout:
		f.Message = p.Message(f.Code, f.Retryable)
	}
	f.Cause = err
	f.Source = p.ID
	if f.Debug.ErrorType == "" {
		// The tag is ours; the type that says what failed is the one it
		// wraps.
		f.Debug.ErrorType = reflect.TypeOf(c.err).String()
	}
	if f.Details == nil {
		f.Details = make(map[string]any, 1)
	}
	f.Details[KeyProviderID] = p.ID
	return f, true
}

// MissingCredential is the fault of a client built without its credential:
// CONFIG_ERROR, "missing required credential: apiKey".
func (p Provider) MissingCredential(name string) *fault.Error {
	return fault.New(fault.ConfigError, "missing required credential: "+name,
		fault.WithSource(p.ID), fault.WithDetail(KeyProviderID, p.ID), fault.WithDetail("field", name))
}

// InvalidConfig is the fault of a client the SDK refused to build. Its cause
// keeps the SDK's text only up to where the SDK starts dumping its
// configuration (genai prints its whole ClientConfig, API key included), and
// redacted; it does not wrap the SDK's error, whose text holds the dump.
func (p Provider) InvalidConfig(err error) *fault.Error {
	s := err.Error()
	if i := strings.Index(s, "ClientConfig:"); i >= 0 {
		s = strings.TrimRight(s[:i], " .") + " (configuration omitted)"
	}
	return fault.Wrap(errors.New(fault.Redact(s)), fault.ConfigError, "",
		fault.WithSource(p.ID), fault.WithDetail(KeyProviderID, p.ID))
}
