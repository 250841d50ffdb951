package present

import (
	"encoding/json"
	"math"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember"
)

// TypeUserError is the type of the user_error presentation event.
const TypeUserError = "user_error"

// Event is a CAP presentation event: {"id", "timestamp", "type", "data"}.
//
// Triage defines the data of one type, user_error (see UserError). Every
// other type CAP knows (thought_trace, citation_block, progress_indicator,
// media_carousel, markdown_block, …) is kept as it came, its data as raw
// JSON, so that a stream can be read and passed on without Triage knowing
// every type.
type Event struct {
	// ID is a UUID ("8-4-4-4-12" hexadecimal digits).
	ID string
	// Timestamp is when the event happened; it is written in UTC, RFC 3339.
	Timestamp time.Time
	// Type is the event's type: TypeUserError or any other non-empty name.
	Type string
	// UserError is the data of a user_error event, and nil for any other
	// type.
	UserError *UserError
	// Data is the data of any other type, as raw JSON, and nil for a
	// user_error event.
	Data json.RawMessage
}

// UserError is the data of a user_error event (seed 001): a non-fatal
// notice, rendered to the end user, that a part of the work failed while the
// agent carries on. Its zero values are the schema's defaults: no code
// (written as null), domain system, not retryable, no retry delay.
//
// RetryAfter is Triage's extension of seed 001's schema, whose data is a
// dictionary and so admits extra keys: a user interface shows when the user
// may retry (seed 000 asks this of a RUN_ERROR with retry_after). Data
// without it reads as before.
type UserError struct {
	// Message is shown to the user. It is required: not empty, nor only
	// spaces.
	Message string
	// Code is a semantic HTTP-like status (400, 429, 503), from 100 to 599;
	// zero means none, written as null.
	Code int
	// Domain says where the error came from, for the icon and tone: one of
	// fault.Domains(). Empty means fault.DomainSystem.
	Domain fault.Domain
	// Retryable says whether the user interface should offer a retry.
	Retryable bool
	// RetryAfter is how many whole seconds to wait before a retry may
	// succeed (the "retry_after" member, written only when > 0); zero
	// means no delay is known. Decoding caps it at fault.MaxRetryAfter
	// (86400 seconds).
	RetryAfter int64
}

// Options stamps the events this package builds (see EventFrom and
// NewUserErrorEvent). A nil *Options uses the defaults.
type Options struct {
	// Now returns the time stamped on new events. Defaults to time.Now,
	// truncated to milliseconds (JavaScript's Date precision).
	Now func() time.Time
	// NewID returns the id of new events, which must be a UUID. Defaults
	// to a random (version 4) UUID from crypto/rand, in its canonical
	// lowercase form (uuid.NewString).
	NewID func() string
}

func (o *Options) now() time.Time {
	if o == nil || o.Now == nil {
		return time.Now().Truncate(time.Millisecond)
	}
	return o.Now()
}

func (o *Options) newID() string {
	if o == nil || o.NewID == nil {
		return uuid.NewString()
	}
	return o.NewID()
}

// isUUID reports whether s is a UUID in the 8-4-4-4-12 form, of any version
// and either case.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		default:
			return false
		}
	}
	return true
}

// NewUserError returns user_error data with the schema's defaults: no code,
// domain system, not retryable.
func NewUserError(message string) UserError {
	return UserError{Message: message, Domain: fault.DomainSystem}
}

// Validate checks the rules of seed 001: the message is required (not empty
// after trimming spaces); the domain, when set, is one of the five; the
// code, when set, is from 100 to 599; and Triage's: the retry delay is not
// negative. It returns a *ValidationError.
func (u UserError) Validate() error { return u.validate("data") }

func (u UserError) validate(field string) error {
	if strings.TrimSpace(u.Message) == "" {
		return dec.Invalid(jsonmember.Path(field, "message"), "is required")
	}
	if u.Domain != "" && !u.Domain.Valid() {
		return dec.Invalid(jsonmember.Path(field, "domain"), "unknown domain %q; allowed: %s", u.Domain, domainList())
	}
	if u.Code != 0 && (u.Code < 100 || u.Code > 599) {
		return dec.Invalid(jsonmember.Path(field, "code"), "%d is not a status code (100-599)", u.Code)
	}
	if u.RetryAfter < 0 {
		return dec.Invalid(jsonmember.Path(field, "retry_after"), "%d seconds is negative", u.RetryAfter)
	}
	return nil
}

func domainList() string {
	var b strings.Builder
	for i, d := range fault.Domains() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(d))
	}
	return b.String()
}

