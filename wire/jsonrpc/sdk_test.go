package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/testkit/golden"
	"github.com/triage-go/triage/wire/jsonrpc"
)

// objectSchema is the input schema of the test tools: any object.
var objectSchema = map[string]any{"type": "object"}

// connect serves the tools that setup adds over the Go SDK's in-memory
// transports and returns the connected client session.
func connect(t *testing.T, setup func(*mcp.Server)) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "triage-test", Version: "v0.0.1"}, nil)
	setup(server)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "triage-test-client", Version: "v0.0.1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// call calls a tool and returns the result or the error the SDK's client
// returned.
func call(t *testing.T, cs *mcp.ClientSession, tool string) (*mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: tool})
}

func sessionNotFound() *fault.Error {
	return fault.New(fault.SessionNotFound, "Session not found: abc-123", fault.WithDetail("sessionId", "abc-123"))
}

// A handler that wants a protocol error returns WireError's: the client
// sees Triage's code, message and data, and fault.From reads them back (the
// classifier this package registers), retryability and delay included.
func TestWireErrorThroughTheSDK(t *testing.T) {
	t.Parallel()
	rate := fault.New(fault.RateLimited, "Rate limit exceeded", fault.WithRetryAfter(30*time.Second),
		fault.WithDetail("providerId", "anthropic"))
	cs := connect(t, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "raw", InputSchema: objectSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, jsonrpc.WireError(sessionNotFound())
		})
		mcp.AddTool(s, &mcp.Tool{Name: "typed"}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			return nil, nil, jsonrpc.WireError(rate)
		})
	})

	_, err := call(t, cs, "raw")
	var w *sdkjsonrpc.Error
	if !errors.As(err, &w) {
		t.Fatalf("CallTool error %v (%T) holds no *jsonrpc.Error", err, err)
	}
	want := jsonrpc.From(sessionNotFound())
	if w.Code != fault.JSONRPCUpstream || w.Message != want.Message || !golden.SameJSON(w.Data, want.Data) {
		t.Errorf("the client got code %d %q data %s; want %d %q %s", w.Code, w.Message, w.Data, want.Code, want.Message, want.Data)
	}
	f := fault.From(err)
	if f.Code != fault.SessionNotFound || f.Message != "Session not found: abc-123" || f.SessionValid ||
		f.Retryable || f.Details["sessionId"] != "abc-123" {
		t.Errorf("fault.From = %+v", f)
	}
	if f.Classification.Method != fault.MethodWire || f.Classification.Rule != "jsonrpc_data" || f.Classification.Confidence != 1 {
		t.Errorf("classification %+v", f.Classification)
	}
	if f.Cause != err || f.Source != "" {
		t.Errorf("cause %v, source %q; want the SDK's error and no source", f.Cause, f.Source)
	}

	_, err = call(t, cs, "typed")
	f = fault.From(err)
	if f.Code != fault.RateLimited || !f.Retryable || !f.SessionValid || f.RetryAfter != 30*time.Second ||
		f.Details["providerId"] != "anthropic" || jsonrpc.CodeFor(err) != fault.JSONRPCUpstream {
		t.Errorf("fault.From = %+v", f)
	}
	if fault.CodeOf(err) != fault.RateLimited {
		t.Errorf("CodeOf = %s", fault.CodeOf(err))
	}
}

// A JSON-RPC error from a peer that is not Triage maps by its code, and the
// peer's message stays out of the fault's message.
func TestForeignSDKErrorClassified(t *testing.T) {
	t.Parallel()
	cs := connect(t, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "slow", InputSchema: objectSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &sdkjsonrpc.Error{Code: -32001, Message: "backend at 10.0.0.5 timed out"}
		})
	})
	_, err := call(t, cs, "slow")
	f := fault.From(err)
	if f.Code != fault.Timeout || !f.Retryable || f.Message != fault.New(fault.Timeout, "").Message {
		t.Errorf("fault.From = %+v", f)
	}
	if !strings.Contains(f.Debug.Cause, "10.0.0.5") || f.Classification.Rule != "jsonrpc_code" || f.Classification.Confidence != 0.5 {
		t.Errorf("debug cause %q, classification %+v", f.Debug.Cause, f.Classification)
	}

	// An unknown method is the SDK's own error, classified the same way.
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no-such-tool"})
	if f := fault.From(err); err == nil || f.Classification.Method != fault.MethodWire {
		t.Errorf("unknown tool: err %v, fault %+v", err, f)
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	if f, ok := jsonrpc.Classify(errors.New("calling \"tools/call\": boom")); ok || f != nil {
		t.Errorf("Classify claimed a plain error: %+v", f)
	}
	if _, ok := jsonrpc.Classify(nil); ok {
		t.Error("Classify(nil) reported true")
	}
	if _, ok := jsonrpc.Classify((*sdkjsonrpc.Error)(nil)); ok {
		t.Error("Classify of a typed nil reported true")
	}
	// Data that is not Triage's is ignored, as (*Error).Fault ignores it.
	f, ok := jsonrpc.Classify(&sdkjsonrpc.Error{Code: -32602, Message: "bad", Data: json.RawMessage(`[1,2]`)})
	if !ok || f.Code != fault.InvalidRequest || f.Message != fault.New(fault.InvalidRequest, "").Message {
		t.Errorf("Classify = %+v, %t", f, ok)
	}
}

