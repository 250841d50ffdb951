package resilience_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	anthropicsdk "github.com/anthropics/anthropic-sdk-go"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/option"
	openaisdk "github.com/openai/openai-go/v3"
	openaioption "github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/anthropic"
	"github.com/triage-go/triage/provider/gemini"
	"github.com/triage-go/triage/provider/openai"
	"github.com/triage-go/triage/resilience"
)

// provider answers like an LLM provider: twice a rate limit, then success.
// It records when each request came.
type provider struct {
	limited func(w http.ResponseWriter) // writes the rate-limit answer
	success string                      // the success body
	mu      sync.Mutex
	times   []time.Time
}

func (p *provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	p.mu.Lock()
	p.times = append(p.times, time.Now())
	n := len(p.times)
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if n <= 2 {
		p.limited(w)
		return
	}
	io.WriteString(w, p.success)
}

// TestSDKRateLimitedTwiceThenSucceeds: a call through each provider's real
// SDK client, built by its provider package (SDK retries off) and wrapped
// in a Policy, meets a 429 asking for a one-second wait twice and then
// succeeds. Exactly three requests reach the server, each at least a second
// after the last, although the policy's own backoff is a millisecond.
// Gemini's wait comes from the RetryInfo detail, which the genai SDK itself
// ignores.
func TestSDKRateLimitedTwiceThenSucceeds(t *testing.T) {
	t.Parallel()
	retryAfter := func(body string) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, body)
		}
	}
	cases := []struct {
		name     string
		provider *provider
		call     func(ctx context.Context, url string) (string, error)
	}{
		{"openai", &provider{
			limited: retryAfter(`{"error":{"message":"Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`),
			success: `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}]}`,
		}, func(ctx context.Context, url string) (string, error) {
			client, err := openai.NewClient("sk-test", openaioption.WithBaseURL(url))
			if err != nil {
				return "", err
			}
			resp, err := client.Chat.Completions.New(ctx, openaisdk.ChatCompletionNewParams{
				Model:    "gpt-4o-mini",
				Messages: []openaisdk.ChatCompletionMessageParamUnion{openaisdk.UserMessage("hi")},
			})
			if err != nil {
				return "", err
			}
			return resp.Choices[0].Message.Content, nil
		}},
		{"anthropic", &provider{
			limited: retryAfter(`{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"},"request_id":"req_1"}`),
			success: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hello"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`,
		}, func(ctx context.Context, url string) (string, error) {
			client, err := anthropic.NewClient("sk-ant-test", anthropicoption.WithBaseURL(url))
			if err != nil {
				return "", err
			}
			msg, err := client.Messages.New(ctx, anthropicsdk.MessageNewParams{
				Model:     "claude-sonnet-4-5",
				MaxTokens: 16,
				Messages:  []anthropicsdk.MessageParam{anthropicsdk.NewUserMessage(anthropicsdk.NewTextBlock("hi"))},
			})
			if err != nil {
				return "", err
			}
			return msg.Content[0].Text, nil
		}},
		{"gemini", &provider{
			limited: func(w http.ResponseWriter) {
				w.WriteHeader(http.StatusTooManyRequests) // no Retry-After: the delay is in the body
				io.WriteString(w, `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED",`+
					`"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1s"}]}}`)
			},
			success: `{"candidates":[{"content":{"parts":[{"text":"hello"}],"role":"model"},"finishReason":"STOP"}]}`,
		}, func(ctx context.Context, url string) (string, error) {
			client, err := gemini.NewClient(ctx, &genai.ClientConfig{APIKey: "AIza-test", Backend: genai.BackendGeminiAPI,
				HTTPOptions: genai.HTTPOptions{BaseURL: url}})
			if err != nil {
				return "", err
			}
			resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("hi"), nil)
			if err != nil {
				return "", err
			}
			return resp.Text(), nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(c.provider)
			defer srv.Close()
			var mu sync.Mutex
			var events []resilience.RetryEvent
			policy := resilience.New(resilience.Config{
				BaseDelay: time.Millisecond, MaxDelay: time.Millisecond,
				OnRetry: func(_ context.Context, e resilience.RetryEvent) {
					mu.Lock()
					events = append(events, e)
					mu.Unlock()
				},
			})
			op := resilience.Operation{Source: c.name, Name: "generate", Idempotent: true}
			text, err := resilience.Do(context.Background(), policy, op, func(ctx context.Context) (string, error) {
				return c.call(ctx, srv.URL)
			})
			if err != nil || text != "hello" {
				t.Fatalf("got %q, %v", text, err)
			}
			p := c.provider
			p.mu.Lock()
			defer p.mu.Unlock()
			if len(p.times) != 3 {
				t.Fatalf("%d requests reached the server, want exactly 3", len(p.times))
			}
			for i := 1; i < 3; i++ {
				if gap := p.times[i].Sub(p.times[i-1]); gap < time.Second {
					t.Errorf("request %d came %v after the last; the provider asked for 1s", i+1, gap)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(events) != 2 {
				t.Fatalf("%d retry events, want 2", len(events))
			}
			for _, e := range events {
				if e.Fault.Code != fault.RateLimited || e.Fault.RetryAfter != time.Second || e.Delay < time.Second ||
					e.Fault.Details["providerId"] == nil {
					t.Errorf("event %+v (details %v)", e, e.Fault.Details)
				}
			}
		})
	}
}
