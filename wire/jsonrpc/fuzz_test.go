package jsonrpc

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember/jsonmembertest"
	"github.com/triage-go/triage/internal/testkit/golden"
)

// FuzzParse feeds error objects and responses (seeds in
// testdata/fuzz/FuzzParse) to Parse and ParseResponse. Neither may panic;
// every failure is a *ValidationError; whatever parses marshals, parses
// again to an equal value and marshals to the same bytes; and the fault it
// stands for is a known code that survives its own trip through JSON-RPC,
// with a capped delay and the peer's message only under a known data.code.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Parse(data)
		jsonmembertest.NilOrInvalid(t, err)
		if err == nil {
			checkError(t, e)
		}

		r, err := ParseResponse(data)
		jsonmembertest.NilOrInvalid(t, err)
		if err != nil {
			return
		}
		b1, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("Marshal(%+v): %v", r, err)
		}
		r2, err := ParseResponse(b1)
		if err != nil {
			t.Fatalf("ParseResponse(%s) after Marshal: %v", b1, err)
		}
		if !golden.SameJSON(r.ID, r2.ID) || !golden.SameJSON(r.Result, r2.Result) || (r.Error == nil) != (r2.Error == nil) {
			t.Fatalf("round trip changed the response: %+v → %+v", r, r2)
		}
		if r.Error != nil {
			if !sameError(r.Error, r2.Error) {
				t.Fatalf("round trip changed the error: %+v → %+v", r.Error, r2.Error)
			}
			checkError(t, r.Error)
		}
		if b2, err := json.Marshal(r2); err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("Marshal is not stable: %s → %s (%v)", b1, b2, err)
		}
	})
}

func sameError(a, b *Error) bool {
	return a.Code == b.Code && a.Message == b.Message && golden.SameJSON(a.Data, b.Data)
}

// checkError checks the invariants of an error that parsed.
func checkError(t *testing.T, e *Error) {
	t.Helper()
	b1, err := json.Marshal(e)
	if err != nil {
		t.Fatalf("Marshal(%+v): %v", e, err)
	}
	e2, err := Parse(b1)
	if err != nil {
		t.Fatalf("Parse(%s) after Marshal: %v", b1, err)
	}
	if !sameError(e, e2) {
		t.Fatalf("round trip changed the error: %+v → %+v", e, e2)
	}
	if b2, err := json.Marshal(e2); err != nil || !bytes.Equal(b1, b2) {
		t.Fatalf("Marshal is not stable: %s → %s (%v)", b1, b2, err)
	}

	if d, err := e.ParseData(); err == nil && d != nil {
		if _, err := json.Marshal(d); err != nil {
			t.Fatalf("Marshal(ParseData()): %v", err)
		}
	} else {
		jsonmembertest.NilOrInvalid(t, err)
	}

	f := e.Fault()
	if f == nil || !f.Code.Known() {
		t.Fatalf("Fault() = %+v, want a known code", f)
	}
	if f.RetryAfter < 0 || f.RetryAfter > fault.MaxRetryAfter {
		t.Fatalf("Fault() retry after %v out of range", f.RetryAfter)
	}
	// The peer's message is the fault's only under a data.code the table
	// knows.
	if d, err := e.ParseData(); (err != nil || d == nil || !d.Code.Known()) && f.Message != fault.New(f.Code, "").Message {
		t.Fatalf("Fault() took the message %q from an error without a known data.code", f.Message)
	}
	again, err := Parse(golden.Marshal(t, From(f)))
	if err != nil {
		t.Fatalf("Parse(From(Fault())): %v", err)
	}
	if g := again.Fault(); g.Code != f.Code || g.Retryable != f.Retryable || g.SessionValid != f.SessionValid ||
		g.Category != f.Category || g.Domain != f.Domain || g.HTTPStatus() != f.HTTPStatus() {
		t.Fatalf("the fault changed on its way through JSON-RPC: %+v → %+v", f, g)
	}
}

// FuzzParseToolResult feeds MCP tool results (seeds in
// testdata/fuzz/FuzzParseToolResult) to ParseToolResult. It may not panic;
// every failure is a *ValidationError; a result that is not an error gives
// no fault; a fault is a known code with a capped delay, whose message is
// its code's default unless Triage's data came with it, and which survives
// its own trip through ToolResultFrom, in every shape; and the Go SDK's
// type, when it reads the same result, gives the same fault.
func FuzzParseToolResult(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseToolResult(data)
		jsonmembertest.NilOrInvalid(t, err)
		if err != nil || got == nil {
			return
		}
		if !got.Code.Known() || got.RetryAfter < 0 || got.RetryAfter > fault.MaxRetryAfter {
			t.Fatalf("ParseToolResult = %+v", got)
		}
		if got.Classification.Rule == "tool_result_text" && (got.Code != fault.UpstreamError || got.Message != fault.New(fault.UpstreamError, "").Message) {
			t.Fatalf("a fault from text only took %s %q", got.Code, got.Message)
		}
		for _, o := range []*ToolResultOptions{nil, {Member: "error"}, {Lead: "Failed to call x", Recovery: []Recovery{{Action: "Retry"}}}} {
			again, err := ParseToolResult(golden.Marshal(t, o.ToolResult(got)))
			if err != nil {
				t.Fatalf("ParseToolResult(ToolResult(%+v)): %v", got, err)
			}
			if again.Code != got.Code || again.Retryable != got.Retryable || again.SessionValid != got.SessionValid ||
				again.Category != got.Category || again.Domain != got.Domain || again.HTTPStatus() != got.HTTPStatus() ||
				fault.Seconds(again.RetryAfter) != fault.Seconds(got.RetryAfter) {
				t.Fatalf("the fault changed on its way through a tool result: %+v → %+v", got, again)
			}
		}
		var r mcp.CallToolResult
		if json.Unmarshal(data, &r) != nil || !r.IsError {
			return
		}
		if g := ToolResultFault(&r); g == nil || g.Code != got.Code || g.Retryable != got.Retryable {
			t.Fatalf("ToolResultFault = %+v, ParseToolResult = %+v", g, got)
		}
	})
}
