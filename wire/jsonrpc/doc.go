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
// Constructors given a nil error (From, DataFrom, ToolResultFrom,
// ToolResultOptions.ToolResult, WireError) return nil.
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
// structuredContent; isError results are what Triage's MCP bridge (issue
// 13) sends by default. The seed's JSON-RPC error mode (From) remains for
// peers that expect it. Protocol failures (an unknown method, invalid params) are
// JSON-RPC errors in both modes.
//
// MCP clients validate structuredContent against a tool's outputSchema even
// in an isError result, so a tool that declares one shapes its failure with
// ToolResultOptions: Member nests the Data under a member its schema
// declares ({"error": {…}}), NoStructured leaves structuredContent out:
//
//	res := (&jsonrpc.ToolResultOptions{Member: "error"}).ToolResult(err)
//
// A client reads an isError result back with ParseToolResult (raw JSON) or
// ToolResultFault (the Go SDK's type). The fault comes from Triage's Data,
// bare or under a member, when the structured content holds it with a code
// the table knows; otherwise it is UPSTREAM_ERROR with the code's default
// message, and the text content, redacted, goes to Debug.Cause, as Fault
// treats a peer without Triage's data.
//
// # The MCP Go SDK
//
// The official SDK (github.com/modelcontextprotocol/go-sdk) sends a
// handler's error as a protocol error only when it is the SDK's
// *jsonrpc.Error; any other error goes out with code 0 and no data (from a
// Server.AddTool handler) or as an isError result whose text is
// err.Error() (from an mcp.AddTool handler; a *fault.Error's text is its
// code and message, never its cause). So a server on it returns:
//
//	return jsonrpc.ToolResultFrom(err).SDK(), nil // an isError result
//	return nil, jsonrpc.WireError(err)            // a protocol error
//
// On the client side, the SDK returns a server's JSON-RPC error wrapped
// (`calling "tools/call": …`). Importing this package registers Classify
// with fault.Register, so fault.From reads it as Fault does: the code, the
// message under a known data.code, retryable, sessionValid and retryAfter
// survive the trip.
package jsonrpc
