package anthropic_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/anthropic"
	"github.com/triage-go/triage/provider/internal/providertest"
)

// testKey has the shape of a real Anthropic key. No test server echoes it
// unless a test says so.
const testKey = "sk-ant-api03-TriageTestKey0123456789abcdefABCDEF-0123456789AA"

var params = sdk.MessageNewParams{
	Model:     "claude-sonnet-4-5",
	MaxTokens: 64,
	Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("Hello"))},
}

// errorBody is Anthropic's documented error shape.
func errorBody(typ, message string) string {
	return fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_011CBodyId"}`, typ, message)
}

// errorTypes are the error types Anthropic answers each status with.
var errorTypes = map[int]string{
	400: "invalid_request_error",
	401: "authentication_error",
	403: "permission_error",
	404: "not_found_error",
	413: "request_too_large",
	429: "rate_limit_error",
	500: "api_error",
	503: "overloaded_error",
	504: "timeout_error",
	529: "overloaded_error",
}

// call makes one message through a client built by NewClient with key,
// against url.
func call(ctx context.Context, url, key string, opts ...option.RequestOption) error {
	c, err := anthropic.NewClient(key, append([]option.RequestOption{option.WithBaseURL(url)}, opts...)...)
	if err != nil {
		return err
	}
	_, err = c.Messages.New(ctx, params)
	return err
}

// streamHead is the first events of a message stream.
const streamHead = `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}

event: ping
data: {"type":"ping"}

`

// streamReply is a message stream whose second event is an error event
// carrying data.
func streamReply(data string) providertest.Reply {
	return providertest.Reply{ContentType: "text/event-stream",
		Body: "event: ping\ndata: {\"type\":\"ping\"}\n\nevent: error\ndata: " + data + "\n\n"}
}

type want = providertest.Want

// TestConformance runs the suite every provider package passes, with
// Anthropic's own cases: one per row of seed 002's Anthropic table and of
// issue 3's further rows, each a real SDK client, built by NewClient,
// meeting a local server that answers as Anthropic does.
func TestConformance(t *testing.T) {
	providertest.Exercise(t, providertest.Provider[*sdk.Error]{
		ID:       anthropic.ProviderID,
		Key:      testKey,
		Classify: anthropic.Classify,
		Wrap:     anthropic.Wrap,
		NewClient: func(key string) error {
			_, err := anthropic.NewClient(key)
			return err
		},
		Env:  []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"},
		Call: func(ctx context.Context, url, key string) error { return call(ctx, url, key) },
		CallTimeout: func(ctx context.Context, url string, d time.Duration) error {
			return call(ctx, url, testKey, option.WithRequestTimeout(d))
		},
		CallPlain: func(ctx context.Context, url string, retry bool) error {
			opts := []option.RequestOption{option.WithBaseURL(url), option.WithAPIKey(testKey)}
			if !retry {
				opts = append(opts, option.WithMaxRetries(0))
			}
			c := sdk.NewClient(opts...)
			_, err := c.Messages.New(ctx, params)
			return err
		},
		PlainAttempts: 3, // the SDK retries twice by default
		CallStream: func(ctx context.Context, url string) error {
			c, err := anthropic.NewClient(testKey, option.WithBaseURL(url))
			if err != nil {
				return err
			}
			s := c.Messages.NewStreaming(ctx, params)
			for s.Next() {
			}
			return s.Err()
		},
		SentKey: func(h http.Header) string { return h.Get("X-Api-Key") },
		ErrorBody: func(status int, message string) string {
			typ, ok := errorTypes[status]
			if !ok {
				typ = "api_error"
			}
			return errorBody(typ, message)
		},
		Rejected: func(message string) providertest.Reply {
			return providertest.Reply{Status: 401, Body: errorBody("authentication_error", message)}
		},
		StreamReply:   streamReply,
		StreamHead:    streamHead,
		RetryStatuses: []int{529}, // overloaded_error
		ProviderText:  []string{"rate limit for your organization", "x-api-key"},
		Cases:         cases,
		StreamCases:   streamCases,
	})
}

// reqID is the request-id header Anthropic answers with.
var reqID = map[string]string{"request-id": "req_011CHeaderId"}

