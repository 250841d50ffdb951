package fault_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, mustNot, must string }{
		{"Authorization: Bearer abc.def.ghi failed", "abc.def.ghi", "Authorization: [REDACTED]"},
		{`{"authorization":"Basic dXNlcjpwYXNz"}`, "dXNlcjpwYXNz", "[REDACTED]"},
		{"request with bearer eyJhbGciOiJIUzI1NiJ9.payload.sig", "eyJhbGciOiJIUzI1NiJ9", "bearer [REDACTED]"},
		{`Get "https://generativelanguage.googleapis.com/v1/models?key=AIzaSyA-1234567890abcdefghijk": EOF`, "AIzaSyA", "key=[REDACTED]"},
		{"x-api-key: sk-ant-api03-abcdefghijklmnop", "abcdefghijklmnop", "x-api-key: [REDACTED]"},
		{"Incorrect API key provided: sk-proj-ABCDEFGH12345678", "ABCDEFGH12345678", "[REDACTED]"},
		{"dial postgres://admin:hunter2@db:5432/x", "hunter2", "://[REDACTED]@db"},
		{"cache unreachable at redis://:hunter2@10.0.0.5:6379", "hunter2", "://[REDACTED]@10.0.0.5"},
		{`{"password": "hunter2", "user": "bob"}`, "hunter2", `"user": "bob"`},
		{"boom\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d", "main.go", "boom [stack trace removed]"},
		{"oops\nTraceback (most recent call last):\n  File \"x.py\", line 1", "x.py", "oops [stack trace removed]"},
		{"max_tokens=100 exceeded", "[REDACTED]", "max_tokens=100"},
	}
	for _, c := range cases {
		got := fault.Redact(c.in)
		if strings.Contains(got, c.mustNot) {
			t.Errorf("Redact(%q) = %q still contains %q", c.in, got, c.mustNot)
		}
		if !strings.Contains(got, c.must) {
			t.Errorf("Redact(%q) = %q lacks %q", c.in, got, c.must)
		}
	}
	long := fault.Redact(strings.Repeat("é", 2000))
	if len(long) > 1100 || !strings.HasSuffix(long, "[truncated]") || !json.Valid([]byte(`"`+long+`"`)) {
		t.Errorf("long text not truncated on a rune boundary: %d bytes", len(long))
	}
}

func TestSanitizeDetails(t *testing.T) {
	t.Parallel()
	in := map[string]any{
		"providerId":    "openai",
		"max_tokens":    4096,
		"request_id":    "req_123",
		"authorization": "Bearer sk-abcdefghijklmnop",
		"headers":       map[string]string{"X-Api-Key": "k"},
		"stack":         "goroutine 1",
		"request":       `{"prompt":"secret plans"}`,
		"response":      "<html>",
		"access_token":  "t",
		"nested":        map[string]any{"api_key": "k", "note": "key=abcdef in url", "list": []any{"Bearer abcdefgh", 3}},
		"err":           errors.New("password=hunter2"),
	}
	out := fault.SanitizeDetails(in)
	for _, k := range []string{"authorization", "headers", "stack", "request", "response", "access_token"} {
		if _, ok := out[k]; ok {
			t.Errorf("%s survived", k)
		}
	}
	for _, k := range []string{"providerId", "max_tokens", "request_id"} {
		if out[k] != in[k] {
			t.Errorf("%s lost: %v", k, out[k])
		}
	}
	data, _ := json.Marshal(out)
	for _, leak := range []string{"sk-", "hunter2", "abcdef", "api_key", "abcdefgh"} {
		if strings.Contains(string(data), leak) {
			t.Errorf("%q survived: %s", leak, data)
		}
	}
	if in["authorization"] == nil || fault.SanitizeDetails(nil) != nil {
		t.Error("SanitizeDetails changed its input or invented details")
	}
}

// Every wire form of a fault inherits the sanitizing: Payload, with and
// without debug.
func TestPayloadNeverLeaks(t *testing.T) {
	t.Parallel()
	cause := errors.New("POST https://api.openai.com/v1/chat?api_key=sk-live-SECRETSECRET: 401 Authorization: Bearer sk-live-SECRETSECRET\ngoroutine 7 [running]:\nmain.go:1")
	f := fault.From(cause)
	f.Details = map[string]any{"authorization": "Bearer sk-live-SECRETSECRET", "stack": "main.go:1", "providerId": "openai"}
	for _, debug := range []bool{false, true} {
		data, err := json.Marshal(f.Payload(debug))
		if err != nil {
			t.Fatal(err)
		}
		for _, leak := range []string{"SECRETSECRET", "goroutine", "main.go", "authorization"} {
			if strings.Contains(string(data), leak) {
				t.Errorf("debug=%v: %q leaked: %s", debug, leak, data)
			}
		}
		if !strings.Contains(string(data), `"providerId":"openai"`) {
			t.Errorf("safe detail lost: %s", data)
		}
	}
}

func TestSanitizeDetailsNormalizes(t *testing.T) {
	t.Parallel()
	type creds struct {
		User  string `json:"user"`
		Token string `json:"token"`
		Note  string `json:"note"`
	}
	out := fault.SanitizeDetails(map[string]any{
		"who":    creds{User: "bob", Token: "t0ps3cret", Note: "Bearer abcdefghijk"},
		"nan":    math.NaN(),
		"ch":     make(chan int),
		"when":   time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		"counts": map[string]int{"a": 1},
	})
	data, err := json.Marshal(out)
	if err != nil {
		t.Fatalf("sanitized details do not encode: %v", err)
	}
	want := `{"counts":{"a":1},"when":"2026-01-02T03:04:05Z","who":{"note":"Bearer [REDACTED]","user":"bob"}}`
	if string(data) != want {
		t.Errorf("got  %s\nwant %s", data, want)
	}
}

// registerRuns makes TestRegisterSecret's key its own at each run (-count):
// registered secrets stay registered.
var registerRuns atomic.Int64

func TestRegisterSecret(t *testing.T) {
	t.Parallel()
	key := fmt.Sprint("gsk_7f3aQ9zz1LmN0pqR", registerRuns.Add(1)) // a shape no pattern knows
	if got := fault.Redact("Invalid API Key provided: " + key); !strings.Contains(got, key) {
		t.Fatalf("the pattern-free key was redacted before registration: %q", got)
	}
	fault.RegisterSecret(key)
	fault.RegisterSecret("short") // ignored: too short to be safe
	if got := fault.Redact("Invalid API Key provided: " + key + " (twice: " + key + ")"); strings.Contains(got, key) {
		t.Errorf("registered key survived: %q", got)
	}
	if got := fault.Redact("a short word"); got != "a short word" {
		t.Errorf("a short secret was registered: %q", got)
	}
	f := fault.Wrap(errors.New("upstream echoed "+key), fault.ProviderAuthFailed, "")
	data, _ := json.Marshal(f.Payload(true))
	if strings.Contains(string(data), key) || strings.Contains(f.Error(), key) {
		t.Errorf("registered key in %s / %s", data, f.Error())
	}
}
