package providertest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/internal/upstream"
)

// Provider is what Exercise needs of a provider package: how to call the
// provider through the clients the package builds and through the SDK's
// own, how the provider words an error answer, and the package's own cases.
// E is the SDK's type of an error answer (*openai.Error, *anthropic.Error,
// genai.APIError).
type Provider[E error] struct {
	// ID is the package's ProviderID: every fault's Source and
	// details.providerId.
	ID string
	// Key is the API key the clients are built with. No fault may show it.
	Key string
	// Classify is the package's Classify.
	Classify func(error) (*fault.Error, bool)
	// Wrap is the package's Wrap, which marks an error of a call through
	// the package's client as the provider's.
	Wrap func(error) error

	// NewClient builds a client with the package's NewClient and key
	// (empty: whatever the environment holds), and returns its error.
	NewClient func(key string) error
	// Env names the environment variables NewClient reads. All are
	// cleared; then the first is set to Key, which must be enough.
	Env []string

	// Call makes one request through a client the package's NewClient
	// built with key, against url, and returns the SDK's error. Left to
	// the SDK, the client's configuration would retry.
	Call func(ctx context.Context, url, key string) error
	// CallTimeout is Call with Key and the SDK's own per-request timeout
	// set to d (option.WithRequestTimeout, HTTPOptions.Timeout).
	CallTimeout func(ctx context.Context, url string, d time.Duration) error
	// CallPlain makes one request through the SDK's own client, built
	// without the package: retrying as the SDK can when retry is set,
	// not retrying otherwise.
	CallPlain func(ctx context.Context, url string, retry bool) error
	// PlainAttempts is how many requests CallPlain sends, retry set, when
	// every answer is one the SDK retries.
	PlainAttempts int
	// CallHeaders, when set, is the call the RetryAfter cases make instead
	// of Call: one whose error keeps the answer's headers (genai.APIError
	// keeps none).
	CallHeaders func(ctx context.Context, url string) error
	// CallStream reads a stream through a client the package's NewClient
	// built, against url, to its end, and returns the stream's error.
	CallStream func(ctx context.Context, url string) error
	// SentKey returns the key as a request's headers carry it, or "".
	SentKey func(http.Header) string

	// ErrorBody is the provider's error document for an answer of status
	// with message, naming the type or status its API gives that status.
	ErrorBody func(status int, message string) string
	// Rejected is the provider's answer to a key it rejects, with message.
	Rejected func(message string) Reply
	// StreamReply is a stream whose last event is an error carrying data
	// (an ErrorBody).
	StreamReply func(data string) Reply
	// StreamHead is the start of a stream that answers well: its first
	// event or events, after which the suite's server stalls.
	StreamHead string
	// StreamStatus says that an error inside a stream carries an HTTP
	// status of its own (Gemini's error body has its code). Otherwise the
	// stream was a 200, and a fault of its error has no upstream_status.
	StreamStatus bool
	// DeadlineTagged says that the SDK returns its transport's error when
	// a deadline passes (genai wraps it), so the fault names the provider.
	// Otherwise the SDK returns the bare context error, which Classify
	// declines and fault's own rules classify.
	DeadlineTagged bool
	// RetryStatuses are statuses the SDK retries beyond 429, 500 and 503
	// (Anthropic's 529).
	RetryStatuses []int
	// ProviderText are phrases of the provider's own messages, which no
	// fault's Message may repeat.
	ProviderText []string

	// Cases are the package's own status-mapping cases: each Reply answers
	// Call. They run with the suite's under StatusMapping.
	Cases []Case
	// StreamCases are the package's own cases of an error inside a stream:
	// each Reply (a StreamReply) answers CallStream. They run with the
	// suite's under Stream.
	StreamCases []Case
}

// Case is one answer of a provider and the fault it must become.
type Case struct {
	Name  string
	Reply Reply
	Want  Want
}

