package jsonrpc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/testkit/golden"
)

func TestToolResultFrom(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault *fault.Error
		text  string
	}{
		{"SessionNotFound", fault.New(fault.SessionNotFound, "Session not found: abc-123", fault.WithDetail("sessionId", "abc-123")),
			"Session not found: abc-123 (UPSTREAM, not retryable)"},
		{"RetryableWithDelay", fault.New(fault.RateLimited, "Rate limit exceeded", fault.WithRetryAfter(20*time.Second)),
			"Rate limit exceeded (UPSTREAM, retryable after 20s)"},
		{"Retryable", fault.New(fault.ServiceUnavailable, "Server overloaded"),
			"Server overloaded (TRANSPORT, retryable)"},
		{"DefaultMessage", fault.New(fault.InternalError, ""),
			"Internal error. (INTERNAL, not retryable)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := ToolResultFrom(tt.fault)
			if !r.IsError || len(r.Content) != 1 || r.Content[0].Type != "text" || r.Content[0].Text != tt.text {
				t.Errorf("ToolResultFrom = %+v, want text %q", r, tt.text)
			}
			if !reflect.DeepEqual(r.StructuredContent, DataFrom(tt.fault)) {
				t.Errorf("structuredContent = %+v, want DataFrom's", r.StructuredContent)
			}
			// The structured content is the data a JSON-RPC error carries.
			if !golden.SameJSON(golden.Marshal(t, r.StructuredContent), From(tt.fault).Data) {
				t.Error("structuredContent differs from the JSON-RPC error's data")
			}
		})
	}

	t.Run("Shape", func(t *testing.T) {
		t.Parallel()
		var m map[string]json.RawMessage
		if err := json.Unmarshal(golden.Marshal(t, ToolResultFrom(fault.New(fault.Timeout, ""))), &m); err != nil {
			t.Fatal(err)
		}
		if string(m["isError"]) != "true" || len(m) != 3 || m["content"] == nil || m["structuredContent"] == nil {
			t.Errorf("members = %v", m)
		}
	})
}

// TestGolden pins the wire shapes that docs/jsonrpc-present.md shows.
func TestGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		v    any
	}{
		{"session_not_found.json", NewErrorResponse(json.RawMessage(`"req-7"`),
			From(fault.New(fault.SessionNotFound, "Session not found: abc-123", fault.WithDetail("sessionId", "abc-123"))))},
		{"rate_limited.json", From(fault.New(fault.RateLimited, "Rate limit exceeded",
			fault.WithDetail("providerId", "anthropic"), fault.WithRetryAfter(30*time.Second)))},
		{"missing_credential.json", From(fault.New(fault.ConfigError, "Missing required credential: apiKey",
			fault.WithDetail("providerId", "openai")))},
		{"worker_timeout.json", From(fault.New(fault.Timeout, "Worker w1 timed out",
			fault.WithCategory(fault.CategoryTransport), fault.WithDetail("workerId", "w1")))},
		{"parse_error.json", NewErrorResponse(nil, NewParseError("unexpected end of JSON input"))},
		{"method_not_found.json", NewErrorResponse(json.RawMessage(`3`), NewMethodNotFound("tools/frobnicate"))},
		{"invalid_params.json", NewInvalidParams("query is required",
			fault.FieldError{Field: "arguments.query", Message: "is required"})},
		{"tool_error.json", ToolResultFrom(fault.New(fault.SessionNotFound, "Session not found: abc-123",
			fault.WithDetail("sessionId", "abc-123")))},
		{"tool_error_member.json", (&ToolResultOptions{Member: "error"}).ToolResult(fault.New(fault.RateLimited,
			"Rate limit exceeded", fault.WithRetryAfter(20*time.Second), fault.WithDetail("providerId", "openai")))},
		{"secrets.json", From(leakyFault())},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			golden.Check(t, tt.file, golden.Indent(t, tt.v))
		})
	}
}

// TestGoldenCodes pins the error object of every code in the table, one per
// line.
func TestGoldenCodes(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	for _, spec := range fault.Codes() {
		b.Write(golden.Marshal(t, From(fault.New(spec.Code, ""))))
		b.WriteByte('\n')
	}
	golden.Check(t, "codes.jsonl", b.Bytes())
}
