package triage

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember"
)

// Report is seed 004's standard error input, which any pipeline agent
// posts, optionally carrying a Triage fault in data.fault.
type Report struct {
	AgentID   string    `json:"agent_id"`
	Timestamp time.Time `json:"timestamp"`
	Status    string    `json:"status"`
	// Environment and Release say where and in which build the error
	// happened ("production", "planner@1.4.0"); both optional.
	Environment string `json:"environment,omitempty"`
	Release     string `json:"release,omitempty"`
	// Tags are free labels to search and filter by (at most MaxTags;
	// names of 1 to 32 of letters, digits, '_', '-', '.' and ':'; values
	// of 1 to 200 bytes), their values redacted as the context is.
	Tags map[string]string `json:"tags,omitempty"`
	Data Data              `json:"data"`

	// members and dataMembers are the JSON members DecodeReport read,
	// for Document; nil for a report built in code.
	members, dataMembers map[string]json.RawMessage
}

// Data is a report's payload.
type Data struct {
	ErrorType ErrorType      `json:"error_type,omitempty"`
	ErrorCode string         `json:"error_code,omitempty"`
	Message   string         `json:"message"`
	Context   map[string]any `json:"context,omitempty"`
	QueryID   string         `json:"query_id"`
	Fault     *fault.Error   `json:"fault,omitempty"`
}

var dec = jsonmember.Decoder{Package: "triage"}

// Identifier rules. An agent id, a query id and an error code are 1 to 128
// characters: a letter or digit, then letters, digits, '_', '-', '.' and
// ':' (so "q_456", "query:2025-08-08:17" and "DB_TIMEOUT" are well formed;
// spaces, slashes, quotes and control characters are not).
func isIdentifier(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alnum && (i == 0 || c != '_' && c != '.' && c != ':' && c != '-') {
			return false
		}
	}
	return true
}

// MaxMessage bounds a report's message, in bytes.
const MaxMessage = 8 << 10

// DecodeReport decodes and validates one report (seed 004's standard
// input). Every problem is reported at once: the error is an
// INVALID_REQUEST *fault.Error whose FieldErrors name each member by its
// path ("data.error_type") with what is wrong. A report that does not
// decode is never half processed.
//
// Decoding checks the structure and the types (timestamp must be an RFC
// 3339 date and time; data.context an object; data.fault a Triage fault's
// JSON); then Validate checks the content. Members the format does not
// define are ignored.
func DecodeReport(raw []byte) (*Report, error) {
	r, fields := decodeReport(raw)
	if r != nil {
		fields = append(fields, r.check(fields)...)
	}
	if len(fields) > 0 {
		return nil, invalidReport(fields)
	}
	return r, nil
}

// rank orders field errors as the format lists the members.
func rank(field string) int {
	for i, f := range []string{"agent_id", "timestamp", "status", "environment", "release", "tags",
		"data", "data.error_type", "data.error_code", "data.message", "data.context", "data.query_id", "data.fault"} {
		if field == f || strings.HasPrefix(field, f+".") || strings.HasPrefix(field, f+"[") {
			return i
		}
	}
	return -1 // (root)
}

// decodeReport decodes what it can of a report and returns the structure
// and type errors; the report is nil when raw is not a JSON object.
// MaxFaultCode bounds the code of a report's data.fault, in bytes: the
// table's codes are short words, and an unknown one is echoed in the
// feedback and stored.
const MaxFaultCode = 64

func decodeReport(raw []byte) (*Report, []fault.FieldError) {
	var v validator
	top, err := dec.Object(raw, "")
	if err != nil {
		return nil, fieldErrorsOf(err)
	}
	// Every string is Unicode text, members the format does not define
	// too: decoding would turn the rest into U+FFFD without a word (see
	// jsonmember.TextErrors).
	v.errs = jsonmember.TextErrors(raw)
	var r Report
	r.AgentID = v.str(top["agent_id"], "agent_id")
	if ts := v.str(top["timestamp"], "timestamp"); ts != "" {
		t, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			v.bad("timestamp", "must be an RFC 3339 date and time, such as 2025-08-08T12:01:00Z")
		}
		r.Timestamp = t
	}
	r.Status = v.str(top["status"], "status")
	r.Environment = v.str(top["environment"], "environment")
	r.Release = v.str(top["release"], "release")
	if raw := top["tags"]; !jsonmember.IsNull(raw) {
		r.Tags = v.tags(raw)
	}
	if data, ok := top["data"]; !ok || jsonmember.IsNull(data) {
		v.bad("data", "is required")
	} else if d, err := dec.ObjectOfOwnMember(data, "data"); err != nil { // raw was validated whole; top is a copy of its own
		v.add(err)
	} else {
		r.Data = v.data(d)
		r.members, r.dataMembers = top, d
	}
	return &r, v.errs
}

