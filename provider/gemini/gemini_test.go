package gemini_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"
	"google.golang.org/genai/interactions/models/operations"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/gemini"
	"github.com/triage-go/triage/provider/internal/providertest"
)

// testKey has the shape of a real Google API key. No test server echoes it
// unless a test says so.
const testKey = "AIzaSyTriageTestKey0123456789abcdefABCD"

const model = "gemini-2.5-flash"

// errorBody is Google's error shape: {"error":{"code","message","status",
// "details"}}; details is a JSON array, or "" for none.
func errorBody(code int, status, message, details string) string {
	if details == "" {
		return fmt.Sprintf(`{"error":{"code":%d,"message":%q,"status":%q}}`, code, message, status)
	}
	return fmt.Sprintf(`{"error":{"code":%d,"message":%q,"status":%q,"details":%s}}`, code, message, status, details)
}

const (
	quotaMessage = "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits."

	perMinuteDetails = `[
  {"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier","quotaDimensions":{"location":"global","model":"gemini-2.5-flash"},"quotaValue":"10"}]},
  {"@type":"type.googleapis.com/google.rpc.Help","links":[{"description":"Learn more about Gemini API quotas","url":"https://ai.google.dev/gemini-api/docs/rate-limits"}]},
  {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"17s"}]`

	perDayDetails = `[
  {"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier","quotaDimensions":{"location":"global","model":"gemini-2.5-pro"},"quotaValue":"50"}]},
  {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"43s"}]`

	zeroQuotaDetails = `[
  {"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_input_token_count","quotaId":"GenerateContentInputTokensPerModelPerMinute-FreeTier","quotaDimensions":{"location":"global","model":"gemini-2.5-pro"},"quotaValue":"0"}]},
  {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"5s"}]`

	apiKeyInvalidDetails = `[
  {"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}},
  {"@type":"type.googleapis.com/google.rpc.LocalizedMessage","locale":"en-US","message":"API key not valid. Please pass a valid API key."}]`
)

// statusNames are the google.rpc status names Google answers each HTTP
// status with.
var statusNames = map[int]string{
	400: "INVALID_ARGUMENT",
	401: "UNAUTHENTICATED",
	403: "PERMISSION_DENIED",
	404: "NOT_FOUND",
	409: "ABORTED",
	429: "RESOURCE_EXHAUSTED",
	500: "INTERNAL",
	501: "UNIMPLEMENTED",
	503: "UNAVAILABLE",
	504: "DEADLINE_EXCEEDED",
}

// retrying asks the SDK to retry: 5 attempts, without waiting. A client
// built by NewClient must make one.
func retrying(c *genai.ClientConfig) {
	five, zero := int32(5), 0.0
	c.HTTPOptions.RetryOptions = &genai.HTTPRetryOptions{Attempts: &five, InitialDelay: &zero, MaxDelay: &zero, Jitter: &zero}
}

// newClient builds a client with NewClient against url.
func newClient(t *testing.T, url string, change ...func(*genai.ClientConfig)) *genai.Client {
	t.Helper()
	c, err := build(testKey, url, change...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// build builds a client with NewClient and key against url.
func build(key, url string, change ...func(*genai.ClientConfig)) (*genai.Client, error) {
	cfg := &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: url}}
	for _, c := range change {
		c(cfg)
	}
	return gemini.NewClient(context.Background(), cfg)
}

// call makes one GenerateContent through a client built by NewClient with
// key, against url; its configuration asks the SDK to retry.
func call(ctx context.Context, url, key string, change ...func(*genai.ClientConfig)) error {
	c, err := build(key, url, append([]func(*genai.ClientConfig){retrying}, change...)...)
	if err != nil {
		return err
	}
	_, err = c.Models.GenerateContent(ctx, model, genai.Text("Hello"), nil)
	return err
}

// streamHead is the first event of a GenerateContent stream.
const streamHead = `data: {"candidates":[{"content":{"parts":[{"text":"Hel"}],"role":"model"},"index":0}]}` + "\n\n"

// streamReply is a GenerateContent stream whose second event is an error
// carrying data.
func streamReply(data string) providertest.Reply {
	return providertest.Reply{ContentType: "text/event-stream", Body: streamHead + "data: " + data + "\n\n"}
}

type want = providertest.Want

func check(t *testing.T, f *fault.Error, w want) {
	t.Helper()
	providertest.Check(t, f, gemini.ProviderID, testKey, w)
}

