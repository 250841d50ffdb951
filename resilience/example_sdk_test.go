package resilience_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	openaisdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/triage-go/triage/provider/openai"
	"github.com/triage-go/triage/resilience"
)

// Wrapping an SDK call: the client comes from the provider package (the
// SDK's own retries off), the call goes through a shared Policy. The local
// server stands in for OpenAI and rate-limits the first request.
func Example_openAI() {
	var requests atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if requests.Add(1) == 1 {
			w.Header().Set("Retry-After-Ms", "20")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`)
			return
		}
		io.WriteString(w, `{"id":"c1","object":"chat.completion","model":"gpt-4o-mini",
			"choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}]}`)
	}))
	defer api.Close()

	client, err := openai.NewClient("sk-example", option.WithBaseURL(api.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	policy := resilience.New(resilience.Config{})

	resp, err := resilience.Do(context.Background(), policy, resilience.Operation{Source: openai.ProviderID, Idempotent: true},
		func(ctx context.Context) (*openaisdk.ChatCompletion, error) {
			return client.Chat.Completions.New(ctx, openaisdk.ChatCompletionNewParams{
				Model:    "gpt-4o-mini",
				Messages: []openaisdk.ChatCompletionMessageParamUnion{openaisdk.UserMessage("hi")},
			})
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Choices[0].Message.Content, requests.Load())
	// Output: hello 2
}
