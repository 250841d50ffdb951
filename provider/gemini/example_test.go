package gemini_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"

	"google.golang.org/genai"
	"google.golang.org/genai/interactions/models/operations"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/gemini"
)

// A call through a client built by NewClient meets Gemini's 429
// RESOURCE_EXHAUSTED; the delay its RetryInfo detail asks for, which the SDK
// ignores, becomes the fault's RetryAfter.
func Example() {
	// A stand-in for the Gemini API that answers as Gemini does.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[
			{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier","quotaValue":"10"}]},
			{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"17s"}]}}`)
	}))
	defer api.Close()

	client, err := gemini.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      "example-key",
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: api.URL},
	})
	if err != nil {
		panic(err)
	}
	_, err = client.Models.GenerateContent(context.Background(), "gemini-2.5-flash", genai.Text("Hello"), nil)

	f := fault.From(err)
	fmt.Println(f.Code, f.Retryable, f.RetryAfter, f.Classification.Rule)
	data, _ := json.Marshal(f)
	fmt.Println(string(data))
	// Output:
	// RATE_LIMITED true 17s google-gemini:resource_exhausted
	// {"code":"RATE_LIMITED","message":"Gemini rate limit exceeded. Please wait before retrying.","http_status":429,"category":"UPSTREAM","domain":"llm","retryable":true,"retry_after":17,"session_valid":true,"source":"google-gemini","details":{"providerId":"google-gemini","providerStatus":"RESOURCE_EXHAUSTED","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier","quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","upstream_status":429}}
}

// Without a key, and without GOOGLE_API_KEY or GEMINI_API_KEY, NewClient
// says which credential is missing.
func ExampleNewClient_missingCredential() {
	os.Unsetenv("GOOGLE_API_KEY") // for the example: no key anywhere
	os.Unsetenv("GEMINI_API_KEY")

	_, err := gemini.NewClient(context.Background(), &genai.ClientConfig{Backend: genai.BackendGeminiAPI})
	f := fault.From(err)
	fmt.Println(f.Code, f.Category, f.Retryable)
	fmt.Println(f.Message, f.Details["providerId"])
	// Output:
	// CONFIG_ERROR CONFIG false
	// missing required credential: apiKey google-gemini
}

// The Interactions API clients of a client built by NewClient (here Agents)
// send each call once: the SDK's own would retry this 429 four times. The
// answer's Retry-After, which the SDK's retries would have used, becomes the
// fault's RetryAfter.
func ExampleNewClient_interactions() {
	var requests atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "20")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`)
	}))
	defer api.Close()

	client, err := gemini.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      "example-key",
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: api.URL},
	})
	if err != nil {
		panic(err)
	}
	_, err = client.Agents.List(context.Background(), operations.ListAgentsRequest{})

	f := fault.From(err)
	fmt.Println(requests.Load(), "request")
	fmt.Println(f.Code, f.Retryable, f.RetryAfter, f.Classification.Rule, f.Details["providerId"])
	// Output:
	// 1 request
	// RATE_LIMITED true 20s google-gemini:resource_exhausted google-gemini
}