// Exercise runs the conformance suite every provider package passes, by
// area: MissingCredential, DeclineAllocatesNothing, StatusMapping,
// RetryAfter, Stream, Network, Timeout, ProviderErrors, RetriesOff, Secrets
// and Declines.
// Each area's cases are parallel subtests. MissingCredential (t.Setenv)
// and DeclineAllocatesNothing (testing.AllocsPerRun counts every
// goroutine's allocations) run first and alone, so the test that calls
// Exercise must not call t.Parallel.
func Exercise[E error](t *testing.T, p Provider[E]) {
	t.Run("MissingCredential", func(t *testing.T) { missingCredential(t, p) })
	t.Run("DeclineAllocatesNothing", func(t *testing.T) { declineAllocatesNothing(t, p) })
	for _, area := range []struct {
		name string
		run  func(*testing.T, Provider[E])
	}{
		{"StatusMapping", statusMapping[E]},
		{"RetryAfter", retryAfter[E]},
		{"Stream", stream[E]},
		{"Network", network[E]},
		{"Timeout", timeouts[E]},
		{"ProviderErrors", providerErrors[E]},
		{"RetriesOff", retriesOff[E]},
		{"Secrets", secrets[E]},
		{"Declines", declines[E]},
	} {
		parallel(t, area.name, func(t *testing.T) { area.run(t, p) })
	}
}

// parallel runs f as a parallel subtest.
func parallel(t *testing.T, name string, f func(*testing.T)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		t.Parallel()
		f(t)
	})
}

// Phrases of the answers the suite makes up; no fault's Message may
// repeat them.
const (
	rejectedText    = "Incorrect API key provided"
	notFoundText    = "The model does not exist or you have no access to it."
	rateLimitedText = "Rate limit reached for requests per minute."
	internalText    = "The server had an error while processing the request."
	overloadedText  = "The service is overloaded right now."
)

var suiteText = []string{rejectedText, notFoundText, rateLimitedText, internalText, overloadedText}

// missingCredential: NewClient without a key, and with none in the
// environment, is a CONFIG_ERROR naming the missing credential; with one
// in the environment it builds a client.
func missingCredential[E error](t *testing.T, p Provider[E]) {
	for _, k := range p.Env {
		t.Setenv(k, "")
	}
	err := p.NewClient("")
	f, ok := fault.As(err)
	if !ok {
		t.Fatalf("NewClient(\"\") = %v, want a fault", err)
	}
	if f.Code != fault.ConfigError || f.Category != fault.CategoryConfig || f.Retryable ||
		f.Message != "missing required credential: apiKey" || f.Details["providerId"] != p.ID || f.Source != p.ID {
		t.Errorf("got %s/%s retryable=%v %q %v source %q", f.Code, f.Category, f.Retryable, f.Message, f.Details, f.Source)
	}

	t.Setenv(p.Env[0], p.Key)
	if err := p.NewClient(""); err != nil {
		t.Errorf("NewClient(\"\") with %s set = %v, want a client", p.Env[0], err)
	}
}

// declineAllocatesNothing: the classifier runs on every fault.From of an
// error that is not a fault, so declining one costs no allocation.
func declineAllocatesNothing[E error](t *testing.T, p Provider[E]) {
	err := fmt.Errorf("dialing: %w", errors.Join(context.DeadlineExceeded, statusErr(503)))
	if n := testing.AllocsPerRun(100, func() { _, _ = p.Classify(err) }); n != 0 {
		t.Errorf("Classify of a foreign error allocates %v times", n)
	}
}

// statusMapping: an error answer, through a client built by NewClient,
// becomes the fault its case wants, by the package's classifier, from one
// request. The suite's own cases are answers every provider maps alike;
// the package's Cases follow.
func statusMapping[E error](t *testing.T, p Provider[E]) {
	llm := func(code fault.Code, category fault.Category, retryable bool, status int) Want {
		return Want{Code: code, Category: category, Domain: fault.DomainLLM, Retryable: retryable,
			Details: map[string]any{"upstream_status": status}}
	}
	rejected := p.Rejected(rejectedText + ".")
	cases := []Case{
		{"RejectedKey", rejected, Want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity,
			Details: map[string]any{"upstream_status": rejected.Status}}},
		{"Status404", Reply{Status: 404, Body: p.ErrorBody(404, notFoundText)}, llm(fault.CapabilityNotFound, fault.CategoryUpstream, false, 404)},
		{"Status429", Reply{Status: 429, Body: p.ErrorBody(429, rateLimitedText)}, llm(fault.RateLimited, fault.CategoryUpstream, true, 429)},
		{"Status500", Reply{Status: 500, Body: p.ErrorBody(500, internalText)}, llm(fault.UpstreamError, fault.CategoryUpstream, true, 500)},
		{"Status503", Reply{Status: 503, Body: p.ErrorBody(503, overloadedText)}, llm(fault.ServiceUnavailable, fault.CategoryUpstream, true, 503)},
		{"Status502HTML", Reply{Status: 502, ContentType: "text/html",
			Body: "<html><head><title>502 Bad Gateway</title></head><body>502 Bad Gateway</body></html>"},
			Want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true,
				Rule: p.ID + ":http_502", Details: map[string]any{"upstream_status": 502}}},
	}
	for _, c := range append(cases, p.Cases...) {
		parallel(t, c.Name, func(t *testing.T) {
			srv := NewServer(t, c.Reply)
			err := p.Call(t.Context(), srv.URL, p.Key)
			if err == nil {
				t.Fatal("the call succeeded; want an error")
			}
			f := fault.From(err)
			Check(t, f, p.ID, p.Key, c.Want)
			classified(t, p, err, f, true)
			if got := srv.Hits(); got != 1 {
				t.Errorf("the server saw %d requests, want 1 (the client must not retry)", got)
			}
		})
	}
}

