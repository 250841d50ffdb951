package anthropic

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/internal/upstream"
)

// ProviderID is Anthropic's providerId (seed 002's spelling): every fault
// this package makes carries it in details.providerId and as its Source.
const ProviderID = "anthropic"

var provider = upstream.Provider{ID: ProviderID, Name: "Anthropic"}

func init() {
	fault.Register(Classify)
}

// Classify turns an error of the Anthropic SDK into a fault: an
// *anthropic.Error (the API answered with an error status, or sent an error
// event inside a stream), or a transport error from a client built by
// NewClient. It reports false for any other error, including the bare
// context errors the SDK returns when a deadline passes, which fault.From
// classifies by its own rules.
//
// Importing the package registers Classify with fault.Register, so
// fault.From applies it; call it directly to classify without that side
// effect.
func Classify(err error) (*fault.Error, bool) {
	if err == nil {
		return nil, false
	}
	if e, ok := errors.AsType[*sdk.Error](err); ok && e != nil {
		return fromAPIError(err, e, time.Now()), true
	}
	return provider.FromCall(err)
}

// body is Anthropic's error document: {"type":"error","error":{"type",
// "message"},"request_id"}.
type body struct {
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	RequestID string `json:"request_id"`
}

func fromAPIError(err error, e *sdk.Error, now time.Time) *fault.Error {
	var b body
	raw := e.RawJSON()
	_ = json.Unmarshal([]byte(raw), &b) // a body that is not JSON says nothing more than its status
	a := upstream.Answer{Status: e.StatusCode, Type: string(e.Type()), RequestID: e.RequestID}
	if a.Type == "" {
		a.Type = b.Error.Type
	}
	if a.RequestID == "" {
		a.RequestID = b.RequestID
	}
	if r := e.Response; r != nil {
		a.Header = r.Header
	}
	if a.Status < 400 {
		// An error event inside a stream arrives with the stream's 200: the
		// status says nothing about the error.
		a.Status = 0
	}
	// The provider's own text goes to debug output only (redacted there).
	a.Debug = strings.TrimSpace(http.StatusText(e.StatusCode) + " " + raw)
	return provider.Fault(err, a, verdict(a.Status, a.Type, b.Error.Message), now)
}

// verdict decides what Anthropic's answer means. The error type is more
// specific than the status, and an error event in a stream has only the
// type; for invalid_request_error, a 400 that covers many causes, the
// message tells a low credit balance, a context overflow and a content
// filter apart.
func verdict(status int, typ, message string) upstream.Verdict {
	typed := func(c fault.Code, retryable bool, rule string) upstream.Verdict {
		return upstream.Verdict{Code: c, Retryable: retryable, Rule: rule, Confidence: upstream.ConfidenceTyped}
	}
	byMessage := func(c fault.Code, rule string) upstream.Verdict {
		return upstream.Verdict{Code: c, Rule: rule, Confidence: upstream.ConfidenceMessage}
	}
	switch typ {
	case "authentication_error":
		return typed(fault.ProviderAuthFailed, false, typ)
	case "permission_error":
		return typed(fault.ProviderAuthFailed, false, typ)
	case "billing_error":
		return typed(fault.QuotaExhausted, false, typ)
	case "rate_limit_error":
		return typed(fault.RateLimited, true, typ)
	case "overloaded_error":
		return typed(fault.ServiceUnavailable, true, typ)
	case "timeout_error":
		return typed(fault.Timeout, true, typ)
	case "api_error":
		// An unexpected error on Anthropic's side; with a 503 it is the
		// one 5xx that promises recovery, SERVICE_UNAVAILABLE as every
		// upstream 503 is (docs/decisions.md).
		if status == http.StatusServiceUnavailable {
			return typed(fault.ServiceUnavailable, true, typ)
		}
		return typed(fault.UpstreamError, true, typ)
	case "not_found_error":
		return typed(fault.CapabilityNotFound, false, typ)
	case "request_too_large":
		return typed(fault.PayloadTooLarge, false, typ)
	case "invalid_request_error":
		m := strings.ToLower(message)
		switch {
		case strings.Contains(m, "credit balance is too low"):
			return byMessage(fault.QuotaExhausted, "credit_balance_too_low")
		case strings.Contains(m, "prompt is too long"), strings.Contains(m, "exceed context limit"),
			strings.Contains(m, "context window"):
			return byMessage(fault.PayloadTooLarge, "context_length_exceeded")
		case strings.Contains(m, "content filtering policy"):
			return byMessage(fault.ContentRefused, "content_filtering_policy")
		}
	}
	return upstream.ByStatus(status)
}