// TestConformance runs the suite every provider package passes, with
// Gemini's own cases: one per row of seed 002's Gemini table and of issue
// 3's further rows, each a real SDK client, built by NewClient, meeting a
// local server that answers as the Gemini API does.
func TestConformance(t *testing.T) {
	providertest.Exercise(t, providertest.Provider[genai.APIError]{
		ID:       gemini.ProviderID,
		Key:      testKey,
		Classify: gemini.Classify,
		Wrap:     gemini.Wrap,
		NewClient: func(key string) error {
			var cfg *genai.ClientConfig // nil: the environment decides
			if key != "" {
				cfg = &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI}
			}
			_, err := gemini.NewClient(context.Background(), cfg)
			return err
		},
		Env: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE",
			"GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_CLOUD_REGION"},
		Call: func(ctx context.Context, url, key string) error { return call(ctx, url, key) },
		CallTimeout: func(ctx context.Context, url string, d time.Duration) error {
			return call(ctx, url, testKey, func(c *genai.ClientConfig) { c.HTTPOptions.Timeout = &d })
		},
		CallPlain: func(ctx context.Context, url string, retry bool) error {
			cfg := &genai.ClientConfig{APIKey: testKey, Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: url}}
			if retry {
				retrying(cfg)
			}
			c, err := genai.NewClient(ctx, cfg)
			if err != nil {
				return err
			}
			_, err = c.Models.GenerateContent(ctx, model, genai.Text("Hello"), nil)
			return err
		},
		PlainAttempts: 5,
		// genai.APIError keeps no headers (Gemini's delay is in RetryInfo,
		// which the cases below cover); the Interactions API's errors keep
		// them.
		CallHeaders: func(ctx context.Context, url string) error {
			c, err := build(testKey, url, retrying)
			if err != nil {
				return err
			}
			_, err = c.Agents.List(ctx, operations.ListAgentsRequest{})
			return err
		},
		CallStream: func(ctx context.Context, url string) error {
			c, err := build(testKey, url, retrying)
			if err != nil {
				return err
			}
			for _, err := range c.Models.GenerateContentStream(ctx, model, genai.Text("Hello"), nil) {
				if err != nil {
					return err
				}
			}
			return nil
		},
		SentKey: func(h http.Header) string { return h.Get("X-Goog-Api-Key") },
		ErrorBody: func(status int, message string) string {
			name, ok := statusNames[status]
			if !ok {
				name = "UNKNOWN"
			}
			return errorBody(status, name, message, "")
		},
		// Gemini answers a key it rejects with 400 INVALID_ARGUMENT and
		// reason API_KEY_INVALID.
		Rejected: func(message string) providertest.Reply {
			return providertest.Reply{Status: 400, Body: errorBody(400, "INVALID_ARGUMENT", message, apiKeyInvalidDetails)}
		},
		StreamReply:    streamReply,
		StreamHead:     streamHead,
		StreamStatus:   true, // Google's error body has its code
		DeadlineTagged: true, // genai wraps the transport's error
		ProviderText:   []string{"exceeded your current quota", "API key not valid"},
		Cases:          cases,
		StreamCases: []providertest.Case{
			{Name: "Unavailable503", Reply: streamReply(errorBody(503, "UNAVAILABLE", "The model is overloaded. Please try again later.", "")),
				Want: want{Code: fault.ServiceUnavailable, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true,
					Rule: "google-gemini:unavailable", Details: map[string]any{"providerStatus": "UNAVAILABLE", "upstream_status": 503}}},
		},
	})
}