// retryAfter: a retryable fault waits as long as the answer's headers ask
// (Retry-After-Ms, Retry-After as seconds or an HTTP-date, the RateLimit
// field), capped at fault.MaxRetryAfter; without a usable header, not at
// all.
func retryAfter[E error](t *testing.T, p Provider[E]) {
	call := p.CallHeaders
	if call == nil {
		call = func(ctx context.Context, url string) error { return p.Call(ctx, url, p.Key) }
	}
	for _, c := range []struct {
		name     string
		header   map[string]string
		min, max time.Duration
	}{
		{"Seconds", map[string]string{"Retry-After": "20"}, 20 * time.Second, 20 * time.Second},
		{"Milliseconds", map[string]string{"Retry-After-Ms": "1500", "Retry-After": "2"}, 1500 * time.Millisecond, 1500 * time.Millisecond},
		// The date has whole seconds, and the clock runs on until the
		// fault is made.
		{"HTTPDate", map[string]string{"Retry-After": time.Now().Add(2 * time.Minute).UTC().Format(http.TimeFormat)},
			110 * time.Second, 2 * time.Minute},
		{"RateLimitField", map[string]string{"RateLimit": `"default";r=0;t=7`}, 7 * time.Second, 7 * time.Second},
		{"Capped", map[string]string{"Retry-After": "99999999999"}, fault.MaxRetryAfter, fault.MaxRetryAfter},
		{"Unparsable", map[string]string{"Retry-After": "soon"}, 0, 0},
		{"None", nil, 0, 0},
	} {
		parallel(t, c.name, func(t *testing.T) {
			srv := NewServer(t, Reply{Status: 429, Header: c.header, Body: p.ErrorBody(429, rateLimitedText)})
			err := call(t.Context(), srv.URL)
			if err == nil {
				t.Fatal("the call succeeded; want an error")
			}
			f := fault.From(err)
			Check(t, f, p.ID, p.Key, Want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM,
				Retryable: true, RetryAfter: f.RetryAfter /* checked below */, Details: map[string]any{"upstream_status": 429}})
			if f.RetryAfter < c.min || f.RetryAfter > c.max {
				t.Errorf("RetryAfter = %v, want %v to %v", f.RetryAfter, c.min, c.max)
			}
			classified(t, p, err, f, p.CallHeaders == nil)
			if got := srv.Hits(); got != 1 {
				t.Errorf("the server saw %d requests, want 1", got)
			}
		})
	}
}

// stream: an error inside a stream, whose HTTP status was 200, is
// classified by its type or status alone.
func stream[E error](t *testing.T, p Provider[E]) {
	status := func(s int) map[string]any {
		if p.StreamStatus {
			return map[string]any{"upstream_status": s}
		}
		return nil
	}
	cases := []Case{
		{"Status429", p.StreamReply(p.ErrorBody(429, rateLimitedText)),
			Want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Details: status(429)}},
		{"Status500", p.StreamReply(p.ErrorBody(500, internalText)),
			Want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Details: status(500)}},
	}
	for _, c := range append(cases, p.StreamCases...) {
		parallel(t, c.Name, func(t *testing.T) {
			srv := NewServer(t, c.Reply)
			err := p.CallStream(t.Context(), srv.URL)
			if err == nil {
				t.Fatal("the stream ended without an error")
			}
			f := fault.From(err)
			Check(t, f, p.ID, p.Key, c.Want)
			if !strings.HasPrefix(f.Classification.Rule, p.ID+":") {
				t.Errorf("rule = %q, want the %s classifier's", f.Classification.Rule, p.ID)
			}
			if _, ok := f.Details["upstream_status"]; ok && !p.StreamStatus {
				t.Errorf("details.upstream_status = %v; a stream's error event has no status of its own", f.Details["upstream_status"])
			}
			ownMessage(t, p, f)
		})
	}
}

