// Package jsonrpc writes faults as JSON-RPC 2.0 error objects, the way MCP
// servers and seed 002's agentic bridge report failures, and reads them back.
//
// A server answers a failed call with the fault's error object:
//
//	resp := jsonrpc.NewErrorResponse(req.ID, jsonrpc.From(err))
//	json.NewEncoder(w).Encode(resp)
//
// A client turns an error response back into a fault:
//
//	resp, err := jsonrpc.ParseResponse(body)
//	if err != nil {
//		return err // not a JSON-RPC response; err is a *ValidationError
//	}
//	if resp.Error != nil {
//		return resp.Error.Fault()
//	}
//
// # The error object
//
// code is the fault's JSON-RPC code from the code table (see CodeFor): seed
// 002's category codes, CONFIG -32004, AUTH -32003, UPSTREAM -32002, TIMEOUT
// -32001, TRANSPORT and PROTOCOL -32000, INTERNAL -32603, except -32602 for
// INVALID_REQUEST and PAYLOAD_TOO_LARGE. message is the fault's Message.
// data is Data, with camelCase names as JSON-RPC and MCP peers expect:
//
//	{"type": "UPSTREAM", "code": "SESSION_NOT_FOUND", "retryable": false,
//	 "sessionValid": false, "httpStatus": 404, "domain": "client",
//	 "details": {"sessionId": "abc-123"}}
//
// plus retryAfter (seconds) when the fault has a delay, and errors (the
// invalid fields) for an INVALID_REQUEST. Malformed requests get JSON-RPC's
// standard errors (NewParseError, NewInvalidRequest, NewMethodNotFound,
// NewInvalidParams, NewInternalError), which carry the same data.
//
// Going back, (*Error).Fault takes the code from data.code when it is a code
// the table knows, and otherwise maps the JSON-RPC code (see FaultCode);
// retryable, sessionValid, retryAfter (capped at fault.MaxRetryAfter) and
// the other data members override the code's defaults. A peer's message is
// never trusted to be safe for end users: it becomes the fault's Message
// only under a data.code the table knows, and otherwise goes, redacted, to
// Debug.Cause while the Message is the code's default.
//
// Constructors given a nil error (From, DataFrom, ToolResultFrom) return nil.
//
// # Nothing secret, and no debug mode
//
// data holds only the facets above. details are sanitized by
// fault.SanitizeDetails after being normalized to plain JSON values, so that
// no credential, header, raw request or response or stack trace leaves in
// them, even inside a struct; the message is passed through fault.Redact.
// The fault's Cause and Debug are never written: unlike the problem and
// AG-UI encoders, this package has no debug option at all, because a
// JSON-RPC peer is another program (an MCP client, an agent, a model), which
// logs what it receives and may show it to a model or a user.
//
// # MCP tool calls: isError results
//
// The current MCP specification says a tool's execution failure is a
// CallToolResult with isError: true, not a JSON-RPC error, and that new
// implementations should not emit the codes -32000…-32019 that seed 002
// uses. ToolResultFrom builds that result, with the same Data as its
// structuredContent; it is what Triage's MCP bridge (issue 13, not built
// yet) will send by default. The seed's JSON-RPC error mode (From) remains
// for peers that expect it.
// Protocol failures (an unknown method, invalid params) are JSON-RPC errors
// in both modes.
package jsonrpc
