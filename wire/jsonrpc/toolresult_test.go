package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember/jsonmembertest"
	"github.com/triage-go/triage/internal/testkit/golden"
)

// outputSchema is a tool's outputSchema that leaves room for a failure
// under "error", and for nothing else, as strict tools declare them.
const outputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "answer": {"type": "string"},
    "error": {
      "type": "object",
      "required": ["type", "code", "retryable", "sessionValid"],
      "properties": {
        "type": {"type": "string"},
        "code": {"type": "string"},
        "retryable": {"type": "boolean"},
        "sessionValid": {"type": "boolean"}
      }
    }
  }
}`

// validates reports whether a result's structuredContent matches
// outputSchema, as an MCP client that validates it checks; an absent one
// matches.
func validates(t *testing.T, r *ToolResult) error {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(outputSchema), &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(golden.Marshal(t, r), &m); err != nil {
		t.Fatal(err)
	}
	if m["structuredContent"] == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(m["structuredContent"], &v); err != nil {
		t.Fatal(err)
	}
	return rs.Validate(v)
}

func TestToolResultOptions(t *testing.T) {
	t.Parallel()
	f := sessionFault()

	// The bare data is what a schema like this one rejects.
	if err := validates(t, ToolResultFrom(f)); err == nil {
		t.Error("the bare data matched a schema that declares only answer and error")
	}
	member := (&ToolResultOptions{Member: "error"}).ToolResult(f)
	if err := validates(t, member); err != nil {
		t.Errorf("the data under error does not match the schema: %v", err)
	}
	if !golden.SameJSON(golden.Marshal(t, member.StructuredContent), []byte(`{"error":`+string(From(f).Data)+`}`)) {
		t.Errorf("structuredContent = %s", golden.Marshal(t, member.StructuredContent))
	}

	none := (&ToolResultOptions{NoStructured: true, Member: "error"}).ToolResult(f)
	if none.StructuredContent != nil || strings.Contains(string(golden.Marshal(t, none)), "structuredContent") {
		t.Errorf("NoStructured kept structured content: %s", golden.Marshal(t, none))
	}

	// The text, and every other shape, is ToolResultFrom's.
	want := ToolResultFrom(f)
	for _, o := range []*ToolResultOptions{nil, {}, {Member: "error"}, {NoStructured: true}} {
		r := o.ToolResult(f)
		if !r.IsError || len(r.Content) != 1 || r.Content[0] != want.Content[0] {
			t.Errorf("%+v: result %+v", o, r)
		}
	}
	if !golden.SameJSON(golden.Marshal(t, (*ToolResultOptions)(nil).ToolResult(f)), golden.Marshal(t, want)) ||
		!golden.SameJSON(golden.Marshal(t, (&ToolResultOptions{}).ToolResult(f)), golden.Marshal(t, want)) {
		t.Error("nil or empty options differ from ToolResultFrom")
	}
	if (&ToolResultOptions{Member: "error"}).ToolResult(nil) != nil {
		t.Error("ToolResult(nil) is not nil")
	}
}

func TestToolResultSDK(t *testing.T) {
	t.Parallel()
	if (*ToolResult)(nil).SDK() != nil {
		t.Error("SDK of a nil result is not nil")
	}
	for _, o := range []*ToolResultOptions{nil, {Member: "error"}, {NoStructured: true}} {
		r := o.ToolResult(sessionFault())
		// The SDK's type marshals to the same JSON.
		if got, want := golden.Marshal(t, r.SDK()), golden.Marshal(t, r); !golden.SameJSON(got, want) {
			t.Errorf("%+v: SDK() marshals to %s, want %s", o, got, want)
		}
	}
}

func sessionFault() *fault.Error {
	return fault.New(fault.SessionNotFound, "Session not found: abc-123", fault.WithDetail("sessionId", "abc-123"))
}

// Every code survives ToolResultFrom and ParseToolResult, in each shape
// that carries the data.
func TestParseToolResultRoundTrip(t *testing.T) {
	t.Parallel()
	for _, spec := range fault.Codes() {
		f := fault.New(spec.Code, "Something specific: x-1", fault.WithDetail("id", "x-1"))
		if spec.Retryable {
			f.RetryAfter = 7 * time.Second
		}
		for _, o := range []*ToolResultOptions{nil, {Member: "error"}, {Member: "z"}} {
			g, err := ParseToolResult(golden.Marshal(t, o.ToolResult(f)))
			if err != nil {
				t.Fatalf("%s %+v: %v", spec.Code, o, err)
			}
			if g.Code != f.Code || g.Message != f.Message || g.Retryable != f.Retryable || g.SessionValid != f.SessionValid ||
				g.Category != f.Category || g.Domain != f.Domain || g.HTTPStatus() != f.HTTPStatus() ||
				g.RetryAfter != f.RetryAfter || g.Details["id"] != "x-1" {
				t.Errorf("%s %+v: %+v, want %+v", spec.Code, o, g, f)
			}
			if g.Classification != (fault.Classification{Method: fault.MethodWire, Rule: "tool_result_data", Confidence: 1}) {
				t.Errorf("%s: classification %+v", spec.Code, g.Classification)
			}
		}
	}
}

func TestParseToolResult(t *testing.T) {
	t.Parallel()
	upstream := fault.New(fault.UpstreamError, "").Message
	tests := []struct {
		name    string
		in      string
		code    fault.Code
		message string
		rule    string
		cause   string // Debug.Cause
	}{
		{"TextOnly", `{"content":[{"type":"text","text":"index customers-prod is gone"}],"isError":true}`,
			fault.UpstreamError, upstream, "tool_result_text", "index customers-prod is gone"},
		{"TextRedacted", `{"content":[{"type":"text","text":"call failed: Authorization: Bearer sk-live-0123456789abcdef"}],"isError":true}`,
			fault.UpstreamError, upstream, "tool_result_text", "call failed: Authorization: [REDACTED]"},
		{"TextBlocksJoined", `{"content":[{"type":"text","text":"a"},{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"text","text":"b"}],"isError":true}`,
			fault.UpstreamError, upstream, "tool_result_text", "a\nb"},
		{"NoContent", `{"isError":true}`, fault.UpstreamError, upstream, "tool_result_text", ""},
		{"NullContent", `{"content":null,"isError":true}`, fault.UpstreamError, upstream, "tool_result_text", ""},
		{"ForeignStructured", `{"content":[{"type":"text","text":"boom"}],"isError":true,"structuredContent":{"error":"boom","code":42}}`,
			fault.UpstreamError, upstream, "tool_result_text", "boom"},
		{"UnknownCode", `{"content":[{"type":"text","text":"boom"}],"isError":true,"structuredContent":{"code":"E_BOOM","retryable":true}}`,
			fault.UpstreamError, upstream, "tool_result_text", "boom"},
		{"BadData", `{"content":[{"type":"text","text":"boom"}],"isError":true,"structuredContent":{"code":"TIMEOUT","retryable":"yes"}}`,
			fault.UpstreamError, upstream, "tool_result_text", "boom"},
		{"ArrayStructured", `{"content":[{"type":"text","text":"boom"}],"isError":true,"structuredContent":[{"code":"TIMEOUT"}]}`,
			fault.UpstreamError, upstream, "tool_result_text", "boom"},
		{"DataOtherText", `{"content":[{"type":"text","text":"The index is rebuilding."}],"isError":true,"structuredContent":{"code":"SERVICE_UNAVAILABLE"}}`,
			fault.ServiceUnavailable, "The index is rebuilding.", "tool_result_data", ""},
		{"DataNoText", `{"content":[],"isError":true,"structuredContent":{"code":"TIMEOUT"}}`,
			fault.Timeout, fault.New(fault.Timeout, "").Message, "tool_result_data", ""},
		// A richer failure object (Triage's MCP bridge sends one) embeds
		// the data beside its own message.
		{"FailureObject", `{"content":[{"type":"text","text":"Failed to submit prompt to agent 'echo':\nSession not found: abc-123 (UPSTREAM, not retryable)"}],"isError":true,
			"structuredContent":{"error":{"message":"Session not found: abc-123","type":"UPSTREAM","code":"SESSION_NOT_FOUND","retryable":false,"sessionValid":false,"httpStatus":404,"domain":"client","details":{},"tool":"prompt","recovery":[]}}}`,
			fault.SessionNotFound, "Session not found: abc-123", "tool_result_data", ""},
		{"FirstMemberByName", `{"isError":true,"structuredContent":{"b":{"code":"TIMEOUT"},"a":{"code":"RATE_LIMITED"},"0":{"x":1}}}`,
			fault.RateLimited, fault.New(fault.RateLimited, "").Message, "tool_result_data", ""},
		{"DataWinsOverMembers", `{"isError":true,"structuredContent":{"code":"TIMEOUT","error":{"code":"RATE_LIMITED"}}}`,
			fault.Timeout, fault.New(fault.Timeout, "").Message, "tool_result_data", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := ParseToolResult([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if f == nil || f.Code != tt.code || f.Message != tt.message || f.Classification.Rule != tt.rule ||
				f.Classification.Method != fault.MethodWire || f.Debug.Cause != tt.cause {
				t.Fatalf("ParseToolResult = %+v", f)
			}
			if tt.rule == "tool_result_text" && (f.Retryable || f.Classification.Confidence != 0.5 || f.Domain != fault.DomainTool) {
				t.Errorf("a fault from text: %+v", f)
			}
			// The SDK's type gives the same fault.
			var r mcp.CallToolResult
			if err := json.Unmarshal([]byte(tt.in), &r); err != nil {
				t.Fatal(err)
			}
			if g := ToolResultFault(&r); g == nil || g.Code != f.Code || g.Message != f.Message || g.Debug.Cause != f.Debug.Cause {
				t.Errorf("ToolResultFault = %+v, want %+v", g, f)
			}
		})
	}
}

func TestParseToolResultNotAnError(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{"content":[{"type":"text","text":"42"}]}`,
		`{"content":[{"type":"text","text":"42"}],"isError":false,"structuredContent":{"code":"TIMEOUT"}}`,
		`{"content":[],"isError":null}`,
		`{}`,
	} {
		if f, err := ParseToolResult([]byte(in)); f != nil || err != nil {
			t.Errorf("ParseToolResult(%s) = %+v, %v", in, f, err)
		}
	}
}

func TestParseToolResultInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, field, reason string
	}{
		{"Empty", ``, "", "invalid JSON"},
		{"Truncated", `{"isError":true`, "", "invalid JSON"},
		{"Array", `[]`, "", "must be an object, got array"},
		{"IsErrorString", `{"isError":"true"}`, "isError", "must be a boolean, got string"},
		{"ContentObject", `{"content":{"type":"text"},"isError":true}`, "content", "must be an array, got object"},
		{"BlockString", `{"content":["boom"],"isError":true}`, "content.0", "must be an object, got string"},
		{"BlockWithoutType", `{"content":[{"text":"boom"}],"isError":true}`, "content.0.type", "is required"},
		{"BlockTypeNumber", `{"content":[{"type":1}],"isError":true}`, "content.0.type", "must be a string, got number"},
		{"TextWithoutText", `{"content":[{"type":"text","text":"a"},{"type":"text"}],"isError":true}`, "content.1.text", "is required"},
		{"TextNotString", `{"content":[{"type":"text","text":null}],"isError":true}`, "content.0.text", "must be a string, got null"},
		// A malformed result is malformed whether or not it is an error.
		{"MalformedSuccess", `{"content":"42"}`, "content", "must be an array, got string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := ParseToolResult([]byte(tt.in))
			if f != nil {
				t.Errorf("ParseToolResult = %+v with error %v", f, err)
			}
			jsonmembertest.WantInvalid(t, err, tt.field, tt.reason)
			if got := fault.From(err); got.Code != fault.InvalidRequest {
				t.Errorf("fault.From = %s", got.Code)
			}
		})
	}
}