// Validate checks a report's content, as DecodeReport does for one it
// decodes: agent_id, timestamp, status, data.message and data.query_id are
// required; agent_id, data.query_id and data.error_code are identifiers
// (see above); status is "error"; data.message is at most MaxMessage bytes;
// data.error_type, when set, is one of the six canonical types or
// "unknown". It returns an INVALID_REQUEST *fault.Error listing every
// problem, or nil.
func (r *Report) Validate() error {
	if r == nil {
		return invalidReport([]fault.FieldError{{Field: "(root)", Message: "is required"}})
	}
	if fields := r.check(nil); len(fields) > 0 {
		return invalidReport(fields)
	}
	return nil
}

// check returns the content problems of r, leaving out the members already
// reported in known (a member that did not decode is not also "required").
func (r *Report) check(known []fault.FieldError) []fault.FieldError {
	var v validator
	reported := func(field string) bool {
		for _, f := range known {
			if f.Field == field || strings.HasPrefix(field, f.Field+".") {
				return true
			}
		}
		return false
	}
	required := func(field, value string) bool {
		if reported(field) {
			return false
		}
		if strings.TrimSpace(value) == "" {
			v.bad(field, "is required")
			return false
		}
		return true
	}
	identifier := func(field, value string) {
		if !isIdentifier(value) {
			v.bad(field, "must be 1 to 128 letters, digits, '_', '-', '.' or ':', starting with a letter or digit")
		}
	}
	if required("agent_id", r.AgentID) {
		identifier("agent_id", r.AgentID)
	}
	if !reported("timestamp") && r.Timestamp.IsZero() {
		v.bad("timestamp", "is required")
	}
	if required("status", r.Status) && r.Status != "error" {
		v.bad("status", fmt.Sprintf("must be %q, got %q", "error", r.Status))
	}
	if r.Environment != "" && !reported("environment") && (len(r.Environment) > MaxEnvironment || !isIdentifier(r.Environment)) {
		v.bad("environment", fmt.Sprintf("must be 1 to %d letters, digits, '_', '-', '.' or ':', starting with a letter or digit", MaxEnvironment))
	}
	if r.Release != "" && !reported("release") {
		if msg := checkRelease(r.Release); msg != "" {
			v.bad("release", msg)
		}
	}
	if !reported("tags") {
		v.errs = append(v.errs, checkTags(r.Tags)...)
	}
	if reported("data") {
		return v.errs
	}
	d := &r.Data
	if t := d.ErrorType; t != "" && !reported("data.error_type") && !t.Valid() && t != Unknown {
		allowed := make([]string, 0, 7)
		for _, et := range ErrorTypes() {
			allowed = append(allowed, string(et))
		}
		allowed = append(allowed, string(Unknown))
		v.bad("data.error_type", fmt.Sprintf("unknown type %q; allowed: %s", t, strings.Join(allowed, ", ")))
	}
	if d.ErrorCode != "" && !reported("data.error_code") {
		identifier("data.error_code", d.ErrorCode)
	}
	if required("data.message", d.Message) {
		if len(d.Message) > MaxMessage {
			v.bad("data.message", fmt.Sprintf("is %d bytes; at most %d", len(d.Message), MaxMessage))
		} else if !utf8.ValidString(d.Message) {
			v.bad("data.message", "is not valid UTF-8")
		}
	}
	if !reported("data.context") { // a report built in code may hold any bytes
		v.errs = append(v.errs, contextText(d.Context)...)
	}
	if required("data.query_id", d.QueryID) {
		identifier("data.query_id", d.QueryID)
	}
	return v.errs
}

// The bounds of a report's environment, release and tags.
const (
	MaxEnvironment = 64
	MaxRelease     = 200
	MaxTags        = 50
	MaxTagName     = 32
	MaxTagValue    = 200
)

// checkRelease says what is wrong with a release's name, or "": 1 to
// MaxRelease bytes of text without spaces, control characters or
// slashes, and not "." or ".." (Sentry's rule, so that a release names
// the same build in both).
func checkRelease(s string) string {
	switch {
	case len(s) > MaxRelease:
		return fmt.Sprintf("is %d bytes; at most %d", len(s), MaxRelease)
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	case s == "." || s == "..":
		return "must name a release, not " + strconv.Quote(s)
	case strings.ContainsFunc(s, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsControl(c) || c == '/' || c == '\\' }):
		return "must hold no spaces, control characters or slashes"
	}
	return ""
}