// NewUserErrorEvent validates u and returns it as a user_error event,
// stamped with an id and the time by opts (nil for the defaults).
func NewUserErrorEvent(u UserError, opts *Options) (*Event, error) {
	if err := u.Validate(); err != nil {
		return nil, err
	}
	if u.Domain == "" {
		u.Domain = fault.DomainSystem
	}
	ev := &Event{ID: opts.newID(), Timestamp: opts.now().UTC(), Type: TypeUserError, UserError: &u}
	if err := ev.Validate(); err != nil {
		return nil, err
	}
	return ev, nil
}

// Validate checks an event: its id is a UUID, its timestamp is set (and its
// year, in UTC, between 0 and 9999, as RFC 3339 can write it), its type is
// not empty; a user_error event has valid UserError data (see
// UserError.Validate) and no raw Data; any other event has raw Data and no
// UserError. It returns a *ValidationError.
func (e *Event) Validate() error { return e.validate("") }

func (e *Event) validate(field string) error {
	if !isUUID(e.ID) {
		return dec.Invalid(jsonmember.Path(field, "id"), "must be a UUID, got %q", e.ID)
	}
	if e.Timestamp.IsZero() {
		return dec.Invalid(jsonmember.Path(field, "timestamp"), "is required")
	}
	if y := e.Timestamp.UTC().Year(); y < 0 || y > 9999 {
		return dec.Invalid(jsonmember.Path(field, "timestamp"), "year %d out of range 0-9999", y)
	}
	if e.Type == "" {
		return dec.Invalid(jsonmember.Path(field, "type"), "is required")
	}
	if e.Type == TypeUserError {
		if e.UserError == nil {
			return dec.Invalid(jsonmember.Path(field, "data"), "is required")
		}
		if len(e.Data) > 0 {
			return dec.Invalid(jsonmember.Path(field, "data"), "a user_error event carries its data in UserError, not Data")
		}
		return e.UserError.validate(jsonmember.Path(field, "data"))
	}
	if e.UserError != nil {
		return dec.Invalid(jsonmember.Path(field, "type"), "only a user_error event carries UserError, not %q", e.Type)
	}
	if len(e.Data) == 0 {
		return dec.Invalid(jsonmember.Path(field, "data"), "is required")
	}
	if !json.Valid(e.Data) {
		return dec.Invalid(jsonmember.Path(field, "data"), "invalid JSON")
	}
	return nil
}

// MarshalJSON encodes the user_error data, applying the defaults: a zero
// Code is null, an empty Domain is "system", a zero RetryAfter is left out.
// It fails with a *ValidationError for data Validate rejects.
func (u UserError) MarshalJSON() ([]byte, error) {
	if err := u.Validate(); err != nil {
		return nil, err
	}
	w := struct {
		Message    string       `json:"message"`
		Code       *int         `json:"code"`
		Domain     fault.Domain `json:"domain"`
		Retryable  bool         `json:"retryable"`
		RetryAfter int64        `json:"retry_after,omitempty"`
	}{Message: u.Message, Domain: u.Domain, Retryable: u.Retryable, RetryAfter: u.RetryAfter}
	if u.Code != 0 {
		w.Code = &u.Code
	}
	if w.Domain == "" {
		w.Domain = fault.DomainSystem
	}
	return json.Marshal(w)
}

// MarshalJSON encodes the event, its timestamp in UTC as RFC 3339 with as
// many fractional digits as it has. It fails with a *ValidationError for an
// event Validate rejects.
func (e Event) MarshalJSON() ([]byte, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	data := e.Data
	if e.Type == TypeUserError {
		var err error
		if data, err = json.Marshal(e.UserError); err != nil {
			return nil, err
		}
	}
	return json.Marshal(struct {
		ID        string          `json:"id"`
		Timestamp string          `json:"timestamp"`
		Type      string          `json:"type"`
		Data      json.RawMessage `json:"data"`
	}{e.ID, e.Timestamp.UTC().Format(time.RFC3339Nano), e.Type, data})
}

// ParseEvent decodes a presentation event. It fails with a *ValidationError
// when the document is not a JSON object; when id is missing or not a UUID;
// when timestamp is missing or not an RFC 3339 date-time (one without an
// offset, as Python writes a naive datetime, is read as UTC); when type is
// missing or empty; or when a user_error's data breaks seed 001's rules (see
// ParseUserError). The data of any other type may be any JSON value and is
// kept raw. Members CAP does not define are ignored.
func ParseEvent(data []byte) (*Event, error) {
	e := new(Event)
	if err := e.decode(data, ""); err != nil {
		return nil, err
	}
	return e, nil
}

// UnmarshalJSON decodes an event as ParseEvent does.
func (e *Event) UnmarshalJSON(data []byte) error { return e.decode(data, "") }

