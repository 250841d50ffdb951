package jsonmember

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonscan"
)

// MaxFieldErrors is the most invalid members a ValidationError lists;
// Omitted counts the rest.
const MaxFieldErrors = 100

// ValidationError reports why a document, or a value built to be encoded,
// is not valid: every member at fault, each as a fault.FieldError naming it
// by its path ("error.code", "messages[2].id"; "(root)" for the document
// itself) with the rule it breaks. It is the one error type of the module's
// strict decoders (wire/jsonrpc, wire/present and wire/agui alias it).
//
// It lists its members as field errors, so fault.From turns it into an
// INVALID_REQUEST fault.
type ValidationError struct {
	Package string // the package reporting it, which Error puts first; may be empty
	// Subject, when set ("RunAgentInput"), makes Error a list: `<Package>:
	// invalid <Subject>: member "a" <rule>; member "b" <rule> (and 3 more)`.
	// Without it Error names the first member: `<Package>: member "a":
	// <rule>: <Err>`.
	Subject string
	Fields  []fault.FieldError // the members at fault, in document order
	Omitted int                // members at fault beyond MaxFieldErrors, not listed
	// Err is the underlying decoding error, or a sentinel the package's
	// callers match with errors.Is; Unwrap returns it.
	Err error
}

// Error says what is wrong: see Subject.
func (e *ValidationError) Error() string {
	var b strings.Builder
	if e.Package != "" {
		b.WriteString(e.Package)
		b.WriteString(": ")
	}
	if e.Subject != "" {
		b.WriteString("invalid ")
		b.WriteString(e.Subject)
		b.WriteString(": ")
		for i, f := range e.Fields {
			if i == 3 {
				break
			}
			if i > 0 {
				b.WriteString("; ")
			}
			if f.Field == "(root)" {
				b.WriteString("the document " + f.Message)
			} else {
				b.WriteString("member " + strconv.Quote(f.Field) + " " + f.Message)
			}
		}
		if more := len(e.Fields) - 3 + e.Omitted; more > 0 {
			b.WriteString(" (and " + strconv.Itoa(more) + " more)")
		}
		return b.String()
	}
	if len(e.Fields) > 0 {
		f := e.Fields[0]
		if f.Field != "(root)" {
			b.WriteString("member ")
			b.WriteString(strconv.Quote(f.Field))
			b.WriteString(": ")
		}
		b.WriteString(f.Message)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns Err.
func (e *ValidationError) Unwrap() error { return e.Err }

// FieldErrors lists the members at fault for fault.From, with a last
// entry, "(root)", counting those not listed.
func (e *ValidationError) FieldErrors() []fault.FieldError {
	out := append([]fault.FieldError(nil), e.Fields...)
	if e.Omitted > 0 {
		out = append(out, fault.FieldError{Field: "(root)", Message: "has " + strconv.Itoa(e.Omitted) + " more invalid members, not listed"})
	}
	return out
}

// Errors collects the invalid members of one document, for a decoder that
// reports every one: at most MaxFieldErrors, then a count.
type Errors struct {
	fields  []fault.FieldError
	omitted int
}

// Add records that the member at path (empty for the document itself)
// breaks the rule the format and its arguments state.
func (c *Errors) Add(path, format string, args ...any) {
	if len(c.fields) >= MaxFieldErrors {
		c.omitted++
		return
	}
	if path == "" {
		path = "(root)"
	}
	c.fields = append(c.fields, fault.FieldError{Field: path, Message: fmt.Sprintf(format, args...)})
}

// Len counts the invalid members recorded, listed or not.
func (c *Errors) Len() int { return len(c.fields) + c.omitted }

// Err returns nil when no member is invalid, else the *ValidationError
// listing them, with the package, subject and sentinel given.
func (c *Errors) Err(pkg, subject string, sentinel error) error {
	if c.Len() == 0 {
		return nil
	}
	return &ValidationError{Package: pkg, Subject: subject, Fields: c.fields, Omitted: c.omitted, Err: sentinel}
}

// A Decoder decodes members, and reports invalid ones, for one package:
// every error its methods return is a *ValidationError whose Package is the
// Decoder's. The zero Decoder's errors name no package.
type Decoder struct {
	Package string // put first in every error's text ("jsonrpc"); may be empty
}

// Invalid returns the error for field breaking a rule, which the format
// and its arguments state ("must be %q, got %q").
func (d Decoder) Invalid(field, format string, args ...any) *ValidationError {
	return d.Wrap(field, fmt.Sprintf(format, args...), nil)
}

// Wrap returns the error for field breaking a rule, stated by reason,
// because of err, the underlying decoding error.
func (d Decoder) Wrap(field, reason string, err error) *ValidationError {
	if field == "" {
		field = "(root)"
	}
	return &ValidationError{Package: d.Package, Fields: []fault.FieldError{{Field: field, Message: reason}}, Err: err}
}

// Object decodes a JSON object (the member field, or the document when
// field is empty) into its members, keeping each member's raw value. Member
// names match exactly; of duplicate members the last wins.
func (d Decoder) Object(data []byte, field string) (map[string]json.RawMessage, error) {
	if !json.Valid(data) {
		return nil, d.syntaxError(data, field)
	}
	return d.ObjectOfMember(data, field)
}

// ObjectOfMember is Object for a member's raw value that Object returned:
// the document it came from was validated whole, so its values are not
// validated again. data must be such a value.
func (d Decoder) ObjectOfMember(data []byte, field string) (map[string]json.RawMessage, error) {
	if k := Kind(data); k != "object" {
		if k == "" {
			k = "nothing"
		}
		return nil, d.Invalid(field, "must be an object, got %s", k)
	}
	return members(data), nil
}

// ObjectOfOwnMember is ObjectOfMember for a member's raw value that
// Object returned and that no one but the caller reads: Object's values
// are slices of its own copy of the document, which no one writes, so
// the members are slices of data itself rather than of a copy of it.
func (d Decoder) ObjectOfOwnMember(data []byte, field string) (map[string]json.RawMessage, error) {
	if k := Kind(data); k != "object" {
		if k == "" {
			k = "nothing"
		}
		return nil, d.Invalid(field, "must be an object, got %s", k)
	}
	return membersIn(data), nil
}

// ItemsOfMember splits a member's raw value that Object returned (valid
// JSON, not validated again) into its items, as json.Unmarshal into a
// []json.RawMessage does, without copying them: it fails for a value that
// is not an array. FuzzItems holds the two to the same answers.
func ItemsOfMember(data []byte) ([]json.RawMessage, error) {
	if k := Kind(data); k != "array" {
		return nil, errors.New("not an array")
	}
	items := []json.RawMessage{}
	jsonscan.EachItem(data, func(item []byte) { items = append(items, item) })
	return items, nil
}

// StringOfMember decodes a member's raw value that Object returned (valid
// JSON) as a string, as json.Unmarshal does; ok is false for a value that
// is not a string.
func StringOfMember(raw json.RawMessage) (s string, ok bool) {
	if Kind(raw) != "string" {
		return "", false
	}
	s, err := jsonscan.String(bytes.TrimSpace(raw))
	return s, err == nil
}

// members splits a valid JSON object into its members: what
// json.Unmarshal into a map[string]json.RawMessage does, without decoding
// the values (one copy of the object backs every value). FuzzMembers holds
// the two to the same answers.
func members(data []byte) map[string]json.RawMessage {
	return membersIn(bytes.Clone(data))
}

// membersIn is members with data its own copy: the values are slices of it.
func membersIn(data []byte) map[string]json.RawMessage {
	text := string(data) // the names are slices of it: one copy for them all
	m := make(map[string]json.RawMessage, 8)
	i := jsonscan.SkipSpace(data, 0) + 1 // past '{'
	for {
		i = jsonscan.SkipSpace(data, i)
		if data[i] == '}' {
			return m
		}
		end := jsonscan.StringEnd(data, i)
		key, _ := textString(text[i:end])     // a valid document's: it decodes
		i = jsonscan.SkipSpace(data, end) + 1 // past ':'
		i = jsonscan.SkipSpace(data, i)
		vend := jsonscan.ValueEnd(data, i)
		m[key] = data[i:vend:vend]
		i = jsonscan.SkipSpace(data, vend)
		if data[i] == ',' {
			i++
		}
	}
}

// syntaxError reports data, which is not JSON, with encoding/json's error.
func (d Decoder) syntaxError(data []byte, field string) error {
	var v any
	err := json.Unmarshal(data, &v)
	if err == nil {
		err = errors.New("unexpected end of JSON input")
	}
	return d.Wrap(field, "invalid JSON", err)
}

// String decodes a JSON string.
func (d Decoder) String(raw json.RawMessage, field string) (string, error) {
	if k := Kind(raw); k != "string" {
		return "", d.Invalid(field, "must be a string, got %s", k)
	}
	s, err := jsonscan.String(raw)
	if err != nil {
		return "", d.Wrap(field, "invalid string", err)
	}
	return s, nil
}

// Bool decodes a JSON boolean.
func (d Decoder) Bool(raw json.RawMessage, field string) (bool, error) {
	if k := Kind(raw); k != "boolean" {
		return false, d.Invalid(field, "must be a boolean, got %s", k)
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		return false, d.Wrap(field, "invalid boolean", err)
	}
	return b, nil
}

// MaxSafeInteger is the largest integer every JSON peer (JavaScript's
// Number) represents exactly: 2^53 - 1.
const MaxSafeInteger = 1<<53 - 1

// Number decodes a JSON number that a float64 holds.
func (d Decoder) Number(raw json.RawMessage, field string) (float64, error) {
	if k := Kind(raw); k != "number" {
		return 0, d.Invalid(field, "must be a number, got %s", k)
	}
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(raw)), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, d.Invalid(field, "number %s out of range", bytes.TrimSpace(raw))
	}
	return f, nil
}

