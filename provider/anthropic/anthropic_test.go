package anthropic_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/anthropic"
	"github.com/triage-go/triage/provider/internal/providertest"
	"github.com/triage-go/triage/provider/internal/upstream"
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

// call makes one message through a client built by NewClient, against url.
func call(t *testing.T, ctx context.Context, url string, opts ...option.RequestOption) error {
	t.Helper()
	c, err := anthropic.NewClient(testKey, append([]option.RequestOption{option.WithBaseURL(url)}, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	_, err = c.Messages.New(ctx, params)
	if err == nil {
		t.Fatal("the call succeeded; want an error")
	}
	return err
}

type want = providertest.Want

func check(t *testing.T, f *fault.Error, w want) {
	t.Helper()
	providertest.Check(t, f, anthropic.ProviderID, testKey, w)
}

// TestClassify has one case per row of seed 002's Anthropic table and of
// issue 3's further rows: a real SDK client, built by NewClient, meets a
// local server answering as Anthropic does.
func TestClassify(t *testing.T) {
	t.Parallel()
	reqID := map[string]string{"request-id": "req_011CHeaderId"}
	tests := []struct {
		name  string
		reply providertest.Reply
		want  want
	}{
		{"Authentication401", providertest.Reply{Status: 401, Header: reqID, Body: errorBody("authentication_error", "invalid x-api-key")},
			want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity, Rule: "anthropic:authentication_error",
				Details: map[string]any{"providerType": "authentication_error", "upstream_status": 401, "requestId": "req_011CHeaderId"}}},
		{"Permission403", providertest.Reply{Status: 403,
			Body: errorBody("permission_error", "Your API key does not have permission to use the specified resource.")},
			want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity, Rule: "anthropic:permission_error",
				Details: map[string]any{"providerType": "permission_error", "upstream_status": 403, "requestId": "req_011CBodyId"}}},
		{"Billing402", providertest.Reply{Status: 402,
			Body: errorBody("billing_error", "There is an issue with your billing or payment information.")},
			want{Code: fault.QuotaExhausted, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "anthropic:billing_error"}},
		{"CreditBalanceTooLow400", providertest.Reply{Status: 400,
			Body: errorBody("invalid_request_error", "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.")},
			want{Code: fault.QuotaExhausted, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "anthropic:credit_balance_too_low",
				Details: map[string]any{"providerType": "invalid_request_error", "upstream_status": 400}}},
		{"RateLimit429", providertest.Reply{Status: 429,
			Header: map[string]string{"retry-after": "17", "request-id": "req_011CRate",
				"anthropic-ratelimit-input-tokens-remaining": "0", "anthropic-ratelimit-input-tokens-reset": "2026-01-01T00:00:17Z"},
			Body: errorBody("rate_limit_error", "This request would exceed the rate limit for your organization of 50,000 input tokens per minute.")},
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 17 * time.Second,
				Rule: "anthropic:rate_limit_error", Details: map[string]any{"providerType": "rate_limit_error", "upstream_status": 429, "requestId": "req_011CRate"}}},
		{"RateLimit429NoDelay", providertest.Reply{Status: 429, Body: errorBody("rate_limit_error", "Number of requests has exceeded your rate limit.")},
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true}},
		{"BadRequest400", providertest.Reply{Status: 400, Body: errorBody("invalid_request_error", "max_tokens: Field required")},
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "anthropic:http_400",
				Details: map[string]any{"providerType": "invalid_request_error", "upstream_status": 400}}},
		{"PromptTooLong400", providertest.Reply{Status: 400, Body: errorBody("invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum")},
			want{Code: fault.PayloadTooLarge, Category: fault.CategoryProtocol, Domain: fault.DomainLLM, Rule: "anthropic:context_length_exceeded"}},
		{"ContextLimit400", providertest.Reply{Status: 400,
			Body: errorBody("invalid_request_error", "input length and `max_tokens` exceed context limit: 197202 + 21333 > 200000, decrease input length or `max_tokens` and try again")},
			want{Code: fault.PayloadTooLarge, Category: fault.CategoryProtocol, Domain: fault.DomainLLM, Rule: "anthropic:context_length_exceeded"}},
		{"ContentFiltered400", providertest.Reply{Status: 400, Body: errorBody("invalid_request_error", "Output blocked by content filtering policy")},
			want{Code: fault.ContentRefused, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "anthropic:content_filtering_policy"}},
		{"NotFound404", providertest.Reply{Status: 404, Body: errorBody("not_found_error", "model: claude-9")},
			want{Code: fault.CapabilityNotFound, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "anthropic:not_found_error",
				Details: map[string]any{"providerType": "not_found_error", "upstream_status": 404}}},
		{"RequestTooLarge413", providertest.Reply{Status: 413, Body: errorBody("request_too_large", "Request exceeds the maximum allowed number of bytes.")},
			want{Code: fault.PayloadTooLarge, Category: fault.CategoryProtocol, Domain: fault.DomainLLM, Rule: "anthropic:request_too_large"}},
		{"InternalServerError500", providertest.Reply{Status: 500, Body: errorBody("api_error", "Internal server error")},
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "anthropic:api_error",
				Details: map[string]any{"providerType": "api_error", "upstream_status": 500}}},
		{"BadGateway502HTML", providertest.Reply{Status: 502, ContentType: "text/html",
			Body: "<html><head><title>502 Bad Gateway</title></head><body>cloudflare</body></html>"},
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "anthropic:http_502",
				Details: map[string]any{"upstream_status": 502}}},
		{"Timeout504", providertest.Reply{Status: 504, Body: errorBody("timeout_error", "Request timed out.")},
			want{Code: fault.Timeout, Category: fault.CategoryTimeout, Domain: fault.DomainLLM, Retryable: true, Rule: "anthropic:timeout_error"}},
		{"Overloaded529", providertest.Reply{Status: 529, Header: map[string]string{"retry-after": "3"}, Body: errorBody("overloaded_error", "Overloaded")},
			want{Code: fault.ServiceUnavailable, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 3 * time.Second,
				Rule: "anthropic:overloaded_error", Details: map[string]any{"providerType": "overloaded_error", "upstream_status": 529}}},
		{"UnknownType418", providertest.Reply{Status: 418, Body: errorBody("teapot_error", "I'm a teapot.")},
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "anthropic:http_418",
				Details: map[string]any{"providerType": "teapot_error"}}},
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
			if f.Cause != err {
				t.Errorf("Cause = %v, want the error the call returned", f.Cause)
			}
			var sdkErr *sdk.Error
			if !errors.As(f, &sdkErr) {
				t.Errorf("errors.As(fault, *anthropic.Error) = false")
			}
			g, ok := anthropic.Classify(err)
			if !ok || g.Code != f.Code || g.Retryable != f.Retryable {
				t.Errorf("Classify = %v, %v; want the same as fault.From", g, ok)
			}
			if got := srv.Hits(); got != 1 {
				t.Errorf("the server saw %d requests, want 1 (the client must not retry)", got)
			}
			if strings.Contains(f.Message, "rate limit for your organization") || strings.Contains(f.Message, "x-api-key") {
				t.Errorf("Message carries the provider's text: %q", f.Message)
			}
		})
	}
}