// network: a refused connection is TRANSPORT_ERROR, rule
// connection_refused (never sent, so safe to retry); a client built by
// NewClient tags it as the provider's, a plain SDK client leaves it to
// fault's own rules.
func network[E error](t *testing.T, p Provider[E]) {
	parallel(t, "ConnectionRefused", func(t *testing.T) {
		err := p.Call(t.Context(), ClosedURL(t), p.Key)
		Check(t, fault.From(err), p.ID, p.Key, Want{Code: fault.TransportError, Category: fault.CategoryTransport, Domain: fault.DomainSystem,
			Retryable: true, Rule: fault.RuleConnectionRefused})
		if _, ok := p.Classify(err); !ok {
			t.Error("Classify declined a tagged transport error of its own client")
		}
	})
	parallel(t, "ConnectionRefusedPlainClient", func(t *testing.T) {
		err := p.CallPlain(t.Context(), ClosedURL(t), false)
		if _, ok := p.Classify(err); ok {
			t.Error("Classify claimed an untagged network error; fault's own rules should apply")
		}
		f := fault.From(err)
		if f.Code != fault.TransportError || !f.Retryable || f.Classification.Rule != fault.RuleConnectionRefused {
			t.Errorf("got %s retryable=%v rule=%s, want TRANSPORT_ERROR retryable rule=connection_refused", f.Code, f.Retryable, f.Classification.Rule)
		}
	})
}

// timeouts: a passed deadline, the caller's or the SDK's per-request
// timeout, is TIMEOUT, retryable, after one request.
func timeouts[E error](t *testing.T, p Provider[E]) {
	deadline := func(t *testing.T, err error) *fault.Error {
		t.Helper()
		// Marked with Wrap, every deadline names the provider.
		timeout := Want{Code: fault.Timeout, Category: fault.CategoryTimeout, Domain: fault.DomainSystem, Retryable: true}
		Check(t, fault.From(p.Wrap(err)), p.ID, p.Key, timeout)
		f := fault.From(err)
		if p.DeadlineTagged {
			Check(t, f, p.ID, p.Key, timeout)
			return f
		}
		if _, ok := p.Classify(err); ok {
			t.Error("Classify claimed a bare context error; fault's own rules should apply")
		}
		if f.Code != fault.Timeout || f.Category != fault.CategoryTimeout || !f.Retryable {
			t.Errorf("got %s/%s retryable=%v, want TIMEOUT/TIMEOUT retryable", f.Code, f.Category, f.Retryable)
		}
		return f
	}
	parallel(t, "ContextDeadline", func(t *testing.T) {
		srv := NewServer(t, Reply{Delay: 10 * time.Second})
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		err := p.Call(ctx, srv.URL, p.Key)
		if f := deadline(t, err); f.Classification.Rule != "context.DeadlineExceeded" {
			t.Errorf("rule = %q, want context.DeadlineExceeded", f.Classification.Rule)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the SDK hid the deadline: %v", err)
		}
	})
	parallel(t, "ClientTimeout", func(t *testing.T) {
		srv := NewServer(t, Reply{Delay: 10 * time.Second})
		deadline(t, p.CallTimeout(t.Context(), srv.URL, 50*time.Millisecond))
		if got := srv.Hits(); got != 1 {
			t.Errorf("the server saw %d requests, want 1 (the SDK retries a timed-out attempt unless its retries are off)", got)
		}
	})
}