func TestWireErrorNil(t *testing.T) {
	t.Parallel()
	if e := jsonrpc.WireError(nil); e != nil {
		t.Errorf("WireError(nil) = %+v", e)
	}
	e := jsonrpc.WireError(errors.New("boom"))
	if e == nil || e.Code != fault.JSONRPCInternal || e.Message != jsonrpc.From(errors.New("boom")).Message {
		t.Errorf("WireError(unknown) = %+v", e)
	}
}

// A fault returned from an mcp.AddTool handler becomes an isError result
// whose text is err.Error(): the code and the message, never the cause.
func TestFaultErrorTextInIsErrorResult(t *testing.T) {
	t.Parallel()
	cause := errors.New("dial tcp 10.0.0.5:9200: connect: connection refused (index=customers-prod)")
	cs := connect(t, func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "search"}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			return nil, nil, fault.Wrap(cause, fault.UpstreamError, "The search tool failed.")
		})
	})
	res, err := call(t, cs, "search")
	if err != nil {
		t.Fatal(err)
	}
	text := textOf(res)
	if !res.IsError || text != "UPSTREAM_ERROR: The search tool failed" {
		t.Errorf("result isError=%t text %q", res.IsError, text)
	}
	if strings.Contains(text, "10.0.0.5") || strings.Contains(text, "customers-prod") {
		t.Errorf("the cause reached the model: %q", text)
	}
}

func textOf(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// SDK's result goes out as ToolResultFrom's JSON, and ToolResultFault reads
// the fault back on the client, in each shape of ToolResultOptions.
func TestToolResultThroughTheSDK(t *testing.T) {
	t.Parallel()
	f := fault.New(fault.RateLimited, "Rate limit exceeded", fault.WithRetryAfter(20*time.Second),
		fault.WithDetail("providerId", "openai"))
	shapes := map[string]*jsonrpc.ToolResultOptions{
		"bare":         nil,
		"member":       {Member: "error"},
		"noStructured": {NoStructured: true},
	}
	outputSchema := map[string]any{"type": "object", "properties": map[string]any{
		"answer": map[string]any{"type": "string"}, "error": map[string]any{"type": "object"}}}
	cs := connect(t, func(s *mcp.Server) {
		for name, o := range shapes {
			s.AddTool(&mcp.Tool{Name: name, InputSchema: objectSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return o.ToolResult(f).SDK(), nil
			})
		}
		// A typed handler whose output is any keeps the result's
		// structured content.
		mcp.AddTool(s, &mcp.Tool{Name: "typed", OutputSchema: outputSchema}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			return shapes["member"].ToolResult(f).SDK(), nil, nil
		})
	})
	for _, name := range []string{"bare", "member", "noStructured", "typed"} {
		res, err := call(t, cs, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		o := shapes[name]
		if name == "typed" {
			o = shapes["member"]
		}
		// The SDK adds _meta and resultType; the rest is ToolResult's JSON.
		var got map[string]json.RawMessage
		if err := json.Unmarshal(golden.Marshal(t, res), &got); err != nil {
			t.Fatal(err)
		}
		delete(got, "_meta")
		delete(got, "resultType")
		if want := golden.Marshal(t, o.ToolResult(f)); !golden.SameJSON(golden.Marshal(t, got), want) {
			t.Errorf("%s: the client got %s, want %s", name, golden.Marshal(t, got), want)
		}
		g := jsonrpc.ToolResultFault(res)
		if name == "noStructured" {
			// Only the text is left: not Triage's data, so not trusted.
			if g == nil || g.Code != fault.UpstreamError || g.Retryable || g.Message != fault.New(fault.UpstreamError, "").Message ||
				g.Debug.Cause != "Rate limit exceeded (UPSTREAM, retryable after 20s)" {
				t.Errorf("%s: ToolResultFault = %+v", name, g)
			}
			continue
		}
		if g == nil || g.Code != fault.RateLimited || !g.Retryable || g.RetryAfter != 20*time.Second ||
			g.Message != "Rate limit exceeded" || g.Details["providerId"] != "openai" {
			t.Errorf("%s: ToolResultFault = %+v", name, g)
		}
	}
}

// searchOutput is a typed tool's output, with room for a failure.
type searchOutput struct {
	Answer string        `json:"answer,omitempty"`
	Error  *jsonrpc.Data `json:"error,omitempty"`
}

// An mcp.AddTool handler with a typed output has its output put in
// structuredContent, over the result's: the failure goes in the output's
// error member, and the client reads it back as Member's shape.
func TestTypedOutputThroughTheSDK(t *testing.T) {
	t.Parallel()
	f := fault.New(fault.ServiceUnavailable, "The index is rebuilding")
	cs := connect(t, func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "search"}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, searchOutput, error) {
			return jsonrpc.ToolResultFrom(f).SDK(), searchOutput{Error: jsonrpc.DataFrom(f)}, nil
		})
	})
	res, err := call(t, cs, "search")
	if err != nil {
		t.Fatal(err)
	}
	want := golden.Marshal(t, (&jsonrpc.ToolResultOptions{Member: "error"}).ToolResult(f).StructuredContent)
	if got := golden.Marshal(t, res.StructuredContent); !golden.SameJSON(got, want) {
		t.Errorf("structuredContent %s, want %s", got, want)
	}
	g := jsonrpc.ToolResultFault(res)
	if !res.IsError || g == nil || g.Code != fault.ServiceUnavailable || !g.Retryable || g.Message != "The index is rebuilding" {
		t.Errorf("isError %t, ToolResultFault = %+v", res.IsError, g)
	}
}