// TestClassifyStreamError covers an error event inside a stream, whose HTTP
// status was 200: Anthropic sends overloaded_error that way mid-stream.
func TestClassifyStreamError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		want want
	}{
		{"Overloaded", errorBody("overloaded_error", "Overloaded"),
			want{Code: fault.ServiceUnavailable, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "anthropic:overloaded_error"}},
		{"APIError", errorBody("api_error", "Internal server error"),
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "anthropic:api_error"}},
		{"Unknown", errorBody("odd_error", "Something odd happened."),
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "anthropic:unknown",
				Details: map[string]any{"providerType": "odd_error"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := providertest.NewServer(t, providertest.Reply{ContentType: "text/event-stream",
				Body: "event: ping\ndata: {\"type\":\"ping\"}\n\nevent: error\ndata: " + tt.data + "\n\n"})
			c, err := anthropic.NewClient(testKey, option.WithBaseURL(srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			s := c.Messages.NewStreaming(context.Background(), params)
			for s.Next() {
			}
			if s.Err() == nil {
				t.Fatal("the stream ended without an error")
			}
			f := fault.From(s.Err())
			check(t, f, tt.want)
			if _, ok := f.Details["upstream_status"]; ok {
				t.Errorf("details.upstream_status = %v; a stream's error event has no status of its own", f.Details["upstream_status"])
			}
		})
	}
}

