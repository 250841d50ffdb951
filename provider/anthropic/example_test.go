package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/anthropic"
)

// A call through a client built by NewClient meets Anthropic's 529
// overloaded_error; importing the package taught fault.From what it means.
func Example() {
	// A stand-in for the Anthropic API that answers as Anthropic does.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_011CWzd")
		w.Header().Set("Retry-After", "3")
		w.WriteHeader(529)
		fmt.Fprint(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CWzd"}`)
	}))
	defer api.Close()

	client, err := anthropic.NewClient("sk-ant-example-key", option.WithBaseURL(api.URL))
	if err != nil {
		panic(err)
	}
	_, err = client.Messages.New(context.Background(), sdk.MessageNewParams{
		Model:     "claude-sonnet-4-5",
		MaxTokens: 256,
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("Hello"))},
	})

	f := fault.From(err)
	fmt.Println(f.Code, f.Retryable, f.RetryAfter, f.Classification.Rule)
	data, _ := json.Marshal(f)
	fmt.Println(string(data))
	// Output:
	// SERVICE_UNAVAILABLE true 3s anthropic:overloaded_error
	// {"code":"SERVICE_UNAVAILABLE","message":"Anthropic is temporarily overloaded. Please try again later.","http_status":503,"category":"UPSTREAM","domain":"llm","retryable":true,"retry_after":3,"session_valid":true,"source":"anthropic","details":{"providerId":"anthropic","providerType":"overloaded_error","requestId":"req_011CWzd","upstream_status":529}}
}

// Without a key, and without ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN,
// NewClient says which credential is missing.
func ExampleNewClient_missingCredential() {
	os.Unsetenv("ANTHROPIC_API_KEY") // for the example: no credential anywhere
	os.Unsetenv("ANTHROPIC_AUTH_TOKEN")

	_, err := anthropic.NewClient("")
	f := fault.From(err)
	fmt.Println(f.Code, f.Category, f.Retryable)
	fmt.Println(f.Message, f.Details["providerId"])
	// Output:
	// CONFIG_ERROR CONFIG false
	// missing required credential: apiKey anthropic
}
