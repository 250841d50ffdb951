package fault

import (
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"
)

// Error is the canonical failure of an agent system. Its facets are
// orthogonal: Code says why, Category where, Domain who is at fault;
// Retryable, RetryAfter and SessionValid what the caller may do next.
//
// Message and Details are safe to show to any client. Debug is not: it holds
// the Go type and the cause text and is emitted only when a wire encoder is
// asked for debug output. Cause is never serialized.
//
// An *Error built by New or From is ready to use; the zero Error is not
// meaningful. Treat an *Error returned by From as shared: From returns the
// fault it finds in a chain itself, so use Clone before changing one.
type Error struct {
	// Code is the stable reason. It decides the defaults of every facet
	// below.
	Code Code
	// Message is safe for end users. Every dynamic value in it also appears
	// in Details.
	Message string
	// Status is the HTTP status; zero means the code's default (see
	// HTTPStatus).
	Status int
	// Category is where in the architecture it failed.
	Category Category
	// Domain is who is at fault, for user interfaces.
	Domain Domain
	// Retryable says whether repeating the operation may succeed.
	Retryable bool
	// RetryAfter is the earliest a retry may succeed, when known.
	RetryAfter time.Duration
	// SessionValid says whether the session survives the error.
	SessionValid bool
	// Source is the agent, node, provider, worker or upstream host that
	// failed, when known.
	Source string
	// Details is safe structured metadata (AIP-193 style).
	Details map[string]any
	// FieldErrors lists invalid request fields, for INVALID_REQUEST.
	FieldErrors []FieldError
	// Debug is emitted only in debug mode.
	Debug Debug
	// Cause is the wrapped error. It is never serialized.
	Cause error
	// Classification says how the fault was obtained and how sure that is.
	Classification Classification
}

// FieldError is one invalid field of a request: its path (dotted, as
// "data.error_type") and what is wrong with it.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Debug is the part of a fault that only debug output carries: seed 000's
// error_type, the cause text, and whatever else a caller adds. Wire encoders
// redact it before emitting it; it never holds a stack trace.
type Debug struct {
	ErrorType string         `json:"error_type,omitempty"`
	Cause     string         `json:"cause,omitempty"`
	Extra     map[string]any `json:"extra,omitempty"`
}

// IsZero reports whether d holds nothing.
func (d Debug) IsZero() bool { return d.ErrorType == "" && d.Cause == "" && len(d.Extra) == 0 }

// Method says how a fault was classified.
type Method string

// The classification methods, from most to least certain.
const (
	MethodExplicit   Method = "explicit"    // built with New: the code is what the author said
	MethodWire       Method = "wire"        // decoded from a peer's document: the peer said so
	MethodContext    Method = "context"     // context.Canceled or DeadlineExceeded
	MethodClassifier Method = "classifier"  // a registered classifier (a provider package)
	MethodNetwork    Method = "network"     // a net, url or syscall error type
	MethodHTTPStatus Method = "http_status" // an HTTP status the error carries
	MethodDecode     Method = "decode"      // a JSON or validation error type
	MethodText       Method = "text"        // rules matched against free text
	MethodFallback   Method = "fallback"    // nothing matched
)

// Classification records how a fault was obtained: the method, the rule
// within it (a type, a status, a text rule's name) and the confidence, from 0
// to 1, that the code is the right one.
type Classification struct {
	Method     Method  `json:"method"`
	Rule       string  `json:"rule,omitempty"`
	Confidence float64 `json:"confidence"`
}

// Option sets a facet of a new Error.
type Option func(*Error)

// New returns a fault with the given code. Its facets take the code's
// defaults from the table, then opts override them. An empty message takes
// the code's default message.
func New(code Code, message string, opts ...Option) *Error {
	e := fromSpec(code.spec(), Classification{Method: MethodExplicit, Confidence: 1})
	e.Code = code
	if message != "" {
		e.Message = message
	}
	for _, o := range opts {
		o(e)
	}
	return e
}

// Wrap returns a fault with the given code whose cause is err. It is
// New(code, message, WithCause(err), opts...).
func Wrap(err error, code Code, message string, opts ...Option) *Error {
	e := New(code, message, opts...)
	e.Cause = err
	return e
}

// fromSpec builds an Error with the row's defaults.
func fromSpec(s *Spec, c Classification) *Error {
	return &Error{
		Code:           s.Code,
		Message:        s.Message,
		Status:         s.Status,
		Category:       s.Category,
		Domain:         s.Domain,
		Retryable:      s.Retryable,
		SessionValid:   s.SessionValid,
		Classification: c,
	}
}

// WithCause sets the wrapped error.
func WithCause(err error) Option { return func(e *Error) { e.Cause = err } }

// WithStatus overrides the HTTP status.
func WithStatus(status int) Option { return func(e *Error) { e.Status = status } }

// WithCategory overrides the category (a worker timeout is TIMEOUT in
// category TRANSPORT, say).
func WithCategory(c Category) Option { return func(e *Error) { e.Category = c } }

// WithDomain overrides the domain.
func WithDomain(d Domain) Option { return func(e *Error) { e.Domain = d } }

// WithRetryable overrides retryability.
func WithRetryable(r bool) Option { return func(e *Error) { e.Retryable = r } }

// WithRetryAfter sets the earliest a retry may succeed.
func WithRetryAfter(d time.Duration) Option { return func(e *Error) { e.RetryAfter = d } }

// WithSessionValid overrides whether the session survives.
func WithSessionValid(v bool) Option { return func(e *Error) { e.SessionValid = v } }

// WithSource names the agent, node, provider or worker that failed.
func WithSource(s string) Option { return func(e *Error) { e.Source = s } }

