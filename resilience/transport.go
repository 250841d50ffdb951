package resilience

import (
	"context"
	"io"
	"net/http"
	"sync"

	"github.com/triage-go/triage/fault"
)

// Transport is an http.RoundTripper that runs each request through a
// Policy: transport errors and error responses are classified (fault.From,
// fault.FromResponse, which reads Retry-After, Retry-After-Ms and the
// RateLimit header fields), and retried as the Policy decides.
//
// Like any RoundTripper it reports HTTP errors as responses: when retries
// run out, or a wait would pass the request's deadline, the last response
// is returned with a nil error, its body unread. A transport error that is
// not retried is returned as it came.
//
// A request whose body cannot be replayed (it has a Body but no GetBody) is
// sent once, still through the breaker and bulkhead. Requests built with
// http.NewRequest from a bytes.Buffer, bytes.Reader or strings.Reader can be
// replayed.
//
// Transport knows HTTP, not the API behind it: it classifies a response by
// its status and headers alone. Under an LLM SDK, wrap the SDK call with Do
// instead, so that the provider package's classifier sees the SDK's error
// (an OpenAI insufficient_quota 429 is not worth retrying; Transport would
// retry it).
type Transport struct {
	// Base sends each attempt. Defaults to http.DefaultTransport.
	Base http.RoundTripper

	// Policy decides the retries. Defaults to one Policy built from the
	// zero Config, shared by every Transport without one.
	Policy *Policy

	// Source names a request's source, whose breaker and bulkhead it uses.
	// Defaults to the request's host.
	Source func(*http.Request) string

	// Idempotent says whether a request may be repeated (see ShouldRetry).
	// Defaults to RFC 9110's idempotent methods (GET, HEAD, OPTIONS, TRACE,
	// PUT, DELETE) and any request that carries an Idempotency-Key header.
	Idempotent func(*http.Request) bool
}

// IdempotentRequest is the default of Transport.Idempotent.
func IdempotentRequest(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete, "":
		return true
	}
	return r.Header.Get("Idempotency-Key") != ""
}

// defaultPolicy is the Policy of Transports without one: one for the
// process, so that their breakers see every call to a source.
var defaultPolicy = sync.OnceValue(func() *Policy { return New(Config{}) })

// responseError carries an error response's fault through the Policy.
type responseError struct{ f *fault.Error }

func (e *responseError) Error() string { return e.f.Error() }
func (e *responseError) Unwrap() error { return e.f }

// RoundTrip sends req through the Policy.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	p := t.Policy
	if p == nil {
		p = defaultPolicy()
	}
	op := Operation{Source: req.URL.Host, Name: req.Method + " " + req.URL.Path}
	if t.Source != nil {
		op.Source = t.Source(req)
	}
	if t.Idempotent != nil {
		op.Idempotent = t.Idempotent(req)
	} else {
		op.Idempotent = IdempotentRequest(req)
	}
	// A body that cannot be replayed is sent once: the breaker, bulkhead
	// and timeouts still apply.
	op.Once = req.Body != nil && req.Body != http.NoBody && req.GetBody == nil

	var last *http.Response // the last error response, kept for the caller
	attempt, sent := 0, false
	resp, err := Do(req.Context(), p, op, func(ctx context.Context) (*http.Response, error) {
		attempt++
		if last != nil {
			drain(last)
			last = nil
		}
		r := req.WithContext(ctx)
		if attempt > 1 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
		sent = true
		resp, err := base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		if f := fault.FromResponse(resp); f != nil && f.Retryable {
			last = resp
			return nil, &responseError{f: f}
		}
		return resp, nil
	})
	if !sent && req.Body != nil {
		req.Body.Close() // a RoundTripper closes the body, even when it sends nothing
	}
	if err == nil {
		return resp, nil
	}
	if last != nil {
		if req.Context().Err() != nil {
			drain(last) // cancelled while waiting: the cancellation is the answer
			return nil, err
		}
		// The last attempt answered with an error status and no retry
		// follows: return the response, as a RoundTripper must.
		return last, nil
	}
	return nil, err
}

// drain reads a little of a response body, so the connection can be reused,
// and closes it.
func drain(resp *http.Response) {
	io.CopyN(io.Discard, resp.Body, 64<<10)
	resp.Body.Close()
}
