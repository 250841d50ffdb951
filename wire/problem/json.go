package problem

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/triage-go/triage/fault"
)

// members is the JSON shape of the members Problem has fields for, in the
// order they are written.
type members struct {
	Type         string             `json:"type,omitempty"`
	Title        string             `json:"title,omitempty"`
	Status       int                `json:"status,omitempty"`
	Detail       string             `json:"detail,omitempty"`
	Instance     string             `json:"instance,omitempty"`
	Code         fault.Code         `json:"code,omitempty"`
	Category     fault.Category     `json:"category,omitempty"`
	Domain       fault.Domain       `json:"domain,omitempty"`
	Retryable    *bool              `json:"retryable,omitempty"`
	RetryAfter   int64              `json:"retry_after,omitempty"`
	SessionValid *bool              `json:"session_valid,omitempty"`
	Details      map[string]any     `json:"details,omitempty"`
	Errors       []fault.FieldError `json:"errors,omitempty"`
	Debug        *fault.Debug       `json:"debug,omitempty"`
}

// known holds the names of the members Problem has fields for.
var known = map[string]bool{
	"type": true, "title": true, "status": true, "detail": true, "instance": true,
	"code": true, "category": true, "domain": true, "retryable": true,
	"retry_after": true, "session_valid": true, "details": true,
	"errors": true, "debug": true,
}

// MarshalJSON encodes p: the members it has fields for, in the order of
// its fields, each left out when its field is empty, then its Extensions in
// name order. It fails when a detail or an extension cannot be encoded.
func (p Problem) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(members{
		Type:         p.Type,
		Title:        p.Title,
		Status:       p.Status,
		Detail:       p.Detail,
		Instance:     p.Instance,
		Code:         p.Code,
		Category:     p.Category,
		Domain:       p.Domain,
		Retryable:    p.Retryable,
		RetryAfter:   p.RetryAfter,
		SessionValid: p.SessionValid,
		Details:      p.Details,
		Errors:       p.Errors,
		Debug:        p.Debug,
	})
	if err != nil {
		return nil, fmt.Errorf("problem: encode: %w", err)
	}
	if len(p.Extensions) == 0 {
		return b, nil
	}
	b = b[:len(b)-1] // reopen the object
	for _, name := range slices.Sorted(maps.Keys(p.Extensions)) {
		if known[name] {
			continue
		}
		value, err := json.Marshal(p.Extensions[name])
		if err != nil {
			return nil, fmt.Errorf("problem: encode extension %q: %w", name, err)
		}
		key, _ := json.Marshal(name) // a string always encodes
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, key...)
		b = append(b, ':')
		b = append(b, value...)
	}
	return append(b, '}'), nil
}

// Parse reads a problem document. It fails only when data is not a JSON
// object.
//
// Members are read leniently, as RFC 9457 §3.1 asks: a member whose value
// has the wrong JSON type is ignored, as if it were absent, and so is a
// value out of its range. Precisely:
//
//   - type, title, detail, instance, code, category and domain must be
//     strings; an absent or empty type is "about:blank"; a code, category
//     or domain this version does not know is kept as it is;
//   - status must be an integer from 100 to 599;
//   - retryable and session_valid must be true or false;
//   - retry_after must be a non-negative number; a fraction is rounded up
//     to whole seconds, and more than fault.MaxRetryAfter (24 hours) is
//     fault.MaxRetryAfter;
//   - details must be an object;
//   - errors must be an array; elements that are not objects are skipped,
//     and field and message are strings;
//   - debug must be an object, whose error_type and cause are strings and
//     whose extra is an object.
//
// Every other member is kept in Extensions, compacted, and is written again
// by MarshalJSON. Empty details, errors and debug are nil, as if absent.
func Parse(data []byte) (*Problem, error) {
	p := new(Problem)
	if err := p.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	return p, nil
}

