package fault

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Confidence of each classification method. Typed rules are near certain;
// text rules (see ClassifyText) are lower and vary by rule.
const (
	confidenceExact    = 1.0
	confidenceTyped    = 0.9
	confidenceFallback = 0.3
)

// Classifier turns errors it recognises into faults; it reports false for
// errors it does not. Provider packages register one each (see Register).
type Classifier func(error) (*Error, bool)

var (
	classifiersMu sync.Mutex
	classifiers   atomic.Pointer[[]Classifier]
)

// Register adds a classifier that From consults after looking for an
// existing *Error and before its own rules. Classifiers run in registration
// order; the first that reports true wins. A provider package registers its
// classifier in init, so importing it is enough, as with database/sql
// drivers. Register is safe to call concurrently with From.
func Register(c Classifier) {
	if c == nil {
		panic("fault: Register of nil classifier")
	}
	classifiersMu.Lock()
	defer classifiersMu.Unlock()
	var next []Classifier
	if cur := classifiers.Load(); cur != nil {
		next = append(next, *cur...)
	}
	next = append(next, c)
	classifiers.Store(&next)
}

// From turns any error into a fault. It never returns nil for a non-nil
// error and returns nil for nil. It tries, in order:
//
//  1. an *Error anywhere in the chain (returned itself, not a copy);
//  2. registered classifiers (see Register);
//  3. context.Canceled (CANCELLED) and context.DeadlineExceeded (TIMEOUT),
//     before network errors, which a deadline also satisfies;
//  4. network errors: *net.OpError, *net.DNSError, *url.Error, syscall
//     errnos, timeouts (TRANSPORT or TIMEOUT, retryable), TLS certificate
//     failures (TRANSPORT, not retryable), address errors (CONFIG_ERROR);
//  5. values carrying an HTTP status: StatusCode() int, or an
//     HTTPResponse() *http.Response (see FromStatus);
//  6. JSON and validation errors (INVALID_REQUEST), *http.MaxBytesError
//     (PAYLOAD_TOO_LARGE), JSON marshalling bugs (INTERNAL_ERROR);
//  7. anything else: AGENT_EXECUTION_ERROR, not retryable, with a generic
//     message; only Debug holds the Go type and the cause text.
//
// The result's Classification says which step matched and how sure it is.
func From(err error) (f *Error) {
	if err == nil {
		return nil
	}
	// A typed nil pointer in the chain, or an Error, Unwrap, Is or Timeout
	// method that panics, must not take the caller down with it: such an
	// error is classified as unknown.
	defer recoverBroken(&f, err)
	f, hasAs := find(err)
	if f != nil {
		return f
	}
	if hasAs {
		// A custom As method may produce a fault the plain walk cannot see.
		if g := asFault(err); g != nil {
			return g
		}
	}
	if cs := classifiers.Load(); cs != nil {
		for _, c := range *cs {
			g, ok := c(err)
			if !ok || g == nil {
				continue
			}
			// The classifier's fault may be shared (a sentinel): change a
			// copy, never it.
			g = g.Clone()
			if g.Classification.Method == "" || g.Classification.Method == MethodExplicit {
				g.Classification = Classification{Method: MethodClassifier, Rule: g.Classification.Rule, Confidence: confidenceTyped}
			}
			if g.Cause == nil {
				g.Cause = err
			}
			return g
		}
	}
	var k facts
	k.walk(err)
	if f := k.contextFault(err); f != nil {
		return f
	}
	if f := k.networkFault(err); f != nil {
		return f
	}
	if f := k.statusFault(err); f != nil {
		return f
	}
	if f := k.decodeFault(err); f != nil {
		return f
	}
	return fallback(err)
}

func classified(code Code, err error, m Method, rule string, confidence float64) *Error {
	f := fromSpec(code.spec(), Classification{Method: m, Rule: rule, Confidence: confidence})
	f.Cause = err
	return f
}

// Context errors found in a chain.
const (
	ctxNone = iota
	ctxCanceled
	ctxDeadline
	ctxIODeadline
)

// facts is what one walk of an error chain learns. From walks each chain
// once, then decides by the precedence its documentation gives; the first
// fact of a kind in the chain (outermost, depth first) wins.
type facts struct {
	ctx     int
	urlErr  *url.Error
	opErr   *net.OpError
	dnsErr  *net.DNSError
	errno   syscall.Errno
	timeout bool
	eof     bool
	tls     bool
	addr    bool

	status int
	header http.Header

	decode error // the first JSON, validation or size error
}