// TestTransportErrors covers seed 002's APIConnectionError and
// APIConnectionTimeoutError rows: a refused connection and a deadline,
// through a client built by NewClient and through a plain SDK client.
func TestTransportErrors(t *testing.T) {
	t.Parallel()

	t.Run("ConnectionRefused", func(t *testing.T) {
		t.Parallel()
		err := call(t, context.Background(), providertest.ClosedURL(t))
		f := fault.From(err)
		check(t, f, want{Code: fault.TransportError, Category: fault.CategoryTransport, Domain: fault.DomainSystem, Retryable: true,
			Rule: fault.RuleConnectionRefused})
		if _, ok := anthropic.Classify(err); !ok {
			t.Error("Classify declined a tagged transport error of its own client")
		}
	})
	t.Run("ConnectionRefusedPlainClient", func(t *testing.T) {
		t.Parallel()
		c := sdk.NewClient(option.WithBaseURL(providertest.ClosedURL(t)), option.WithAPIKey(testKey), option.WithMaxRetries(0))
		_, err := c.Messages.New(context.Background(), params)
		if _, ok := anthropic.Classify(err); ok {
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
		if _, ok := anthropic.Classify(err); ok {
			t.Error("Classify claimed a bare context error; fault's own rules should apply")
		}
		f := fault.From(err)
		if f.Code != fault.Timeout || f.Category != fault.CategoryTimeout || !f.Retryable {
			t.Errorf("got %s/%s retryable=%v, want TIMEOUT/TIMEOUT retryable", f.Code, f.Category, f.Retryable)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the SDK hid the deadline: %v", err)
		}
	})
	t.Run("RequestTimeoutOption", func(t *testing.T) {
		t.Parallel()
		srv := providertest.NewServer(t, providertest.Reply{Delay: 10 * time.Second})
		err := call(t, context.Background(), srv.URL, option.WithRequestTimeout(50*time.Millisecond))
		f := fault.From(err)
		if f.Code != fault.Timeout || !f.Retryable {
			t.Errorf("got %s retryable=%v, want TIMEOUT retryable", f.Code, f.Retryable)
		}
		if got := srv.Hits(); got != 1 {
			t.Errorf("the server saw %d requests, want 1 (the SDK retries a timed-out attempt unless its retries are off)", got)
		}
	})
}

// TestNewClientRetriesOff proves that a client built by NewClient sends
// each call once, whatever the SDK would retry: the resilience layer owns
// retries.
func TestNewClientRetriesOff(t *testing.T) {
	t.Parallel()
	for _, status := range []int{429, 500, 529} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			reply := providertest.Reply{Status: status,
				Header: map[string]string{"retry-after-ms": "10", "x-should-retry": "true"},
				Body:   errorBody("overloaded_error", "Overloaded")}
			srv := providertest.NewServer(t, reply)
			for range 2 {
				_ = call(t, context.Background(), srv.URL)
			}
			if got := srv.Hits(); got != 2 {
				t.Errorf("two calls reached the server %d times, want 2", got)
			}
			if got := srv.LastHeader().Get("X-Api-Key"); got != testKey {
				t.Errorf("X-Api-Key = %q, want the key", got)
			}

			// The SDK's own client, with its default retries, shows that the
			// server would see them.
			plain := providertest.NewServer(t, reply)
			c := sdk.NewClient(option.WithBaseURL(plain.URL), option.WithAPIKey(testKey))
			_, _ = c.Messages.New(context.Background(), params)
			if got := plain.Hits(); got != 3 {
				t.Errorf("the plain SDK client sent %d requests, want 3: the test cannot see retries", got)
			}
		})
	}
}

// TestMissingCredential sets the environment, so it cannot run in parallel.
func TestMissingCredential(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "")
	_, err := anthropic.NewClient("")
	f, ok := fault.As(err)
	if !ok {
		t.Fatalf("NewClient(\"\") = %v, want a fault", err)
	}
	if f.Code != fault.ConfigError || f.Category != fault.CategoryConfig || f.Retryable ||
		f.Message != "missing required credential: apiKey" || f.Details["providerId"] != anthropic.ProviderID {
		t.Errorf("got %s/%s retryable=%v %q %v", f.Code, f.Category, f.Retryable, f.Message, f.Details)
	}

	t.Setenv("ANTHROPIC_API_KEY", testKey)
	if _, err := anthropic.NewClient(""); err != nil {
		t.Errorf("NewClient(\"\") with ANTHROPIC_API_KEY set = %v, want a client", err)
	}
}

// TestNoKeyLeaks puts a key in the client and looks for it everywhere a
// fault is shown, including when a hostile server echoes it back.
func TestNoKeyLeaks(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		errorBody("authentication_error", "invalid x-api-key"),
		errorBody("authentication_error", "invalid x-api-key: "+testKey+"; x-api-key: "+testKey),
	} {
		srv := providertest.NewServer(t, providertest.Reply{Status: 401, Body: body})
		f := fault.From(call(t, context.Background(), srv.URL))
		providertest.NoSecret(t, f, testKey)
		if !strings.Contains(providertest.Shown(t, f)["json debug"], "invalid x-api-key") {
			t.Errorf("debug output lost the provider's message: %s", providertest.Shown(t, f)["json debug"])
		}
	}
}

// TestClassifyDeclines proves that Classify claims only the Anthropic SDK's
// errors and its own client's transport errors.
func TestClassifyDeclines(t *testing.T) {
	t.Parallel()
	var nilAPIError *sdk.Error
	for name, err := range map[string]error{
		"Nil":                 nil,
		"Plain":               errors.New("overloaded_error"),
		"Deadline":            context.DeadlineExceeded,
		"Fault":               fault.New(fault.RateLimited, ""),
		"OtherProvidersCall":  upstream.Tag("openai", errors.New("connection refused")),
		"StatusCoderFromElse": statusErr(529),
		"TypedNil":            fmt.Errorf("w: %w", nilAPIError),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if f, ok := anthropic.Classify(err); ok {
				t.Errorf("Classify(%v) = %v, true; want false", err, f)
			}
		})
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
	if n := testing.AllocsPerRun(100, func() { _, _ = anthropic.Classify(err) }); n != 0 {
		t.Errorf("Classify of a foreign error allocates %v times", n)
	}
}