func TestToolResultFault(t *testing.T) {
	t.Parallel()
	if ToolResultFault(nil) != nil {
		t.Error("ToolResultFault(nil) is not nil")
	}
	ok := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "42"}}, StructuredContent: DataFrom(sessionFault())}
	if ToolResultFault(ok) != nil {
		t.Error("a result that is not an error gave a fault")
	}
	text := []mcp.Content{&mcp.TextContent{Text: "Session not found: abc-123 (UPSTREAM, not retryable)"}}
	for name, structured := range map[string]any{
		"Data":       DataFrom(sessionFault()),
		"RawMessage": json.RawMessage(From(sessionFault()).Data),
		"Map":        map[string]any{"error": DataFrom(sessionFault())},
	} {
		f := ToolResultFault(&mcp.CallToolResult{Content: text, IsError: true, StructuredContent: structured})
		if f == nil || f.Code != fault.SessionNotFound || f.Message != "Session not found: abc-123" || f.Details["sessionId"] != "abc-123" {
			t.Errorf("%s: ToolResultFault = %+v", name, f)
		}
	}
	// Structured content that does not marshal, or is not JSON, is absent.
	for name, structured := range map[string]any{
		"Unmarshalable": map[string]any{"code": make(chan int)},
		"InvalidRaw":    json.RawMessage(`{"code":`),
	} {
		f := ToolResultFault(&mcp.CallToolResult{Content: text, IsError: true, StructuredContent: structured})
		if f == nil || f.Code != fault.UpstreamError || f.Debug.Cause != "Session not found: abc-123 (UPSTREAM, not retryable)" {
			t.Errorf("%s: ToolResultFault = %+v", name, f)
		}
	}
}

