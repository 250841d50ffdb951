package fault_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
)

// A classifier may return a shared sentinel; From must change a copy, or
// one caller's cause would stick to another's fault (and race).
type sentinelErr struct{ tenant string }

func (e sentinelErr) Error() string { return "provider overloaded for tenant " + e.tenant }

var overloaded = fault.New(fault.ServiceUnavailable, "Provider overloaded.", fault.WithSource("acme"))

var registerSentinel = sync.OnceFunc(func() {
	fault.Register(func(err error) (*fault.Error, bool) {
		var s sentinelErr
		if errors.As(err, &s) {
			return overloaded, true
		}
		return nil, false
	})
})

func TestClassifierSentinelUntouched(t *testing.T) {
	t.Parallel()
	registerSentinel()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			tenant := fmt.Sprint("tenant-", i)
			for range 50 {
				f := fault.From(sentinelErr{tenant})
				if f == overloaded {
					t.Error("From returned the classifier's sentinel itself")
					return
				}
				if !strings.Contains(f.Cause.Error(), tenant+"") || !strings.HasSuffix(f.Cause.Error(), tenant) {
					t.Errorf("cause %q is not this caller's (%s)", f.Cause, tenant)
					return
				}
			}
		})
	}
	wg.Wait()
	if overloaded.Cause != nil || overloaded.Classification.Method != fault.MethodExplicit {
		t.Errorf("the sentinel was changed: %+v", overloaded)
	}
}

type nilDeref struct{ msg string }

func (e *nilDeref) Error() string { return e.msg } // panics on a nil receiver

type statusOK struct{ error }

func (statusOK) StatusCode() int { return 200 }
func (s statusOK) Unwrap() error { return s.error }

type asWrapper struct{ f *fault.Error }

func (asWrapper) Error() string { return "wrapped" }
func (w asWrapper) As(target any) bool {
	if p, ok := target.(**fault.Error); ok {
		*p = w.f
		return true
	}
	return false
}

func TestFromRobust(t *testing.T) {
	t.Parallel()
	var typedNil *nilDeref
	var nilURL *url.Error
	for _, err := range []error{typedNil, fmt.Errorf("step: %w", typedNil), fmt.Errorf("call: %w", nilURL), error(nilURL)} {
		f := fault.From(err) // must not panic
		if f.Code != fault.AgentExecutionError || f.Retryable {
			t.Errorf("From(%T) = %s %v", err, f.Code, f.Retryable)
		}
		if _, err := json.Marshal(f.Payload(true)); err != nil {
			t.Error(err)
		}
		slog.New(slog.NewJSONHandler(&bytes.Buffer{}, nil)).Error("x", "fault", f) // must not panic
	}
	if got := fault.From(typedNil); got.Debug.Cause != "<nil *fault_test.nilDeref>" || got.Classification.Rule != "broken_error" {
		t.Errorf("typed nil: rule %q, debug cause %q", got.Classification.Rule, got.Debug.Cause)
	}

	// A json.UnmarshalTypeError built by hand, without its Type.
	f := fault.From(&json.UnmarshalTypeError{Value: "string", Field: "n"})
	if f.Code != fault.InvalidRequest || f.FieldErrors[0].Message != "must be another type, not string" {
		t.Errorf("UnmarshalTypeError without Type: %+v", f)
	}

	// A wrapper reporting 200 does not hide the 429 inside it.
	inner := &respErr{&http.Response{StatusCode: 429, Status: "429", Header: http.Header{"Retry-After": {"3"}}}}
	if f := fault.From(statusOK{inner}); f.Code != fault.RateLimited || f.RetryAfter != 3*time.Second {
		t.Errorf("status under a 200 wrapper: %s %v", f.Code, f.RetryAfter)
	}

	// A custom As method counts, as errors.As honours it.
	want := fault.New(fault.SessionBusy, "")
	if f := fault.From(asWrapper{want}); f != want {
		t.Errorf("custom As ignored: %+v", f)
	}
	if f, ok := fault.As(asWrapper{want}); !ok || f != want {
		t.Error("fault.As ignores a custom As")
	}

	// The nil fault's methods do not panic.
	var nf *fault.Error
	if nf.HTTPStatus() != 500 || nf.Clone() != nil || nf.Error() == "" || nf.Unwrap() != nil || nf.Payload(true).Code != fault.InternalError {
		t.Error("nil fault methods")
	}
	_ = nf.LogValue()
}