// checkTags lists what is wrong with tags, in the order of their names.
func checkTags(tags map[string]string) []fault.FieldError {
	if len(tags) == 0 {
		return nil
	}
	var errs []fault.FieldError
	if len(tags) > MaxTags {
		errs = append(errs, fault.FieldError{Field: "tags", Message: fmt.Sprintf("has %d tags; at most %d", len(tags), MaxTags)})
	}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		switch v := tags[k]; {
		case len(k) > MaxTagName || !isIdentifier(k):
			errs = append(errs, fault.FieldError{Field: "tags", Message: fmt.Sprintf("the name %q must be 1 to %d letters, digits, '_', '-', '.' or ':', starting with a letter or digit", k, MaxTagName)})
		case v == "" || len(v) > MaxTagValue:
			errs = append(errs, fault.FieldError{Field: "tags." + k, Message: fmt.Sprintf("must be 1 to %d bytes", MaxTagValue)})
		case !utf8.ValidString(v) || strings.ContainsFunc(v, unicode.IsControl):
			errs = append(errs, fault.FieldError{Field: "tags." + k, Message: "must be text without control characters"})
		}
	}
	return errs
}

// invalidReport is the INVALID_REQUEST fault listing fields in the order
// the format lists the members.
func invalidReport(fields []fault.FieldError) *fault.Error {
	slices.SortStableFunc(fields, func(a, b fault.FieldError) int { return rank(a.Field) - rank(b.Field) })
	return fault.Invalid("The error report is invalid.", fields...)
}

// validator collects every problem of a report.
type validator struct{ errs []fault.FieldError }

func (v *validator) bad(field, msg string) {
	v.errs = append(v.errs, fault.FieldError{Field: field, Message: msg})
}

func (v *validator) add(err error) { v.errs = append(v.errs, fieldErrorsOf(err)...) }

func fieldErrorsOf(err error) []fault.FieldError {
	var ve *jsonmember.ValidationError
	if errors.As(err, &ve) {
		return ve.FieldErrors()
	}
	return []fault.FieldError{{Field: "(root)", Message: err.Error()}}
}

// str decodes a string member, if present.
func (v *validator) str(raw json.RawMessage, field string) string {
	if jsonmember.IsNull(raw) {
		return ""
	}
	if s, ok := knownString(raw); ok {
		return s
	}
	s, err := dec.String(raw, field)
	if err != nil {
		v.add(err)
		return ""
	}
	return s
}

// knownStrings are the values of a report's members that most reports
// send (its status, the error types): knownString answers them without
// a string of their own.
var knownStrings = append([]string{"error", string(Unknown)}, func() (s []string) {
	for _, t := range ErrorTypes() {
		s = append(s, string(t))
	}
	return s
}()...)

// knownString returns the knownStrings value that raw, a JSON value, is
// as it is (a string without escapes), if any.
func knownString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	for _, k := range knownStrings {
		if string(raw[1:len(raw)-1]) == k {
			return k, true
		}
	}
	return "", false
}

// tags decodes a report's tags: an object of strings, their values
// redacted as a context's are (a tag named for a credential is dropped).
func (v *validator) tags(raw json.RawMessage) map[string]string {
	obj, err := dec.ObjectOfMember(raw, "tags")
	if err != nil {
		v.add(err)
		return nil
	}
	plain := make(map[string]any, len(obj))
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		rv := obj[k]
		if jsonmember.Kind(rv) != "string" {
			v.bad("tags."+k, "must be a string, got "+jsonmember.Kind(rv))
			continue
		}
		plain[k] = v.str(rv, "tags."+k)
	}
	out := make(map[string]string, len(plain))
	for k, x := range RedactContext(plain) {
		if s, ok := x.(string); ok {
			out[k] = s
		}
	}
	return out
}

func (v *validator) data(d map[string]json.RawMessage) Data {
	var out Data
	out.ErrorType = ErrorType(v.str(d["error_type"], "data.error_type"))
	out.ErrorCode = v.str(d["error_code"], "data.error_code")
	out.Message = v.str(d["message"], "data.message")
	out.QueryID = v.str(d["query_id"], "data.query_id")
	if raw := d["context"]; !jsonmember.IsNull(raw) {
		if k := jsonmember.Kind(raw); k != "object" {
			v.bad("data.context", "must be an object, got "+k)
		} else if c, err := jsonmember.ValueOfMember(raw); err != nil { // a member of the validated report
			v.bad("data.context", "invalid object")
		} else {
			out.Context = redactDecoded(c.(map[string]any))
		}
	}
	if raw := d["fault"]; !jsonmember.IsNull(raw) {
		if k := jsonmember.Kind(raw); k != "object" {
			v.bad("data.fault", "must be a Triage fault (an object), got "+k)
		} else {
			var f fault.Error
			switch err := json.Unmarshal(raw, &f); {
			case err != nil:
				v.bad("data.fault", strings.TrimPrefix(err.Error(), "fault: decode: "))
			case len(f.Code) > MaxFaultCode:
				v.bad("data.fault.code", fmt.Sprintf("is %d bytes; at most %d", len(f.Code), MaxFaultCode))
			case len(f.Message) > MaxMessage:
				v.bad("data.fault.message", fmt.Sprintf("is %d bytes; at most %d", len(f.Message), MaxMessage))
			default:
				out.Fault = &f
			}
		}
	}
	return out
}

