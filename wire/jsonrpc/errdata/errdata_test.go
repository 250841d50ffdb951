package errdata_test

import (
	"errors"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/jsonrpc"
	"github.com/triage-go/triage/wire/jsonrpc/errdata"
)

// Parse is the inverse of jsonrpc.From's data: every facet comes back.
func TestParseInvertsFrom(t *testing.T) {
	t.Parallel()
	for _, f := range []*fault.Error{
		fault.New(fault.RateLimited, "slow down", fault.WithRetryAfter(20*time.Second), fault.WithDetail("agentId", "a")),
		fault.New(fault.SessionNotFound, "gone", fault.WithDetail("sessionId", "abc-123")),
		fault.New(fault.InvalidRequest, "bad", fault.WithFieldErrors(fault.FieldError{Field: "prompt", Message: "is required"})),
		fault.New(fault.Timeout, "", fault.WithCategory(fault.CategoryTransport), fault.WithSessionValid(false)),
	} {
		want := jsonrpc.DataFrom(f)
		d, err := errdata.Parse(jsonrpc.From(f).Data)
		if err != nil {
			t.Fatalf("%s: %v", f.Code, err)
		}
		if *d.Code != want.Code || *d.Type != want.Type || *d.Domain != want.Domain || *d.Retryable != want.Retryable ||
			*d.SessionValid != want.SessionValid || *d.HTTPStatus != want.HTTPStatus || len(d.Details) != len(want.Details) ||
			len(d.Errors) != len(want.Errors) {
			t.Errorf("%s: Parse = %+v, want %+v", f.Code, d, want)
		}
		if (d.RetryAfter == nil) != (want.RetryAfter == 0) || (d.RetryAfter != nil && fault.Seconds(*d.RetryAfter) != want.RetryAfter) {
			t.Errorf("%s: retryAfter %v, want %ds", f.Code, d.RetryAfter, want.RetryAfter)
		}
	}
}

// What a peer left out, or sent as null, is nil; what it got wrong is a
// *ValidationError naming the member.
func TestParse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		data   string
		member string // of the ValidationError; "-" for none
		check  func(*errdata.Data) bool
	}{
		{``, "-", func(d *errdata.Data) bool { return d == nil }},
		{`null`, "-", func(d *errdata.Data) bool { return d == nil }},
		{`{}`, "-", func(d *errdata.Data) bool {
			return d.Code == nil && d.Retryable == nil && d.SessionValid == nil && d.RetryAfter == nil && d.Details == nil
		}},
		{`{"retryable": null, "sessionValid": false, "other": [1]}`, "-", func(d *errdata.Data) bool {
			return d.Retryable == nil && d.SessionValid != nil && !*d.SessionValid
		}},
		{`{"code": "NOT_A_CODE", "domain": "nowhere"}`, "-", func(d *errdata.Data) bool {
			return *d.Code == "NOT_A_CODE" && !d.Code.Known() && !d.Domain.Valid()
		}},
		{`{"retryAfter": 1e9}`, "-", func(d *errdata.Data) bool { return *d.RetryAfter == fault.MaxRetryAfter }},
		{`{"retryAfter": 0.25}`, "-", func(d *errdata.Data) bool { return *d.RetryAfter == 250*time.Millisecond }},
		{`[]`, "data", nil},
		{`"x"`, "data", nil},
		{`{"retryable": "yes"}`, "data.retryable", nil},
		{`{"sessionValid": 1}`, "data.sessionValid", nil},
		{`{"code": 7}`, "data.code", nil},
		{`{"retryAfter": -1}`, "data.retryAfter", nil},
		{`{"retryAfter": "5"}`, "data.retryAfter", nil},
		{`{"httpStatus": 99}`, "data.httpStatus", nil},
		{`{"httpStatus": 404.5}`, "data.httpStatus", nil},
		{`{"details": []}`, "data.details", nil},
		{`{"errors": {}}`, "data.errors", nil},
		{`{"errors": [{"field": "a"}]}`, "data.errors.0.message", nil},
	} {
		d, err := errdata.Parse([]byte(c.data))
		var ve *jsonrpc.ValidationError
		switch {
		case c.member == "-" && err != nil:
			t.Errorf("%s: %v", c.data, err)
		case c.member == "-" && !c.check(d):
			t.Errorf("%s: Parse = %+v", c.data, d)
		case c.member != "-" && (!errors.As(err, &ve) || len(ve.Fields) == 0 || ve.Fields[0].Field != c.member || d != nil):
			t.Errorf("%s: Parse = %+v, %v; want a ValidationError of %s", c.data, d, err, c.member)
		}
	}
}
