package openai_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/internal/providertest"
	"github.com/triage-go/triage/provider/internal/upstream"
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

// call makes one chat completion through a client built by NewClient,
// against url.
func call(t *testing.T, ctx context.Context, url string, opts ...option.RequestOption) error {
	t.Helper()
	c, err := openai.NewClient(testKey, append([]option.RequestOption{option.WithBaseURL(url)}, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	_, err = c.Chat.Completions.New(ctx, params)
	if err == nil {
		t.Fatal("the call succeeded; want an error")
	}
	return err
}

type want = providertest.Want

func check(t *testing.T, f *fault.Error, w want) {
	t.Helper()
	providertest.Check(t, f, openai.ProviderID, testKey, w)
}

// TestClassify has one case per row of seed 002's OpenAI table and of issue
// 3's further rows: a real SDK client, built by NewClient, meets a local
// server answering as OpenAI does.
func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply providertest.Reply
		want  want
	}{
		{"Authentication401", providertest.Reply{Status: 401,
			Header: map[string]string{"x-request-id": "req_401"},
			Body: errorBody("Incorrect API key provided: sk-proj-****************************************CDEF. You can find your API key at https://platform.openai.com/account/api-keys.",
				"invalid_request_error", "", "invalid_api_key")},
			want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity, Rule: "openai:authentication",
				Details: map[string]any{"providerType": "invalid_request_error", "providerCode": "invalid_api_key", "upstream_status": 401, "requestId": "req_401"}}},
		{"Permission403", providertest.Reply{Status: 403,
			Body: errorBody("Country, region, or territory not supported", "request_forbidden", "", "unsupported_country_region_territory")},
			want{Code: fault.ProviderAuthFailed, Category: fault.CategoryAuth, Domain: fault.DomainSecurity, Rule: "openai:permission",
				Details: map[string]any{"providerType": "request_forbidden", "upstream_status": 403}}},
		{"RateLimit429RetryAfter", providertest.Reply{Status: 429,
			Header: map[string]string{"retry-after": "20", "x-request-id": "req_429"},
			Body: errorBody("Rate limit reached for gpt-4o in organization org-abc on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 120ms.",
				"requests", "", "rate_limit_exceeded")},
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 20 * time.Second,
				Rule: "openai:rate_limit", Details: map[string]any{"providerType": "requests", "providerCode": "rate_limit_exceeded", "upstream_status": 429, "requestId": "req_429"}}},
		{"RateLimit429RetryAfterMs", providertest.Reply{Status: 429,
			Header: map[string]string{"retry-after-ms": "1500", "retry-after": "2"},
			Body:   errorBody("Rate limit reached for gpt-4o on tokens per min (TPM). Please try again in 1.5s.", "tokens", "", "rate_limit_exceeded")},
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 1500 * time.Millisecond}},
		{"RateLimit429ResetHeaders", providertest.Reply{Status: 429,
			Header: map[string]string{
				"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1s",
				"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "6m0s"},
			Body: errorBody("Rate limit reached for gpt-4o on tokens per min (TPM).", "tokens", "", "rate_limit_exceeded")},
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 6 * time.Minute}},
		{"RateLimit429RateLimitField", providertest.Reply{Status: 429,
			Header: map[string]string{"RateLimit": `"default";r=0;t=7`},
			Body:   errorBody("Rate limit reached.", "requests", "", "rate_limit_exceeded")},
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 7 * time.Second}},
		{"RateLimit429NoDelay", providertest.Reply{Status: 429,
			Body: errorBody("Rate limit reached.", "requests", "", "rate_limit_exceeded")},
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true}},
		{"InsufficientQuota429", providertest.Reply{Status: 429, Header: map[string]string{"retry-after": "20"},
			Body: errorBody("You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
				"insufficient_quota", "", "insufficient_quota")},
			want{Code: fault.QuotaExhausted, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "openai:insufficient_quota",
				Details: map[string]any{"providerType": "insufficient_quota", "providerCode": "insufficient_quota", "upstream_status": 429}}},
		{"BadRequest400", providertest.Reply{Status: 400,
			Body: errorBody("Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 3 instead.",
				"invalid_request_error", "temperature", "decimal_above_max_value")},
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "openai:http_400",
				Details: map[string]any{"providerType": "invalid_request_error", "providerCode": "decimal_above_max_value", "providerParam": "temperature", "upstream_status": 400}}},
		{"ContextLengthExceeded400", providertest.Reply{Status: 400,
			Body: errorBody("This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.",
				"invalid_request_error", "messages", "context_length_exceeded")},
			want{Code: fault.PayloadTooLarge, Category: fault.CategoryProtocol, Domain: fault.DomainLLM, Rule: "openai:context_length_exceeded",
				Details: map[string]any{"providerCode": "context_length_exceeded", "upstream_status": 400}}},
		{"ContentPolicyViolation400", providertest.Reply{Status: 400,
			Body: errorBody("Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.",
				"invalid_request_error", "", "content_policy_violation")},
			want{Code: fault.ContentRefused, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "openai:content_policy",
				Details: map[string]any{"providerCode": "content_policy_violation"}}},
		{"InvalidPrompt400", providertest.Reply{Status: 400,
			Body: errorBody("Invalid prompt: your prompt was flagged as potentially violating our usage policy. Please try again with a different prompt.",
				"invalid_request_error", "", "invalid_prompt")},
			want{Code: fault.ContentRefused, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "openai:content_policy"}},
		{"ModelNotFound404", providertest.Reply{Status: 404,
			Body: errorBody("The model `gpt-9` does not exist or you do not have access to it.", "invalid_request_error", "", "model_not_found")},
			want{Code: fault.CapabilityNotFound, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "openai:model_not_found",
				Details: map[string]any{"providerCode": "model_not_found", "upstream_status": 404}}},
		{"Conflict409", providertest.Reply{Status: 409,
			Body: errorBody("Another request is in progress.", "invalid_request_error", "", "")},
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "openai:http_409"}},
		{"RequestTimeout408", providertest.Reply{Status: 408,
			Body: errorBody("Request timed out.", "server_error", "", "")},
			want{Code: fault.Timeout, Category: fault.CategoryTimeout, Domain: fault.DomainLLM, Retryable: true, Rule: "openai:http_408",
				Details: map[string]any{"upstream_status": 408}}},
		{"InternalServerError500", providertest.Reply{Status: 500,
			Body: errorBody("The server had an error while processing your request. Sorry about that!", "server_error", "", "")},
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "openai:http_500",
				Details: map[string]any{"providerType": "server_error", "upstream_status": 500}}},
		{"BadGateway502HTML", providertest.Reply{Status: 502, ContentType: "text/html",
			Body: "<html><head><title>502 Bad Gateway</title></head><body>502 Bad Gateway</body></html>"},
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true,
				Details: map[string]any{"upstream_status": 502}}},
		{"Overloaded503", providertest.Reply{Status: 503, Header: map[string]string{"retry-after": "5"},
			Body: errorBody("The engine is currently overloaded, please try again later.", "server_error", "", "")},
			want{Code: fault.ServiceUnavailable, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, RetryAfter: 5 * time.Second,
				Rule: "openai:http_503"}},
		{"UnknownStatus418", providertest.Reply{Status: 418,
			Body: errorBody("I'm a teapot.", "teapot_error", "", "")},
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "openai:http_418"}},
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
				t.Errorf("errors.As(fault, *openai.Error) = false")
			}
			g, ok := openai.Classify(err)
			if !ok || g.Code != f.Code || g.Retryable != f.Retryable {
				t.Errorf("Classify = %v, %v; want the same as fault.From", g, ok)
			}
			if got := srv.Hits(); got != 1 {
				t.Errorf("the server saw %d requests, want 1 (the client must not retry)", got)
			}
			if strings.Contains(f.Message, "Rate limit reached") || strings.Contains(f.Message, "Incorrect API key") {
				t.Errorf("Message carries the provider's text: %q", f.Message)
			}
		})
	}
}