// WithDetail adds one safe detail.
func WithDetail(key string, value any) Option {
	return func(e *Error) {
		if e.Details == nil {
			e.Details = make(map[string]any, 2)
		}
		e.Details[key] = value
	}
}

// WithDetails adds safe details.
func WithDetails(details map[string]any) Option {
	return func(e *Error) {
		if len(details) == 0 {
			return
		}
		if e.Details == nil {
			e.Details = make(map[string]any, len(details))
		}
		maps.Copy(e.Details, details)
	}
}

// WithFieldErrors adds invalid fields.
func WithFieldErrors(fields ...FieldError) Option {
	return func(e *Error) { e.FieldErrors = append(e.FieldErrors, fields...) }
}

// WithDebug adds a debug-only value.
func WithDebug(key string, value any) Option {
	return func(e *Error) {
		if e.Debug.Extra == nil {
			e.Debug.Extra = make(map[string]any, 2)
		}
		e.Debug.Extra[key] = value
	}
}

// Invalid returns an INVALID_REQUEST fault listing every invalid field.
func Invalid(message string, fields ...FieldError) *Error {
	return New(InvalidRequest, message, WithFieldErrors(fields...))
}

// Error returns "CODE: message", the message redacted (see Redact) and
// without its final period. It never holds the cause's text: error strings
// reach clients and models (an MCP SDK puts a tool handler's err.Error() in
// the isError result a model reads), and the cause is debug output only.
// The cause stays reachable through Unwrap (errors.Is, errors.As), Debug
// and LogValue, which operators' logs use.
func (e *Error) Error() string {
	if e == nil {
		return "<nil fault>"
	}
	msg := strings.TrimSuffix(Redact(e.Message), ".")
	if msg == "" {
		return string(e.Code)
	}
	return string(e.Code) + ": " + msg
}

// Unwrap returns the cause, so errors.Is and errors.As reach it.
func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Cause
}

// Is reports whether target is a fault with the same code, so that
// errors.Is(err, fault.New(fault.RateLimited, "")) finds any rate limit in a
// chain.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && e != nil && t.Code == e.Code
}

// HTTPStatus is the fault's HTTP status: Status, or the code's default when
// Status is zero.
func (e *Error) HTTPStatus() int {
	if e == nil {
		return InternalError.HTTPStatus()
	}
	if e.Status != 0 {
		return e.Status
	}
	return e.Code.HTTPStatus()
}

// Clone returns a copy whose Details, FieldErrors and Debug.Extra may be
// changed without touching e.
func (e *Error) Clone() *Error {
	if e == nil {
		return nil
	}
	c := *e
	c.Details = maps.Clone(e.Details)
	c.FieldErrors = slices.Clone(e.FieldErrors)
	c.Debug.Extra = maps.Clone(e.Debug.Extra)
	return &c
}

// LogValue renders the fault for log/slog as a group: code, message,
// http_status, category, domain, retryable, retry_after (whole seconds),
// session_valid,
// source, details, error_type and the cause's text. Everything a client
// could see is taken from Payload, so it is sanitized the same way, and the
// cause text is redacted (see Redact): no token, key or stack reaches a log
// line.
func (e *Error) LogValue() slog.Value {
	if e == nil {
		return slog.StringValue("<nil fault>")
	}
	p := e.Payload(false)
	attrs := make([]slog.Attr, 0, 13)
	attrs = append(attrs,
		slog.String("code", string(p.Code)),
		slog.String("message", p.Message),
		slog.Int("http_status", p.HTTPStatus),
		slog.String("category", string(p.Category)),
		slog.String("domain", string(p.Domain)),
		slog.Bool("retryable", p.Retryable),
	)
	if p.RetryAfter > 0 {
		// Whole seconds, as on the wire: slog's JSON handler would write a
		// Duration as nanoseconds.
		attrs = append(attrs, slog.Int64("retry_after", p.RetryAfter))
	}
	attrs = append(attrs, slog.Bool("session_valid", p.SessionValid))
	if p.Source != "" {
		attrs = append(attrs, slog.String("source", p.Source))
	}
	if len(p.Details) > 0 {
		attrs = append(attrs, slog.Any("details", p.Details))
	}
	if e.Debug.ErrorType != "" {
		attrs = append(attrs, slog.String("error_type", e.Debug.ErrorType))
	}
	if e.Cause != nil {
		attrs = append(attrs, slog.String("cause", Redact(safeText(e.Cause))))
	}
	return slog.GroupValue(attrs...)
}

// CodeOf returns the code of the fault err classifies to (see From), or ""
// for a nil error.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	return From(err).Code
}

// As finds the first *Error in err's chain, without classifying anything.
func As(err error) (*Error, bool) {
	f, hasAs := find(err)
	if f == nil && hasAs {
		f = asFault(err)
	}
	return f, f != nil
}

// find walks err's chain (both Unwrap forms) for an *Error, and reports
// whether an error in it has an As method, which only errors.As honours. It
// avoids errors.As's reflection: it is the first step of every From.
func find(err error) (f *Error, hasAs bool) {
	for err != nil {
		if _, ok := err.(interface{ As(any) bool }); ok {
			hasAs = true
		}
		switch x := err.(type) {
		case *Error:
			if x != nil {
				return x, hasAs
			}
			return nil, hasAs
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				g, as := find(e)
				hasAs = hasAs || as
				if g != nil {
					return g, hasAs
				}
			}
			return nil, hasAs
		default:
			return nil, hasAs
		}
	}
	return nil, hasAs
}

var _ interface {
	error
	slog.LogValuer
} = (*Error)(nil)