// A Lead gives seed 002's whole message; Failure replaces the bare Data
// (under Member), and ParseToolResult reads the fault back from it.
func TestToolResultOptionsLead(t *testing.T) {
	f := fault.New(fault.RateLimited, "Slow down.", fault.WithRetryAfter(7*time.Second))
	failure := struct {
		Message string `json:"message"`
		*Data
		Tool string `json:"tool"`
	}{"Slow down.", DataFrom(f), "sessions_prompt"}
	for _, c := range []struct {
		o    ToolResultOptions
		text string
	}{
		{ToolResultOptions{Lead: "Failed to call x"}, "Failed to call x:\nSlow down (UPSTREAM, retryable after 7s, session still valid)"},
		{ToolResultOptions{Lead: "Failed to call x", Hint: "Wait."}, "Failed to call x:\nSlow down (UPSTREAM, retryable after 7s, session still valid)"},
		{ToolResultOptions{Lead: "Failed to call x", Recovery: []Recovery{{Action: "Retry"}, {Action: "Look", Tool: "t"}}},
			"Failed to call x:\nSlow down (UPSTREAM, retryable after 7s, session still valid)\n\nYou can:\n1. Retry\n2. Look with t"},
		{ToolResultOptions{Lead: "Failed to call x", Hint: "Wait.", Recovery: []Recovery{{Action: "Retry", Tool: "x"}}, Member: "error", Failure: failure},
			"Failed to call x:\nSlow down (UPSTREAM, retryable after 7s, session still valid)\n\nWait. You can:\n1. Retry with x"},
		{ToolResultOptions{Hint: "Wait.", Recovery: []Recovery{{Action: "Retry"}}}, "Slow down. (UPSTREAM, retryable after 7s)"},
	} {
		r := c.o.ToolResult(f)
		if r.Content[0].Text != c.text {
			t.Errorf("%+v: text %q, want %q", c.o, r.Content[0].Text, c.text)
		}
		// The text of a Lead lost the message's period; a Failure kept it.
		msg := "Slow down"
		if c.o.Failure != nil || c.o.Lead == "" {
			msg = "Slow down."
		}
		got, err := ParseToolResult(golden.Marshal(t, r))
		if err != nil || got.Code != fault.RateLimited || got.Message != msg || got.RetryAfter != 7*time.Second {
			t.Errorf("%+v: read back %+v, %v", c.o, got, err)
		}
		if c.o.Failure != nil {
			want := golden.Marshal(t, map[string]any{"error": failure})
			if !golden.SameJSON(golden.Marshal(t, r.StructuredContent), want) {
				t.Errorf("structuredContent %s, want %s", golden.Marshal(t, r.StructuredContent), want)
			}
		}
	}
}
