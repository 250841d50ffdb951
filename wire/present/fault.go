package present

import (
	"strings"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember"
)

// UserErrorFrom returns the user_error data for err, classified by
// fault.From (a *fault.Error anywhere in err's chain is used as it is): the
// fault's message (passed through fault.Redact; the code's default when
// empty), its HTTP status as the code, its domain, its retryability, and its
// retry delay in whole seconds, rounded up, as retry_after.
//
// UserErrorFrom returns nil for a nil error.
func UserErrorFrom(err error) *UserError {
	if err == nil {
		return nil
	}
	f := fault.From(err)
	u := &UserError{
		Message:    message(f),
		Domain:     f.Domain,
		Retryable:  f.Retryable,
		RetryAfter: fault.Seconds(f.RetryAfter),
	}
	if s := f.HTTPStatus(); s >= 100 && s <= 599 {
		u.Code = s
	}
	if !u.Domain.Valid() {
		u.Domain = fault.DomainSystem
		if s, ok := fault.Lookup(f.Code); ok {
			u.Domain = s.Domain
		}
	}
	return u
}

// EventFrom returns the user_error event for err (see UserErrorFrom),
// stamped by opts (nil for the defaults). Marshaling it fails only when
// opts.NewID returns something that is not a UUID.
//
// EventFrom returns nil for a nil error.
func EventFrom(err error, opts *Options) *Event {
	u := UserErrorFrom(err)
	if u == nil {
		return nil
	}
	return &Event{ID: opts.newID(), Timestamp: opts.now().UTC(), Type: TypeUserError, UserError: u}
}

// StreamErrorFrom returns the stream error for err, classified by
// fault.From: code is the Triage code, message the fault's message (passed
// through fault.Redact), severity transient when the fault is retryable and
// fatal otherwise, and details the fault's Details, sanitized, plus
// retry_after (whole seconds, rounded up) when the fault has a delay. The
// fault's Debug and Cause are never written.
//
// StreamErrorFrom returns nil for a nil error.
func StreamErrorFrom(err error) *StreamError {
	if err == nil {
		return nil
	}
	f := fault.From(err)
	e := &StreamError{Code: string(f.Code), Message: message(f), Severity: SeverityFatal}
	if strings.TrimSpace(e.Code) == "" {
		e.Code = string(fault.AgentExecutionError)
	}
	if f.Retryable {
		e.Severity = SeverityTransient
	}
	if len(f.Details) > 0 || f.RetryAfter > 0 {
		e.Details = jsonmember.SafeDetails(f.Details)
		if s := fault.Seconds(f.RetryAfter); s > 0 {
			e.Details["retry_after"] = s
		}
		if len(e.Details) == 0 {
			e.Details = nil
		}
	}
	return e
}

// message is the fault's message, redacted, or its code's default when it
// has none (a user_error's message is required).
func message(f *fault.Error) string {
	if m := fault.Redact(f.Message); strings.TrimSpace(m) != "" {
		return m
	}
	if s, ok := fault.Lookup(f.Code); ok {
		return s.Message
	}
	return fault.New(f.Code, "").Message
}