// cases are Gemini's answers, by seed 002's table.
var cases = []providertest.Case{
	{Name: "Unauthenticated401", Reply: providertest.Reply{Status: 401, Body: errorBody(401, "UNAUTHENTICATED",
		"Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
		`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"ACCESS_TOKEN_TYPE_UNSUPPORTED","metadata":{"service":"generativelanguage.googleapis.com"}}]`)},
		Want: want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity, Rule: "google-gemini:unauthenticated",
			Details: map[string]any{"providerStatus": "UNAUTHENTICATED", "providerReason": "ACCESS_TOKEN_TYPE_UNSUPPORTED", "upstream_status": 401}}},
	{Name: "APIKeyInvalid400", Reply: providertest.Reply{Status: 400, Body: errorBody(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", apiKeyInvalidDetails)},
		Want: want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity, Rule: "google-gemini:api_key_invalid",
			Details: map[string]any{"providerStatus": "INVALID_ARGUMENT", "providerReason": "API_KEY_INVALID", "upstream_status": 400}}},
	{Name: "PermissionDenied403", Reply: providertest.Reply{Status: 403, Body: errorBody(403, "PERMISSION_DENIED", "Your API key was reported as leaked. Please use another API key.", "")},
		Want: want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity, Rule: "google-gemini:permission_denied",
			Details: map[string]any{"providerStatus": "PERMISSION_DENIED", "upstream_status": 403}}},
	{Name: "ResourceExhaustedPerMinute429", Reply: providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", quotaMessage, perMinuteDetails)},
		Want: want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 17 * time.Second,
			Rule: "google-gemini:resource_exhausted", Details: map[string]any{"providerStatus": "RESOURCE_EXHAUSTED", "upstream_status": 429,
				"quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests"}}},
	{Name: "ResourceExhaustedFractionalDelay429", Reply: providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", quotaMessage,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2.5s"}]`)},
		Want: want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 2500 * time.Millisecond}},
	{Name: "ResourceExhaustedNoDetails429", Reply: providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED",
		"Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.", "")},
		Want: want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true}},
	{Name: "QuotaPerDay429", Reply: providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", quotaMessage, perDayDetails)},
		Want: want{Code: fault.QuotaExhausted, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:quota_exhausted",
			Details: map[string]any{"providerStatus": "RESOURCE_EXHAUSTED", "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}}},
	{Name: "QuotaZero429", Reply: providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", quotaMessage, zeroQuotaDetails)},
		Want: want{Code: fault.QuotaExhausted, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:quota_exhausted"}},
	{Name: "QuotaZeroErrorInfo429", Reply: providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED",
		"Quota exceeded for quota metric 'Generate Content API requests per minute' and limit 'GenerateContent request limit per minute for a region' of service 'generativelanguage.googleapis.com'.",
		`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com","quota_metric":"generativelanguage.googleapis.com/generate_content_requests","quota_limit":"GenerateContentRequestsPerMinutePerProjectPerRegion","quota_limit_value":"0"}}]`)},
		Want: want{Code: fault.QuotaExhausted, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:quota_exhausted",
			Details: map[string]any{"providerReason": "RATE_LIMIT_EXCEEDED", "quotaId": "GenerateContentRequestsPerMinutePerProjectPerRegion"}}},
	{Name: "RateLimitExceededErrorInfo429", Reply: providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED",
		"Quota exceeded for quota metric 'Generate Content API requests per minute'.",
		`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED","domain":"googleapis.com","metadata":{"quota_limit":"GenerateContentRequestsPerMinutePerProjectPerRegion","quota_limit_value":"60"}}]`)},
		Want: want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:resource_exhausted"}},
	{Name: "InvalidArgument400", Reply: providertest.Reply{Status: 400, Body: errorBody(400, "INVALID_ARGUMENT", "* GenerateContentRequest.contents: contents is not specified\n", "")},
		Want: want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:invalid_argument",
			Details: map[string]any{"providerStatus": "INVALID_ARGUMENT", "upstream_status": 400}}},
	{Name: "TokenCountExceeded400", Reply: providertest.Reply{Status: 400, Body: errorBody(400, "INVALID_ARGUMENT",
		"The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).", "")},
		Want: want{Code: fault.PayloadTooLarge, Category: fault.CategoryProtocol, Domain: fault.DomainLLM, Rule: "google-gemini:context_length_exceeded"}},
	{Name: "FailedPrecondition400", Reply: providertest.Reply{Status: 400, Body: errorBody(400, "FAILED_PRECONDITION", "User location is not supported for the API use.", "")},
		Want: want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:failed_precondition"}},
	{Name: "NotFound404", Reply: providertest.Reply{Status: 404, Body: errorBody(404, "NOT_FOUND",
		"models/gemini-9 is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.", "")},
		Want: want{Code: fault.CapabilityNotFound, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:not_found",
			Details: map[string]any{"providerStatus": "NOT_FOUND", "upstream_status": 404}}},
	{Name: "Internal500", Reply: providertest.Reply{Status: 500, Body: errorBody(500, "INTERNAL",
		"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting", "")},
		Want: want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:internal",
			Details: map[string]any{"providerStatus": "INTERNAL", "upstream_status": 500}}},
	{Name: "Unimplemented501", Reply: providertest.Reply{Status: 501, Body: errorBody(501, "UNIMPLEMENTED", "Method not found.", "")},
		Want: want{Code: fault.CapabilityNotFound, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:unimplemented"}},
	{Name: "Unavailable503", Reply: providertest.Reply{Status: 503, Body: errorBody(503, "UNAVAILABLE", "The model is overloaded. Please try again later.", "")},
		Want: want{Code: fault.ServiceUnavailable, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:unavailable"}},
	{Name: "DeadlineExceeded504", Reply: providertest.Reply{Status: 504, Body: errorBody(504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete.", "")},
		Want: want{Code: fault.Timeout, Category: fault.CategoryTimeout, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:deadline_exceeded"}},
	{Name: "UnknownStatus418", Reply: providertest.Reply{Status: 418, Body: errorBody(418, "TEAPOT", "I'm a teapot.", "")},
		Want: want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:http_418",
			Details: map[string]any{"providerStatus": "TEAPOT"}}},
}

// A caller's own http.Client is copied, not changed, and its transport's
// errors are tagged too.
func TestConnectionRefusedOwnHTTPClient(t *testing.T) {
	t.Parallel()
	hc := &http.Client{}
	err := call(t.Context(), providertest.ClosedURL(t), testKey, func(c *genai.ClientConfig) { c.HTTPClient = hc })
	check(t, fault.From(err), want{Code: fault.TransportError, Category: fault.CategoryTransport, Domain: fault.DomainSystem, Retryable: true,
		Rule: fault.RuleConnectionRefused})
	if hc.Transport != nil {
		t.Error("NewClient changed the caller's http.Client")
	}
}

// TestNewClientConfig sets the environment, so it cannot run in parallel.
func TestNewClientConfig(t *testing.T) {
	for _, k := range []string{"GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE",
		"GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_CLOUD_REGION"} {
		t.Setenv(k, "")
	}

	t.Run("MissingCredential", func(t *testing.T) {
		for _, cfg := range []*genai.ClientConfig{nil, {}, {Backend: genai.BackendGeminiAPI}} {
			_, err := gemini.NewClient(context.Background(), cfg)
			f, ok := fault.As(err)
			if !ok {
				t.Fatalf("NewClient(%v) = %v, want a fault", cfg, err)
			}
			if f.Code != fault.ConfigError || f.Category != fault.CategoryConfig || f.Retryable ||
				f.Message != "missing required credential: apiKey" || f.Details["providerId"] != gemini.ProviderID {
				t.Errorf("got %s/%s retryable=%v %q %v", f.Code, f.Category, f.Retryable, f.Message, f.Details)
			}
		}
	})
	t.Run("RejectedConfigKeepsNoKey", func(t *testing.T) {
		// The SDK's error prints the whole ClientConfig, key included.
		cfg := &genai.ClientConfig{APIKey: testKey, Backend: genai.BackendGeminiAPI, Project: "my-project", Location: "us-central1"}
		_, err := gemini.NewClient(context.Background(), cfg)
		f, ok := fault.As(err)
		if !ok || f.Code != fault.ConfigError || f.Details["providerId"] != gemini.ProviderID {
			t.Fatalf("NewClient = %v, want a CONFIG_ERROR fault", err)
		}
		if strings.Contains(err.Error(), testKey) {
			t.Errorf("the error's text holds the key: %s", err)
		}
		// The reason is the cause's, which debug output and logs show; the
		// error's text is the fault's code and message only.
		if f.Cause == nil || !strings.Contains(f.Cause.Error(), "project and location are not supported") {
			t.Errorf("the error lost the SDK's reason: %v", f.Cause)
		}
		providertest.NoSecret(t, f, testKey)
	})
	t.Run("CallerConfigUnchanged", func(t *testing.T) {
		cfg := &genai.ClientConfig{APIKey: testKey, Backend: genai.BackendGeminiAPI}
		if _, err := gemini.NewClient(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		if cfg.HTTPOptions.RetryOptions != nil || cfg.HTTPClient != nil || cfg.HTTPOptions.BaseURL != "" {
			t.Errorf("NewClient changed the caller's configuration: %+v", cfg)
		}
	})
}

// The SDK returns APIError by value; Classify takes a pointer too, but not
// a nil one.
func TestClassifyPointer(t *testing.T) {
	t.Parallel()
	f, ok := gemini.Classify(fmt.Errorf("generating: %w", &genai.APIError{Code: 503, Status: "UNAVAILABLE"}))
	if !ok || f.Code != fault.ServiceUnavailable || !f.Retryable {
		t.Errorf("Classify(*APIError) = %v, %v; want SERVICE_UNAVAILABLE, retryable", f, ok)
	}
	if f, ok := gemini.Classify(fmt.Errorf("generating: %w", (*genai.APIError)(nil))); ok {
		t.Errorf("Classify(nil *APIError) = %v, true; want false", f)
	}
}
