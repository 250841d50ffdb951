package jsonrpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/jsonrpc"
)

// A tool that declares an outputSchema gets its failure under a member the
// schema declares, since clients validate structuredContent even in an
// isError result.
func ExampleToolResultOptions_ToolResult() {
	f := fault.New(fault.Timeout, "The search timed out")
	opts := &jsonrpc.ToolResultOptions{Member: "error"}
	printJSON(opts.ToolResult(f))
	// Output:
	// {
	//   "content": [
	//     {
	//       "type": "text",
	//       "text": "The search timed out (TIMEOUT, retryable)"
	//     }
	//   ],
	//   "isError": true,
	//   "structuredContent": {
	//     "error": {
	//       "type": "TIMEOUT",
	//       "code": "TIMEOUT",
	//       "retryable": true,
	//       "sessionValid": true,
	//       "httpStatus": 504,
	//       "domain": "system",
	//       "details": {}
	//     }
	//   }
	// }
}

// A server on the MCP Go SDK returns the result as the SDK's type.
func ExampleToolResult_SDK() {
	r := jsonrpc.ToolResultFrom(fault.New(fault.SessionNotFound, "Session not found: abc-123")).SDK()
	fmt.Println(r.IsError, r.Content[0].(*mcp.TextContent).Text)
	fmt.Printf("%T\n", r.StructuredContent)
	// Output:
	// true Session not found: abc-123 (UPSTREAM, not retryable)
	// *jsonrpc.Data
}

// A Go SDK handler that answers with a protocol error returns WireError's:
// the SDK sends it as it is, code and data included.
func ExampleWireError() {
	e := jsonrpc.WireError(fault.New(fault.RateLimited, "Rate limit exceeded", fault.WithRetryAfter(30*time.Second)))
	fmt.Println(e.Code, e.Message)
	fmt.Println(string(e.Data))
	// Output:
	// -32002 Rate limit exceeded
	// {"type":"UPSTREAM","code":"RATE_LIMITED","retryable":true,"sessionValid":true,"retryAfter":30,"httpStatus":429,"domain":"client","details":{}}
}

// fault.From reads the JSON-RPC error that the Go SDK's client returns,
// wrapped, when a server answered a call with one.
func ExampleClassify() {
	err := fmt.Errorf("calling %q: %w", "tools/call", &sdkjsonrpc.Error{
		Code: -32002, Message: "Rate limit exceeded",
		Data: json.RawMessage(`{"type":"UPSTREAM","code":"RATE_LIMITED","retryable":true,"sessionValid":true,"retryAfter":30}`),
	})
	f := fault.From(err)
	fmt.Println(f.Code, f.Retryable, f.RetryAfter, f.Message)
	fmt.Println(f.Classification.Method, f.Classification.Rule)
	// Output:
	// RATE_LIMITED true 30s Rate limit exceeded
	// wire jsonrpc_data
}

// A client on the MCP Go SDK, a server on it answering with WireError's
// protocol error, and the fault the client reads back.
func ExampleClassify_goSDK() {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "search", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "search"}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return nil, nil, jsonrpc.WireError(fault.New(fault.SessionNotFound, "Session not found: abc-123"))
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = cs.Close(); _ = ss.Wait() }()

	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "search"})
	f := fault.From(err)
	fmt.Println(f.Code, f.SessionValid, f.Message)
	// Output: SESSION_NOT_FOUND false Session not found: abc-123
}

// A client reads an isError result back into a fault: from Triage's data,
// here under the member "error", or else from the text, which is not
// trusted as a message.
func ExampleParseToolResult() {
	f, err := jsonrpc.ParseToolResult([]byte(`{"content":[{"type":"text","text":"Rate limit exceeded (UPSTREAM, retryable after 20s)"}],
		"isError":true,"structuredContent":{"error":{"type":"UPSTREAM","code":"RATE_LIMITED","retryable":true,"sessionValid":true,"retryAfter":20}}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Code, f.Retryable, f.RetryAfter, f.Message)

	f, err = jsonrpc.ParseToolResult([]byte(`{"content":[{"type":"text","text":"ES cluster at 10.0.0.5 is red"}],"isError":true}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Code, f.Retryable, f.Message)
	fmt.Println(f.Debug.Cause)

	f, err = jsonrpc.ParseToolResult([]byte(`{"content":[{"type":"text","text":"42"}]}`))
	fmt.Println(f == nil, err)
	// Output:
	// RATE_LIMITED true 20s Rate limit exceeded
	// UPSTREAM_ERROR false External service error.
	// ES cluster at 10.0.0.5 is red
	// true <nil>
}

// A client on the MCP Go SDK reads the result CallTool returned.
func ExampleToolResultFault() {
	res := &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: "Worker w1 timed out (TRANSPORT, retryable)"}},
		StructuredContent: map[string]any{"type": "TRANSPORT", "code": "TIMEOUT", "retryable": true,
			"sessionValid": true, "details": map[string]any{"workerId": "w1"}},
	}
	f := jsonrpc.ToolResultFault(res)
	fmt.Println(f.Code, f.Category, f.Retryable, f.Message, f.Details["workerId"])
	// Output: TIMEOUT TRANSPORT true Worker w1 timed out w1
}

// Seed 002's whole user message: what the call tried to do, the failure
// with whether the session survives, what probably happened and what to
// do next. The MCP bridge (and /mcp) answers a failed call this way.
func ExampleToolResultOptions_ToolResult_lead() {
	f := fault.New(fault.SessionNotFound, "Session not found: abc-123.", fault.WithDetail("sessionId", "abc-123"))
	r := (&jsonrpc.ToolResultOptions{
		Member: "error",
		Lead:   "Failed to submit prompt to session 'abc-123'",
		Hint:   "The session may have expired.",
		Recovery: []jsonrpc.Recovery{
			{Action: "Create a new session", Tool: "sessions_create"},
			{Action: "Check available agents", Tool: "agents_discover"},
		},
	}).ToolResult(f)
	fmt.Println(r.Content[0].Text)
	// Output:
	// Failed to submit prompt to session 'abc-123':
	// Session not found: abc-123 (UPSTREAM, not retryable, session not valid)
	//
	// The session may have expired. You can:
	// 1. Create a new session with sessions_create
	// 2. Check available agents with agents_discover
}