// providerErrors: seed 002's provider table, through a client built by
// NewClient against a local server: each error, marked with the package's
// Wrap, is a fault with the table's category and retryability and with
// details.providerId, and the mark changes nothing else. An error the
// client itself names as the provider's (its SDK's error answers, its
// transport's tagged errors, a body read cut short) does so unmarked; the
// bare context errors that OpenAI's and Anthropic's SDKs return, and an
// SDK's own errors, need the mark.
func providerErrors[E error](t *testing.T, p Provider[E]) {
	serve := func(t *testing.T, r Reply) string { return NewServer(t, r).URL }
	call := func(r Reply) func(*testing.T) error {
		return func(t *testing.T) error { return p.Call(t.Context(), serve(t, r), p.Key) }
	}
	callHeaders := call
	if p.CallHeaders != nil {
		callHeaders = func(r Reply) func(*testing.T) error {
			return func(t *testing.T) error { return p.CallHeaders(t.Context(), serve(t, r)) }
		}
	}
	// within calls f with a context that ends, by its deadline or by
	// cancel, 100ms from now.
	within := func(cancel bool, f func(context.Context) error) error {
		ctx, stop := context.WithTimeout(context.Background(), 100*time.Millisecond)
		if cancel {
			ctx, stop = context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, stop)
		}
		defer stop()
		return f(ctx)
	}
	stalled := Reply{ContentType: "text/event-stream", Body: p.StreamHead, Hold: 10 * time.Second}
	slow := Reply{Delay: 10 * time.Second}
	for _, c := range []struct {
		name       string
		call       func(*testing.T) error
		code       fault.Code
		category   fault.Category
		retryable  bool
		retryAfter time.Duration
		// named says that the fault names the provider unmarked.
		named bool
	}{
		{"Unauthorized401", call(Reply{Status: 401, Body: p.ErrorBody(401, rejectedText)}),
			fault.ProviderAuthFailed, fault.CategoryAuth, false, 0, true},
		{"RateLimited429RetryAfter", callHeaders(Reply{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: p.ErrorBody(429, rateLimitedText)}),
			fault.RateLimited, fault.CategoryUpstream, true, 7 * time.Second, true},
		{"BadRequest400", call(Reply{Status: 400, Body: p.ErrorBody(400, "Invalid value for 'temperature'.")}),
			fault.UpstreamError, fault.CategoryUpstream, false, 0, true},
		{"InternalServerError500", call(Reply{Status: 500, Body: p.ErrorBody(500, internalText)}),
			fault.UpstreamError, fault.CategoryUpstream, true, 0, true},
		{"ConnectionRefused", func(t *testing.T) error { return p.Call(t.Context(), ClosedURL(t), p.Key) },
			fault.TransportError, fault.CategoryTransport, true, 0, true},
		{"RequestTimeout", func(t *testing.T) error { return p.CallTimeout(t.Context(), serve(t, slow), 50*time.Millisecond) },
			fault.Timeout, fault.CategoryTimeout, true, 0, p.DeadlineTagged},
		{"CallerDeadline", func(t *testing.T) error {
			url := serve(t, slow)
			return within(false, func(ctx context.Context) error { return p.Call(ctx, url, p.Key) })
		}, fault.Timeout, fault.CategoryTimeout, true, 0, p.DeadlineTagged},
		{"Cancelled", func(t *testing.T) error {
			url := serve(t, slow)
			return within(true, func(ctx context.Context) error { return p.Call(ctx, url, p.Key) })
		}, fault.Cancelled, fault.CategoryTransport, false, 0, p.DeadlineTagged},
		{"UndecodableAnswer", call(Reply{Body: `{"id": "x", "oops`}),
			fault.UpstreamError, fault.CategoryUpstream, false, 0, false},
		{"StreamStalledDeadline", func(t *testing.T) error {
			url := serve(t, stalled)
			return within(false, func(ctx context.Context) error { return p.CallStream(ctx, url) })
		}, fault.Timeout, fault.CategoryTimeout, true, 0, true},
		{"StreamStalledCancelled", func(t *testing.T) error {
			url := serve(t, stalled)
			return within(true, func(ctx context.Context) error { return p.CallStream(ctx, url) })
		}, fault.Cancelled, fault.CategoryTransport, false, 0, true},
	} {
		parallel(t, c.name, func(t *testing.T) {
			start := time.Now()
			err := c.call(t)
			if err == nil {
				t.Fatal("the call succeeded; want an error")
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the call took %v to fail", d)
			}
			f := fault.From(p.Wrap(err))
			if f.Code != c.code || f.Category != c.category || f.Retryable != c.retryable || f.RetryAfter != c.retryAfter {
				t.Errorf("got %s/%s retryable=%v retryAfter=%v, want %s/%s retryable=%v retryAfter=%v",
					f.Code, f.Category, f.Retryable, f.RetryAfter, c.code, c.category, c.retryable, c.retryAfter)
			}
			if got := f.Details["providerId"]; got != p.ID || f.Source != p.ID {
				t.Errorf("details.providerId = %v, Source = %q; want %q", got, f.Source, p.ID)
			}
			NoSecret(t, f, p.Key)
			ownMessage(t, p, f)
			// The cause is the call's error, marked or not (an error of a
			// type that does not compare, genai.APIError, by its text).
			if !errors.Is(f, err) && !sameError(f.Cause, err) && !sameError(errors.Unwrap(f.Cause), err) {
				t.Errorf("Cause = %v, want the call's error", f.Cause)
			}
			bare := fault.From(err)
			if got := bare.Details["providerId"]; (got == p.ID) != c.named {
				t.Errorf("unmarked, details.providerId = %v; want it named: %v", got, c.named)
			}
			if c.named && (bare.Code != f.Code || bare.Retryable != f.Retryable || bare.RetryAfter != f.RetryAfter) {
				t.Errorf("Wrap changed the fault: %s retryable=%v unmarked, %s retryable=%v marked", bare.Code, bare.Retryable, f.Code, f.Retryable)
			}
		})
	}
	parallel(t, "WrapKeepsNilAndFaults", func(t *testing.T) {
		if p.Wrap(nil) != nil {
			t.Error("Wrap(nil) is not nil")
		}
		f := fault.New(fault.SessionBusy, "")
		if got := p.Wrap(f); got != error(f) {
			t.Errorf("Wrap(fault) = %v, want the fault itself", got)
		}
		marked := p.Wrap(context.Canceled)
		if p.Wrap(marked) != marked {
			t.Error("Wrap marked an error twice")
		}
	})
}

