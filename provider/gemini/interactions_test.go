package gemini_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"
	"google.golang.org/genai/interactions/models/apierrors"
	"google.golang.org/genai/interactions/models/components"
	"google.golang.org/genai/interactions/models/operations"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/gemini"
	"github.com/triage-go/triage/provider/internal/providertest"
)

// ixCall is one call through an Interactions API client of c.
type ixCall struct {
	name string
	do   func(ctx context.Context, c *genai.Client) error
}

// ixCalls calls each of the six Interactions API clients that genai.Client
// exports, with the simplest operation each has.
var ixCalls = []ixCall{
	{"Interactions.Get", func(ctx context.Context, c *genai.Client) error {
		_, err := c.Interactions.Get(ctx, operations.GetInteractionByIDRequest{ID: "v1_interaction"})
		return err
	}},
	{"Agents.List", agentsList},
	{"Voices.List", func(ctx context.Context, c *genai.Client) error {
		_, err := c.Voices.List(ctx, operations.ListVoicesRequest{})
		return err
	}},
	{"Webhooks.List", func(ctx context.Context, c *genai.Client) error {
		_, err := c.Webhooks.List(ctx, operations.ListWebhooksRequest{})
		return err
	}},
	{"Credentials.List", func(ctx context.Context, c *genai.Client) error {
		_, err := c.Credentials.List(ctx, operations.ListCredentialsRequest{})
		return err
	}},
	{"Environments.ListEnvironments", func(ctx context.Context, c *genai.Client) error {
		_, err := c.Environments.ListEnvironments(ctx, operations.ListEnvironmentsRequest{})
		return err
	}},
}

func agentsList(ctx context.Context, c *genai.Client) error {
	_, err := c.Agents.List(ctx, operations.ListAgentsRequest{})
	return err
}

func interactionsGet(ctx context.Context, c *genai.Client) error {
	_, err := c.Interactions.Get(ctx, operations.GetInteractionByIDRequest{ID: "v1_interaction"})
	return err
}

// plainClient is the SDK's own client, without NewClient, against url.
func plainClient(t *testing.T, url string) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: testKey, Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: url}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestInteractionsRetriesOff proves that each Interactions API client of a
// client built by NewClient sends a call once when the answer is one its
// generated code retries (429, 5xx), and that the call's error is classified.
// The plain SDK client shows that the server would see its 4 retries. The
// server asks for a 1 ms wait (Retry-After-Ms), which the generated code
// honours, so the plain client's retries are quick.
func TestInteractionsRetriesOff(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status int
		body   string
		want   want
	}{
		{429, errorBody(429, "RESOURCE_EXHAUSTED", quotaMessage, ""),
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: time.Millisecond,
				Rule: "google-gemini:resource_exhausted", Details: map[string]any{"providerStatus": "RESOURCE_EXHAUSTED", "upstream_status": 429}}},
		{500, errorBody(500, "INTERNAL", "An internal error has occurred.", ""),
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: time.Millisecond,
				Rule: "google-gemini:internal", Details: map[string]any{"providerStatus": "INTERNAL", "upstream_status": 500}}},
	} {
		for _, call := range ixCalls {
			t.Run(fmt.Sprint(tt.status, "/", call.name), func(t *testing.T) {
				t.Parallel()
				reply := providertest.Reply{Status: tt.status, Header: map[string]string{"Retry-After-Ms": "1"}, Body: tt.body}

				srv := providertest.NewServer(t, reply)
				err := call.do(context.Background(), newClient(t, srv.URL))
				if err == nil {
					t.Fatal("the call succeeded; want an error")
				}
				if got := srv.Hits(); got != 1 {
					t.Errorf("the call reached the server %d times, want 1 (the client must not retry)", got)
				}
				if got := srv.LastHeader().Get("X-Goog-Api-Key"); got != testKey {
					t.Errorf("X-Goog-Api-Key = %q, want the key", got)
				}
				check(t, fault.From(err), tt.want)
				if strings.Contains(fault.From(err).Error(), testKey) {
					t.Errorf("Error() holds the key: %s", fault.From(err).Error())
				}

				plain := providertest.NewServer(t, reply)
				if err := call.do(context.Background(), plainClient(t, plain.URL)); err == nil {
					t.Fatal("the plain client's call succeeded; want an error")
				}
				if got := plain.Hits(); got != 5 {
					t.Errorf("the plain SDK client sent %d requests, want 5: the test cannot see retries", got)
				}
			})
		}
	}
}

