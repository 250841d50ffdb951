package upstream

import (
	"maps"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/triage-go/triage/fault"
)

// Confidence of a provider classification: the provider's own type, code or
// status names the failure; a rule that reads the provider's message (a
// context overflow, a low credit balance) is a little less certain.
const (
	ConfidenceTyped   = 0.9
	ConfidenceMessage = 0.8
	ConfidenceUnknown = 0.5
)

// Detail keys every provider fault uses. providerId is seed 002's name.
const (
	KeyProviderID     = "providerId"
	KeyProviderType   = "providerType"
	KeyProviderCode   = "providerCode"
	KeyProviderStatus = "providerStatus"
	KeyProviderReason = "providerReason"
	KeyProviderParam  = "providerParam"
	KeyUpstreamStatus = "upstream_status"
	KeyRequestID      = "requestId"
)

// Provider names one provider: its seed 002 id and its name for messages.
type Provider struct {
	ID   string // providerId, and the fault's Source: "openai"
	Name string // for user-facing messages: "OpenAI"
}

// Answer is what a provider answered, in its own words.
type Answer struct {
	Status         int         // the HTTP status; 0 for an error event inside a stream
	Header         http.Header // the response's headers, when the SDK keeps them
	Type           string      // the provider's error type (providerType)
	Code           string      // the provider's error code (providerCode)
	ProviderStatus string      // the provider's status string (providerStatus)
	Reason         string      // the provider's machine-readable reason (providerReason)
	Param          string      // the request parameter the provider blames (providerParam)
	RequestID      string      // the provider's request id (requestId)

	// RetryDelay is a delay the body asked for (Gemini's RetryInfo), used
	// when the headers ask for none; HasRetryDelay says it was given.
	RetryDelay    time.Duration
	HasRetryDelay bool

	// Details are further safe details (Gemini's quota id).
	Details map[string]any

	// Debug is the provider's own text, for debug output only. Empty means
	// the cause's text.
	Debug string
}

// Verdict is what a provider package decided an answer means.
type Verdict struct {
	Code       fault.Code
	Retryable  bool
	Rule       string  // Classification.Rule, without the provider prefix
	Confidence float64 // Classification.Confidence
}

// ByStatus is the verdict on an HTTP status alone, for answers whose type
// and code say nothing more specific: fault.FromStatus's table, except that
// 404 is CAPABILITY_NOT_FOUND (the model, or whatever the call names, is not
// there) and a status that is not an error status (0 from a stream's error
// event, or anything outside 400-599) is unknown: UPSTREAM_ERROR, not
// retryable.
func ByStatus(status int) Verdict {
	switch {
	case status == http.StatusNotFound:
		return Verdict{fault.CapabilityNotFound, false, "http_404", ConfidenceTyped}
	case status < 400 || status > 599:
		return Unknown()
	}
	f := fault.FromStatus(status, nil, time.Time{})
	return Verdict{f.Code, f.Retryable, f.Classification.Rule, ConfidenceTyped}
}

// Unknown is the verdict on an error of the SDK's own type that nothing
// recognises: seed 002's "unknown error", UPSTREAM_ERROR, not retryable.
func Unknown() Verdict {
	return Verdict{fault.UpstreamError, false, "unknown", ConfidenceUnknown}
}

// Fault builds the fault for an answer and its verdict. err, the error as the
// caller got it, is the cause. The message is Triage's own, never the
// provider's text; details carry the provider's names for the error, the
// status and the request id; a retryable fault takes its delay from the
// headers (see fault.RetryDelay), or else from the body.
func (p Provider) Fault(err error, a Answer, v Verdict, now time.Time) *fault.Error {
	f := fault.New(v.Code, p.Message(v.Code, v.Retryable),
		fault.WithCause(err), fault.WithSource(p.ID), fault.WithRetryable(v.Retryable))
	switch v.Code {
	case fault.ProviderAuthFailed:
		// security, as the code table says: the key was rejected.
	case fault.ServiceUnavailable:
		f.Category = fault.CategoryUpstream // the provider is overloaded, not our transport
		f.Domain = fault.DomainLLM
	default:
		f.Domain = fault.DomainLLM
	}
	d := make(map[string]any, 8)
	d[KeyProviderID] = p.ID
	for _, kv := range [...][2]string{
		{KeyProviderType, a.Type}, {KeyProviderCode, a.Code}, {KeyProviderStatus, a.ProviderStatus},
		{KeyProviderReason, a.Reason}, {KeyProviderParam, a.Param}, {KeyRequestID, a.RequestID},
	} {
		if kv[1] != "" {
			d[kv[0]] = bound(kv[1], maxDetail)
		}
	}
	if a.Status != 0 {
		d[KeyUpstreamStatus] = a.Status
	}
	maps.Copy(d, a.Details)
	f.Details = d
	if v.Retryable {
		if delay, ok := fault.RetryDelay(a.Header, now); ok {
			f.RetryAfter = delay
		} else if a.HasRetryDelay {
			f.RetryAfter = min(max(a.RetryDelay, 0), fault.MaxRetryAfter)
		}
	}
	if a.Debug != "" {
		f.Debug.Cause = bound(a.Debug, maxDebug)
	}
	f.Classification = fault.Classification{Method: fault.MethodClassifier, Rule: p.ID + ":" + v.Rule, Confidence: v.Confidence}
	return f
}

// Message is Triage's message for a provider fault: safe for end users, and
// naming the provider, whose id details.providerId also carries.
func (p Provider) Message(code fault.Code, retryable bool) string {
	switch code {
	case fault.ProviderAuthFailed:
		return p.Name + " rejected the service's credentials."
	case fault.RateLimited:
		return p.Name + " rate limit exceeded. Please wait before retrying."
	case fault.QuotaExhausted:
		return "The " + p.Name + " quota or credit balance is exhausted."
	case fault.PayloadTooLarge:
		return "The request is too large for the " + p.Name + " model."
	case fault.ContentRefused:
		return p.Name + " declined the request under its content policy."
	case fault.CapabilityNotFound:
		return "The requested model or resource is not available from " + p.Name + "."
	case fault.ServiceUnavailable:
		return p.Name + " is temporarily overloaded. Please try again later."
	case fault.Timeout:
		return p.Name + " did not answer in time. Please try again."
	case fault.TransportError:
		return "Could not reach " + p.Name + ". Please try again."
	case fault.UpstreamError:
		if retryable {
			return p.Name + " failed to process the request. Please try again."
		}
		return p.Name + " rejected the request."
	}
	s, _ := fault.Lookup(code)
	return s.Message
}

// Bounds on what a fault keeps of a provider's text: ids and names are
// short; the debug text is cut where fault cuts a cause.
const (
	maxDetail = 256
	maxDebug  = 4 << 10
)

// bound cuts s to at most n bytes, on a rune boundary.
func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
