package gemini_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/gemini"
	"github.com/triage-go/triage/provider/internal/providertest"
	"github.com/triage-go/triage/provider/internal/upstream"
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

// newClient builds a client with NewClient against url.
func newClient(t *testing.T, url string, change ...func(*genai.ClientConfig)) *genai.Client {
	t.Helper()
	cfg := &genai.ClientConfig{APIKey: testKey, Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: url}}
	for _, c := range change {
		c(cfg)
	}
	c, err := gemini.NewClient(context.Background(), cfg)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// call makes one GenerateContent through a client built by NewClient,
// against url.
func call(t *testing.T, ctx context.Context, url string, change ...func(*genai.ClientConfig)) error {
	t.Helper()
	_, err := newClient(t, url, change...).Models.GenerateContent(ctx, model, genai.Text("Hello"), nil)
	if err == nil {
		t.Fatal("the call succeeded; want an error")
	}
	return err
}

type want = providertest.Want

func check(t *testing.T, f *fault.Error, w want) {
	t.Helper()
	providertest.Check(t, f, gemini.ProviderID, testKey, w)
}

// TestClassify has one case per row of seed 002's Gemini table and of issue
// 3's further rows: a real SDK client, built by NewClient, meets a local
// server answering as the Gemini API does.
func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply providertest.Reply
		want  want
	}{
		{"Unauthenticated401", providertest.Reply{Status: 401, Body: errorBody(401, "UNAUTHENTICATED",
			"Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
			`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"ACCESS_TOKEN_TYPE_UNSUPPORTED","metadata":{"service":"generativelanguage.googleapis.com"}}]`)},
			want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity, Rule: "google-gemini:unauthenticated",
				Details: map[string]any{"providerStatus": "UNAUTHENTICATED", "providerReason": "ACCESS_TOKEN_TYPE_UNSUPPORTED", "upstream_status": 401}}},
		{"APIKeyInvalid400", providertest.Reply{Status: 400, Body: errorBody(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", apiKeyInvalidDetails)},
			want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity, Rule: "google-gemini:api_key_invalid",
				Details: map[string]any{"providerStatus": "INVALID_ARGUMENT", "providerReason": "API_KEY_INVALID", "upstream_status": 400}}},
		{"PermissionDenied403", providertest.Reply{Status: 403, Body: errorBody(403, "PERMISSION_DENIED", "Your API key was reported as leaked. Please use another API key.", "")},
			want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity, Rule: "google-gemini:permission_denied",
				Details: map[string]any{"providerStatus": "PERMISSION_DENIED", "upstream_status": 403}}},
		{"ResourceExhaustedPerMinute429", providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", quotaMessage, perMinuteDetails)},
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 17 * time.Second,
				Rule: "google-gemini:resource_exhausted", Details: map[string]any{"providerStatus": "RESOURCE_EXHAUSTED", "upstream_status": 429,
					"quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests"}}},
		{"ResourceExhaustedFractionalDelay429", providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", quotaMessage,
			`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2.5s"}]`)},
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 2500 * time.Millisecond}},
		{"ResourceExhaustedNoDetails429", providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED",
			"Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.", "")},
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true}},
		{"QuotaPerDay429", providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", quotaMessage, perDayDetails)},
			want{Code: fault.QuotaExhausted, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:quota_exhausted",
				Details: map[string]any{"providerStatus": "RESOURCE_EXHAUSTED", "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}}},
		{"QuotaZero429", providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", quotaMessage, zeroQuotaDetails)},
			want{Code: fault.QuotaExhausted, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:quota_exhausted"}},
		{"QuotaZeroErrorInfo429", providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED",
			"Quota exceeded for quota metric 'Generate Content API requests per minute' and limit 'GenerateContent request limit per minute for a region' of service 'generativelanguage.googleapis.com'.",
			`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com","quota_metric":"generativelanguage.googleapis.com/generate_content_requests","quota_limit":"GenerateContentRequestsPerMinutePerProjectPerRegion","quota_limit_value":"0"}}]`)},
			want{Code: fault.QuotaExhausted, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:quota_exhausted",
				Details: map[string]any{"providerReason": "RATE_LIMIT_EXCEEDED", "quotaId": "GenerateContentRequestsPerMinutePerProjectPerRegion"}}},
		{"RateLimitExceededErrorInfo429", providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED",
			"Quota exceeded for quota metric 'Generate Content API requests per minute'.",
			`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED","domain":"googleapis.com","metadata":{"quota_limit":"GenerateContentRequestsPerMinutePerProjectPerRegion","quota_limit_value":"60"}}]`)},
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:resource_exhausted"}},
		{"InvalidArgument400", providertest.Reply{Status: 400, Body: errorBody(400, "INVALID_ARGUMENT", "* GenerateContentRequest.contents: contents is not specified\n", "")},
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:invalid_argument",
				Details: map[string]any{"providerStatus": "INVALID_ARGUMENT", "upstream_status": 400}}},
		{"TokenCountExceeded400", providertest.Reply{Status: 400, Body: errorBody(400, "INVALID_ARGUMENT",
			"The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).", "")},
			want{Code: fault.PayloadTooLarge, Category: fault.CategoryProtocol, Domain: fault.DomainLLM, Rule: "google-gemini:context_length_exceeded"}},
		{"FailedPrecondition400", providertest.Reply{Status: 400, Body: errorBody(400, "FAILED_PRECONDITION", "User location is not supported for the API use.", "")},
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:failed_precondition"}},
		{"NotFound404", providertest.Reply{Status: 404, Body: errorBody(404, "NOT_FOUND",
			"models/gemini-9 is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.", "")},
			want{Code: fault.CapabilityNotFound, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:not_found",
				Details: map[string]any{"providerStatus": "NOT_FOUND", "upstream_status": 404}}},
		{"Internal500", providertest.Reply{Status: 500, Body: errorBody(500, "INTERNAL",
			"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting", "")},
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:internal",
				Details: map[string]any{"providerStatus": "INTERNAL", "upstream_status": 500}}},
		{"Unimplemented501", providertest.Reply{Status: 501, Body: errorBody(501, "UNIMPLEMENTED", "Method not found.", "")},
			want{Code: fault.CapabilityNotFound, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:unimplemented"}},
		{"BadGateway502HTML", providertest.Reply{Status: 502, ContentType: "text/html",
			Body: "<html><head><title>502 Bad Gateway</title></head><body>Bad Gateway</body></html>"},
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:http_502",
				Details: map[string]any{"upstream_status": 502}}},
		{"Unavailable503", providertest.Reply{Status: 503, Body: errorBody(503, "UNAVAILABLE", "The model is overloaded. Please try again later.", "")},
			want{Code: fault.ServiceUnavailable, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:unavailable"}},
		{"DeadlineExceeded504", providertest.Reply{Status: 504, Body: errorBody(504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete.", "")},
			want{Code: fault.Timeout, Category: fault.CategoryTimeout, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:deadline_exceeded"}},
		{"UnknownStatus418", providertest.Reply{Status: 418, Body: errorBody(418, "TEAPOT", "I'm a teapot.", "")},
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:http_418",
				Details: map[string]any{"providerStatus": "TEAPOT"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := providertest.NewServer(t, tt.reply)
			err := call(t, context.Background(), srv.URL)

			f := fault.From(err)
			check(t, f, tt.want)
			if f.Classification.Method != fault.MethodClassifier {
				t.Errorf("method = %s, want classifier", f.Classification.Method)
			}
			// APIError holds a slice, so errors of its type do not compare.
			if f.Cause == nil || f.Cause.Error() != err.Error() {
				t.Errorf("Cause = %v, want the error the call returned", f.Cause)
			}
			var apiErr genai.APIError
			if !errors.As(f, &apiErr) {
				t.Errorf("errors.As(fault, genai.APIError) = false")
			}
			g, ok := gemini.Classify(err)
			if !ok || g.Code != f.Code || g.Retryable != f.Retryable {
				t.Errorf("Classify = %v, %v; want the same as fault.From", g, ok)
			}
			if got := srv.Hits(); got != 1 {
				t.Errorf("the server saw %d requests, want 1 (the client must not retry)", got)
			}
			if strings.Contains(f.Message, "exceeded your current quota") || strings.Contains(f.Message, "API key not valid") {
				t.Errorf("Message carries the provider's text: %q", f.Message)
			}
		})
	}
}

// TestClassifyStreamError covers an error inside a stream, whose HTTP
// status was 200.
func TestClassifyStreamError(t *testing.T) {
	t.Parallel()
	srv := providertest.NewServer(t, providertest.Reply{ContentType: "text/event-stream",
		Body: `data: {"candidates":[{"content":{"parts":[{"text":"Hel"}],"role":"model"},"index":0}]}` + "\n\n" +
			"data: " + errorBody(503, "UNAVAILABLE", "The model is overloaded. Please try again later.", "") + "\n\n"})
	var err error
	for _, e := range newClient(t, srv.URL).Models.GenerateContentStream(context.Background(), model, genai.Text("Hello"), nil) {
		if e != nil {
			err = e
			break
		}
	}
	if err == nil {
		t.Fatal("the stream ended without an error")
	}
	check(t, fault.From(err), want{Code: fault.ServiceUnavailable, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true,
		Rule: "google-gemini:unavailable"})
}

// TestTransportErrors covers seed 002's network and timeout rows: a refused
// connection and a deadline, through a client built by NewClient and
// through a plain SDK client.
func TestTransportErrors(t *testing.T) {
	t.Parallel()

	t.Run("ConnectionRefused", func(t *testing.T) {
		t.Parallel()
		err := call(t, context.Background(), providertest.ClosedURL(t))
		check(t, fault.From(err), want{Code: fault.TransportError, Category: fault.CategoryTransport, Domain: fault.DomainSystem, Retryable: true,
			Rule: fault.RuleConnectionRefused})
	})
	t.Run("ConnectionRefusedOwnHTTPClient", func(t *testing.T) {
		t.Parallel()
		hc := &http.Client{}
		err := call(t, context.Background(), providertest.ClosedURL(t), func(c *genai.ClientConfig) { c.HTTPClient = hc })
		check(t, fault.From(err), want{Code: fault.TransportError, Category: fault.CategoryTransport, Domain: fault.DomainSystem, Retryable: true,
			Rule: fault.RuleConnectionRefused})
		if hc.Transport != nil {
			t.Error("NewClient changed the caller's http.Client")
		}
	})
	t.Run("ConnectionRefusedPlainClient", func(t *testing.T) {
		t.Parallel()
		c, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: testKey, Backend: genai.BackendGeminiAPI,
			HTTPOptions: genai.HTTPOptions{BaseURL: providertest.ClosedURL(t)}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Models.GenerateContent(context.Background(), model, genai.Text("Hello"), nil)
		if _, ok := gemini.Classify(err); ok {
			t.Error("Classify claimed an untagged network error; fault's own rules should apply")
		}
		f := fault.From(err)
		if f.Code != fault.TransportError || !f.Retryable || f.Classification.Rule != fault.RuleConnectionRefused {
			t.Errorf("got %s retryable=%v rule=%s, want TRANSPORT_ERROR retryable rule=connection_refused", f.Code, f.Retryable, f.Classification.Rule)
		}
	})
	t.Run("ContextDeadline", func(t *testing.T) {
		t.Parallel()
		srv := providertest.NewServer(t, providertest.Reply{Delay: 10 * time.Second})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		err := call(t, ctx, srv.URL)
		check(t, fault.From(err), want{Code: fault.Timeout, Category: fault.CategoryTimeout, Domain: fault.DomainSystem, Retryable: true,
			Rule: "context.DeadlineExceeded"})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the SDK hid the deadline: %v", err)
		}
	})
	t.Run("HTTPOptionsTimeout", func(t *testing.T) {
		t.Parallel()
		srv := providertest.NewServer(t, providertest.Reply{Delay: 10 * time.Second})
		timeout := 50 * time.Millisecond
		err := call(t, context.Background(), srv.URL, func(c *genai.ClientConfig) { c.HTTPOptions.Timeout = &timeout })
		check(t, fault.From(err), want{Code: fault.Timeout, Category: fault.CategoryTimeout, Domain: fault.DomainSystem, Retryable: true})
		if got := srv.Hits(); got != 1 {
			t.Errorf("the server saw %d requests, want 1", got)
		}
	})
}

// TestNewClientRetriesOff proves that a client built by NewClient sends
// each call once, even when its configuration asks the SDK to retry: the
// resilience layer owns retries. The plain SDK client with the same
// configuration shows that the server would see the retries.
func TestNewClientRetriesOff(t *testing.T) {
	t.Parallel()
	five, zero := int32(5), 0.0
	retrying := func(c *genai.ClientConfig) {
		c.HTTPOptions.RetryOptions = &genai.HTTPRetryOptions{Attempts: &five, InitialDelay: &zero, MaxDelay: &zero, Jitter: &zero}
	}
	for _, status := range []int{429, 500, 503} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			reply := providertest.Reply{Status: status, Body: errorBody(status, "UNAVAILABLE", "try again", "")}
			srv := providertest.NewServer(t, reply)
			for range 2 {
				_ = call(t, context.Background(), srv.URL, retrying)
			}
			if got := srv.Hits(); got != 2 {
				t.Errorf("two calls reached the server %d times, want 2", got)
			}
			if got := srv.LastHeader().Get("X-Goog-Api-Key"); got != testKey {
				t.Errorf("X-Goog-Api-Key = %q, want the key", got)
			}

			plain := providertest.NewServer(t, reply)
			cfg := &genai.ClientConfig{APIKey: testKey, Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: plain.URL}}
			retrying(cfg)
			c, err := genai.NewClient(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = c.Models.GenerateContent(context.Background(), model, genai.Text("Hello"), nil)
			if got := plain.Hits(); got != 5 {
				t.Errorf("the plain SDK client sent %d requests, want 5: the test cannot see retries", got)
			}
		})
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
	t.Run("KeyFromEnvironment", func(t *testing.T) {
		t.Setenv("GEMINI_API_KEY", testKey)
		if _, err := gemini.NewClient(context.Background(), nil); err != nil {
			t.Errorf("NewClient(nil) with GEMINI_API_KEY set = %v, want a client", err)
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
		if !strings.Contains(err.Error(), "project and location are not supported") {
			t.Errorf("the error lost the SDK's reason: %s", err)
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

// TestNoKeyLeaks puts a key in the client and looks for it everywhere a
// fault is shown, including when a hostile server echoes it back.
func TestNoKeyLeaks(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		errorBody(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", apiKeyInvalidDetails),
		errorBody(400, "INVALID_ARGUMENT", "API key not valid: "+testKey+" (x-goog-api-key: "+testKey+")", apiKeyInvalidDetails),
	} {
		srv := providertest.NewServer(t, providertest.Reply{Status: 400, Body: body})
		f := fault.From(call(t, context.Background(), srv.URL))
		providertest.NoSecret(t, f, testKey)
		if !strings.Contains(providertest.Shown(t, f)["json debug"], "API key not valid") {
			t.Errorf("debug output lost the provider's message: %s", providertest.Shown(t, f)["json debug"])
		}
	}
}

// TestClassifyDeclines proves that Classify claims only the Gen AI SDK's
// errors and its own client's transport errors.
func TestClassifyDeclines(t *testing.T) {
	t.Parallel()
	for name, err := range map[string]error{
		"Nil":                 nil,
		"Plain":               errors.New("RESOURCE_EXHAUSTED"),
		"Deadline":            context.DeadlineExceeded,
		"Fault":               fault.New(fault.RateLimited, ""),
		"OtherProvidersCall":  upstream.Tag("openai", errors.New("connection refused")),
		"StatusCoderFromElse": statusErr(429),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if f, ok := gemini.Classify(err); ok {
				t.Errorf("Classify(%v) = %v, true; want false", err, f)
			}
		})
	}
}

func TestClassifyPointer(t *testing.T) {
	t.Parallel()
	f, ok := gemini.Classify(fmt.Errorf("generating: %w", &genai.APIError{Code: 503, Status: "UNAVAILABLE"}))
	if !ok || f.Code != fault.ServiceUnavailable || !f.Retryable {
		t.Errorf("Classify(*APIError) = %v, %v; want SERVICE_UNAVAILABLE, retryable", f, ok)
	}
}

type statusErr int

func (s statusErr) Error() string   { return fmt.Sprint("status ", int(s)) }
func (s statusErr) StatusCode() int { return int(s) }

// TestDeclineAllocatesNothing: the classifier runs on every fault.From of
// an error that is not a fault, so declining costs no allocation. (Not
// parallel: AllocsPerRun counts every goroutine's allocations.)
func TestDeclineAllocatesNothing(t *testing.T) {
	err := fmt.Errorf("dialing: %w", errors.Join(context.DeadlineExceeded, statusErr(503)))
	if n := testing.AllocsPerRun(100, func() { _, _ = gemini.Classify(err) }); n != 0 {
		t.Errorf("Classify of a foreign error allocates %v times", n)
	}
}