// Int decodes a JSON number whose value is an integer (429 and 429.0
// alike) within ±MaxSafeInteger.
func (d Decoder) Int(raw json.RawMessage, field string) (int64, error) {
	if k := Kind(raw); k != "number" {
		return 0, d.Invalid(field, "must be an integer, got %s", k)
	}
	f, err := d.Number(raw, field)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) {
		return 0, d.Invalid(field, "must be an integer, got %s", bytes.TrimSpace(raw))
	}
	if math.Abs(f) > MaxSafeInteger {
		return 0, d.Invalid(field, "integer %s out of range", bytes.TrimSpace(raw))
	}
	return int64(f), nil
}

// Details decodes a details object; null or absent is nil.
func (d Decoder) Details(raw json.RawMessage, field string) (map[string]any, error) {
	if IsNull(raw) {
		return nil, nil
	}
	if k := Kind(raw); k != "object" {
		return nil, d.Invalid(field, "must be an object, got %s", k)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, d.Wrap(field, "invalid object", err)
	}
	return m, nil
}

// Path joins a member name to its parent's path: Path("error", "code") is
// "error.code", Path("", "id") is "id".
func Path(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// Kind names the JSON type of a raw value ("object", "array", "string",
// "boolean", "null" or "number"), for error messages and type checks; ""
// for an empty value. It looks at the first byte only.
func Kind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// IsNull reports whether a member is absent or null: optional members treat
// both alike.
func IsNull(raw json.RawMessage) bool {
	k := Kind(raw)
	return k == "" || k == "null"
}

// SafeDetails returns details sanitized by fault.SanitizeDetails, as plain
// JSON values (objects, arrays, strings, json.Number, booleans, null). A
// member that still does not encode (an invalid json.Number) is dropped,
// because an error path must not fail. The result is never nil.
func SafeDetails(details map[string]any) map[string]any {
	out := make(map[string]any, len(details))
	for k, v := range fault.SanitizeDetails(details) {
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var x any
		if dec.Decode(&x) != nil {
			continue
		}
		out[k] = x
	}
	return out
}

// Compact returns a compacted copy of a raw value that the caller may keep;
// a value that is not valid JSON is only trimmed.
func Compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return append(json.RawMessage(nil), bytes.TrimSpace(raw)...)
	}
	return b.Bytes()
}

// PeerCause is the Debug.Cause of a fault decoded from a peer's document
// whose text may not become the fault's message (the peer is not a Triage
// peer): that text, then the cause the peer's own debug output gave, joined
// and redacted.
func PeerCause(text, cause string) string {
	switch {
	case text == "":
		return fault.Redact(cause)
	case cause == "":
		return fault.Redact(text)
	}
	return fault.Redact(text + ": " + cause)
}

// Value decodes a JSON value into what json.Unmarshal into an any makes of
// it (map[string]any, []any, string, float64, bool, nil), without
// reflection. It validates first; FuzzValue holds it to encoding/json.
func Value(data []byte) (any, error) {
	if !json.Valid(data) {
		var v any
		return nil, json.Unmarshal(data, &v)
	}
	return ValueOfMember(data)
}

// ValueOfMember is Value for a member's raw value that Object returned,
// which is valid JSON already: it does not validate it again.
func ValueOfMember(data []byte) (any, error) {
	return textValue(string(bytes.TrimSpace(data)))
}
