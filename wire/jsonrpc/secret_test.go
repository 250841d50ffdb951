package jsonrpc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/testkit/golden"
)

// The secrets a failing provider call leaves in a fault.
const (
	bearerToken = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.c2lnbmF0dXJl"
	apiKey      = "sk-proj-A1b2C3d4E5f6G7h8I9j0"
	requestBody = `{"prompt":"my confidential prompt"}`
	respBody    = `{"error":"upstream internal dump 0xdeadbeef"}`
)

// leakyFault is a fault whose Cause, Debug and Details carry a bearer
// token, an API key, an authorization header, a stack trace and a raw
// request and response.
func leakyFault() *fault.Error {
	cause := fmt.Errorf("POST https://api.openai.com/v1/chat/completions: Authorization: Bearer %s; api_key=%s; body %s; response %s\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d",
		bearerToken, apiKey, requestBody, respBody)
	f := fault.Wrap(cause, fault.UpstreamError, "The AI provider failed.",
		fault.WithRetryAfter(3*time.Second),
		fault.WithDetails(map[string]any{
			"providerId":    "openai",
			"authorization": "Bearer " + bearerToken,
			"Authorization": "Bearer " + bearerToken,
			"stack":         "goroutine 1 [running]:\nmain.main()",
			"stack_trace":   "Traceback (most recent call last):",
			"request":       requestBody,
			"response":      respBody,
			"note":          "sent Bearer " + bearerToken + " with key " + apiKey,
			"upstream":      map[string]any{"authorization": "Bearer " + bearerToken, "api_key": apiKey, "status": 500},
			"headers":       map[string]string{"Authorization": "Bearer " + bearerToken},
			"auth":          struct{ Token string }{bearerToken},
		}))
	f.Debug = fault.Debug{
		ErrorType: "*url.Error",
		Cause:     cause.Error(),
		Extra:     map[string]any{"request": requestBody, "response": respBody, "stack": "goroutine 1"},
	}
	return f
}

// forbidden lists what may appear nowhere in an encoded error, compared
// case-insensitively.
var forbidden = []string{
	bearerToken, "eyJhbGci", apiKey, "sk-proj", "authorization", "stack", "goroutine", "traceback",
	"confidential prompt", "deadbeef", `"request"`, `"response"`, "headers", "main.go",
	"*url.Error", "error_type", "debug",
}

func TestNoSecrets(t *testing.T) {
	t.Parallel()
	f := leakyFault()
	encodings := []struct {
		name string
		v    any
	}{
		{"Error", From(f)},
		{"From", From(fmt.Errorf("call: %w", f))},
		{"Response", NewErrorResponse(json.RawMessage(`1`), From(f))},
		{"ToolResultFrom", ToolResultFrom(f)},
		{"Data", DataFrom(f)},
	}
	for _, enc := range encodings {
		t.Run(enc.name, func(t *testing.T) {
			t.Parallel()
			b := golden.Marshal(t, enc.v)
			lower := strings.ToLower(string(b))
			for _, s := range forbidden {
				if strings.Contains(lower, strings.ToLower(s)) {
					t.Errorf("encoding contains %q:\n%s", s, b)
				}
			}
			// What is safe survives.
			for _, s := range []string{`"providerId":"openai"`, "The AI provider failed.", `"status":500`, "sent Bearer [REDACTED]"} {
				if enc.name == "Data" && s == "The AI provider failed." {
					continue // data has no message
				}
				if !strings.Contains(string(b), s) {
					t.Errorf("encoding lacks %s:\n%s", s, b)
				}
			}
		})
	}
}