// declaredBody is the error body the Interactions API's specification
// declares for Interactions.Create, Get, Delete and Cancel: a string code
// ("A URI that identifies the error type") and a message. Google's own body
// (errorBody), whose code is a number, does not match it.
func declaredBody(code, message string) string {
	return fmt.Sprintf(`{"error":{"code":%q,"message":%q}}`, code, message)
}

// TestClassifyInteractions covers the Interactions API client's error types
// with the main API's table: *apierrors.APIError (Agents.List, and every
// service but Interactions), *apierrors.ResponseValidationError
// (Interactions.Get meeting Google's error body) and the typed
// *apierrors.GetInteractionByIDClientError and …ServerError (Interactions.Get
// meeting the declared body). Each case is a real client built by NewClient
// against a local server, and reaches it once.
func TestClassifyInteractions(t *testing.T) {
	t.Parallel()
	var (
		apiError        = isA[*apierrors.APIError]
		validationError = isA[*apierrors.ResponseValidationError]
		clientError     = isA[*apierrors.GetInteractionByIDClientError]
		serverError     = isA[*apierrors.GetInteractionByIDServerError]
	)
	tests := []struct {
		name  string
		call  func(context.Context, *genai.Client) error
		reply providertest.Reply
		as    func(error) (string, bool) // the SDK error type the call returns
		want  want
	}{
		{"APIError/ResourceExhaustedRetryInfo429", agentsList,
			providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", quotaMessage, perMinuteDetails)}, apiError,
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 17 * time.Second,
				Rule: "google-gemini:resource_exhausted", Details: map[string]any{"providerStatus": "RESOURCE_EXHAUSTED", "upstream_status": 429,
					"quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests"}}},
		{"APIError/ResourceExhaustedRetryAfter429", agentsList,
			providertest.Reply{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: errorBody(429, "RESOURCE_EXHAUSTED", quotaMessage, "")}, apiError,
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 7 * time.Second,
				Rule: "google-gemini:resource_exhausted"}},
		{"APIError/RetryAfterBeforeRetryInfo429", agentsList,
			providertest.Reply{Status: 429, Header: map[string]string{"Retry-After": "3"}, Body: errorBody(429, "RESOURCE_EXHAUSTED", quotaMessage, perMinuteDetails)}, apiError,
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 3 * time.Second}},
		{"APIError/QuotaPerDay429", agentsList,
			providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", quotaMessage, perDayDetails)}, apiError,
			want{Code: fault.QuotaExhausted, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:quota_exhausted",
				Details: map[string]any{"quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}}},
		{"APIError/APIKeyInvalid400", agentsList,
			providertest.Reply{Status: 400, Body: errorBody(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", apiKeyInvalidDetails)}, apiError,
			want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity, Rule: "google-gemini:api_key_invalid",
				Details: map[string]any{"providerStatus": "INVALID_ARGUMENT", "providerReason": "API_KEY_INVALID", "upstream_status": 400}}},
		{"APIError/PermissionDenied403", agentsList,
			providertest.Reply{Status: 403, Body: errorBody(403, "PERMISSION_DENIED", "Permission denied.", "")}, apiError,
			want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity, Rule: "google-gemini:permission_denied"}},
		{"APIError/InvalidArgument400", agentsList,
			providertest.Reply{Status: 400, Body: errorBody(400, "INVALID_ARGUMENT", "Invalid page_size.", "")}, apiError,
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:invalid_argument"}},
		{"APIError/NotFound404", agentsList,
			providertest.Reply{Status: 404, Body: errorBody(404, "NOT_FOUND", "Method not found.", "")}, apiError,
			want{Code: fault.CapabilityNotFound, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:not_found"}},
		{"APIError/Internal500", agentsList,
			providertest.Reply{Status: 500, Body: errorBody(500, "INTERNAL", "An internal error has occurred.", "")}, apiError,
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:internal",
				Details: map[string]any{"providerStatus": "INTERNAL", "upstream_status": 500}}},
		{"APIError/BadGateway502HTML", agentsList,
			providertest.Reply{Status: 502, ContentType: "text/html", Body: "<html><body>Bad Gateway</body></html>"}, apiError,
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:http_502",
				Details: map[string]any{"upstream_status": 502}}},
		{"APIError/Unavailable503", agentsList,
			providertest.Reply{Status: 503, Header: map[string]string{"Retry-After": "2"}, Body: errorBody(503, "UNAVAILABLE", "The service is currently unavailable.", "")}, apiError,
			want{Code: fault.ServiceUnavailable, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 2 * time.Second,
				Rule: "google-gemini:unavailable"}},
		{"APIError/DeadlineExceeded504", agentsList,
			providertest.Reply{Status: 504, Body: errorBody(504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete.", "")}, apiError,
			want{Code: fault.Timeout, Category: fault.CategoryTimeout, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:deadline_exceeded"}},
		{"APIError/UnknownStatus418", agentsList,
			providertest.Reply{Status: 418, Body: errorBody(418, "TEAPOT", "I'm a teapot.", "")}, apiError,
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:http_418"}},

		{"ResponseValidationError/ResourceExhaustedRetryInfo429", interactionsGet,
			providertest.Reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", quotaMessage, perMinuteDetails)}, validationError,
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 17 * time.Second,
				Rule: "google-gemini:resource_exhausted", Details: map[string]any{"providerStatus": "RESOURCE_EXHAUSTED", "upstream_status": 429,
					"quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}}},
		{"ResponseValidationError/Internal500", interactionsGet,
			providertest.Reply{Status: 500, Body: errorBody(500, "INTERNAL", "An internal error has occurred.", "")}, validationError,
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:internal",
				Details: map[string]any{"providerStatus": "INTERNAL", "upstream_status": 500}}},
		{"ResponseValidationError/NotFound404", interactionsGet,
			providertest.Reply{Status: 404, Body: errorBody(404, "NOT_FOUND", "Interaction not found.", "")}, validationError,
			want{Code: fault.CapabilityNotFound, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "google-gemini:not_found"}},

		{"ClientError/ResourceExhaustedRetryAfter429", interactionsGet,
			providertest.Reply{Status: 429, Header: map[string]string{"Retry-After": "5"}, Body: declaredBody("RESOURCE_EXHAUSTED", quotaMessage)}, clientError,
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 5 * time.Second,
				Rule: "google-gemini:resource_exhausted", Details: map[string]any{"providerStatus": "RESOURCE_EXHAUSTED", "upstream_status": 429}}},
		{"ClientError/RateLimitURI429", interactionsGet,
			providertest.Reply{Status: 429, Body: declaredBody("https://ai.google.dev/errors/rate-limit", "Too many requests.")}, clientError,
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:resource_exhausted",
				Details: map[string]any{"providerCode": "https://ai.google.dev/errors/rate-limit", "upstream_status": 429}}},
		{"ServerError/Internal500", interactionsGet,
			providertest.Reply{Status: 500, Body: declaredBody("INTERNAL", "An internal error has occurred.")}, serverError,
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:internal",
				Details: map[string]any{"providerStatus": "INTERNAL", "upstream_status": 500}}},
		{"ServerError/Unavailable503", interactionsGet,
			providertest.Reply{Status: 503, Body: declaredBody("", "Overloaded.")}, serverError,
			want{Code: fault.ServiceUnavailable, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:http_503"}},

		{"APIError/UnknownContentType502", interactionsGet,
			providertest.Reply{Status: 502, ContentType: "text/html", Body: "<html><body>Bad Gateway</body></html>"}, apiError,
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "google-gemini:http_502"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := providertest.NewServer(t, tt.reply)
			err := tt.call(context.Background(), newClient(t, srv.URL))
			if err == nil {
				t.Fatal("the call succeeded; want an error")
			}
			if typ, ok := tt.as(err); !ok {
				t.Fatalf("the call returned %T (%v); want %s", err, err, typ)
			}

			f := fault.From(err)
			check(t, f, tt.want)
			if f.Classification.Method != fault.MethodClassifier {
				t.Errorf("method = %s, want classifier", f.Classification.Method)
			}
			if f.Cause != err {
				t.Errorf("Cause = %v, want the error the call returned", f.Cause)
			}
			if typ, ok := tt.as(f); !ok {
				t.Errorf("errors.As(fault, %s) = false", typ)
			}
			g, ok := gemini.Classify(err)
			if !ok || g.Code != f.Code || g.Retryable != f.Retryable || g.RetryAfter != f.RetryAfter {
				t.Errorf("Classify = %v, %v; want the same as fault.From", g, ok)
			}
			if got := srv.Hits(); got != 1 {
				t.Errorf("the server saw %d requests, want 1 (the client must not retry)", got)
			}
			if strings.Contains(f.Message, "exceeded your current quota") || strings.Contains(f.Message, "internal error") {
				t.Errorf("Message carries the provider's text: %q", f.Message)
			}
			if strings.Contains(f.Error(), testKey) {
				t.Errorf("Error() holds the key: %s", f.Error())
			}
		})
	}
}

// TestClassifyInteractionsWrapped: the Interactions API's errors are found
// anywhere in the chain, as Create's automatic continuation wraps them; nil
// pointers are declined.
func TestClassifyInteractionsWrapped(t *testing.T) {
	t.Parallel()
	res := func(status int, header http.Header) *http.Response {
		return &http.Response{StatusCode: status, Header: header}
	}
	for name, tt := range map[string]struct {
		err        error
		code       fault.Code
		retryAfter time.Duration
	}{
		"Wrapped": {fmt.Errorf("listing agents: %w", &apierrors.APIError{StatusCode: 503, Body: errorBody(503, "UNAVAILABLE", "overloaded", ""),
			RawResponse: res(503, http.Header{"Retry-After": {"2"}})}), fault.ServiceUnavailable, 2 * time.Second},
		"ContinuationInterrupted": {&apierrors.ContinuationInterruptedError{Message: "automatic continuation was interrupted",
			Cause: &apierrors.CreateInteractionClientError{HTTPMeta: httpMeta(res(429, nil))}}, fault.RateLimited, 0},
		"Joined": {errors.Join(errors.New("other"), &apierrors.ResponseValidationError{StatusCode: 429,
			Body: errorBody(429, "RESOURCE_EXHAUSTED", quotaMessage, `[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"4s"}]`)}),
			fault.RateLimited, 4 * time.Second},
		"DeleteClientError":    {&apierrors.DeleteInteractionClientError{HTTPMeta: httpMeta(res(404, nil))}, fault.CapabilityNotFound, 0},
		"CancelServerError":    {&apierrors.CancelInteractionByIDServerError{HTTPMeta: httpMeta(res(500, nil))}, fault.UpstreamError, 0},
		"CreateServerError429": {&apierrors.CreateInteractionServerError{HTTPMeta: httpMeta(res(429, nil))}, fault.RateLimited, 0},
		"ClientError400":       {&apierrors.GetInteractionByIDClientError{HTTPMeta: httpMeta(res(400, nil))}, fault.UpstreamError, 0},
		"NoResponse":           {&apierrors.GetInteractionByIDServerError{}, fault.UpstreamError, 0},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f, ok := gemini.Classify(tt.err)
			if !ok {
				t.Fatalf("Classify(%v) declined", tt.err)
			}
			if f.Code != tt.code || f.RetryAfter != tt.retryAfter || f.Source != gemini.ProviderID || f.Details["providerId"] != gemini.ProviderID {
				t.Errorf("got %s, RetryAfter %v, source %q; want %s, %v, google-gemini", f.Code, f.RetryAfter, f.Source, tt.code, tt.retryAfter)
			}
		})
	}
	for name, err := range map[string]error{
		"NilAPIError":       (*apierrors.APIError)(nil),
		"NilTyped":          (*apierrors.CreateInteractionClientError)(nil),
		"ContinuationOther": &apierrors.ContinuationInterruptedError{Message: "interrupted", Cause: context.Canceled},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if f, ok := gemini.Classify(err); ok {
				t.Errorf("Classify(%v) = %v, true; want false", err, f)
			}
		})
	}
}

// TestInteractionsNoKeyLeaks: a hostile server echoes the key into each
// kind of Interactions API error; it appears nowhere the fault is shown,
// and its debug output keeps the provider's message.
func TestInteractionsNoKeyLeaks(t *testing.T) {
	t.Parallel()
	echo := "API key not valid: " + testKey + " (x-goog-api-key: " + testKey + ")"
	for name, tt := range map[string]struct {
		call func(context.Context, *genai.Client) error
		body string
	}{
		"APIError":                {agentsList, errorBody(400, "INVALID_ARGUMENT", echo, apiKeyInvalidDetails)},
		"ResponseValidationError": {interactionsGet, errorBody(400, "INVALID_ARGUMENT", echo, apiKeyInvalidDetails)},
		"ClientError":             {interactionsGet, declaredBody("INVALID_ARGUMENT", echo)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := providertest.NewServer(t, providertest.Reply{Status: 400, Body: tt.body})
			err := tt.call(context.Background(), newClient(t, srv.URL))
			if err == nil {
				t.Fatal("the call succeeded; want an error")
			}
			f := fault.From(err)
			providertest.NoSecret(t, f, testKey)
			if strings.Contains(f.Error(), testKey) {
				t.Errorf("Error() holds the key: %s", f.Error())
			}
			if f.Details["providerId"] != gemini.ProviderID {
				t.Errorf("details = %v, want providerId google-gemini", f.Details)
			}
			if debug := providertest.Shown(t, f)["json debug"]; !strings.Contains(debug, "API key not valid") {
				t.Errorf("debug output lost the provider's message: %s", debug)
			}
		})
	}
}

// TestInteractionsTransportErrors: the Interactions API clients of a client
// built by NewClient share its tagged HTTP client, so their network
// failures name Gemini too.
func TestInteractionsTransportErrors(t *testing.T) {
	t.Parallel()
	transport := want{Code: fault.TransportError, Category: fault.CategoryTransport, Domain: fault.DomainSystem, Retryable: true,
		Rule: fault.RuleConnectionRefused}
	t.Run("ConnectionRefused", func(t *testing.T) {
		t.Parallel()
		err := agentsList(context.Background(), newClient(t, providertest.ClosedURL(t)))
		check(t, fault.From(err), transport)
	})
	t.Run("ConnectionRefusedOwnHTTPClient", func(t *testing.T) {
		t.Parallel()
		hc := &http.Client{}
		err := interactionsGet(context.Background(), newClient(t, providertest.ClosedURL(t), func(c *genai.ClientConfig) { c.HTTPClient = hc }))
		check(t, fault.From(err), transport)
		if hc.Transport != nil {
			t.Error("NewClient changed the caller's http.Client")
		}
	})
	t.Run("HTTPOptionsTimeout", func(t *testing.T) {
		t.Parallel()
		srv := providertest.NewServer(t, providertest.Reply{Delay: 10 * time.Second})
		timeout := 50 * time.Millisecond
		err := agentsList(context.Background(), newClient(t, srv.URL, func(c *genai.ClientConfig) { c.HTTPOptions.Timeout = &timeout }))
		check(t, fault.From(err), want{Code: fault.Timeout, Category: fault.CategoryTimeout, Domain: fault.DomainSystem, Retryable: true})
		if got := srv.Hits(); got != 1 {
			t.Errorf("the server saw %d requests, want 1", got)
		}
	})
}

// recorder is a server that answers every request with an empty JSON
// object and records what reached it.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.reqs = append(r.reqs, req.Clone(context.Background()))
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{}`)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) last(t *testing.T) *http.Request {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs) == 0 {
		t.Fatal("no request reached the server")
	}
	return r.reqs[len(r.reqs)-1]
}

// TestInteractionsConfig proves that the Interactions API clients NewClient
// builds send what the SDK's own would (method, path with the API version
// and Vertex AI's project and location, query, key, the caller's headers,
// Api-Revision), except genai's telemetry headers, which NewClient does not
// reproduce.
func TestInteractionsConfig(t *testing.T) {
	t.Parallel()
	vertexConfig := func(c *genai.ClientConfig) {
		c.Backend, c.APIKey, c.Project, c.Location = genai.BackendVertexAI, "", "my-project", "us-central1"
		c.HTTPClient = &http.Client{} // authorizes nothing, and keeps the SDK from looking for credentials
	}
	for name, change := range map[string]func(*genai.ClientConfig){
		"GeminiAPI": func(c *genai.ClientConfig) {},
		"Headers": func(c *genai.ClientConfig) {
			c.HTTPOptions.Headers = http.Header{"X-Custom": {"a", "b"}, "User-Agent": {"my-app/1.0"}}
		},
		"APIVersion": func(c *genai.ClientConfig) { c.HTTPOptions.APIVersion = "v1alpha" },
		"VertexAI":   vertexConfig,
		"VertexAIExpress": func(c *genai.ClientConfig) {
			c.Backend = genai.BackendVertexAI
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got, want *http.Request
			for i, build := range []func(*genai.ClientConfig) (*genai.Client, error){
				func(c *genai.ClientConfig) (*genai.Client, error) { return gemini.NewClient(context.Background(), c) },
				func(c *genai.ClientConfig) (*genai.Client, error) { return genai.NewClient(context.Background(), c) },
			} {
				srv := newRecorder(t)
				cfg := &genai.ClientConfig{APIKey: testKey, Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}}
				change(cfg)
				c, err := build(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.Agents.List(context.Background(), operations.ListAgentsRequest{PageSize: new(5)}); err != nil {
					t.Fatalf("Agents.List: %v", err)
				}
				if i == 0 {
					got = srv.last(t)
				} else {
					want = srv.last(t)
				}
			}
			if got.Method != want.Method || got.URL.String() != want.URL.String() {
				t.Errorf("request %s %s, want %s %s", got.Method, got.URL, want.Method, want.URL)
			}
			telemetry := map[string]bool{"User-Agent": true, "X-Goog-Api-Client": true}
			for k := range mergeKeys(got.Header, want.Header) {
				if telemetry[k] {
					continue
				}
				if g, w := strings.Join(got.Header.Values(k), ", "), strings.Join(want.Header.Values(k), ", "); g != w {
					t.Errorf("header %s = %q, want %q as the SDK sends it", k, g, w)
				}
			}
			if got.Header.Get("Api-Revision") == "" {
				t.Error("no Api-Revision header")
			}
			if v := got.Header.Get("X-Goog-Api-Client"); v != "" {
				t.Errorf("X-Goog-Api-Client = %q; NewClient does not reproduce genai's telemetry", v)
			}
			if name == "Headers" {
				if ua := got.Header.Get("User-Agent"); ua != "my-app/1.0" {
					t.Errorf("User-Agent = %q, want the caller's", ua)
				}
			} else if ua := got.Header.Get("User-Agent"); !strings.HasPrefix(ua, "speakeasy-sdk/go ") {
				t.Errorf("User-Agent = %q, want the generated client's own", ua)
			}
		})
	}
}

// isA reports whether err's chain holds a T, and T's name.
func isA[T error](err error) (string, bool) {
	var target T
	return fmt.Sprintf("%T", target), errors.As(err, &target)
}

func mergeKeys(hs ...http.Header) map[string]bool {
	keys := make(map[string]bool)
	for _, h := range hs {
		for k := range h {
			keys[k] = true
		}
	}
	return keys
}

func httpMeta(res *http.Response) components.HTTPMetadata {
	return components.HTTPMetadata{Response: res}
}
