package jsonrpc

import "github.com/triage-go/triage/fault"

// The standard errors of JSON-RPC 2.0 (§5.1), for requests a server cannot
// process. Each carries Triage's data, from the fault it stands for, so that
// Fault gives the same answer with or without it. A detail, when given, is
// appended to the standard message after a colon; it is passed through
// fault.Redact, since it often echoes what a client sent.

// NewParseError returns -32700 "Parse error": the server received invalid
// JSON. Its data is an INVALID_REQUEST fault's.
func NewParseError(detail string) *Error {
	return standard(fault.JSONRPCParseError, "Parse error", detail, fault.New(fault.InvalidRequest, ""))
}

// NewInvalidRequest returns -32600 "Invalid Request": the JSON is not a
// valid request object. Its data is an INVALID_REQUEST fault's.
func NewInvalidRequest(detail string) *Error {
	return standard(fault.JSONRPCInvalidReq, "Invalid Request", detail, fault.New(fault.InvalidRequest, ""))
}

// NewMethodNotFound returns -32601 "Method not found: METHOD". Its data is a
// CAPABILITY_NOT_FOUND fault's, whose details.method names the method.
func NewMethodNotFound(method string) *Error {
	f := fault.New(fault.CapabilityNotFound, "", fault.WithDetail("method", method))
	return standard(fault.JSONRPCNoMethod, "Method not found", method, f)
}

// NewInvalidParams returns -32602 "Invalid params": the method's parameters
// are invalid. Its data is an INVALID_REQUEST fault's, listing fields in
// data.errors.
func NewInvalidParams(detail string, fields ...fault.FieldError) *Error {
	f := fault.New(fault.InvalidRequest, "", fault.WithFieldErrors(fields...))
	return standard(fault.JSONRPCInvalidParam, "Invalid params", detail, f)
}

// NewInternalError returns -32603 "Internal error". It takes no detail: what
// went wrong inside stays inside. Its data is an INTERNAL_ERROR fault's.
func NewInternalError() *Error {
	return standard(fault.JSONRPCInternal, "Internal error", "", fault.New(fault.InternalError, ""))
}

func standard(code int, msg, detail string, f *fault.Error) *Error {
	if detail = fault.Redact(detail); detail != "" {
		msg += ": " + detail
	}
	f.Message = msg
	e := fromFault(f)
	e.Code = code
	return e
}
