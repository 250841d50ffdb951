package jsonrpc

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember"
	"github.com/triage-go/triage/wire/jsonrpc/errdata"
)

// Version is the value of every response's jsonrpc member.
const Version = "2.0"

// Error is a JSON-RPC 2.0 error object: {"code", "message", "data"}.
//
// Data is kept as raw JSON because a peer may put anything there; an error
// built from a fault carries Triage's Data (see From), which ParseData
// decodes and Fault reads.
//
// *Error implements error, and unwraps to the fault it encodes, so that
// fault.From and errors.Is see a JSON-RPC error from a peer as the fault it
// stands for.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Data is the data member of an error Triage sends, with the camelCase names
// that JSON-RPC and MCP peers expect:
//
//	type          the fault's Category (seed 002's BridgeError type)
//	code          the Triage code ("SESSION_NOT_FOUND")
//	retryable     whether repeating the call may succeed
//	sessionValid  whether the session survives the error
//	retryAfter    seconds to wait before retrying, rounded up; only when > 0
//	httpStatus    the fault's HTTP status
//	domain        who is at fault (client, system, llm, tool, security)
//	details       the fault's Details, sanitized; always an object
//	errors        the invalid fields of an INVALID_REQUEST, when there are any
//
// Data never carries debug output, a cause, a stack trace, a token, a header
// or a raw request or response.
type Data struct {
	Type         fault.Category     `json:"type"`
	Code         fault.Code         `json:"code"`
	Retryable    bool               `json:"retryable"`
	SessionValid bool               `json:"sessionValid"`
	RetryAfter   int64              `json:"retryAfter,omitempty"`
	HTTPStatus   int                `json:"httpStatus"`
	Domain       fault.Domain       `json:"domain"`
	Details      map[string]any     `json:"details"`
	Errors       []fault.FieldError `json:"errors,omitempty"`
}

// Error returns "jsonrpc error CODE: message".
func (e *Error) Error() string {
	return "jsonrpc error " + strconv.Itoa(e.Code) + ": " + e.Message
}

// Unwrap returns the fault e encodes (see Fault), so that fault.From and
// errors.Is reach it.
func (e *Error) Unwrap() error { return e.Fault() }

// From returns the JSON-RPC error object for err, classified by fault.From
// (a *fault.Error anywhere in err's chain is used as it is): code is the
// fault's JSON-RPC code (see CodeFor), message its Message (passed through
// fault.Redact), data its Data (see DataFrom).
//
// There is no debug mode: a JSON-RPC peer is another program, which logs
// what it receives and may hand it to a model, so the fault's Debug and
// Cause never leave the process this way.
//
// From returns nil for a nil error.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	return fromFault(fault.From(err))
}

func fromFault(f *fault.Error) *Error {
	data, err := json.Marshal(newData(f))
	if err != nil {
		// newData holds only encodable values; this cannot happen.
		data = nil
	}
	return &Error{Code: codeFor(f), Message: message(f), Data: data}
}

// DataFrom returns the data member for err, classified by fault.From (see
// Data). Missing facets of a hand-built fault take the code table's
// defaults. It returns nil for a nil error.
func DataFrom(err error) *Data {
	if err == nil {
		return nil
	}
	return newData(fault.From(err))
}

func newData(f *fault.Error) *Data {
	cat, dom := facets(f)
	d := &Data{
		Type:         cat,
		Code:         f.Code,
		Retryable:    f.Retryable,
		SessionValid: f.SessionValid,
		RetryAfter:   fault.Seconds(f.RetryAfter),
		HTTPStatus:   f.HTTPStatus(),
		Domain:       dom,
		Details:      jsonmember.SafeDetails(f.Details),
	}
	for _, fe := range f.FieldErrors {
		d.Errors = append(d.Errors, fault.FieldError{Field: fault.Redact(fe.Field), Message: fault.Redact(fe.Message)})
	}
	return d
}

// CodeFor returns the JSON-RPC error code for err, classified by
// fault.From: its code's JSON-RPC code from the code table, which follows
// seed 002's categories (CONFIG -32004, AUTH -32003, UPSTREAM -32002,
// TIMEOUT -32001, TRANSPORT and PROTOCOL -32000, INTERNAL -32603) except
// that INVALID_REQUEST and PAYLOAD_TOO_LARGE use -32602, invalid params. A
// fault whose category was overridden (a worker timeout is TIMEOUT in
// category TRANSPORT) or whose code the table does not know takes its
// category's code, as seed 002 maps them.
//
// CodeFor returns 0 for a nil error, as fault.CodeOf returns "".
func CodeFor(err error) int {
	if err == nil {
		return 0
	}
	return codeFor(fault.From(err))
}

func codeFor(f *fault.Error) int {
	cat, _ := facets(f)
	if s, ok := fault.Lookup(f.Code); ok && s.Category == cat {
		return s.JSONRPC
	}
	return cat.JSONRPCCode()
}