// TestClassifyStreamError covers an error event inside a stream, whose HTTP
// status was 200, and seed 002's "unknown error" row.
func TestClassifyStreamError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		want want
	}{
		{"ServerError", errorBody("The server had an error while processing your request.", "server_error", "", ""),
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "openai:server_error",
				Details: map[string]any{"providerType": "server_error"}}},
		{"RateLimit", errorBody("Rate limit reached.", "tokens", "", "rate_limit_exceeded"),
			want{Code: fault.RateLimited, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Retryable: true, Rule: "openai:rate_limit"}},
		{"Unknown", errorBody("Something odd happened.", "odd_error", "", ""),
			want{Code: fault.UpstreamError, Category: fault.CategoryUpstream, Domain: fault.DomainLLM, Rule: "openai:unknown",
				Details: map[string]any{"providerType": "odd_error"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := providertest.NewServer(t, providertest.Reply{ContentType: "text/event-stream",
				Body: `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}` +
					"\n\n" + "data: " + tt.data + "\n\n"})
			c, err := openai.NewClient(testKey, option.WithBaseURL(srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			s := c.Chat.Completions.NewStreaming(context.Background(), params)
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
// APITimeoutError rows: a refused connection and a deadline, through a
// client built by NewClient and through a plain SDK client.
func TestTransportErrors(t *testing.T) {
	t.Parallel()

	t.Run("ConnectionRefused", func(t *testing.T) {
		t.Parallel()
		err := call(t, context.Background(), providertest.ClosedURL(t))
		f := fault.From(err)
		check(t, f, want{Code: fault.TransportError, Category: fault.CategoryTransport, Domain: fault.DomainSystem, Retryable: true,
			Rule: fault.RuleConnectionRefused})
		if _, ok := openai.Classify(err); !ok {
			t.Error("Classify declined a tagged transport error of its own client")
		}
	})
	t.Run("ConnectionRefusedPlainClient", func(t *testing.T) {
		t.Parallel()
		c := sdk.NewClient(option.WithBaseURL(providertest.ClosedURL(t)), option.WithAPIKey(testKey), option.WithMaxRetries(0))
		_, err := c.Chat.Completions.New(context.Background(), params)
		if _, ok := openai.Classify(err); ok {
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
		if _, ok := openai.Classify(err); ok {
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
			t.Errorf("the server saw %d requests, want 1", got)
		}
	})
}

// TestNewClientRetriesOff proves that a client built by NewClient sends
// each call once, whatever the SDK would retry: the resilience layer owns
// retries.
func TestNewClientRetriesOff(t *testing.T) {
	t.Parallel()
	for _, status := range []int{429, 500, 503} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			reply := providertest.Reply{Status: status,
				Header: map[string]string{"retry-after-ms": "10", "x-should-retry": "true"},
				Body:   errorBody("try again", "server_error", "", "")}
			srv := providertest.NewServer(t, reply)
			for range 2 {
				_ = call(t, context.Background(), srv.URL)
			}
			if got := srv.Hits(); got != 2 {
				t.Errorf("two calls reached the server %d times, want 2", got)
			}
			if got := srv.LastHeader().Get("Authorization"); got != "Bearer "+testKey {
				t.Errorf("Authorization = %q, want the key", got)
			}

			// The SDK's own client, with its default retries, shows that the
			// server would see them.
			plain := providertest.NewServer(t, reply)
			c := sdk.NewClient(option.WithBaseURL(plain.URL), option.WithAPIKey(testKey))
			_, _ = c.Chat.Completions.New(context.Background(), params)
			if got := plain.Hits(); got != 3 {
				t.Errorf("the plain SDK client sent %d requests, want 3: the test cannot see retries", got)
			}
		})
	}
}

// TestMissingCredential sets the environment, so it cannot run in parallel.
func TestMissingCredential(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	_, err := openai.NewClient("")
	f, ok := fault.As(err)
	if !ok {
		t.Fatalf("NewClient(\"\") = %v, want a fault", err)
	}
	if f.Code != fault.ConfigError || f.Category != fault.CategoryConfig || f.Retryable ||
		f.Message != "missing required credential: apiKey" || f.Details["providerId"] != openai.ProviderID {
		t.Errorf("got %s/%s retryable=%v %q %v", f.Code, f.Category, f.Retryable, f.Message, f.Details)
	}

	t.Setenv("OPENAI_API_KEY", testKey)
	if _, err := openai.NewClient(""); err != nil {
		t.Errorf("NewClient(\"\") with OPENAI_API_KEY set = %v, want a client", err)
	}
}

// TestNoKeyLeaks puts a key in the client and looks for it everywhere a
// fault is shown, including when a hostile server echoes it back.
func TestNoKeyLeaks(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		errorBody("Incorrect API key provided: sk-proj-****CDEF.", "invalid_request_error", "", "invalid_api_key"),
		errorBody("Incorrect API key provided: "+testKey+". Authorization: Bearer "+testKey, "invalid_request_error", "", "invalid_api_key"),
	} {
		srv := providertest.NewServer(t, providertest.Reply{Status: 401, Body: body})
		f := fault.From(call(t, context.Background(), srv.URL))
		providertest.NoSecret(t, f, testKey)
		if !strings.Contains(providertest.Shown(t, f)["json debug"], "Incorrect API key") {
			t.Errorf("debug output lost the provider's message: %s", providertest.Shown(t, f)["json debug"])
		}
	}
}

// A key of a shape no redaction pattern knows is still scrubbed when an
// upstream echoes it: NewClient registers it with fault.RegisterSecret.
func TestUnshapedKeyEchoed(t *testing.T) {
	t.Parallel()
	const key = "gsk_7f3aQ9zz1LmN0pqRunshaped"
	srv := providertest.NewServer(t, providertest.Reply{Status: 401,
		Body: errorBody("Invalid API Key provided: "+key, "invalid_request_error", "", "invalid_api_key")})
	c, err := openai.NewClient(key, option.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat.Completions.New(context.Background(), params)
	f := fault.From(err)
	providertest.NoSecret(t, f, key)
	if strings.Contains(f.Error(), key) {
		t.Errorf("the fault's Error() carries the key: %s", f.Error())
	}
}

// TestClassifyDeclines proves that Classify claims only the OpenAI SDK's
// errors and its own client's transport errors.
func TestClassifyDeclines(t *testing.T) {
	t.Parallel()
	var nilAPIError *sdk.Error
	for name, err := range map[string]error{
		"Nil":                 nil,
		"Plain":               errors.New("rate limit exceeded"),
		"Deadline":            context.DeadlineExceeded,
		"WrappedDeadline":     fmt.Errorf("calling: %w", context.DeadlineExceeded),
		"Fault":               fault.New(fault.RateLimited, ""),
		"OtherProvidersCall":  upstream.Tag("anthropic", errors.New("connection refused")),
		"StatusCoderFromElse": statusErr(429),
		"TypedNil":            fmt.Errorf("w: %w", nilAPIError),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if f, ok := openai.Classify(err); ok {
				t.Errorf("Classify(%v) = %v, true; want false", err, f)
			}
		})
	}
}

type statusErr int

func (s statusErr) Error() string   { return fmt.Sprint("status ", int(s)) }
func (s statusErr) StatusCode() int { return int(s) }

func TestRegistered(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("completing: %w", &sdk.Error{StatusCode: http.StatusTooManyRequests, Code: "rate_limit_exceeded"})
	f := fault.From(err)
	if f.Code != fault.RateLimited || f.Classification.Method != fault.MethodClassifier || f.Source != openai.ProviderID {
		t.Errorf("fault.From = %s by %s from %q; want RATE_LIMITED by the registered classifier", f.Code, f.Classification.Method, f.Source)
	}
}

// TestDeclineAllocatesNothing: the classifier runs on every fault.From of
// an error that is not a fault, so declining costs no allocation. (Not
// parallel: AllocsPerRun counts every goroutine's allocations.)
func TestDeclineAllocatesNothing(t *testing.T) {
	err := fmt.Errorf("dialing: %w", errors.Join(context.DeadlineExceeded, statusErr(503)))
	if n := testing.AllocsPerRun(100, func() { _, _ = openai.Classify(err) }); n != 0 {
		t.Errorf("Classify of a foreign error allocates %v times", n)
	}
}
