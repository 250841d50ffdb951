package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
)

var p = Provider{ID: "acme", Name: "Acme"}

func TestByStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status    int
		code      fault.Code
		retryable bool
	}{
		{400, fault.UpstreamError, false},
		{401, fault.ProviderAuthFailed, false},
		{402, fault.QuotaExhausted, false},
		{403, fault.ProviderAuthFailed, false},
		{404, fault.CapabilityNotFound, false},
		{408, fault.Timeout, true},
		{413, fault.PayloadTooLarge, false},
		{422, fault.UpstreamError, false},
		{429, fault.RateLimited, true},
		{500, fault.UpstreamError, true},
		{503, fault.ServiceUnavailable, true},
		{529, fault.ServiceUnavailable, true},
		{0, fault.UpstreamError, false},
		{200, fault.UpstreamError, false},
		{302, fault.UpstreamError, false},
		{600, fault.UpstreamError, false},
	}
	for _, tt := range tests {
		v := ByStatus(tt.status)
		if v.Code != tt.code || v.Retryable != tt.retryable {
			t.Errorf("ByStatus(%d) = %s retryable=%v, want %s retryable=%v", tt.status, v.Code, v.Retryable, tt.code, tt.retryable)
		}
	}
}

func TestFaultDelay(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := http.Header{"Retry-After": {"20"}}
	tests := []struct {
		name string
		a    Answer
		v    Verdict
		want time.Duration
	}{
		{"Header", Answer{Header: h}, Verdict{Code: fault.RateLimited, Retryable: true}, 20 * time.Second},
		{"HeaderBeatsBody", Answer{Header: h, RetryDelay: 3 * time.Second, HasRetryDelay: true}, Verdict{Code: fault.RateLimited, Retryable: true}, 20 * time.Second},
		{"Body", Answer{RetryDelay: 3 * time.Second, HasRetryDelay: true}, Verdict{Code: fault.RateLimited, Retryable: true}, 3 * time.Second},
		{"BodyCapped", Answer{RetryDelay: 1000 * time.Hour, HasRetryDelay: true}, Verdict{Code: fault.RateLimited, Retryable: true}, fault.MaxRetryAfter},
		{"NotRetryable", Answer{Header: h}, Verdict{Code: fault.QuotaExhausted}, 0},
	}
	for _, tt := range tests {
		f := p.Fault(errors.New("x"), tt.a, tt.v, now)
		if f.RetryAfter != tt.want {
			t.Errorf("%s: RetryAfter = %v, want %v", tt.name, f.RetryAfter, tt.want)
		}
	}
}

func TestFaultFacets(t *testing.T) {
	t.Parallel()
	cause := errors.New("sdk error")
	f := p.Fault(cause, Answer{Status: 529, Type: "overloaded_error", RequestID: "req_1", Debug: "raw text"},
		Verdict{Code: fault.ServiceUnavailable, Retryable: true, Rule: "overloaded_error", Confidence: ConfidenceTyped}, time.Now())
	if f.Category != fault.CategoryUpstream || f.Domain != fault.DomainLLM || f.Source != "acme" || f.Cause != cause {
		t.Errorf("got %s/%s source %q cause %v", f.Category, f.Domain, f.Source, f.Cause)
	}
	if f.Classification != (fault.Classification{Method: fault.MethodClassifier, Rule: "acme:overloaded_error", Confidence: ConfidenceTyped}) {
		t.Errorf("classification = %+v", f.Classification)
	}
	want := map[string]any{"providerId": "acme", "providerType": "overloaded_error", "requestId": "req_1", "upstream_status": 529}
	if fmt.Sprint(f.Details) != fmt.Sprint(want) {
		t.Errorf("details = %v, want %v", f.Details, want)
	}
	if f.Debug.Cause != "raw text" {
		t.Errorf("debug cause = %q", f.Debug.Cause)
	}
	auth := p.Fault(cause, Answer{}, Verdict{Code: fault.ProviderAuthFailed}, time.Now())
	if auth.Domain != fault.DomainSecurity || auth.Category != fault.CategoryAuth {
		t.Errorf("auth: %s/%s", auth.Category, auth.Domain)
	}
	long := p.Fault(cause, Answer{Type: strings.Repeat("é", 300)}, Unknown(), time.Now())
	if s := long.Details["providerType"].(string); len(s) > maxDetail || !strings.HasPrefix(strings.Repeat("é", 300), s) {
		t.Errorf("a long type was not cut on a rune boundary: %d bytes", len(s))
	}
}

