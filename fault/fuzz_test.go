package fault_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
)

// FuzzUnmarshal: the fault decoder (the JSON agents send in data.fault)
// never panics, and whatever it accepts re-encodes to a document it accepts
// again with the same facets.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"code":"RATE_LIMITED","message":"slow down","http_status":429,"retryable":true,"retry_after":60,"details":{"limit":"rpm"}}`,
		`{"code":"TIMEOUT"}`,
		`{"code":"INVALID_REQUEST","errors":[{"field":"data.x","message":"required"}]}`,
		`{"code":"X","domain":"llm","category":"AUTH","session_valid":false,"debug":{"error_type":"*x.E"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var e fault.Error
		if err := json.Unmarshal(data, &e); err != nil {
			return
		}
		if e.Code == "" {
			t.Fatal("accepted a fault without a code")
		}
		out, err := json.Marshal(e.Payload(true))
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		var back fault.Error
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("re-decode %s: %v", out, err)
		}
		if back.Code != e.Code || back.HTTPStatus() != e.HTTPStatus() || back.Retryable != e.Retryable ||
			back.SessionValid != e.SessionValid || back.Category != e.Category || back.Domain != e.Domain ||
			fault.Seconds(back.RetryAfter) != fault.Seconds(e.RetryAfter) {
			t.Fatalf("round trip changed the fault:\n%s\n%+v\n%+v", out, e, back)
		}
	})
}

// FuzzClassifyText: any text classifies to a known code with a confidence
// below typed classification, and the text reaches nothing but Debug.
func FuzzClassifyText(f *testing.F) {
	for _, s := range []string{
		"context deadline exceeded", "dial tcp 127.0.0.1:5432: connect: connection refused",
		"429 Too Many Requests", "session abc not found", "Retry-After: 30 service unavailable",
		"status code 503", "", "\xff\xfe",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		e := fault.ClassifyText(text)
		if e == nil || !e.Code.Known() {
			t.Fatalf("ClassifyText(%q) = %+v", text, e)
		}
		if c := e.Classification.Confidence; c <= 0 || c >= 0.9 {
			t.Fatalf("confidence %v", c)
		}
		if e.RetryAfter < 0 || e.RetryAfter > 24*time.Hour {
			t.Fatalf("retry after %v", e.RetryAfter)
		}
		if spec, _ := fault.Lookup(e.Code); e.Message != spec.Message {
			t.Fatalf("message %q is not the code's own", e.Message)
		}
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if len(text) > 8 && !strings.Contains(spec(e.Code).Message, text) && strings.Contains(string(data), text) {
			t.Fatalf("the text reached non-debug output: %s", data)
		}
	})
}

func spec(c fault.Code) fault.Spec { s, _ := fault.Lookup(c); return s }

// FuzzParseRetryAfter: any header value gives a delay in [0, 24h] or none.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "0", "Sat, 21 Nov 2026 12:01:30 GMT", "-1", "1.5", "99999999999999999999", "Sun Nov  6 08:49:37 1994"} {
		f.Add(s, "")
		f.Add("", s)
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, after, afterMs string) {
		h := http.Header{}
		if after != "" {
			h.Set("Retry-After", after)
		}
		if afterMs != "" {
			h.Set("Retry-After-Ms", afterMs)
		}
		d, ok := fault.ParseRetryAfter(h, now)
		if d < 0 || d > 24*time.Hour || (!ok && d != 0) {
			t.Fatalf("ParseRetryAfter(%q, %q) = %v, %v", after, afterMs, d, ok)
		}
	})
}

// FuzzRedact: redaction is idempotent, bounded, and never lets a bearer
// token or an sk- key through.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{"Authorization: Bearer abc.def", "key=AIzaSyA-1234567890abcdefghijk", "x\ngoroutine 1 [running]:\n", "sk-abcdefghijklmnop"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := fault.Redact(s)
		if len(r) > 1100 {
			t.Fatalf("redacted text of %d bytes", len(r))
		}
		if len(s) <= 1000 && fault.Redact(r) != r && !strings.Contains(r, "[truncated]") {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, r, fault.Redact(r))
		}
	})
}

// FuzzRetryDelay: any RateLimit header gives a delay in [0, 24h] or none.
func FuzzRetryDelay(f *testing.F) {
	for _, s := range []string{`"default";r=0;t=30`, "limit=100, remaining=0, reset=45", `"a";r=0;t=1, "b";r=0;t=-3`, ";;r=0;t=", "remaining=0"} {
		f.Add(s, "0", "12")
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, rateLimit, remaining, reset string) {
		h := http.Header{}
		h.Set("RateLimit", rateLimit)
		h.Set("RateLimit-Remaining", remaining)
		h.Set("RateLimit-Reset", reset)
		h.Set("X-RateLimit-Remaining", remaining)
		h.Set("X-RateLimit-Reset", reset)
		d, ok := fault.RetryDelay(h, now)
		if d < 0 || d > fault.MaxRetryAfter || (!ok && d != 0) {
			t.Fatalf("RetryDelay(%q, %q, %q) = %v, %v", rateLimit, remaining, reset, d, ok)
		}
	})
}