// RedactContext returns a report's context as the handler keeps it: safe
// for any client, log and template. It is fault.SanitizeDetails: members
// whose names denote credentials, headers, raw requests or responses, or
// stack traces ("api_key", "password", "authorization", "headers",
// "stack", "request", "body", "…_token") are dropped, as are members whose
// names hold a credential; every string is passed through fault.Redact
// (credentials become [REDACTED], a stack trace and what follows it is cut,
// a string longer than 1 KiB is truncated), at every depth, and members
// deeper than 32 levels are dropped. It returns nil for nil, otherwise a
// copy (an empty context stays empty); c is not changed.
//
// DecodeReport redacts the context it decodes, and the handler the
// context of a report built in code, so that neither the feedback, the
// stored report, the logs nor the policy ever hold what it removes.
func RedactContext(c map[string]any) map[string]any {
	if c == nil {
		return nil
	}
	if out := fault.SanitizeDetails(c); out != nil {
		return out
	}
	return map[string]any{}
}

// redactDecoded is RedactContext for a context just decoded, which no one
// else holds: redacted in place rather than copied.
func redactDecoded(c map[string]any) map[string]any {
	if out := fault.SanitizeDecoded(c); out != nil {
		return out
	}
	return map[string]any{}
}

// contextText lists the strings of a context (its values and member
// names, at every depth) that are not valid UTF-8, by their paths
// ("data.context.rows[1].note"), sorted. The path is made only for an
// error: a walk of a valid context allocates nothing.
func contextText(c map[string]any) []fault.FieldError {
	if validText(c) {
		return nil
	}
	var buf [8]step
	w := textWalk{path: buf[:0]}
	w.value(c)
	slices.SortFunc(w.errs, func(a, b fault.FieldError) int { return strings.Compare(a.Field, b.Field) })
	return w.errs
}

// validText reports whether every string of v, and every member name, is
// valid UTF-8: textWalk finds none to report.
func validText(v any) bool {
	switch x := v.(type) {
	case string:
		return utf8.ValidString(x)
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) || !validText(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !validText(e) {
				return false
			}
		}
	case []string:
		for _, e := range x {
			if !utf8.ValidString(e) {
				return false
			}
		}
	}
	return true
}

type textWalk struct {
	path []step
	errs []fault.FieldError
}

// step is a step of a path: a member's name, or an element's index (when
// index is not negative).
type step struct {
	name  string
	index int
}

func (w *textWalk) bad(msg string) {
	field := "data.context"
	for _, p := range w.path {
		if p.index < 0 {
			field += "." + p.name
		} else {
			field += "[" + strconv.Itoa(p.index) + "]"
		}
	}
	w.errs = append(w.errs, fault.FieldError{Field: field, Message: msg})
}

func (w *textWalk) value(v any) {
	switch x := v.(type) {
	case string:
		if !utf8.ValidString(x) {
			w.bad("is not valid UTF-8")
		}
	case map[string]any:
		for k, e := range x {
			w.path = append(w.path, step{name: k, index: -1})
			if !utf8.ValidString(k) {
				w.bad("has a name that is not valid UTF-8")
			}
			w.value(e)
			w.path = w.path[:len(w.path)-1]
		}
	case []any:
		for i, e := range x {
			w.path = append(w.path, step{index: i})
			w.value(e)
			w.path = w.path[:len(w.path)-1]
		}
	case []string:
		for i, e := range x {
			w.path = append(w.path, step{index: i})
			w.value(e)
			w.path = w.path[:len(w.path)-1]
		}
	}
}

// IsIdentifier reports whether s follows the identifier rule of agent ids,
// query ids and error codes (above); the service applies it to tenants,
// sources and path parameters too.
func IsIdentifier(s string) bool { return isIdentifier(s) }

// CheckRelease says what is wrong with s as a release's name, or "" when
// it is one: the rule a report's release follows (above), which the
// service applies to a filter by release too.
func CheckRelease(s string) string { return checkRelease(s) }
