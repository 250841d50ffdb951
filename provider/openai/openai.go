package openai

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/internal/upstream"
)

// ProviderID is OpenAI's providerId (seed 002's spelling): every fault this
// package makes carries it in details.providerId and as its Source.
const ProviderID = "openai"

var provider = upstream.Provider{ID: ProviderID, Name: "OpenAI"}

func init() {
	fault.Register(Classify)
}

// Classify turns an error of the OpenAI SDK into a fault: an *openai.Error
// (the API answered with an error status), an *ssestream.StreamError (an
// error event inside a stream), or a transport error from a client built by
// NewClient. It reports false for any other error, including the bare
// context errors the SDK returns when the caller's deadline passes, which
// fault.From classifies by its own rules.
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
	if e, ok := errors.AsType[*ssestream.StreamError](err); ok && e != nil {
		return fromStreamError(err, e), true
	}
	return provider.FromCall(err)
}

func fromAPIError(err error, e *sdk.Error, now time.Time) *fault.Error {
	a := upstream.Answer{Status: e.StatusCode, Type: e.Type, Code: e.Code, Param: e.Param}
	if r := e.Response; r != nil {
		a.Header = r.Header
		a.RequestID = r.Header.Get("x-request-id")
		if a.Status == 0 {
			a.Status = r.StatusCode
		}
	}
	// The SDK's own text is a status summary; the provider's message goes
	// to debug output only (redacted there).
	a.Debug = e.Error()
	if e.Message != "" {
		a.Debug += ": " + e.Message
	}
	v := verdict(a.Status, e.Type, e.Code)
	if v.Retryable {
		a.RetryDelay, a.HasRetryDelay = resetDelay(a.Header)
	}
	return provider.Fault(err, a, v, now)
}

// fromStreamError classifies an error event in a stream, {"error":{...}} in
// an event's data. The HTTP status was 200, so only the type and code speak.
func fromStreamError(err error, e *ssestream.StreamError) *fault.Error {
	var body struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
			Param   any    `json:"param"`
		} `json:"error"`
	}
	_ = json.Unmarshal(e.Event.Data, &body) // a body that does not decode says nothing: unknown
	a := upstream.Answer{Type: body.Error.Type, Code: text(body.Error.Code), Param: text(body.Error.Param), Debug: e.Message}
	return provider.Fault(err, a, verdict(0, a.Type, a.Code), time.Time{})
}

// text returns a JSON string member's value, and "" for null or any other
// type.
func text(v any) string {
	s, _ := v.(string)
	return s
}

// contentCodes are the codes OpenAI answers when a safety system refused the
// content: images (content_policy_violation, image_content_policy_violation,
// moderation_blocked), reasoning models' flagged prompts (invalid_prompt) and
// Azure OpenAI's content filter (content_filter).
var contentCodes = map[string]bool{
	"content_policy_violation":       true,
	"image_content_policy_violation": true,
	"moderation_blocked":             true,
	"invalid_prompt":                 true,
	"content_filter":                 true,
}

// verdict decides what OpenAI's answer means. The code and type are more
// specific than the status (an exhausted quota is a 429, like a rate limit),
// so they are asked first.
func verdict(status int, typ, code string) upstream.Verdict {
	typed := func(c fault.Code, retryable bool, rule string) upstream.Verdict {
		return upstream.Verdict{Code: c, Retryable: retryable, Rule: rule, Confidence: upstream.ConfidenceTyped}
	}
	switch {
	case code == "insufficient_quota" || typ == "insufficient_quota":
		return typed(fault.QuotaExhausted, false, "insufficient_quota")
	case code == "invalid_api_key" || status == http.StatusUnauthorized:
		return typed(fault.ProviderAuthFailed, false, "authentication")
	case status == http.StatusForbidden:
		return typed(fault.ProviderAuthFailed, false, "permission")
	case status == http.StatusTooManyRequests || code == "rate_limit_exceeded":
		return typed(fault.RateLimited, true, "rate_limit")
	case code == "context_length_exceeded" || code == "string_above_max_length":
		return typed(fault.PayloadTooLarge, false, "context_length_exceeded")
	case contentCodes[code]:
		return typed(fault.ContentRefused, false, "content_policy")
	case code == "model_not_found":
		return typed(fault.CapabilityNotFound, false, "model_not_found")
	case status == 0 && typ == "server_error":
		return typed(fault.UpstreamError, true, "server_error")
	}
	return upstream.ByStatus(status)
}

// resetDelay reads OpenAI's own rate-limit headers, for a 429 that sends
// neither Retry-After-Ms nor Retry-After: x-ratelimit-reset-requests and
// x-ratelimit-reset-tokens say, as Go-style durations ("1s", "6m0s",
// "120ms"), when the request and token quotas reset. Only an exhausted
// quota (x-ratelimit-remaining-… of 0) counts; the longest reset wins.
func resetDelay(h http.Header) (time.Duration, bool) {
	var (
		delay time.Duration
		found bool
	)
	for _, q := range [...]string{"requests", "tokens"} {
		if strings.TrimSpace(h.Get("x-ratelimit-remaining-"+q)) != "0" {
			continue
		}
		if d, ok := parseReset(h.Get("x-ratelimit-reset-" + q)); ok {
			delay, found = max(delay, d), true
		}
	}
	return delay, found
}

// parseReset parses one x-ratelimit-reset-… value: a non-negative Go
// duration, capped at fault.MaxRetryAfter.
func parseReset(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 32 {
		return 0, false
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, false
	}
	return min(d, fault.MaxRetryAfter), true
}
