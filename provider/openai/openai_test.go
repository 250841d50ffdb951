package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/internal/providertest"
	"github.com/triage-go/triage/provider/openai"
)

// testKey has the shape of a real project key. No test server echoes it
// unless a test says so.
const testKey = "sk-proj-TriageTestKey0123456789abcdefABCDEF"

var params = sdk.ChatCompletionNewParams{
	Model:    "gpt-4o",
	Messages: []sdk.ChatCompletionMessageParamUnion{sdk.UserMessage("Hello")},
}

// errorBody is OpenAI's documented error shape.
func errorBody(message, typ, param, code string) string {
	str := func(s string) string {
		if s == "" {
			return "null"
		}
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf(`{"error":{"message":%q,"type":%q,"param":%s,"code":%s}}`, message, typ, str(param), str(code))
}

// call makes one chat completion through a client built by NewClient with
// key, against url.
func call(ctx context.Context, url, key string, opts ...option.RequestOption) error {
	c, err := openai.NewClient(key, append([]option.RequestOption{option.WithBaseURL(url)}, opts...)...)
	if err != nil {
		return err
	}
	_, err = c.Chat.Completions.New(ctx, params)
	return err
}

// streamHead is the first event of a chat completion stream.
const streamHead = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}` + "\n\n"

// streamReply is a chat completion stream whose second event is an error
// event carrying data.
func streamReply(data string) providertest.Reply {
	return providertest.Reply{ContentType: "text/event-stream", Body: streamHead + "data: " + data + "\n\n"}
}

type want = providertest.Want

// TestConformance runs the suite every provider package passes, with
// OpenAI's own cases: one per row of seed 002's OpenAI table and of issue
// 3's further rows, each a real SDK client, built by NewClient, meeting a
// local server that answers as OpenAI does.
func TestConformance(t *testing.T) {
	providertest.Exercise(t, providertest.Provider[*sdk.Error]{
		ID:       openai.ProviderID,
		Key:      testKey,
		Classify: openai.Classify,
		Wrap:     openai.Wrap,
		NewClient: func(key string) error {
			_, err := openai.NewClient(key)
			return err
		},
		Env:  []string{"OPENAI_API_KEY"},
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
			_, err := c.Chat.Completions.New(ctx, params)
			return err
		},
		PlainAttempts: 3, // the SDK retries twice by default
		CallStream: func(ctx context.Context, url string) error {
			c, err := openai.NewClient(testKey, option.WithBaseURL(url))
			if err != nil {
				return err
			}
			s := c.Chat.Completions.NewStreaming(ctx, params)
			for s.Next() {
			}
			return s.Err()
		},
		SentKey: func(h http.Header) string {
			key, _ := strings.CutPrefix(h.Get("Authorization"), "Bearer ")
			return key
		},
		ErrorBody: func(status int, message string) string {
			switch {
			case status == http.StatusTooManyRequests:
				return errorBody(message, "requests", "", "rate_limit_exceeded")
			case status >= 500:
				return errorBody(message, "server_error", "", "")
			}
			return errorBody(message, "invalid_request_error", "", "")
		},
		Rejected: func(message string) providertest.Reply {
			return providertest.Reply{Status: 401, Body: errorBody(message, "invalid_request_error", "", "invalid_api_key")}
		},
		StreamReply:  streamReply,
		StreamHead:   streamHead,
		ProviderText: []string{"Rate limit reached", "Incorrect API key"},
		Cases:        cases,
		StreamCases:  streamCases,
	})
}

// cases are OpenAI's answers, by seed 002's table.
var cases = []providertest.Case{
	{Name: "Authentication401", Reply: providertest.Reply{Status: 401,
		Header: map[string]string{"x-request-id": "req_401"},
		Body: errorBody("Incorrect API key provided: sk-proj-****************************************CDEF. You can find your API key at https://platform.openai.com/account/api-keys.",
			"invalid_request_error", "", "invalid_api_key")},
		Want: want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity, Rule: "openai:authentication",
			Details: map[string]any{"providerType": "invalid_request_error", "providerCode": "invalid_api_key", "upstream_status": 401, "requestId": "req_401"}}},
	{Name: "Permission403", Reply: providertest.Reply{Status: 403,
		Body: errorBody("Country, region, or territory not supported", "request_forbidden", "", "unsupported_country_region_territory")},
		Want: want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity, Rule: "openai:permission",
			Details: map[string]any{"providerType": "request_forbidden", "upstream_status": 403}}},
	{Name: "RateLimit429RetryAfter", Reply: providertest.Reply{Status: 429,
		Header: map[string]string{"retry-after": "20", "x-request-id": "req_429"},
		Body: errorBody("Rate limit reached for gpt-4o in organization org-abc on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 120ms.",
			"requests", "", "rate_limit_exceeded")},
		Want: want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 20 * time.Second,
			Rule: "openai:rate_limit", Details: map[string]any{"providerType": "requests", "providerCode": "rate_limit_exceeded", "upstream_status": 429, "requestId": "req_429"}}},
	{Name: "RateLimit429ResetHeaders", Reply: providertest.Reply{Status: 429,
		Header: map[string]string{
			"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1s",
			"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "6m0s"},
		Body: errorBody("Rate limit reached for gpt-4o on tokens per min (TPM).", "tokens", "", "rate_limit_exceeded")},
		Want: want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 6 * time.Minute}},
	{Name: "InsufficientQuota429", Reply: providertest.Reply{Status: 429, Header: map[string]string{"retry-after": "20"},
		Body: errorBody("You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
			"insufficient_quota", "", "insufficient_quota")},
		Want: want{Code: fault.QuotaExhausted, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "openai:insufficient_quota",
			Details: map[string]any{"providerType": "insufficient_quota", "providerCode": "insufficient_quota", "upstream_status": 429}}},
	{Name: "BadRequest400", Reply: providertest.Reply{Status: 400,
		Body: errorBody("Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 3 instead.",
			"invalid_request_error", "temperature", "decimal_above_max_value")},
		Want: want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "openai:http_400",
			Details: map[string]any{"providerType": "invalid_request_error", "providerCode": "decimal_above_max_value", "providerParam": "temperature", "upstream_status": 400}}},
	{Name: "ContextLengthExceeded400", Reply: providertest.Reply{Status: 400,
		Body: errorBody("This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.",
			"invalid_request_error", "messages", "context_length_exceeded")},
		Want: want{Code: fault.PayloadTooLarge, Category: fault.CategoryProtocol, Domain: fault.DomainLLM, Rule: "openai:context_length_exceeded",
			Details: map[string]any{"providerCode": "context_length_exceeded", "upstream_status": 400}}},
	{Name: "ContentPolicyViolation400", Reply: providertest.Reply{Status: 400,
		Body: errorBody("Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.",
			"invalid_request_error", "", "content_policy_violation")},
		Want: want{Code: fault.ContentRefused, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "openai:content_policy",
			Details: map[string]any{"providerCode": "content_policy_violation"}}},
	{Name: "InvalidPrompt400", Reply: providertest.Reply{Status: 400,
		Body: errorBody("Invalid prompt: your prompt was flagged as potentially violating our usage policy. Please try again with a different prompt.",
			"invalid_request_error", "", "invalid_prompt")},
		Want: want{Code: fault.ContentRefused, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "openai:content_policy"}},
	{Name: "ModelNotFound404", Reply: providertest.Reply{Status: 404,
		Body: errorBody("The model `gpt-9` does not exist or you do not have access to it.", "invalid_request_error", "", "model_not_found")},
		Want: want{Code: fault.CapabilityNotFound, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "openai:model_not_found",
			Details: map[string]any{"providerCode": "model_not_found", "upstream_status": 404}}},
	{Name: "Conflict409", Reply: providertest.Reply{Status: 409,
		Body: errorBody("Another request is in progress.", "invalid_request_error", "", "")},
		Want: want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "openai:http_409"}},
	{Name: "RequestTimeout408", Reply: providertest.Reply{Status: 408,
		Body: errorBody("Request timed out.", "server_error", "", "")},
		Want: want{Code: fault.Timeout, Category: fault.CategoryTimeout, Domain: fault.DomainLLM, Retryable: true, Rule: "openai:http_408",
			Details: map[string]any{"upstream_status": 408}}},
	{Name: "InternalServerError500", Reply: providertest.Reply{Status: 500,
		Body: errorBody("The server had an error while processing your request. Sorry about that!", "server_error", "", "")},
		Want: want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "openai:http_500",
			Details: map[string]any{"providerType": "server_error", "upstream_status": 500}}},
	{Name: "Overloaded503", Reply: providertest.Reply{Status: 503, Header: map[string]string{"retry-after": "5"},
		Body: errorBody("The engine is currently overloaded, please try again later.", "server_error", "", "")},
		Want: want{Code: fault.ServiceUnavailable, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 5 * time.Second,
			Rule: "openai:http_503"}},
	{Name: "UnknownStatus418", Reply: providertest.Reply{Status: 418,
		Body: errorBody("I'm a teapot.", "teapot_error", "", "")},
		Want: want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "openai:http_418"}},
}

// streamCases cover an error event inside a stream, whose HTTP status was
// 200, and seed 002's "unknown error" row.
var streamCases = []providertest.Case{
	{Name: "ServerError", Reply: streamReply(errorBody("The server had an error while processing your request.", "server_error", "", "")),
		Want: want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "openai:server_error",
			Details: map[string]any{"providerType": "server_error"}}},
	{Name: "RateLimit", Reply: streamReply(errorBody("Rate limit reached.", "tokens", "", "rate_limit_exceeded")),
		Want: want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "openai:rate_limit"}},
	{Name: "Unknown", Reply: streamReply(errorBody("Something odd happened.", "odd_error", "", "")),
		Want: want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "openai:unknown",
			Details: map[string]any{"providerType": "odd_error"}}},
}

// The classifier is registered: fault.From of an OpenAI error, wrapped,
// is the package's fault.
func TestRegistered(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("completing: %w", &sdk.Error{StatusCode: http.StatusTooManyRequests, Code: "rate_limit_exceeded"})
	f := fault.From(err)
	if f.Code != fault.RateLimited || f.Classification.Method != fault.MethodClassifier || f.Source != openai.ProviderID {
		t.Errorf("fault.From = %s by %s from %q; want RATE_LIMITED by the registered classifier", f.Code, f.Classification.Method, f.Source)
	}
}