func (e *Event) decode(data []byte, field string) error {
	m, err := dec.Object(data, field)
	if err != nil {
		return err
	}
	var out Event
	raw, ok := m["id"]
	if !ok {
		return dec.Invalid(jsonmember.Path(field, "id"), "is required")
	}
	if out.ID, err = dec.String(raw, jsonmember.Path(field, "id")); err != nil {
		return err
	}
	raw, ok = m["timestamp"]
	if !ok {
		return dec.Invalid(jsonmember.Path(field, "timestamp"), "is required")
	}
	ts, err := dec.String(raw, jsonmember.Path(field, "timestamp"))
	if err != nil {
		return err
	}
	if out.Timestamp, err = parseTime(ts); err != nil {
		return dec.Wrap(jsonmember.Path(field, "timestamp"), "must be an RFC 3339 date-time", err)
	}
	raw, ok = m["type"]
	if !ok {
		return dec.Invalid(jsonmember.Path(field, "type"), "is required")
	}
	if out.Type, err = dec.String(raw, jsonmember.Path(field, "type")); err != nil {
		return err
	}
	raw, ok = m["data"]
	if !ok {
		return dec.Invalid(jsonmember.Path(field, "data"), "is required")
	}
	if out.Type == TypeUserError {
		u := new(UserError)
		if err := u.decode(raw, jsonmember.Path(field, "data")); err != nil {
			return err
		}
		out.UserError = u
	} else {
		out.Data = jsonmember.Compact(raw)
	}
	if err := out.validate(field); err != nil {
		return err
	}
	*e = out
	return nil
}

// parseTime reads an RFC 3339 date-time, or an ISO 8601 one without an
// offset as UTC, and returns it in UTC.
func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		var err2 error
		if t, err2 = time.Parse("2006-01-02T15:04:05.999999999", s); err2 != nil {
			return time.Time{}, err
		}
	}
	return t.UTC(), nil
}

// ParseUserError decodes user_error data. It fails with a *ValidationError
// when the data is not an object; when message is missing, not a string, or
// empty after trimming spaces; when code is present but not an integer from
// 100 to 599; when domain is present but not one of the five domains (the
// error names them); when retryable is present but not a boolean; or when
// retry_after is present but not a non-negative number. A retry_after is
// rounded up to whole seconds and capped at fault.MaxRetryAfter (86400
// seconds). Absent or null members take the defaults: no code, domain
// system, not retryable, no retry delay.
func ParseUserError(data []byte) (*UserError, error) {
	u := new(UserError)
	if err := u.decode(data, "data"); err != nil {
		return nil, err
	}
	return u, nil
}

// UnmarshalJSON decodes user_error data as ParseUserError does.
func (u *UserError) UnmarshalJSON(data []byte) error { return u.decode(data, "data") }

func (u *UserError) decode(data []byte, field string) error {
	m, err := dec.Object(data, field)
	if err != nil {
		return err
	}
	out := UserError{Domain: fault.DomainSystem}
	raw, ok := m["message"]
	if !ok {
		return dec.Invalid(jsonmember.Path(field, "message"), "is required")
	}
	if out.Message, err = dec.String(raw, jsonmember.Path(field, "message")); err != nil {
		return err
	}
	if raw := m["code"]; !jsonmember.IsNull(raw) {
		n, err := dec.Int(raw, jsonmember.Path(field, "code"))
		if err != nil {
			return err
		}
		if n < 100 || n > 599 {
			return dec.Invalid(jsonmember.Path(field, "code"), "%d is not a status code (100-599)", n)
		}
		out.Code = int(n)
	}
	if raw := m["domain"]; !jsonmember.IsNull(raw) {
		d, err := dec.String(raw, jsonmember.Path(field, "domain"))
		if err != nil {
			return err
		}
		if out.Domain = fault.Domain(d); !out.Domain.Valid() {
			return dec.Invalid(jsonmember.Path(field, "domain"), "unknown domain %q; allowed: %s", d, domainList())
		}
	}
	if raw := m["retryable"]; !jsonmember.IsNull(raw) {
		if out.Retryable, err = dec.Bool(raw, jsonmember.Path(field, "retryable")); err != nil {
			return err
		}
	}
	if raw := m["retry_after"]; !jsonmember.IsNull(raw) {
		n, err := dec.Number(raw, jsonmember.Path(field, "retry_after"))
		if err != nil {
			return err
		}
		if n < 0 {
			return dec.Invalid(jsonmember.Path(field, "retry_after"), "%v seconds is negative", n)
		}
		out.RetryAfter = retryAfterSeconds(n)
	}
	if err := out.validate(field); err != nil {
		return err
	}
	*u = out
	return nil
}

// maxRetryAfter is fault.MaxRetryAfter in whole seconds.
var maxRetryAfter = fault.Seconds(fault.MaxRetryAfter)

// retryAfterSeconds reads a non-negative delay in seconds as every delay
// Triage parses: a fraction rounds up, and more than fault.MaxRetryAfter is
// fault.MaxRetryAfter.
func retryAfterSeconds(n float64) int64 {
	return int64(math.Ceil(min(n, float64(maxRetryAfter))))
}
