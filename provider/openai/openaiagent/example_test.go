package openaiagent_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/fault"
	_ "github.com/triage-go/triage/provider/openai/openaiagent" // registers the openai kind
)

// An agents file's openai agent, once the package is imported: here it
// calls a local stand-in for OpenAI's API (baseURL), which streams two
// chunks; without a key it does not start.
func Example() {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, data := range []string{
			`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}`,
			`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":" there."},"finish_reason":"stop"}]}`,
			`[DONE]`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", data)
		}
	}))
	defer api.Close()
	reg, err := agent.Parse([]byte("agents:\n  - {id: gpt, kind: openai, model: gpt-4o-mini, baseURL: '"+api.URL+"'}\n"), "agents.yaml")
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	getenv := func(name string) string {
		if name == "OPENAI_API_KEY" {
			return "sk-example-0123456789abcdef"
		}
		return ""
	}
	m := agent.NewManager(reg.Build(&agent.BuildOptions{Getenv: getenv}), agent.ManagerConfig{})
	if err := m.Start(ctx); err != nil {
		panic(err)
	}
	defer m.Shutdown()
	s, _ := m.Create(ctx, "", "gpt", nil)
	res, err := m.Prompt(ctx, "", s.ID, "hello", func(c agent.Chunk) { fmt.Printf("chunk %q\n", c.Text) })
	fmt.Println(res.Text, res.StopReason, err)

	m = agent.NewManager(reg.Build(&agent.BuildOptions{Getenv: func(string) string { return "" }}), agent.ManagerConfig{})
	f, _ := fault.As(m.Start(ctx))
	fmt.Println(f.Code, f.Message, f.Details["apiKeyEnv"])
	// Output:
	// chunk "Hello"
	// chunk " there."
	// Hello there. end_turn <nil>
	// CONFIG_ERROR Missing required credential: apiKey OPENAI_API_KEY
}
