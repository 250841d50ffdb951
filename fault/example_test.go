package fault_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/triage-go/triage/fault"
)

func ExampleNew() {
	f := fault.New(fault.RateLimited, "Request rate limit exceeded. Please wait before retrying.",
		fault.WithRetryAfter(60*time.Second), fault.WithDetail("limit", "requests_per_minute"))
	fmt.Println(f.Code, f.HTTPStatus(), f.Category, f.Domain, f.Retryable, f.RetryAfter)
	data, _ := json.Marshal(f)
	fmt.Println(string(data))
	// Output:
	// RATE_LIMITED 429 UPSTREAM client true 1m0s
	// {"code":"RATE_LIMITED","message":"Request rate limit exceeded. Please wait before retrying.","http_status":429,"category":"UPSTREAM","domain":"client","retryable":true,"retry_after":60,"session_valid":true,"details":{"limit":"requests_per_minute"}}
}

// A code's default HTTP status, and the statuses it carries in particular
// cases (docs/taxonomy.md lists them).
func ExampleCode_StatusCases() {
	fmt.Println(fault.Timeout.HTTPStatus())
	for _, c := range fault.Timeout.StatusCases() {
		fmt.Println(c.Status, c.When)
	}
	fmt.Println(fault.InvalidRequest.Documents(415), fault.InvalidRequest.Documents(429))
	// Output:
	// 504
	// 408 a request body that did not arrive in time: nothing was handled, send it again at once
	// true false
}

func ExampleFrom() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	err := fmt.Errorf("calling the search tool: %w", ctx.Err())

	f := fault.From(err)
	fmt.Println(f.Code, f.HTTPStatus(), f.Retryable)
	fmt.Println(f.Classification.Method, f.Classification.Rule, f.Classification.Confidence)
	// Output:
	// TIMEOUT 504 true
	// context context.DeadlineExceeded 1
}

func ExampleFrom_unknown() {
	f := fault.From(errors.New("widget 7 frobnicated"))
	fmt.Println(f.Code, f.HTTPStatus(), f.Retryable)
	fmt.Println(f.Message)

	plain, _ := json.Marshal(f.Payload(false))
	debug, _ := json.Marshal(f.Payload(true))
	fmt.Println(string(plain))
	fmt.Println(string(debug))
	// Output:
	// AGENT_EXECUTION_ERROR 500 false
	// An error occurred processing your request.
	// {"code":"AGENT_EXECUTION_ERROR","message":"An error occurred processing your request.","http_status":500,"category":"INTERNAL","domain":"system","retryable":false,"session_valid":true,"details":{}}
	// {"code":"AGENT_EXECUTION_ERROR","message":"An error occurred processing your request.","http_status":500,"category":"INTERNAL","domain":"system","retryable":false,"session_valid":true,"details":{},"debug":{"error_type":"*errors.errorString","cause":"widget 7 frobnicated"}}
}

func ExampleClassifyText() {
	for _, line := range []string{
		"dial tcp 127.0.0.1:5432: connect: connection refused",
		"Error code: 429 - rate_limit_exceeded. Please try again in 20s.",
		"session abc not found",
		"the widget frobnicated",
	} {
		f := fault.ClassifyText(line)
		fmt.Printf("%s retryable=%v after=%v rule=%s confidence=%.2f details=%v\n",
			f.Code, f.Retryable, f.RetryAfter, f.Classification.Rule, f.Classification.Confidence, f.Details)
	}
	// Output:
	// TRANSPORT_ERROR retryable=true after=0s rule=connection_refused confidence=0.85 details=map[]
	// RATE_LIMITED retryable=true after=20s rule=rate_limited confidence=0.75 details=map[]
	// SESSION_NOT_FOUND retryable=false after=0s rule=session_not_found confidence=0.75 details=map[session_id:abc]
	// AGENT_EXECUTION_ERROR retryable=false after=0s rule=unknown confidence=0.10 details=map[]
}

func ExampleError_Is() {
	err := fmt.Errorf("prompt: %w", fault.New(fault.SessionNotFound, "Session not found: abc-123.",
		fault.WithDetail("session_id", "abc-123")))
	fmt.Println(errors.Is(err, fault.New(fault.SessionNotFound, "")))
	fmt.Println(errors.Is(err, fault.New(fault.Timeout, "")))
	fmt.Println(fault.CodeOf(err), fault.From(err).SessionValid)
	// Output:
	// true
	// false
	// SESSION_NOT_FOUND false
}

// A package that knows its own error types registers a classifier; importing
// it is enough for From to recognise them, as the provider packages do.
func ExampleRegister() {
	type quotaErr struct{ error }
	fault.Register(func(err error) (*fault.Error, bool) {
		var q quotaErr
		if !errors.As(err, &q) {
			return nil, false
		}
		return fault.New(fault.QuotaExhausted, "", fault.WithSource("acme-llm")), true
	})

	f := fault.From(fmt.Errorf("generate: %w", quotaErr{errors.New("credits used up")}))
	fmt.Println(f.Code, f.HTTPStatus(), f.Retryable, f.Source, f.Classification.Method)
	// Output:
	// QUOTA_EXHAUSTED 402 false acme-llm classifier
}

func ExampleFromResponse() {
	resp := &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"30"}}}
	f := fault.FromResponse(resp)
	fmt.Println(f.Code, f.Retryable, f.RetryAfter, f.Details["upstream_status"])
	// Output:
	// RATE_LIMITED true 30s 429
}

func ExampleParseRetryAfter() {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	d, ok := fault.ParseRetryAfter(http.Header{"Retry-After": {"Sat, 21 Nov 2026 12:02:00 GMT"}}, now)
	fmt.Println(d, ok)
	d, ok = fault.ParseRetryAfter(http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"9"}}, now)
	fmt.Println(d, ok)
	// Output:
	// 2m0s true
	// 1.5s true
}

func ExampleError_LogValue() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	f := fault.Wrap(errors.New("401 Unauthorized: Bearer sk-live-0123456789abcdef"),
		fault.ProviderAuthFailed, "", fault.WithSource("openai"))
	log.Error("llm call failed", "fault", f)
	// Output:
	// {"level":"ERROR","msg":"llm call failed","fault":{"code":"PROVIDER_AUTH_FAILED","message":"The AI provider rejected the service's credentials.","http_status":502,"category":"AUTH","domain":"security","retryable":false,"session_valid":true,"source":"openai","cause":"401 Unauthorized: Bearer [REDACTED]"}}
}

func ExampleRedact() {
	fmt.Println(fault.Redact(`GET https://api.example.com/v1?key=abc123&q=x: 401, Authorization: Bearer eyJhbGciOi.x.y`))
	// Output:
	// GET https://api.example.com/v1?key=[REDACTED]&q=x: 401, Authorization: [REDACTED]
}

// SanitizeDecoded redacts an object just decoded, in place: the
// credential's member goes, the token in the text is hidden.
func ExampleSanitizeDecoded() {
	var details map[string]any
	_ = json.Unmarshal([]byte(`{"api_key": "k-123", "note": "retry with Bearer abcdefgh1234", "rows": 3}`), &details)
	out, _ := json.Marshal(fault.SanitizeDecoded(details))
	fmt.Println(string(out))
	// Output: {"note":"retry with Bearer [REDACTED]","rows":3}
}