// retriesOff: a client built by NewClient sends each call once, whatever
// the SDK would retry: the resilience layer owns retries. The SDK's own
// client shows that the server would see its retries.
func retriesOff[E error](t *testing.T, p Provider[E]) {
	for _, status := range append([]int{429, 500, 503}, p.RetryStatuses...) {
		parallel(t, fmt.Sprint(status), func(t *testing.T) {
			reply := Reply{Status: status, Header: map[string]string{"retry-after-ms": "10", "x-should-retry": "true"},
				Body: p.ErrorBody(status, "Please try again.")}
			srv := NewServer(t, reply)
			for range 2 {
				if err := p.Call(t.Context(), srv.URL, p.Key); err == nil {
					t.Fatal("the call succeeded; want an error")
				}
			}
			if got := srv.Hits(); got != 2 {
				t.Errorf("two calls reached the server %d times, want 2", got)
			}
			if got := p.SentKey(srv.LastHeader()); got != p.Key {
				t.Errorf("the request carried key %q, want the client's", got)
			}

			plain := NewServer(t, reply)
			if err := p.CallPlain(t.Context(), plain.URL, true); err == nil {
				t.Fatal("the plain client's call succeeded; want an error")
			}
			if got := plain.Hits(); got != int64(p.PlainAttempts) {
				t.Errorf("the plain SDK client sent %d requests, want %d: the test cannot see retries", got, p.PlainAttempts)
			}
		})
	}
}

// secrets: the key appears nowhere a fault is shown, even when a hostile
// server echoes it, and whatever its shape (NewClient registers it with
// fault.RegisterSecret); the provider's message stays in debug output.
func secrets[E error](t *testing.T, p Provider[E]) {
	echo := func(key string) string {
		return rejectedText + ": " + key + ". Authorization: Bearer " + key + "; x-api-key: " + key + "; x-goog-api-key: " + key
	}
	for _, c := range []struct{ name, key, message string }{
		{"Rejected", p.Key, rejectedText + "."},
		{"Echoed", p.Key, echo(p.Key)},
		{"UnshapedKeyEchoed", "gsk_7f3aQ9zz1LmN0pqRunshaped", echo("gsk_7f3aQ9zz1LmN0pqRunshaped")},
	} {
		parallel(t, c.name, func(t *testing.T) {
			srv := NewServer(t, p.Rejected(c.message))
			err := p.Call(t.Context(), srv.URL, c.key)
			if err == nil {
				t.Fatal("the call succeeded; want an error")
			}
			f := fault.From(err)
			NoSecret(t, f, c.key)
			if strings.Contains(f.Error(), c.key) {
				t.Errorf("the fault's Error() carries the key: %s", f.Error())
			}
			if debug := Shown(t, f)["json debug"]; !strings.Contains(debug, rejectedText) {
				t.Errorf("debug output lost the provider's message: %s", debug)
			}
		})
	}
}

