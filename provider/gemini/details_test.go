package gemini

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"google.golang.org/genai"
	"google.golang.org/genai/interactions/models/apierrors"
	"google.golang.org/genai/interactions/models/components"
	"google.golang.org/genai/interactions/models/interactions"

	"github.com/triage-go/triage/fault"
)

func TestParseRetryDelay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"17s", 17 * time.Second, true},
		{"0s", 0, true},
		{"0.5s", 500 * time.Millisecond, true},
		{"17.372986s", 17*time.Second + 372986*time.Microsecond, true},
		{"1.000000001s", time.Second + time.Nanosecond, true},
		{" 2s ", 2 * time.Second, true},
		{"007s", 7 * time.Second, true},
		{"86399.5s", 86399*time.Second + 500*time.Millisecond, true},
		{"86400s", fault.MaxRetryAfter, true},
		{"99999999999999999999999s", fault.MaxRetryAfter, true},
		{"", 0, false},
		{"s", 0, false},
		{"17", 0, false},
		{"-1s", 0, false},
		{"+1s", 0, false},
		{"1.s", 0, false},
		{".5s", 0, false},
		{"1.0000000001s", 0, false},
		{"1e3s", 0, false},
		{"1,5s", 0, false},
		{"17ms", 0, false},
		{"NaNs", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseRetryDelay(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseRetryDelay(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzParseRetryDelay: any text parses to a delay within [0,
// fault.MaxRetryAfter], or to none; never a panic.
func FuzzParseRetryDelay(f *testing.F) {
	for _, s := range []string{"17s", "0.5s", "17.372986s", "-1s", "86400s", "1e3s", "9999999999999999999999s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := parseRetryDelay(s)
		if d < 0 || d > fault.MaxRetryAfter {
			t.Errorf("parseRetryDelay(%q) = %v, out of range", s, d)
		}
		if !ok && d != 0 {
			t.Errorf("parseRetryDelay(%q) = %v, false; a refused value has no delay", s, d)
		}
	})
}

// FuzzClassify feeds any details array (and status, code and message) to
// Classify, as the SDK would decode them from an answer: the fault is never
// nil, names Gemini, keeps its delay in range, and always encodes.
func FuzzClassify(f *testing.F) {
	f.Add(429, "RESOURCE_EXHAUSTED", "quota", []byte(`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"17s"}]`))
	f.Add(400, "INVALID_ARGUMENT", "API key not valid.", []byte(`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]`))
	f.Add(429, "RESOURCE_EXHAUSTED", "", []byte(`[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"PerDay","quotaValue":"0"},7,null]}]`))
	f.Add(0, "", "", []byte(`[{"@type":5,"retryDelay":[]},{}]`))
	f.Fuzz(func(t *testing.T, code int, status, message string, data []byte) {
		var ds []map[string]any
		if json.Unmarshal(data, &ds) != nil {
			ds = nil
		}
		g, ok := Classify(genai.APIError{Code: code, Status: status, Message: message, Details: ds})
		if !ok || g == nil {
			t.Fatal("Classify declined an APIError")
		}
		if g.Source != ProviderID || g.Details["providerId"] != ProviderID {
			t.Errorf("the fault does not name Gemini: %v", g.Details)
		}
		if g.RetryAfter < 0 || g.RetryAfter > fault.MaxRetryAfter || (!g.Retryable && g.RetryAfter != 0) {
			t.Errorf("RetryAfter = %v, retryable = %v", g.RetryAfter, g.Retryable)
		}
		if !g.Code.Known() {
			t.Errorf("unknown code %q", g.Code)
		}
		if _, err := json.Marshal(g.Payload(true)); err != nil {
			t.Errorf("the fault does not encode: %v", err)
		}
	})
}

// FuzzClassifyInteractions feeds any status, body and Retry-After to
// Classify as errors of the Interactions API client would carry them: the
// fault is never nil, names Gemini, keeps its delay in range, and always
// encodes.
func FuzzClassifyInteractions(f *testing.F) {
	f.Add(429, `{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"17s"}]}}`, "")
	f.Add(500, `{"error":{"code":"INTERNAL","message":"boom"}}`, "3")
	f.Add(503, `<html>Service Unavailable</html>`, "Wed, 21 Oct 2015 07:28:00 GMT")
	f.Add(0, `{"error":{"code":[],"status":7,"details":{"x":1}}}`, "-1")
	f.Add(400, `{"error":null}`, "")
	f.Fuzz(func(t *testing.T, status int, body, retryAfter string) {
		res := &http.Response{StatusCode: status, Header: http.Header{"Retry-After": {retryAfter}}}
		code, message := body, retryAfter
		for _, err := range []error{
			&apierrors.APIError{Message: "API error occurred", StatusCode: status, Body: body, RawResponse: res},
			&apierrors.ResponseValidationError{Message: "response did not match", StatusCode: status, Body: body, RawResponse: res},
			&apierrors.CreateInteractionClientError{Error_: interactions.Error{Code: &code, Message: &message}, HTTPMeta: components.HTTPMetadata{Response: res}},
		} {
			g, ok := Classify(err)
			if !ok || g == nil {
				t.Fatalf("Classify declined %T", err)
			}
			if g.Source != ProviderID || g.Details["providerId"] != ProviderID {
				t.Errorf("the fault does not name Gemini: %v", g.Details)
			}
			if g.RetryAfter < 0 || g.RetryAfter > fault.MaxRetryAfter || (!g.Retryable && g.RetryAfter != 0) {
				t.Errorf("RetryAfter = %v, retryable = %v", g.RetryAfter, g.Retryable)
			}
			if !g.Code.Known() {
				t.Errorf("unknown code %q", g.Code)
			}
			if _, err := json.Marshal(g.Payload(true)); err != nil {
				t.Errorf("the fault does not encode: %v", err)
			}
		}
	})
}