func TestMessages(t *testing.T) {
	t.Parallel()
	for _, s := range fault.Codes() {
		for _, r := range []bool{false, true} {
			if m := p.Message(s.Code, r); m == "" || m != strings.TrimSpace(m) {
				t.Errorf("Message(%s, %v) = %q", s.Code, r, m)
			}
		}
	}
}

func TestFromCall(t *testing.T) {
	t.Parallel()
	t.Run("Fallback", func(t *testing.T) {
		t.Parallel()
		err := fmt.Errorf("call: %w", Tag("acme", errors.New("something odd")))
		f, ok := p.FromCall(err)
		if !ok || f.Code != fault.UpstreamError || f.Retryable || f.Classification.Rule != "acme:unknown" || f.Details["providerId"] != "acme" {
			t.Errorf("FromCall = %v, %v", f, ok)
		}
		if d := f.Payload(true).Debug; d == nil || d.ErrorType != "*errors.errorString" || d.Cause != "something odd" {
			t.Errorf("debug = %+v, want the wrapped error's type and text", d)
		}
	})
	t.Run("Cancelled", func(t *testing.T) {
		t.Parallel()
		f, ok := p.FromCall(Tag("acme", context.Canceled))
		if !ok || f.Code != fault.Cancelled || f.Source != "acme" || f.Details["providerId"] != "acme" {
			t.Errorf("FromCall = %v, %v", f, ok)
		}
	})
	t.Run("OtherProvider", func(t *testing.T) {
		t.Parallel()
		if _, ok := p.FromCall(Tag("other", context.Canceled)); ok {
			t.Error("FromCall claimed another provider's call")
		}
	})
	t.Run("FaultInside", func(t *testing.T) {
		t.Parallel()
		inner := fault.New(fault.SessionBusy, "")
		f, ok := p.FromCall(Tag("acme", inner))
		if !ok || f.Code != fault.SessionBusy || f == inner || inner.Details != nil {
			t.Errorf("FromCall = %v, %v; the inner fault must be copied, not changed", f, ok)
		}
	})
	t.Run("Chains", func(t *testing.T) {
		t.Parallel()
		// The tag is found wherever errors.AsType finds it: behind %w, in
		// an errors.Join and in a multi-%w fmt.Errorf.
		tag := Tag("acme", context.Canceled)
		for name, err := range map[string]error{
			"Wrapped": fmt.Errorf("a: %w", fmt.Errorf("b: %w", tag)),
			"Joined":  errors.Join(errors.New("first"), fmt.Errorf("c: %w", tag)),
			"Multi":   fmt.Errorf("%w and %w", errors.New("first"), tag),
		} {
			f, ok := p.FromCall(err)
			if !ok || f.Code != fault.Cancelled || f.Cause != err || f.Details["providerId"] != "acme" {
				t.Errorf("%s: FromCall = %v, %v", name, f, ok)
			}
		}
		if _, ok := p.FromCall(errors.Join(errors.New("a"), errors.New("b"))); ok {
			t.Error("FromCall claimed a joined error without a tag")
		}
	})
	t.Run("Untagged", func(t *testing.T) {
		t.Parallel()
		if _, ok := p.FromCall(errors.New("x")); ok {
			t.Error("FromCall claimed an untagged error")
		}
		if Tag("acme", nil) != nil {
			t.Error("Tag(nil) is not nil")
		}
	})
}

func TestInvalidConfig(t *testing.T) {
	t.Parallel()
	key := "AIzaSyTriageTestKey0123456789abcdefABCD"
	sdkErr := fmt.Errorf("project and location are not supported for Gemini API backend. ClientConfig: &genai.ClientConfig{APIKey:%q, Project:\"p\"}", key)
	f := p.InvalidConfig(sdkErr)
	if f.Code != fault.ConfigError || f.Details["providerId"] != "acme" {
		t.Errorf("got %s %v", f.Code, f.Details)
	}
	if s := f.Error(); strings.Contains(s, key) || s != "CONFIG_ERROR: The service is misconfigured. Please contact the operator" {
		t.Errorf("Error() = %q", s)
	}
	if f.Cause == nil || strings.Contains(f.Cause.Error(), key) || !strings.Contains(f.Cause.Error(), "project and location are not supported") {
		t.Errorf("cause = %v, want the SDK's reason without the key", f.Cause)
	}
	if errors.Is(f, sdkErr) {
		t.Error("the fault wraps the SDK's error, whose text holds the key")
	}
}

