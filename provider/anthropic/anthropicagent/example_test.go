package anthropicagent_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/fault"
	_ "github.com/triage-go/triage/provider/anthropic/anthropicagent" // registers the anthropic kind
)

// An agents file's anthropic agent, once the package is imported: here it
// calls a local stand-in for Anthropic's API (baseURL), which refuses the
// prompt: a refusal is CONTENT_REFUSED, never an empty answer.
func Example() {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range [][2]string{
			{"message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}`},
			{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null},"usage":{"output_tokens":1}}`},
			{"message_stop", `{"type":"message_stop"}`},
		} {
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev[0], ev[1])
		}
	}))
	defer api.Close()
	reg, err := agent.Parse([]byte("agents:\n  - {id: claude, kind: anthropic, model: claude-sonnet-4-5, baseURL: '"+api.URL+"'}\n"), "agents.yaml")
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	getenv := func(name string) string {
		if name == "ANTHROPIC_API_KEY" {
			return "sk-ant-example-0123456789abcdef"
		}
		return ""
	}
	m := agent.NewManager(reg.Build(&agent.BuildOptions{Getenv: getenv}), agent.ManagerConfig{})
	if err := m.Start(ctx); err != nil {
		panic(err)
	}
	defer m.Shutdown()
	s, _ := m.Create(ctx, "", "claude", nil)
	_, err = m.Prompt(ctx, "", s.ID, "hello", nil)
	f, _ := fault.As(err)
	fmt.Println(f.Code, f.Source, f.SessionValid)
	fmt.Println(f.Message)
	// Output:
	// CONTENT_REFUSED anthropic true
	// Anthropic declined to answer the prompt under its content policy.
}
