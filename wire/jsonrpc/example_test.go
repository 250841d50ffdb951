package jsonrpc_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/jsonrpc"
)

func printJSON(v any) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Println(err)
	}
}

// A fault becomes a JSON-RPC error response with seed 002's code and data.
func ExampleFrom() {
	f := fault.New(fault.SessionNotFound, "Session not found: abc-123",
		fault.WithDetail("sessionId", "abc-123"))
	printJSON(jsonrpc.NewErrorResponse(json.RawMessage(`"req-7"`), jsonrpc.From(f)))
	// Output:
	// {
	//   "jsonrpc": "2.0",
	//   "id": "req-7",
	//   "error": {
	//     "code": -32002,
	//     "message": "Session not found: abc-123",
	//     "data": {
	//       "type": "UPSTREAM",
	//       "code": "SESSION_NOT_FOUND",
	//       "retryable": false,
	//       "sessionValid": false,
	//       "httpStatus": 404,
	//       "domain": "client",
	//       "details": {
	//         "sessionId": "abc-123"
	//       }
	//     }
	//   }
	// }
}

// A client reads an error response back into a fault.
func ExampleParseResponse() {
	body := []byte(`{"jsonrpc":"2.0","id":12,"error":{"code":-32002,"message":"Rate limit exceeded",
		"data":{"type":"UPSTREAM","code":"RATE_LIMITED","retryable":true,"sessionValid":true,
		"retryAfter":30,"details":{"providerId":"anthropic"}}}}`)
	resp, err := jsonrpc.ParseResponse(body)
	if err != nil {
		fmt.Println(err)
		return
	}
	f := resp.Error.Fault()
	fmt.Println(f.Code, f.Category, f.Retryable, f.RetryAfter, f.SessionValid, f.Details["providerId"])
	// Output: RATE_LIMITED UPSTREAM true 30s true anthropic
}

// An error from a peer that sends no Triage data maps by its JSON-RPC code.
// Its message is not known to be safe for users: the fault keeps its code's
// message, and the peer's is debug output.
func ExampleError_Fault() {
	e, err := jsonrpc.Parse([]byte(`{"code":-32601,"message":"Method not found: admin/dump at host=10.0.0.5"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	f := e.Fault()
	fmt.Println(f.Code, f.HTTPStatus(), f.Retryable)
	fmt.Println(f.Message)
	fmt.Println(f.Debug.Cause)
	// Output:
	// CAPABILITY_NOT_FOUND 404 false
	// Requested capability not available.
	// Method not found: admin/dump at host=10.0.0.5
}

// Malformed input fails with a ValidationError that names the member.
func ExampleParseResponse_invalid() {
	_, err := jsonrpc.ParseResponse([]byte(`{"jsonrpc":"1.0","id":1,"error":{"code":1,"message":"x"}}`))
	fmt.Println(err)
	_, err = jsonrpc.ParseResponse([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":"oops","message":"x"}}`))
	fmt.Println(err)
	// Output:
	// jsonrpc: member "jsonrpc": must be "2.0", got "1.0"
	// jsonrpc: member "error.code": must be an integer, got string
}

// A failed MCP tool call is an isError result, as the MCP specification
// asks, carrying the same data as structured content.
func ExampleToolResultFrom() {
	f := fault.New(fault.ServiceUnavailable, "Server overloaded")
	printJSON(jsonrpc.ToolResultFrom(f))
	// Output:
	// {
	//   "content": [
	//     {
	//       "type": "text",
	//       "text": "Server overloaded (TRANSPORT, retryable)"
	//     }
	//   ],
	//   "isError": true,
	//   "structuredContent": {
	//     "type": "TRANSPORT",
	//     "code": "SERVICE_UNAVAILABLE",
	//     "retryable": true,
	//     "sessionValid": true,
	//     "httpStatus": 503,
	//     "domain": "system",
	//     "details": {}
	//   }
	// }
}

// Requests a server cannot process get JSON-RPC's standard errors.
func ExampleNewMethodNotFound() {
	e := jsonrpc.NewMethodNotFound("tools/frobnicate")
	fmt.Println(e.Code, e.Message)
	fmt.Println(e.Fault().Code)
	// Output:
	// -32601 Method not found: tools/frobnicate
	// CAPABILITY_NOT_FOUND
}