// cases are Anthropic's answers, by seed 002's table.
var cases = []providertest.Case{
	{Name: "Authentication401", Reply: providertest.Reply{Status: 401, Header: reqID, Body: errorBody("authentication_error", "invalid x-api-key")},
		Want: want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity, Rule: "anthropic:authentication_error",
			Details: map[string]any{"providerType": "authentication_error", "upstream_status": 401, "requestId": "req_011CHeaderId"}}},
	{Name: "Permission403", Reply: providertest.Reply{Status: 403,
		Body: errorBody("permission_error", "Your API key does not have permission to use the specified resource.")},
		Want: want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity, Rule: "anthropic:permission_error",
			Details: map[string]any{"providerType": "permission_error", "upstream_status": 403, "requestId": "req_011CBodyId"}}},
	{Name: "Billing402", Reply: providertest.Reply{Status: 402,
		Body: errorBody("billing_error", "There is an issue with your billing or payment information.")},
		Want: want{Code: fault.QuotaExhausted, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "anthropic:billing_error"}},
	{Name: "CreditBalanceTooLow400", Reply: providertest.Reply{Status: 400,
		Body: errorBody("invalid_request_error", "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.")},
		Want: want{Code: fault.QuotaExhausted, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "anthropic:credit_balance_too_low",
			Details: map[string]any{"providerType": "invalid_request_error", "upstream_status": 400}}},
	{Name: "RateLimit429", Reply: providertest.Reply{Status: 429,
		Header: map[string]string{"retry-after": "17", "request-id": "req_011CRate",
			"anthropic-ratelimit-input-tokens-remaining": "0", "anthropic-ratelimit-input-tokens-reset": "2026-01-01T00:00:17Z"},
		Body: errorBody("rate_limit_error", "This request would exceed the rate limit for your organization of 50,000 input tokens per minute.")},
		Want: want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 17 * time.Second,
			Rule: "anthropic:rate_limit_error", Details: map[string]any{"providerType": "rate_limit_error", "upstream_status": 429, "requestId": "req_011CRate"}}},
	{Name: "BadRequest400", Reply: providertest.Reply{Status: 400, Body: errorBody("invalid_request_error", "max_tokens: Field required")},
		Want: want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "anthropic:http_400",
			Details: map[string]any{"providerType": "invalid_request_error", "upstream_status": 400}}},
	{Name: "PromptTooLong400", Reply: providertest.Reply{Status: 400, Body: errorBody("invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum")},
		Want: want{Code: fault.PayloadTooLarge, Category: fault.CategoryProtocol, Domain: fault.DomainLLM, Rule: "anthropic:context_length_exceeded"}},
	{Name: "ContextLimit400", Reply: providertest.Reply{Status: 400,
		Body: errorBody("invalid_request_error", "input length and `max_tokens` exceed context limit: 197202 + 21333 > 200000, decrease input length or `max_tokens` and try again")},
		Want: want{Code: fault.PayloadTooLarge, Category: fault.CategoryProtocol, Domain: fault.DomainLLM, Rule: "anthropic:context_length_exceeded"}},
	{Name: "ContentFiltered400", Reply: providertest.Reply{Status: 400, Body: errorBody("invalid_request_error", "Output blocked by content filtering policy")},
		Want: want{Code: fault.ContentRefused, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "anthropic:content_filtering_policy"}},
	{Name: "NotFound404", Reply: providertest.Reply{Status: 404, Body: errorBody("not_found_error", "model: claude-9")},
		Want: want{Code: fault.CapabilityNotFound, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "anthropic:not_found_error",
			Details: map[string]any{"providerType": "not_found_error", "upstream_status": 404}}},
	{Name: "RequestTooLarge413", Reply: providertest.Reply{Status: 413, Body: errorBody("request_too_large", "Request exceeds the maximum allowed number of bytes.")},
		Want: want{Code: fault.PayloadTooLarge, Category: fault.CategoryProtocol, Domain: fault.DomainLLM, Rule: "anthropic:request_too_large"}},
	{Name: "InternalServerError500", Reply: providertest.Reply{Status: 500, Body: errorBody("api_error", "Internal server error")},
		Want: want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "anthropic:api_error",
			Details: map[string]any{"providerType": "api_error", "upstream_status": 500}}},
	{Name: "APIError503", Reply: providertest.Reply{Status: 503, Header: map[string]string{"retry-after": "7"}, Body: errorBody("api_error", "Service unavailable")},
		Want: want{Code: fault.ServiceUnavailable, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 7 * time.Second,
			Rule: "anthropic:api_error", Details: map[string]any{"providerType": "api_error", "upstream_status": 503}}},
	{Name: "Timeout504", Reply: providertest.Reply{Status: 504, Body: errorBody("timeout_error", "Request timed out.")},
		Want: want{Code: fault.Timeout, Category: fault.CategoryTimeout, Domain: fault.DomainLLM, Retryable: true, Rule: "anthropic:timeout_error"}},
	{Name: "Overloaded529", Reply: providertest.Reply{Status: 529, Header: map[string]string{"retry-after": "3"}, Body: errorBody("overloaded_error", "Overloaded")},
		Want: want{Code: fault.ServiceUnavailable, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 3 * time.Second,
			Rule: "anthropic:overloaded_error", Details: map[string]any{"providerType": "overloaded_error", "upstream_status": 529}}},
	{Name: "UnknownType418", Reply: providertest.Reply{Status: 418, Body: errorBody("teapot_error", "I'm a teapot.")},
		Want: want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "anthropic:http_418",
			Details: map[string]any{"providerType": "teapot_error"}}},
}

// streamCases cover an error event inside a stream, whose HTTP status was
// 200: Anthropic sends overloaded_error that way mid-stream.
var streamCases = []providertest.Case{
	{Name: "Overloaded", Reply: streamReply(errorBody("overloaded_error", "Overloaded")),
		Want: want{Code: fault.ServiceUnavailable, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "anthropic:overloaded_error"}},
	{Name: "APIError", Reply: streamReply(errorBody("api_error", "Internal server error")),
		Want: want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "anthropic:api_error"}},
	{Name: "Unknown", Reply: streamReply(errorBody("odd_error", "Something odd happened.")),
		Want: want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "anthropic:unknown",
			Details: map[string]any{"providerType": "odd_error"}}},
}