func TestWrap(t *testing.T) {
	t.Parallel()
	if Wrap("acme", nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
	inner := fault.New(fault.SessionBusy, "")
	if got := Wrap("acme", fmt.Errorf("x: %w", inner)); !errors.Is(got, inner) || errors.Unwrap(got) == nil {
		t.Errorf("Wrap of a fault's chain = %v, want it unchanged", got)
	}
	marked := Wrap("acme", context.DeadlineExceeded)
	if Wrap("acme", marked) != marked {
		t.Error("Wrap marked an error twice")
	}
	f, ok := p.FromCall(marked)
	if !ok || f.Code != fault.Timeout || !f.Retryable || f.Details["providerId"] != "acme" || !errors.Is(f, context.DeadlineExceeded) {
		t.Errorf("FromCall(Wrap(DeadlineExceeded)) = %v, %v", f, ok)
	}
	// Another provider's mark is not this one's.
	if _, ok := p.FromCall(Wrap("other", context.DeadlineExceeded)); ok {
		t.Error("FromCall claimed another provider's mark")
	}
}

func TestFromCallDecode(t *testing.T) {
	t.Parallel()
	var v struct{ A int }
	jerr := json.Unmarshal([]byte(`{"A":`), &v)
	f, ok := p.FromCall(Wrap("acme", fmt.Errorf("decoding: %w", jerr)))
	if !ok || f.Code != fault.UpstreamError || f.Category != fault.CategoryUpstream || f.Retryable ||
		f.Classification.Rule != "acme:unknown" || f.Details["providerId"] != "acme" {
		t.Errorf("FromCall(JSON error) = %v, %v; want the unknown provider error", f, ok)
	}
	if d := f.Payload(true).Debug; d == nil || !strings.Contains(d.Cause, "unexpected end of JSON input") {
		t.Errorf("debug = %+v, want the decoder's text", d)
	}
}

// errReader fails every read with err.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func TestBodyTagged(t *testing.T) {
	t.Parallel()
	answer := func(err error) *http.Response {
		return &http.Response{StatusCode: 200, Body: io.NopCloser(io.MultiReader(strings.NewReader("data"), errReader{err}))}
	}
	for name, do := range map[string]func(*http.Request, error) (*http.Response, error){
		"Middleware": func(req *http.Request, err error) (*http.Response, error) {
			return Middleware("acme")(req, func(*http.Request) (*http.Response, error) { return answer(err), nil })
		},
		"Transport": func(req *http.Request, err error) (*http.Response, error) {
			return Transport("acme", roundTrip(func(*http.Request) (*http.Response, error) { return answer(err), nil })).RoundTrip(req)
		},
	} {
		req := httptest.NewRequest("GET", "http://example.test/", nil)
		res, err := do(req, context.Canceled)
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(res.Body)
		if string(data) != "data" {
			t.Errorf("%s: read %q", name, data)
		}
		if f, ok := p.FromCall(err); !ok || f.Code != fault.Cancelled || f.Details["providerId"] != "acme" {
			t.Errorf("%s: a read error is not tagged: %v", name, err)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: the tag hid the read error: %v", name, err)
		}
		// io.EOF stays itself: readers compare it with ==.
		res, _ = do(req, io.EOF)
		if _, err := res.Body.Read(make([]byte, 8)); err != nil {
			t.Fatal(err)
		}
		if _, err := res.Body.Read(make([]byte, 8)); err != io.EOF {
			t.Errorf("%s: EOF = %v, want io.EOF itself", name, err)
		}
		if err := res.Body.Close(); err != nil {
			t.Errorf("%s: Close = %v", name, err)
		}
	}
	// No body, no wrapper.
	res, _ := Middleware("acme")(httptest.NewRequest("HEAD", "http://example.test/", nil),
		func(*http.Request) (*http.Response, error) { return &http.Response{Body: http.NoBody}, nil })
	if res.Body != http.NoBody {
		t.Errorf("http.NoBody was wrapped: %T", res.Body)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