// Whatever part of a fault a careless caller fills with a secret, no
// client-facing form carries it: not the message, the source, the field
// errors, the details or the debug cause, and not the log line.
func TestNoSecretInAnyFacet(t *testing.T) {
	t.Parallel()
	secrets := []string{"hunter2", "sk-live-0123456789abcdef", "eyJhbGciOiJIUzI1NiJ9", "dXNlcjpodW50ZXIy", "Foo.java", "worker.py"}
	f := fault.New(fault.UpstreamError, "Call failed with Authorization: Bearer sk-live-0123456789abcdef",
		fault.WithSource("https://bob:hunter2@api.example.com/v1?key=sk-live-0123456789abcdef"),
		fault.WithFieldErrors(fault.FieldError{Field: "password", Message: "password: hunter2 is too short"}),
		fault.WithDetail("auth", "Basic dXNlcjpodW50ZXIy"),
		fault.WithDetail("nested", struct {
			Pwd string `json:"pwd"`
			JWT string `json:"jwt"`
		}{"hunter2", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"}),
		fault.WithCause(errors.New("java.lang.IllegalStateException: boom\n\tat com.acme.Foo.bar(Foo.java:42)\n"+
			"  File \"/srv/worker.py\", line 7, in run\npwd=hunter2")),
	)
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Error("x", "fault", f)
	outs := []string{logs.String(), f.Error()}
	for _, debug := range []bool{false, true} {
		b, err := json.Marshal(f.Payload(debug))
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, string(b))
	}
	for _, out := range outs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%q leaked: %s", s, out)
			}
		}
	}
	if !strings.Contains(outs[3], "IllegalStateException: boom") || !strings.Contains(outs[2], "api.example.com") {
		t.Errorf("redaction took what is safe:\n%s\n%s", outs[2], outs[3])
	}
}

// An upstream that echoes megabytes into its error costs a bounded amount
// of output, and the secret at its start is still found.
func TestRedactHugeInput(t *testing.T) {
	t.Parallel()
	huge := "Authorization: Bearer abcdefghijklmnop " + strings.Repeat("x=1&", 2<<20)
	r := fault.Redact(huge)
	if len(r) > 1100 || strings.Contains(r, "abcdefghijklmnop") || !strings.HasSuffix(r, "[truncated]") {
		t.Errorf("redacted %d bytes: %.80q", len(r), r)
	}
	f := fault.From(errors.New(huge))
	if len(f.Debug.Cause) > 4096 {
		t.Errorf("debug cause keeps %d bytes", len(f.Debug.Cause))
	}
	if c := fault.ClassifyText(huge).Debug.Cause; len(c) > 4096 {
		t.Errorf("text debug cause keeps %d bytes", len(c))
	}
}

func TestClassifyTextEdges(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		code fault.Code
	}{
		{"timed out after 429 Retries", fault.Timeout},
		{"loaded 404 Documents; validation failed", fault.InvalidRequest},
		{"connection refuſed", fault.TransportError}, // (?i) folds ſ onto s
		{"HTTP/1.1 429 Too Many Requests", fault.RateLimited},
		{"upstream answered 503 service unavailable", fault.ServiceUnavailable},
	}
	for _, c := range cases {
		if got := fault.ClassifyText(c.text).Code; got != c.code {
			t.Errorf("%q: %s, want %s", c.text, got, c.code)
		}
	}
	at := time.Now().Add(2 * time.Hour).UTC().Format(http.TimeFormat)
	f := fault.ClassifyText("503 Service Unavailable. Retry-After: " + at)
	if f.RetryAfter < 119*time.Minute || f.RetryAfter > 2*time.Hour {
		t.Errorf("HTTP-date in text: %v", f.RetryAfter)
	}
}
