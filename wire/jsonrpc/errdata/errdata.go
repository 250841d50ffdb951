package errdata

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember"
)

// dec decodes members strictly; its errors name package jsonrpc, whose
// data this is.
var dec = jsonmember.Decoder{Package: "jsonrpc"}

// Data is the data member of a JSON-RPC error read as Triage's
// (jsonrpc.Data), keeping what the sender left out: a member that was
// absent or null is nil (Details and Errors are empty). It is the inverse
// of jsonrpc.From's data: Parse(jsonrpc.From(err).Data) gives back every
// facet jsonrpc.DataFrom(err) holds.
//
// A peer that is not Triage (an ACP worker, say) may send some of the
// members only; a reader keeps its own defaults for the others. Code, Type
// and Domain are as sent: Code.Known, Domain.Valid and fault.Categories say
// whether the table knows them.
type Data struct {
	Type         *fault.Category
	Code         *fault.Code
	Domain       *fault.Domain
	Retryable    *bool
	SessionValid *bool
	// RetryAfter is the delay in seconds the peer sent, capped at
	// fault.MaxRetryAfter.
	RetryAfter *time.Duration
	// HTTPStatus is in 100-599.
	HTTPStatus *int
	// Details are the peer's, with only the values a fault's details may
	// hold (see fault.SanitizeDetails, which a fault made of them applies
	// again).
	Details map[string]any
	Errors  []fault.FieldError
}

// Parse decodes the data member of a JSON-RPC error (raw JSON). It
// returns nil and no error for absent data (empty, or null), and a
// *ValidationError naming the member when data is not an object or a
// member Triage defines has the wrong type or range: a type, code or domain
// that is not a string, a retryable or sessionValid that is not a boolean,
// a retryAfter that is not a non-negative number of seconds, an httpStatus
// outside 100-599, details that are not an object, errors that are not an
// array of {field, message} strings. Members Triage does not define are
// ignored.
//
// Its errors are wire/jsonrpc's *ValidationError (the same type), and
// name package jsonrpc. jsonrpc's (*Error).Fault and (*Error).ParseData
// read data with it; a program that holds a peer's error in another type
// (an SDK's, whose data is already decoded) marshals the data and parses
// it here.
func Parse(data json.RawMessage) (*Data, error) {
	if len(data) == 0 || jsonmember.IsNull(data) {
		return nil, nil
	}
	m, err := dec.Object(data, "data")
	if err != nil {
		return nil, err
	}
	d := &Data{}
	for _, s := range []struct {
		name string
		set  func(string)
	}{
		{"type", func(v string) { c := fault.Category(v); d.Type = &c }},
		{"code", func(v string) { c := fault.Code(v); d.Code = &c }},
		{"domain", func(v string) { c := fault.Domain(v); d.Domain = &c }},
	} {
		if v, ok := m[s.name]; ok && !jsonmember.IsNull(v) {
			str, err := dec.String(v, "data."+s.name)
			if err != nil {
				return nil, err
			}
			s.set(str)
		}
	}
	for _, s := range []struct {
		name string
		dst  **bool
	}{{"retryable", &d.Retryable}, {"sessionValid", &d.SessionValid}} {
		if v, ok := m[s.name]; ok && !jsonmember.IsNull(v) {
			b, err := dec.Bool(v, "data."+s.name)
			if err != nil {
				return nil, err
			}
			*s.dst = &b
		}
	}
	if v, ok := m["retryAfter"]; ok && !jsonmember.IsNull(v) {
		n, err := dec.Number(v, "data.retryAfter")
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, dec.Invalid("data.retryAfter", "%v seconds is negative", n)
		}
		// A peer's delay is capped like every delay Triage parses.
		after := time.Duration(min(n, fault.MaxRetryAfter.Seconds()) * float64(time.Second))
		d.RetryAfter = &after
	}
	if v, ok := m["httpStatus"]; ok && !jsonmember.IsNull(v) {
		n, err := dec.Int(v, "data.httpStatus")
		if err != nil {
			return nil, err
		}
		if n < 100 || n > 599 {
			return nil, dec.Invalid("data.httpStatus", "%d is not an HTTP status (100-599)", n)
		}
		s := int(n)
		d.HTTPStatus = &s
	}
	if d.Details, err = dec.Details(m["details"], "data.details"); err != nil {
		return nil, err
	}
	if v, ok := m["errors"]; ok && !jsonmember.IsNull(v) {
		if k := jsonmember.Kind(v); k != "array" {
			return nil, dec.Invalid("data.errors", "must be an array, got %s", k)
		}
		var items []json.RawMessage
		if err := json.Unmarshal(v, &items); err != nil {
			return nil, dec.Wrap("data.errors", "invalid array", err)
		}
		for i, item := range items {
			p := "data.errors." + strconv.Itoa(i)
			im, err := dec.Object(item, p)
			if err != nil {
				return nil, err
			}
			var fe fault.FieldError
			if fe.Field, err = dec.String(im["field"], p+".field"); err != nil {
				return nil, err
			}
			if fe.Message, err = dec.String(im["message"], p+".message"); err != nil {
				return nil, err
			}
			d.Errors = append(d.Errors, fe)
		}
	}
	return d, nil
}