// UnmarshalJSON reads a problem document into p, replacing what p held. It
// reads as Parse does.
func (p *Problem) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	err := json.Unmarshal(data, &m)
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr):
		return fmt.Errorf("problem: document is a JSON %s, not an object", typeErr.Value)
	case err != nil:
		return fmt.Errorf("problem: invalid JSON: %w", err)
	case m == nil:
		return errors.New("problem: document is JSON null, not an object")
	}
	*p = Problem{Type: "about:blank"}
	for name, raw := range m {
		switch name {
		case "type":
			if s, ok := str(raw); ok && s != "" {
				p.Type = s
			}
		case "title":
			p.Title, _ = str(raw)
		case "status":
			if n, ok := number(raw); ok && n == math.Trunc(n) && n >= 100 && n <= 599 {
				p.Status = int(n)
			}
		case "detail":
			p.Detail, _ = str(raw)
		case "instance":
			p.Instance, _ = str(raw)
		case "code":
			s, _ := str(raw)
			p.Code = fault.Code(s)
		case "category":
			s, _ := str(raw)
			p.Category = fault.Category(s)
		case "domain":
			s, _ := str(raw)
			p.Domain = fault.Domain(s)
		case "retryable":
			if b, ok := boolean(raw); ok {
				p.Retryable = &b
			}
		case "session_valid":
			if b, ok := boolean(raw); ok {
				p.SessionValid = &b
			}
		case "retry_after":
			if n, ok := number(raw); ok && n >= 0 {
				p.RetryAfter = int64(math.Ceil(min(n, float64(maxRetryAfter))))
			}
		case "details":
			p.Details, _ = object(raw)
		case "errors":
			p.Errors = fieldErrors(raw)
		case "debug":
			p.Debug = debug(raw)
		default:
			if p.Extensions == nil {
				p.Extensions = make(map[string]json.RawMessage)
			}
			p.Extensions[name] = canonical(raw)
		}
	}
	return nil
}

// str decodes a JSON string; ok is false for any other JSON type.
func str(raw json.RawMessage) (s string, ok bool) {
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// number decodes a JSON number; ok is false for any other JSON type and for
// a number a float64 cannot hold.
func number(raw json.RawMessage) (n float64, ok bool) {
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, false
	}
	if json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	return n, true
}

// boolean decodes a JSON true or false.
func boolean(raw json.RawMessage) (b, ok bool) {
	switch string(raw) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// object decodes a JSON object; ok is false for any other JSON type. An
// empty object is nil.
func object(raw json.RawMessage) (m map[string]any, ok bool) {
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	if len(m) == 0 {
		return nil, true
	}
	return m, true
}

// fieldErrors decodes the errors member.
func fieldErrors(raw json.RawMessage) []fault.FieldError {
	var elems []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &elems) != nil {
		return nil
	}
	var out []fault.FieldError
	for _, e := range elems {
		var m map[string]json.RawMessage
		if len(e) == 0 || e[0] != '{' || json.Unmarshal(e, &m) != nil {
			continue
		}
		var fe fault.FieldError
		fe.Field, _ = str(m["field"])
		fe.Message, _ = str(m["message"])
		out = append(out, fe)
	}
	return out
}

// debug decodes the debug member; an empty one is nil.
func debug(raw json.RawMessage) *fault.Debug {
	var m map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var d fault.Debug
	d.ErrorType, _ = str(m["error_type"])
	d.Cause, _ = str(m["cause"])
	d.Extra, _ = object(m["extra"])
	if d.IsZero() {
		return nil
	}
	return &d
}

// canonical returns raw as json.Marshal writes a json.RawMessage: compact,
// with <, > and & escaped. Extensions are kept in this form so that they
// survive a round trip byte for byte.
func canonical(raw json.RawMessage) json.RawMessage {
	b, err := json.Marshal(raw)
	if err != nil {
		return raw // not reached: raw is a value from a valid document
	}
	return b
}