// walk visits every error in the chain, following both Unwrap forms,
// without closures or reflection: it is on every From's path.
func (k *facts) walk(err error) {
	for err != nil {
		k.visit(err)
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				k.walk(e)
			}
			return
		default:
			return
		}
	}
}

func (k *facts) visit(err error) {
	// The network types come first and return early: their facts are fixed
	// (their Timeout methods only ask the errors they wrap, which the walk
	// visits next), and they make up most chains.
	switch x := err.(type) {
	case *url.Error:
		if k.urlErr == nil {
			k.urlErr = x
		}
		return
	case *net.OpError:
		if k.opErr == nil {
			k.opErr = x
		}
		return
	case *os.SyscallError:
		return
	case syscall.Errno:
		if k.errno == 0 {
			k.errno = x
		}
		k.timeout = k.timeout || x.Timeout()
		return
	case *net.DNSError:
		k.dnsErr = x
		k.timeout = k.timeout || x.Timeout()
		return
	}
	if k.ctx == ctxNone {
		// The sentinels are comparable, so == is safe whatever err is; an
		// Is method (as net/http's timeout errors have) counts too.
		switch err {
		case context.Canceled:
			k.ctx = ctxCanceled
		case context.DeadlineExceeded:
			k.ctx = ctxDeadline
		case os.ErrDeadlineExceeded:
			k.ctx = ctxIODeadline
		default:
			if x, ok := err.(interface{ Is(error) bool }); ok {
				switch {
				case x.Is(context.Canceled):
					k.ctx = ctxCanceled
				case x.Is(context.DeadlineExceeded):
					k.ctx = ctxDeadline
				case x.Is(os.ErrDeadlineExceeded):
					k.ctx = ctxIODeadline
				}
			}
		}
	}
	switch err.(type) {
	case *net.AddrError, *net.ParseError, net.UnknownNetworkError, net.InvalidAddrError:
		k.addr = true
	case *tls.CertificateVerificationError, x509.UnknownAuthorityError, x509.HostnameError,
		x509.CertificateInvalidError, *tls.RecordHeaderError:
		k.tls = true
	case *json.SyntaxError, *json.UnmarshalTypeError, FieldErrorer, *http.MaxBytesError, *time.ParseError,
		*json.InvalidUnmarshalError, *json.UnsupportedTypeError, *json.UnsupportedValueError, *json.MarshalerError:
		if k.decode == nil {
			k.decode = err
		}
	}
	if k.status == 0 {
		// Only an error status counts: a wrapper that reports 200 must not
		// hide the 429 it wraps.
		switch x := err.(type) {
		case ResponseCarrier:
			if r := x.HTTPResponse(); r != nil && isErrorStatus(r.StatusCode) {
				k.status, k.header = r.StatusCode, r.Header
			}
		case StatusCoder:
			if s := x.StatusCode(); isErrorStatus(s) {
				k.status = s
			}
		}
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		k.eof = true
	}
	if t, ok := err.(interface{ Timeout() bool }); ok && t.Timeout() {
		k.timeout = true
	}
}

func (k *facts) contextFault(err error) *Error {
	switch k.ctx {
	case ctxCanceled:
		return classified(Cancelled, err, MethodContext, "context.Canceled", confidenceExact)
	case ctxDeadline:
		return classified(Timeout, err, MethodContext, "context.DeadlineExceeded", confidenceExact)
	case ctxIODeadline:
		// An I/O deadline on a connection or file: a transport-level
		// timeout.
		f := classified(Timeout, err, MethodContext, "os.ErrDeadlineExceeded", confidenceExact)
		f.Category = CategoryTransport
		return f
	}
	return nil
}

func (k *facts) networkFault(err error) *Error {
	if k.urlErr == nil && k.opErr == nil && k.dnsErr == nil && k.errno == 0 && !k.addr && !k.tls {
		return nil
	}
	var f *Error
	switch {
	case k.tls:
		f = classified(TransportError, err, MethodNetwork, "tls_certificate", confidenceTyped)
		f.Retryable = false // a certificate does not fix itself
	case k.addr:
		f = classified(ConfigError, err, MethodNetwork, "net_address", confidenceTyped)
	case k.timeout || k.errno == syscall.ETIMEDOUT:
		f = classified(Timeout, err, MethodNetwork, "net_timeout", confidenceTyped)
		f.Category = CategoryTransport
	case k.dnsErr != nil:
		f = classified(TransportError, err, MethodNetwork, "dns", confidenceTyped)
		f.Source = k.dnsErr.Name
	case k.errno != 0:
		f = classified(TransportError, err, MethodNetwork, errnoRule(k.errno), confidenceTyped)
	case k.eof:
		f = classified(TransportError, err, MethodNetwork, "connection_closed", confidenceTyped)
	case k.opErr != nil:
		f = classified(TransportError, err, MethodNetwork, "net_op", confidenceTyped)
	default:
		f = classified(TransportError, err, MethodNetwork, "url_error", confidenceTyped)
	}
	if f.Source == "" && k.urlErr != nil {
		f.Source = hostOf(k.urlErr.URL)
	}
	return f
}

