package problem

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember"
)

// ContentType is the media type of a problem document (RFC 9457 §3).
const ContentType = "application/problem+json"

// maxRetryAfter is fault.MaxRetryAfter in whole seconds, the unit of the
// retry_after member.
const maxRetryAfter = int64(fault.MaxRetryAfter / time.Second)

// Problem is an RFC 9457 problem details document: the five members the RFC
// defines, the extension members Triage adds, and any other extension
// members a parsed document carries.
//
// From builds one from an error; Parse reads one; Fault turns one back into
// a *fault.Error. The zero Problem marshals to "{}", which a reader takes
// for an "about:blank" problem with no status.
type Problem struct {
	// Type is a URI reference that identifies the problem type: the code's
	// type from the code table ("/errors/rate-limited"), resolved against
	// Options.BaseURI when one is set. Parse sets "about:blank" when the
	// document has no type.
	Type string
	// Title is a short summary of the problem type: the code's title, or
	// for an "about:blank" problem the status's reason phrase.
	Title string
	// Status is the HTTP status the origin server wrote, between 100 and
	// 599; 0 when the document does not say.
	Status int
	// Detail explains this occurrence of the problem: the fault's Message,
	// which is safe for end users.
	Detail string
	// Instance is a URI reference that identifies this occurrence: by
	// default the path of the request that failed.
	Instance string

	// Code is the fault's code (the "code" member).
	Code fault.Code
	// Category says where in the architecture the failure happened (the
	// "category" member): one of fault.Categories() when a Triage peer
	// wrote it.
	Category fault.Category
	// Domain says who is at fault (the "domain" member): one of
	// fault.Domains() when a Triage peer wrote it.
	Domain fault.Domain
	// Retryable says whether repeating the request may succeed (the
	// "retryable" member); nil when the document does not say.
	Retryable *bool
	// RetryAfter is how many seconds to wait before a retry may succeed
	// (the "retry_after" member); 0 when no delay is known. Parse and
	// ReadResponse cap it at fault.MaxRetryAfter (86400 seconds).
	RetryAfter int64
	// SessionValid says whether the session survives the failure (the
	// "session_valid" member); nil when the document does not say.
	SessionValid *bool
	// Details is the fault's sanitized details (the "details" member).
	Details map[string]any
	// Errors lists the request fields that are invalid (the "errors"
	// member).
	Errors []fault.FieldError
	// Debug is the fault's redacted debug information (the "debug"
	// member). From sets it only when Options.Debug is true.
	Debug *fault.Debug

	// Extensions holds every other member of the document, by name, as the
	// JSON text of its value. They are written after the members above, in
	// name order, and survive Parse and MarshalJSON unchanged. An entry
	// whose name a field above uses is ignored.
	Extensions map[string]json.RawMessage
}

// Options configures how a fault becomes a problem. A nil *Options is the
// zero Options: every field's zero value is its documented default.
type Options struct {
	// Debug adds the "debug" member: the fault's Debug (its Go error type
	// and cause text) after fault.Redact has removed credentials and stack
	// traces. Defaults to false. Turn it on for developers, never for the
	// public.
	Debug bool

	// BaseURI is an absolute URI, such as "https://triage.example/", that
	// each code's relative type is resolved against (RFC 3986 §5.2):
	// "/errors/rate-limited" becomes
	// "https://triage.example/errors/rate-limited". Since the table's types
	// are absolute paths, a path in BaseURI is replaced, not extended.
	// Defaults to "": types stay relative references, which a client
	// resolves against the request's URI. A BaseURI that is not an
	// absolute URI is ignored.
	BaseURI string

	// Instance returns the "instance" member for a request; "" leaves the
	// member out. It is not called without a request, and what it returns
	// is written as given. Defaults to nil, which uses the request's path
	// without its query, since a query may carry credentials, and with
	// credentials in the path itself (an API key as a path segment)
	// replaced by fault.Redact.
	Instance func(*http.Request) string
}

func (o *Options) debug() bool { return o != nil && o.Debug }

