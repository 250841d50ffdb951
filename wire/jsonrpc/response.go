package jsonrpc

import (
	"encoding/json"
	"errors"

	"github.com/triage-go/triage/internal/jsonmember"
)

// Response is a JSON-RPC 2.0 response: {"jsonrpc": "2.0", "id": …, and
// either "result": … or "error": {…}}.
type Response struct {
	// ID is the request's id: a string, a number or null, kept as raw JSON
	// so that it goes back exactly as it came. Nil is null, as JSON-RPC
	// asks when the request's id could not be read.
	ID json.RawMessage
	// Result is a successful response's result, as raw JSON; nil is null.
	// An MCP tool call that failed answers with a result too (see
	// ToolResultFrom).
	Result json.RawMessage
	// Error is an error response's error. A response has Result or Error,
	// never both.
	Error *Error
}

// NewErrorResponse returns the response to the request with the given id
// (nil for null) that failed with e.
func NewErrorResponse(id json.RawMessage, e *Error) *Response {
	return &Response{ID: id, Error: e}
}

// Parse decodes a JSON-RPC error object. It fails with a *ValidationError
// when the document is not JSON or not an object, when code is missing or
// not an integer, or when message is missing or not a string. Data may be
// any JSON value; null is the same as absent. Members JSON-RPC does not
// define are ignored.
func Parse(data []byte) (*Error, error) {
	e := new(Error)
	if err := e.decode(data, ""); err != nil {
		return nil, err
	}
	return e, nil
}

// UnmarshalJSON decodes an error object as Parse does.
func (e *Error) UnmarshalJSON(data []byte) error { return e.decode(data, "") }

func (e *Error) decode(data []byte, field string) error {
	m, err := dec.Object(data, field)
	if err != nil {
		return err
	}
	raw, ok := m["code"]
	if !ok {
		return dec.Invalid(jsonmember.Path(field, "code"), "is required")
	}
	code, err := dec.Int(raw, jsonmember.Path(field, "code"))
	if err != nil {
		return err
	}
	raw, ok = m["message"]
	if !ok {
		return dec.Invalid(jsonmember.Path(field, "message"), "is required")
	}
	msg, err := dec.String(raw, jsonmember.Path(field, "message"))
	if err != nil {
		return err
	}
	*e = Error{Code: int(code), Message: msg}
	if raw := m["data"]; !jsonmember.IsNull(raw) {
		e.Data = jsonmember.Compact(raw)
	}
	return nil
}

// ParseResponse decodes a JSON-RPC 2.0 response. It fails with a
// *ValidationError when the document is not a JSON object; when jsonrpc is
// not exactly "2.0"; when id is missing or not a string, a number or null;
// when the response has both result and error, or neither; or when error is
// not a valid error object (see Parse).
func ParseResponse(data []byte) (*Response, error) {
	r := new(Response)
	if err := r.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	return r, nil
}

// UnmarshalJSON decodes a response as ParseResponse does.
func (r *Response) UnmarshalJSON(data []byte) error {
	m, err := dec.Object(data, "")
	if err != nil {
		return err
	}
	raw, ok := m["jsonrpc"]
	if !ok {
		return dec.Invalid("jsonrpc", "is required")
	}
	v, err := dec.String(raw, "jsonrpc")
	if err != nil {
		return err
	}
	if v != Version {
		return dec.Invalid("jsonrpc", "must be %q, got %q", Version, v)
	}
	raw, ok = m["id"]
	if !ok {
		return dec.Invalid("id", "is required (null when the request's id is unknown)")
	}
	if err := checkID(raw); err != nil {
		return err
	}
	out := Response{ID: jsonmember.Compact(raw)}
	result, hasResult := m["result"]
	errRaw, hasError := m["error"]
	switch {
	case hasResult && hasError:
		return dec.Invalid("", "a response has result or error, not both")
	case hasError:
		out.Error = new(Error)
		if err := out.Error.decode(errRaw, "error"); err != nil {
			return err
		}
	case hasResult:
		out.Result = jsonmember.Compact(result)
	default:
		return dec.Invalid("", "a response needs result or error")
	}
	*r = out
	return nil
}

func checkID(raw json.RawMessage) error {
	switch k := jsonmember.Kind(raw); k {
	case "string", "number", "null":
		return nil
	default:
		return dec.Invalid("id", "must be a string, a number or null, got %s", k)
	}
}

// MarshalJSON encodes the response. It fails when the response has both
// Result and Error, or when ID is not a string, a number or null.
func (r Response) MarshalJSON() ([]byte, error) {
	id := r.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	if err := checkID(id); err != nil {
		return nil, err
	}
	if r.Error != nil {
		if len(r.Result) > 0 {
			return nil, errors.New("jsonrpc: a response has result or error, not both")
		}
		return json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *Error          `json:"error"`
		}{Version, id, r.Error})
	}
	result := r.Result
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	return json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
	}{Version, id, result})
}