// FaultCode returns the Triage code a JSON-RPC error code stands for when
// the error carries no Triage code of its own:
//
//	-32004                  CONFIG_ERROR
//	-32003                  PROVIDER_AUTH_FAILED
//	-32002                  UPSTREAM_ERROR
//	-32001                  TIMEOUT
//	-32000                  TRANSPORT_ERROR
//	-32700, -32600, -32602  INVALID_REQUEST
//	-32601                  CAPABILITY_NOT_FOUND
//	anything else           INTERNAL_ERROR
func FaultCode(code int) fault.Code {
	switch code {
	case fault.JSONRPCConfig:
		return fault.ConfigError
	case fault.JSONRPCAuth:
		return fault.ProviderAuthFailed
	case fault.JSONRPCUpstream:
		return fault.UpstreamError
	case fault.JSONRPCTimeout:
		return fault.Timeout
	case fault.JSONRPCTransport:
		return fault.TransportError
	case fault.JSONRPCParseError, fault.JSONRPCInvalidReq, fault.JSONRPCInvalidParam:
		return fault.InvalidRequest
	case fault.JSONRPCNoMethod:
		return fault.CapabilityNotFound
	}
	return fault.InternalError
}

// Fault turns the error back into a fault; it never returns nil. Its
// Classification's Method is fault.MethodWire.
//
// When the error carries Triage's data with a code the table knows, that is
// the fault's code and the error's message its Message (passed through
// fault.Redact; the code's default when empty): Rule "jsonrpc_data",
// confidence 1. Otherwise the code is FaultCode of the JSON-RPC code, and
// since a peer's message is not known to be safe for end users, the
// fault's Message is that code's default and the peer's message goes,
// redacted, to Debug.Cause, as fault.ClassifyText does with foreign text:
// Rule "jsonrpc_code", confidence 0.5.
//
// From Triage's data, type, domain, retryable, sessionValid, retryAfter
// (capped at fault.MaxRetryAfter), httpStatus, details (sanitized again:
// they come from a peer) and errors override the code's defaults; data that
// is absent, not an object, or not Triage's shape (see ParseData) is
// ignored.
func (e *Error) Fault() *fault.Error {
	d, err := errdata.Parse(e.Data)
	if err != nil {
		d = nil
	}
	var f *fault.Error
	if d != nil && d.Code != nil && d.Code.Known() {
		f = fault.New(*d.Code, fault.Redact(e.Message))
		f.Classification = fault.Classification{Method: fault.MethodWire, Rule: "jsonrpc_data", Confidence: 1}
	} else {
		f = fault.New(FaultCode(e.Code), "")
		f.Classification = fault.Classification{Method: fault.MethodWire, Rule: "jsonrpc_code", Confidence: 0.5}
		f.Debug.Cause = fault.Redact(e.Message)
	}
	if d == nil {
		return f
	}
	if d.Type != nil && slices.Contains(fault.Categories(), *d.Type) {
		f.Category = *d.Type
	}
	if d.Domain != nil && d.Domain.Valid() {
		f.Domain = *d.Domain
	}
	if d.Retryable != nil {
		f.Retryable = *d.Retryable
	}
	if d.SessionValid != nil {
		f.SessionValid = *d.SessionValid
	}
	if d.RetryAfter != nil {
		f.RetryAfter = *d.RetryAfter
	}
	if d.HTTPStatus != nil {
		f.Status = *d.HTTPStatus
	}
	f.Details = fault.SanitizeDetails(d.Details)
	f.FieldErrors = d.Errors
	return f
}

// ParseData decodes the error's data as Triage's Data. It returns nil and no
// error when the error has no data, and a *ValidationError when data is not
// an object or a member Triage defines has the wrong type or range (a
// retryable that is not a boolean, an httpStatus outside 100-599, a negative
// retryAfter). A retryAfter is rounded up to whole seconds and capped at
// fault.MaxRetryAfter (86400 seconds). Members Triage does not define are
// ignored.
func (e *Error) ParseData() (*Data, error) {
	d, err := errdata.Parse(e.Data)
	if err != nil || d == nil {
		return nil, err
	}
	out := &Data{Details: d.Details, Errors: d.Errors}
	if d.Type != nil {
		out.Type = *d.Type
	}
	if d.Code != nil {
		out.Code = *d.Code
	}
	if d.Retryable != nil {
		out.Retryable = *d.Retryable
	}
	if d.SessionValid != nil {
		out.SessionValid = *d.SessionValid
	}
	if d.RetryAfter != nil {
		out.RetryAfter = fault.Seconds(*d.RetryAfter)
	}
	if d.HTTPStatus != nil {
		out.HTTPStatus = *d.HTTPStatus
	}
	if d.Domain != nil {
		out.Domain = *d.Domain
	}
	return out, nil
}

// facets returns a fault's category and domain, with the code table's
// defaults for a hand-built fault that left them empty or invalid.
func facets(f *fault.Error) (fault.Category, fault.Domain) {
	s, ok := fault.Lookup(f.Code)
	if !ok {
		s = fault.Spec{Category: fault.CategoryInternal, Domain: fault.DomainSystem}
	}
	cat, dom := f.Category, f.Domain
	if !slices.Contains(fault.Categories(), cat) {
		cat = s.Category
	}
	if !dom.Valid() {
		dom = s.Domain
	}
	return cat, dom
}

// message is the fault's message, redacted, or its code's default when it
// has none.
func message(f *fault.Error) string {
	if m := fault.Redact(f.Message); m != "" {
		return m
	}
	if s, ok := fault.Lookup(f.Code); ok {
		return s.Message
	}
	return fault.New(f.Code, "").Message
}
