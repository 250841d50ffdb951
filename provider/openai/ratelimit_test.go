package openai

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/triage-go/triage/fault"
)

func TestResetDelay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"None", nil, 0, false},
		{"RequestsExhausted", map[string]string{"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "120ms"}, 120 * time.Millisecond, true},
		{"TokensExhausted", map[string]string{"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "1m30s"}, 90 * time.Second, true},
		{"LongestWins", map[string]string{"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1s",
			"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "6m0s"}, 6 * time.Minute, true},
		{"NotExhausted", map[string]string{"x-ratelimit-remaining-requests": "12", "x-ratelimit-reset-requests": "1s"}, 0, false},
		{"Malformed", map[string]string{"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "soon"}, 0, false},
		{"Negative", map[string]string{"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "-1s"}, 0, false},
		{"Capped", map[string]string{"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "1000h"}, fault.MaxRetryAfter, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got, ok := resetDelay(h)
			if got != tt.want || ok != tt.ok {
				t.Errorf("resetDelay = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// FuzzParseReset: any header value parses to a delay within [0,
// fault.MaxRetryAfter], or to none; never a panic.
func FuzzParseReset(f *testing.F) {
	for _, s := range []string{"1s", "6m0s", "120ms", "-1s", "1000h", "9223372036854775807ns", "soon"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := parseReset(s)
		if d < 0 || d > fault.MaxRetryAfter || (!ok && d != 0) {
			t.Errorf("parseReset(%q) = %v, %v", s, d, ok)
		}
	})
}

// FuzzClassifyStreamError feeds any event data to Classify as a stream's
// error event: the fault is never nil, names OpenAI, and always encodes.
func FuzzClassifyStreamError(f *testing.F) {
	f.Add([]byte(`{"error":{"message":"boom","type":"server_error","param":null,"code":null}}`))
	f.Add([]byte(`{"error":{"message":"slow","type":"tokens","code":"rate_limit_exceeded","param":7}}`))
	f.Add([]byte(`{"error":"oops"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, ok := Classify(&ssestream.StreamError{Message: "received error while streaming", Event: ssestream.Event{Data: data}})
		if !ok || g == nil {
			t.Fatal("Classify declined a StreamError")
		}
		if g.Source != ProviderID || g.Details["providerId"] != ProviderID || !g.Code.Known() {
			t.Errorf("bad fault: %s %v", g.Code, g.Details)
		}
		if _, err := json.Marshal(g.Payload(true)); err != nil {
			t.Errorf("the fault does not encode: %v", err)
		}
	})
}