// resolve resolves a type URI reference against BaseURI.
func (o *Options) resolve(ref string) string {
	if o == nil || o.BaseURI == "" {
		return ref
	}
	base, err := url.Parse(o.BaseURI)
	if err != nil || !base.IsAbs() {
		return ref
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return base.ResolveReference(u).String()
}

// instance returns the instance member for r.
func (o *Options) instance(r *http.Request) string {
	switch {
	case r == nil:
		return ""
	case o != nil && o.Instance != nil:
		return o.Instance(r)
	case r.URL == nil:
		return ""
	}
	return redactPath(r.URL)
}

// redactPath returns u's escaped path with any credential in it replaced by
// fault.Redact's marker, escaped in turn ("/v1/keys/%5BREDACTED%5D/x"), so
// that the instance stays a URI reference.
func redactPath(u *url.URL) string {
	redacted := fault.Redact(u.Path)
	if redacted == u.Path {
		return u.EscapedPath()
	}
	return (&url.URL{Path: redacted}).EscapedPath()
}

// From returns the problem that describes err: fault.From classifies it
// (a *fault.Error anywhere in err's chain is used as it is), and the
// fault's Payload gives every member, so the detail is redacted, details
// sanitized and debug output redacted. The status is the fault's HTTP
// status, or its code's default when the fault's is not an error status
// (400 to 599), so that it can be written as the response's status.
// Instance is left empty: it names a request, which Write knows and From
// does not.
//
// From returns nil for a nil error.
func From(err error, opts *Options) *Problem {
	if err == nil {
		return nil
	}
	f := fault.From(err)
	pl := f.Payload(opts.debug())
	status := pl.HTTPStatus
	if status < 400 || status > 599 {
		status = f.Code.HTTPStatus()
	}
	typ := opts.resolve(f.Code.ProblemType())
	retryable, sessionValid := pl.Retryable, pl.SessionValid
	p := &Problem{
		Type:         typ,
		Title:        title(f.Code, typ, status),
		Status:       status,
		Detail:       pl.Message,
		Code:         pl.Code,
		Category:     pl.Category,
		Domain:       pl.Domain,
		Retryable:    &retryable,
		RetryAfter:   pl.RetryAfter,
		SessionValid: &sessionValid,
		Errors:       slices.Clone(pl.Errors),
		Debug:        pl.Debug,
	}
	if len(pl.Details) > 0 {
		p.Details = pl.Details
	}
	return p
}

// title is the code's title, or for an "about:blank" problem the status's
// reason phrase, as RFC 9457 §4.2.1 asks.
func title(c fault.Code, typ string, status int) string {
	if typ == "about:blank" {
		if t := http.StatusText(status); t != "" {
			return t
		}
	}
	return c.Title()
}

// Fault returns the fault that p describes. It never returns nil. Its
// Classification's Method is fault.MethodWire, and its Rule says which of
// the cases below applied.
//
// When p's code is one the code table knows (a Triage peer wrote it), the
// fault takes that code's defaults, and the document overrides them: detail
// is the Message (passed through fault.Redact; the code's default when
// empty), status (when it is 400 to 599) the HTTP status. Rule
// "problem_code", confidence 1.
//
// Otherwise the document's text is not known to be safe for end users, and
// the fault's Message is its code's default; title and detail go, redacted,
// to Debug.Cause, as fault.ClassifyText does with foreign text. The code
// is p's code when it has one this version does not know (a newer peer's;
// Rule "problem_unknown_code", confidence 0.5), with status as above. A
// document without a code is classified by its status as an upstream's
// would be (see fault.FromStatus): 429 is RATE_LIMITED, 503
// SERVICE_UNAVAILABLE, and so on (Rule "problem_status", confidence 0.9);
// with no usable status either it is UPSTREAM_ERROR (Rule
// "problem_fallback", confidence 0.3).
//
// In every case category and domain (when valid), retryable,
// retry_after (capped at fault.MaxRetryAfter), session_valid, details,
// errors and debug override the facets.
func (p *Problem) Fault() *fault.Error {
	var f *fault.Error
	c := fault.Classification{Method: fault.MethodWire}
	trusted := p.Code.Known()
	switch {
	case p.Code != "":
		f = fault.New(p.Code, "")
		if trusted {
			if m := fault.Redact(p.Detail); m != "" {
				f.Message = m
			}
			c.Rule, c.Confidence = "problem_code", 1
		} else {
			c.Rule, c.Confidence = "problem_unknown_code", 0.5
		}
		if p.Status >= 400 && p.Status <= 599 {
			f.Status = p.Status
		}
	case p.Status >= 400 && p.Status <= 599:
		f = fault.FromStatus(p.Status, nil, time.Time{})
		c.Rule, c.Confidence = "problem_status", 0.9
	default:
		f = fault.New(fault.UpstreamError, "")
		c.Rule, c.Confidence = "problem_fallback", 0.3
	}
	f.Classification = c
	if p.Category.Valid() {
		f.Category = p.Category
	}
	if p.Domain.Valid() {
		f.Domain = p.Domain
	}
	if p.Retryable != nil {
		f.Retryable = *p.Retryable
	}
	if p.RetryAfter > 0 {
		f.RetryAfter = time.Duration(min(p.RetryAfter, maxRetryAfter)) * time.Second
	}
	if p.SessionValid != nil {
		f.SessionValid = *p.SessionValid
	}
	// A peer's text is redacted wherever it lands, not only in Message:
	// details, field errors and debug text reach logs and, re-encoded,
	// other clients.
	if len(p.Details) > 0 {
		if f.Details == nil {
			f.Details = make(map[string]any, len(p.Details))
		}
		maps.Copy(f.Details, fault.SanitizeDetails(p.Details))
	}
	f.FieldErrors = slices.Clone(p.Errors)
	for i := range f.FieldErrors {
		f.FieldErrors[i].Field = fault.Redact(f.FieldErrors[i].Field)
		f.FieldErrors[i].Message = fault.Redact(f.FieldErrors[i].Message)
	}
	if p.Debug != nil {
		f.Debug = fault.Debug{
			ErrorType: p.Debug.ErrorType,
			Cause:     fault.Redact(p.Debug.Cause),
			Extra:     fault.SanitizeDetails(p.Debug.Extra),
		}
	}
	if !trusted {
		f.Debug.Cause = jsonmember.PeerCause(foreignText(p), f.Debug.Cause)
	}
	return f
}

// foreignText joins a foreign problem's title and detail.
func foreignText(p *Problem) string {
	var parts []string
	for _, s := range []string{p.Title, p.Detail} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ": ")
}
