package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/openai"
)

// A call through a client built by NewClient meets a rate limit; importing
// the package taught fault.From what the SDK's error means.
func Example() {
	// A stand-in for the OpenAI API that answers 429, as OpenAI does.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "20")
		w.Header().Set("X-Request-Id", "req_8f2a")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"message":"Rate limit reached for gpt-4o in organization org-abc on requests per min (RPM): Limit 500, Used 500, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
	}))
	defer api.Close()

	client, err := openai.NewClient("sk-example-key", option.WithBaseURL(api.URL))
	if err != nil {
		panic(err)
	}
	_, err = client.Chat.Completions.New(context.Background(), sdk.ChatCompletionNewParams{
		Model:    "gpt-4o",
		Messages: []sdk.ChatCompletionMessageParamUnion{sdk.UserMessage("Hello")},
	})

	f := fault.From(err)
	fmt.Println(f.Code, f.Retryable, f.RetryAfter, f.Classification.Rule)
	data, _ := json.Marshal(f)
	fmt.Println(string(data))
	// Output:
	// RATE_LIMITED true 20s openai:rate_limit
	// {"code":"RATE_LIMITED","message":"OpenAI rate limit exceeded. Please wait before retrying.","http_status":429,"category":"UPSTREAM","domain":"llm","retryable":true,"retry_after":20,"session_valid":true,"source":"openai","details":{"providerCode":"rate_limit_exceeded","providerId":"openai","providerType":"requests","requestId":"req_8f2a","upstream_status":429}}
}

// Classify does what the registered classifier does, for callers who want
// no side effect from an import.
func ExampleClassify() {
	err := fmt.Errorf("completing: %w", &sdk.Error{StatusCode: http.StatusTooManyRequests, Type: "insufficient_quota", Code: "insufficient_quota"})
	f, ok := openai.Classify(err)
	fmt.Println(ok, f.Code, f.HTTPStatus(), f.Retryable)

	_, ok = openai.Classify(context.DeadlineExceeded)
	fmt.Println(ok, fault.From(context.DeadlineExceeded).Code)
	// Output:
	// true QUOTA_EXHAUSTED 402 false
	// false TIMEOUT
}

// Without a key, and without OPENAI_API_KEY, NewClient says which
// credential is missing.
func ExampleNewClient_missingCredential() {
	os.Unsetenv("OPENAI_API_KEY") // for the example: no key anywhere

	_, err := openai.NewClient("")
	f := fault.From(err)
	fmt.Println(f.Code, f.Category, f.Retryable)
	data, _ := json.Marshal(f)
	fmt.Println(string(data))
	// Output:
	// CONFIG_ERROR CONFIG false
	// {"code":"CONFIG_ERROR","message":"missing required credential: apiKey","http_status":500,"category":"CONFIG","domain":"system","retryable":false,"session_valid":true,"source":"openai","details":{"field":"apiKey","providerId":"openai"}}
}
