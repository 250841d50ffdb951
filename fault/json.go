package fault

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// Payload is the JSON shape of an Error, with snake_case names. Details is
// always an object (empty when there are none); retry_after is in whole
// seconds, rounded up so that no client retries early, and absent when no
// delay is known; debug appears only in debug output.
type Payload struct {
	Code         Code           `json:"code"`
	Message      string         `json:"message"`
	HTTPStatus   int            `json:"http_status"`
	Category     Category       `json:"category"`
	Domain       Domain         `json:"domain"`
	Retryable    bool           `json:"retryable"`
	RetryAfter   int64          `json:"retry_after,omitempty"`
	SessionValid bool           `json:"session_valid"`
	Source       string         `json:"source,omitempty"`
	Details      map[string]any `json:"details"`
	Errors       []FieldError   `json:"errors,omitempty"`
	Debug        *Debug         `json:"debug,omitempty"`
}

// Payload returns the fault's JSON shape. Messages are safe by contract, but
// the payload redacts them anyway (see Redact), as it sanitizes Details (see
// SanitizeDetails); with debug true it also carries the redacted Debug. The
// payload shares nothing with e.
func (e *Error) Payload(debug bool) Payload {
	if e == nil {
		return New(InternalError, "").Payload(false)
	}
	p := Payload{
		Code:         e.Code,
		Message:      Redact(e.Message),
		HTTPStatus:   e.HTTPStatus(),
		Category:     e.Category,
		Domain:       e.Domain,
		Retryable:    e.Retryable,
		RetryAfter:   Seconds(e.RetryAfter),
		SessionValid: e.SessionValid,
		Source:       Redact(e.Source),
		Details:      SanitizeDetails(e.Details),
	}
	for _, fe := range e.FieldErrors {
		p.Errors = append(p.Errors, FieldError{Field: Redact(fe.Field), Message: Redact(fe.Message)})
	}
	if p.Details == nil {
		p.Details = map[string]any{}
	}
	if debug {
		d := e.Debug
		if e.Cause != nil {
			// A fault built with Wrap or New says nothing of its cause in
			// Debug; debug output describes the cause anyway.
			if d.ErrorType == "" {
				d.ErrorType = typeName(e.Cause)
			}
			if d.Cause == "" {
				d.Cause = bound(safeText(e.Cause))
			}
		}
		if d := d.redacted(); !d.IsZero() {
			p.Debug = &d
		}
	}
	return p
}

// MarshalJSON encodes the fault's Payload without debug output.
func (e *Error) MarshalJSON() ([]byte, error) { return json.Marshal(e.Payload(false)) }

// UnmarshalJSON decodes a Payload. Facets the document leaves out take the
// code's defaults; retry_after may be fractional. The code is required.
func (e *Error) UnmarshalJSON(data []byte) error {
	var in struct {
		Code         Code           `json:"code"`
		Message      string         `json:"message"`
		HTTPStatus   int            `json:"http_status"`
		Category     Category       `json:"category"`
		Domain       Domain         `json:"domain"`
		Retryable    *bool          `json:"retryable"`
		RetryAfter   float64        `json:"retry_after"`
		SessionValid *bool          `json:"session_valid"`
		Source       string         `json:"source"`
		Details      map[string]any `json:"details"`
		Errors       []FieldError   `json:"errors"`
		Debug        *Debug         `json:"debug"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return fmt.Errorf("fault: decode: %w", err)
	}
	if in.Code == "" {
		return errors.New("fault: decode: code is required")
	}
	if in.RetryAfter < 0 || math.IsNaN(in.RetryAfter) {
		return fmt.Errorf("fault: decode: retry_after %v out of range", in.RetryAfter)
	}
	if in.Domain != "" && !in.Domain.Valid() {
		return fmt.Errorf("fault: decode: unknown domain %q", in.Domain)
	}
	if in.Category != "" && !in.Category.Valid() {
		return fmt.Errorf("fault: decode: unknown category %q", in.Category)
	}
	f := New(in.Code, in.Message)
	f.Classification = Classification{Method: MethodWire, Rule: "fault_json", Confidence: 1}
	if in.HTTPStatus != 0 {
		if !isErrorStatus(in.HTTPStatus) {
			return fmt.Errorf("fault: decode: http_status %d is not an error status (400-599)", in.HTTPStatus)
		}
		f.Status = in.HTTPStatus
	}
	if in.Category != "" {
		f.Category = in.Category
	}
	if in.Domain != "" {
		f.Domain = in.Domain
	}
	if in.Retryable != nil {
		f.Retryable = *in.Retryable
	}
	if in.SessionValid != nil {
		f.SessionValid = *in.SessionValid
	}
	// A peer's delay is capped like every delay Triage parses.
	f.RetryAfter = time.Duration(min(in.RetryAfter, MaxRetryAfter.Seconds()) * float64(time.Second))
	f.Source = in.Source
	if len(in.Details) > 0 {
		f.Details = in.Details
	}
	f.FieldErrors = in.Errors
	if in.Debug != nil {
		f.Debug = *in.Debug
	}
	*e = *f
	return nil
}

// Seconds converts a delay to whole seconds for the wire, rounding up so
// that a client never retries before the delay has passed. Zero and negative
// delays are 0.
func Seconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}

func (d Debug) redacted() Debug {
	out := Debug{ErrorType: d.ErrorType, Cause: Redact(d.Cause)}
	if len(d.Extra) > 0 {
		out.Extra = SanitizeDetails(d.Extra)
	}
	return out
}