func errnoRule(e syscall.Errno) string {
	switch e {
	case syscall.ECONNREFUSED:
		return RuleConnectionRefused
	case syscall.ECONNRESET:
		return "connection_reset"
	case syscall.EPIPE:
		return "broken_pipe"
	case syscall.ECONNABORTED:
		return "connection_aborted"
	case syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.ENETDOWN:
		return "unreachable"
	}
	return "errno"
}

// RuleConnectionRefused is the Classification.Rule of a refused connection,
// from a syscall error or from text. A refused connection proves the request
// was never sent, so even a non-idempotent operation may be retried.
const RuleConnectionRefused = "connection_refused"

// hostOf returns the host of a URL without parsing it (and without its
// userinfo, path or query, which may hold secrets).
func hostOf(raw string) string {
	s := raw
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// StatusCoder is implemented by errors that carry the HTTP status of the
// response that caused them.
type StatusCoder interface{ StatusCode() int }

// ResponseCarrier is implemented by errors that carry the HTTP response that
// caused them; its status and Retry-After header are used.
type ResponseCarrier interface{ HTTPResponse() *http.Response }

func isErrorStatus(s int) bool { return s >= 400 && s <= 599 }

func (k *facts) statusFault(err error) *Error {
	if k.status == 0 {
		return nil
	}
	f := FromStatus(k.status, k.header, time.Now())
	f.Cause = err
	return f
}

// FromResponse classifies a response whose status is an error (4xx or 5xx)
// and returns nil for any other. Its delay headers are read (see
// RetryDelay). The body is not read.
func FromResponse(resp *http.Response) *Error {
	if resp == nil || resp.StatusCode < 400 || resp.StatusCode > 599 {
		return nil
	}
	f := FromStatus(resp.StatusCode, resp.Header, time.Now())
	if resp.Request != nil && resp.Request.URL != nil {
		f.Source = resp.Request.URL.Host
	}
	return f
}

// FromStatus classifies an HTTP status that an upstream answered, reading
// the delay from header (which may be nil) relative to now (see RetryDelay):
//
//	429       RATE_LIMITED, retryable, RetryAfter from the headers
//	503, 529  SERVICE_UNAVAILABLE in category UPSTREAM, retryable
//	other 5xx UPSTREAM_ERROR, retryable
//	408       TIMEOUT, retryable
//	401, 403  PROVIDER_AUTH_FAILED, not retryable
//	402       QUOTA_EXHAUSTED, not retryable
//	413       PAYLOAD_TOO_LARGE, not retryable
//	other 4xx UPSTREAM_ERROR, not retryable
//
// details.upstream_status keeps the status. Any status below 400 is treated
// as a 5xx would be: the caller said it was an error.
func FromStatus(status int, header http.Header, now time.Time) *Error {
	var code Code
	retryable := false
	switch {
	case status == http.StatusTooManyRequests:
		code, retryable = RateLimited, true
	case status == http.StatusServiceUnavailable, status == statusOverloaded:
		code, retryable = ServiceUnavailable, true
	case status == http.StatusRequestTimeout:
		code, retryable = Timeout, true
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		code = ProviderAuthFailed
	case status == http.StatusPaymentRequired:
		code = QuotaExhausted
	case status == http.StatusRequestEntityTooLarge:
		code = PayloadTooLarge
	case status >= 400 && status < 500:
		code = UpstreamError
	default:
		code, retryable = UpstreamError, true
	}
	f := fromSpec(code.spec(), Classification{Method: MethodHTTPStatus, Rule: "http_" + strconv.Itoa(status), Confidence: confidenceTyped})
	f.Retryable = retryable
	if code == ServiceUnavailable {
		f.Category = CategoryUpstream
	}
	f.Details = map[string]any{"upstream_status": status}
	if d, ok := RetryDelay(header, now); ok && d > 0 {
		f.RetryAfter = d
	}
	return f
}

// statusOverloaded is the unofficial 529 that Anthropic's API answers when
// it is overloaded.
const statusOverloaded = 529

// FieldErrorer is implemented by validation errors that list the fields they
// reject; From turns them into INVALID_REQUEST faults carrying those fields.
type FieldErrorer interface{ FieldErrors() []FieldError }

func (k *facts) decodeFault(err error) *Error {
	var f *Error
	switch x := k.decode.(type) {
	case nil:
		return nil
	case *json.SyntaxError:
		f = classified(InvalidRequest, err, MethodDecode, "json_syntax", confidenceTyped)
		f.Message = "The request body is not valid JSON."
		f.Details = map[string]any{"offset": x.Offset}
	case *json.UnmarshalTypeError:
		f = classified(InvalidRequest, err, MethodDecode, "json_type", confidenceTyped)
		field := x.Field
		if field == "" {
			field = "(root)"
		}
		expected := "another type"
		if x.Type != nil {
			expected = x.Type.String()
		}
		f.Details = map[string]any{"field": field, "expected": expected, "got": x.Value}
		f.FieldErrors = []FieldError{{Field: field, Message: "must be " + expected + ", not " + x.Value}}
	case FieldErrorer:
		f = classified(InvalidRequest, err, MethodDecode, "field_errors", confidenceTyped)
		f.FieldErrors = x.FieldErrors()
	case *http.MaxBytesError:
		f = classified(PayloadTooLarge, err, MethodDecode, "max_bytes", confidenceTyped)
		f.Details = map[string]any{"limit_bytes": x.Limit}
	case *time.ParseError:
		f = classified(InvalidRequest, err, MethodDecode, "time_parse", 0.7)
	default:
		// json's marshalling and invalid-target errors: a programming
		// error, not the client's input.
		f = classified(InternalError, err, MethodDecode, "json_internal", confidenceTyped)
		f.SessionValid = true
	}
	return f
}

func fallback(err error) *Error {
	f := classified(AgentExecutionError, err, MethodFallback, "", confidenceFallback)
	f.Debug.ErrorType = typeName(err)
	f.Debug.Cause = bound(err.Error())
	return f
}

// asFault is errors.As for a fault, kept out of From so that its target
// (which escapes) is allocated only when a chain has an As method.
func asFault(err error) *Error {
	var f *Error
	if errors.As(err, &f) {
		return f
	}
	return nil
}

// recoverBroken, deferred by From, turns a panic in err's methods into the
// broken-error fault. (A deferred closure would cost From an allocation.)
func recoverBroken(f **Error, err error) {
	if recover() != nil {
		*f = broken(err)
	}
}

// broken classifies an error whose methods panicked (most often a typed nil
// pointer): unknown, with whatever of its text can be had safely.
func broken(err error) *Error {
	f := fromSpec(AgentExecutionError.spec(), Classification{Method: MethodFallback, Rule: "broken_error", Confidence: confidenceFallback})
	f.Cause = err
	f.Debug.ErrorType = reflect.TypeOf(err).String()
	f.Debug.Cause = bound(safeText(err))
	return f
}

// safeText returns err.Error(), or a description when that panics.
func safeText(err error) (s string) {
	defer func() {
		if recover() != nil {
			s = "<" + reflect.TypeOf(err).String() + " whose Error method panics>"
		}
	}()
	if v := reflect.ValueOf(err); v.Kind() == reflect.Pointer && v.IsNil() {
		return "<nil " + v.Type().String() + ">"
	}
	return err.Error()
}

// maxDebugCause bounds the cause text a fault keeps for debug output: an
// upstream that echoes a whole body into its error must not make every log
// line carry it.
const maxDebugCause = 4 << 10

// bound cuts s to maxDebugCause bytes, on a rune boundary, without copying.
func bound(s string) string { return s[:cutAt(s, maxDebugCause)] }

// typeName names the most informative type in err's chain: the first that
// is not a plain wrapper made by fmt.Errorf or errors.Join.
func typeName(err error) string {
	for e := err; e != nil; {
		switch name := reflect.TypeOf(e).String(); name {
		case "*fmt.wrapError", "*fmt.wrapErrors", "*errors.joinError":
		default:
			return name
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return reflect.TypeOf(e).String()
		}
		e = u.Unwrap()
	}
	return reflect.TypeOf(err).String()
}
