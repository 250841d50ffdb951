package gemini

import (
	"errors"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/internal/upstream"
)

// ProviderID is Gemini's providerId (seed 002's spelling): every fault this
// package makes carries it in details.providerId and as its Source.
const ProviderID = "google-gemini"

var provider = upstream.Provider{ID: ProviderID, Name: "Gemini"}

func init() {
	fault.Register(Classify)
}

// Classify turns an error of the Google Gen AI SDK into a fault: a
// genai.APIError (the API answered with an error status, or sent an error
// inside a stream); an error answer of the Interactions API client
// (Client.Interactions, Agents, Voices, Webhooks, Credentials,
// Environments): *apierrors.APIError, *apierrors.ResponseValidationError or
// a typed error of Interactions.Create, Get, Delete or Cancel, from
// google.golang.org/genai/interactions/models/apierrors; or a transport
// error from a client built by NewClient. It reports false for any other
// error, which fault.From classifies by its own rules.
//
// Importing the package registers Classify with fault.Register, so
// fault.From applies it; call it directly to classify without that side
// effect.
func Classify(err error) (*fault.Error, bool) {
	if err == nil {
		return nil, false
	}
	// The SDK returns APIError by value; a pointer is accepted too.
	if e, ok := errors.AsType[genai.APIError](err); ok {
		return fromAPIError(err, e), true
	}
	if e, ok := errors.AsType[*genai.APIError](err); ok && e != nil {
		return fromAPIError(err, *e), true
	}
	if ix, ok := findInteractions(err); ok {
		return fromInteractions(err, ix, time.Now()), true
	}
	return provider.FromCall(err)
}

func fromAPIError(err error, e genai.APIError) *fault.Error {
	d := parseDetails(e.Details)
	a := upstream.Answer{
		Status:         e.Code,
		ProviderStatus: canonicalStatus(e.Status),
		Reason:         d.reason,
		RetryDelay:     d.retryDelay,
		HasRetryDelay:  d.hasRetryDelay,
		// The provider's own text goes to debug output only (redacted there).
		Debug: e.Error(),
	}
	if d.quotaID != "" {
		a.Details = map[string]any{"quotaId": d.quotaID}
		if d.quotaMetric != "" {
			a.Details["quotaMetric"] = d.quotaMetric
		}
	}
	// APIError keeps no headers: Gemini's delay is in RetryInfo.
	return provider.Fault(err, a, verdict(e.Code, a.ProviderStatus, d, e.Message), time.Time{})
}

// canonicalStatus returns s when it is a google.rpc.Code name
// (RESOURCE_EXHAUSTED), and "" otherwise: for a body that is not JSON the
// SDK puts the HTTP status line ("429 Too Many Requests") in Status.
func canonicalStatus(s string) string {
	if s == "" || len(s) > 64 {
		return ""
	}
	for _, c := range s {
		if (c < 'A' || c > 'Z') && c != '_' {
			return ""
		}
	}
	return s
}

// authReasons are the ErrorInfo reasons of a rejected key, which Gemini
// answers with 400 INVALID_ARGUMENT, not 401.
var authReasons = map[string]bool{
	"API_KEY_INVALID":               true,
	"API_KEY_EXPIRED":               true,
	"API_KEY_SERVICE_BLOCKED":       true,
	"API_KEY_HTTP_REFERRER_BLOCKED": true,
	"API_KEY_IP_ADDRESS_BLOCKED":    true,
	"API_KEY_ANDROID_APP_BLOCKED":   true,
	"API_KEY_IOS_APP_BLOCKED":       true,
}

// verdict decides what Gemini's answer means: by the ErrorInfo reason of a
// rejected key, then by the google.rpc status, then by the HTTP status.
func verdict(code int, status string, d details, message string) upstream.Verdict {
	typed := func(c fault.Code, retryable bool, rule string) upstream.Verdict {
		return upstream.Verdict{Code: c, Retryable: retryable, Rule: rule, Confidence: upstream.ConfidenceTyped}
	}
	if authReasons[d.reason] {
		return typed(fault.ProviderAuthFailed, false, strings.ToLower(d.reason))
	}
	rule := strings.ToLower(status)
	switch status {
	case "UNAUTHENTICATED", "PERMISSION_DENIED":
		return typed(fault.ProviderAuthFailed, false, rule)
	case "RESOURCE_EXHAUSTED":
		return resourceExhausted(d)
	case "NOT_FOUND":
		return typed(fault.CapabilityNotFound, false, rule)
	case "UNIMPLEMENTED":
		// The method or feature is not offered: retrying cannot help.
		return typed(fault.CapabilityNotFound, false, rule)
	case "DEADLINE_EXCEEDED":
		return typed(fault.Timeout, true, rule)
	case "UNAVAILABLE":
		return typed(fault.ServiceUnavailable, true, rule)
	case "INTERNAL", "UNKNOWN", "DATA_LOSS":
		return typed(fault.UpstreamError, true, rule)
	case "INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE":
		if tooManyTokens(message) {
			return upstream.Verdict{Code: fault.PayloadTooLarge, Rule: "context_length_exceeded", Confidence: upstream.ConfidenceMessage}
		}
		return typed(fault.UpstreamError, false, rule)
	}
	switch code {
	case 429:
		return resourceExhausted(d)
	case 400:
		if tooManyTokens(message) {
			return upstream.Verdict{Code: fault.PayloadTooLarge, Rule: "context_length_exceeded", Confidence: upstream.ConfidenceMessage}
		}
	}
	return upstream.ByStatus(code)
}

// resourceExhausted decides a 429 RESOURCE_EXHAUSTED. Gemini answers every
// quota violation this way, with the same message ("You exceeded your
// current quota, please check your plan and billing details") whether a
// per-minute limit was hit or the day's requests are used up, so the
// QuotaFailure detail decides: a violated quota whose value is 0 (the
// model has no quota on this tier) or whose quota id is a per-day quota
// cannot succeed within any retry budget, and is QUOTA_EXHAUSTED, not
// retryable; any other is RATE_LIMITED, retryable after RetryInfo's delay.
// A 429 without details (Vertex AI's shared quota: "Resource exhausted.
// Please try again later.") is RATE_LIMITED too: a missing delay does not
// make it permanent.
func resourceExhausted(d details) upstream.Verdict {
	if d.exhausted {
		return upstream.Verdict{Code: fault.QuotaExhausted, Rule: "quota_exhausted", Confidence: upstream.ConfidenceTyped}
	}
	return upstream.Verdict{Code: fault.RateLimited, Retryable: true, Rule: "resource_exhausted", Confidence: upstream.ConfidenceTyped}
}

// tooManyTokens reports whether a 400's message says the input overflows
// the model's context window: "The input token count (1234567) exceeds the
// maximum number of tokens allowed (1048576)."
func tooManyTokens(message string) bool {
	m := strings.ToLower(message)
	return strings.Contains(m, "exceeds the maximum number of tokens") ||
		strings.Contains(m, "input token count") && strings.Contains(m, "exceeds")
}