// declines: Classify claims only its SDK's errors and its own client's
// transport errors; fault's own rules classify everything else.
func declines[E error](t *testing.T, p Provider[E]) {
	errs := map[string]error{
		"Nil":                 nil,
		"PlainRateLimit":      errors.New("rate limit exceeded"),
		"PlainOverloaded":     errors.New("overloaded_error"),
		"PlainStatus":         errors.New("RESOURCE_EXHAUSTED"),
		"Deadline":            context.DeadlineExceeded,
		"WrappedDeadline":     fmt.Errorf("calling: %w", context.DeadlineExceeded),
		"Canceled":            context.Canceled,
		"Fault":               fault.New(fault.RateLimited, ""),
		"StatusCoderFromElse": statusErr(429),
	}
	for _, id := range []string{"openai", "anthropic", "google-gemini", "acme"} {
		if id != p.ID {
			errs["OtherProvidersCall/"+id] = upstream.Tag(id, errors.New("connection refused"))
		}
	}
	if reflect.TypeFor[E]().Kind() == reflect.Pointer {
		var typedNil E
		errs["TypedNil"] = fmt.Errorf("w: %w", typedNil)
	}
	for name, err := range errs {
		parallel(t, name, func(t *testing.T) {
			if f, ok := p.Classify(err); ok {
				t.Errorf("Classify(%v) = %v, true; want false", err, f)
			}
		})
	}
}

// classified fails t unless f, which fault.From made of err, is the
// package classifier's work: its method and rule, its cause err (in whose
// chain is the SDK's E, when sdk is set), the same as Classify's, and its
// Message Triage's own.
func classified[E error](t *testing.T, p Provider[E], err error, f *fault.Error, sdk bool) {
	t.Helper()
	if f.Classification.Method != fault.MethodClassifier || !strings.HasPrefix(f.Classification.Rule, p.ID+":") {
		t.Errorf("classified by %s rule %q, want the %s classifier", f.Classification.Method, f.Classification.Rule, p.ID)
	}
	if !sameError(f.Cause, err) {
		t.Errorf("Cause = %v, want the error the call returned", f.Cause)
	}
	if _, ok := errors.AsType[E](f); sdk && !ok {
		t.Errorf("errors.AsType[%s](fault) = false", reflect.TypeFor[E]())
	}
	sameAsClassify(t, p, err, f)
	ownMessage(t, p, f)
}

// sameAsClassify fails t unless the package's Classify makes of err what
// fault.From made: the registered classifier is Classify. (A delay from an
// HTTP-date shrinks between the two.)
func sameAsClassify[E error](t *testing.T, p Provider[E], err error, f *fault.Error) {
	t.Helper()
	g, ok := p.Classify(err)
	if !ok || g.Code != f.Code || g.Retryable != f.Retryable || (g.RetryAfter-f.RetryAfter).Abs() > time.Second {
		t.Errorf("Classify = %v, %v; want the same as fault.From", g, ok)
	}
}

// ownMessage fails t if f's Message repeats the provider's text.
func ownMessage[E error](t *testing.T, p Provider[E], f *fault.Error) {
	t.Helper()
	for _, s := range append(p.ProviderText, suiteText...) {
		if strings.Contains(f.Message, s) {
			t.Errorf("Message carries the provider's text: %q", f.Message)
		}
	}
}

// sameError reports whether a and b are the same error. Errors of a type
// that does not compare (genai.APIError holds a slice) are the same when
// their texts are.
func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	if ta := reflect.TypeOf(a); ta == reflect.TypeOf(b) && !ta.Comparable() {
		return a.Error() == b.Error()
	}
	return a == b
}

// statusErr is an error of someone else's that has a status code.
type statusErr int

func (s statusErr) Error() string   { return fmt.Sprint("status ", int(s)) }
func (s statusErr) StatusCode() int { return int(s) }
