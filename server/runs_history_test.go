package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/triage-go/triage/agent"
	_ "github.com/triage-go/triage/provider/openai/openaiagent" // the openai kind
)

// An AG-UI run of a provider agent sends the model the thread the
// frontend holds, not only its last message: HttpAgent sends the whole
// conversation with each run, and the run's session is new.
func TestRunSendsTheThreadToAProvider(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var sent [][]map[string]any
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []map[string]any `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || r.URL.Path != "/chat/completions" {
			http.Error(w, "bad request", 400)
			return
		}
		mu.Lock()
		sent = append(sent, req.Messages)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		for _, chunk := range []string{
			`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"sure"},"finish_reason":null}]}`,
			`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", chunk)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer fake.Close()
	reg := &agent.Registry{Agents: []agent.Config{{ID: "gpt", Kind: agent.KindOpenAI, Model: "m", BaseURL: fake.URL}}}
	m := agent.NewManager(reg.Build(&agent.BuildOptions{Getenv: func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "sk-test-0123456789abcdef"
		}
		return ""
	}}), agent.ManagerConfig{})
	if err := m.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown()
	f := newFixture(t, func(c *Config) { c.Agents = m })

	body := `{"threadId":"t1","runId":"r1","tools":[],"context":[],"state":{},"forwardedProps":{},"messages":[` +
		`{"id":"1","role":"user","content":"my name is Ada"},` +
		`{"id":"2","role":"assistant","content":"hello Ada"},` +
		`{"id":"3","role":"user","content":"what is my name?"}]}`
	r := f.do("POST", "/v1/agents/gpt/runs", []byte(body), nil)
	events := runEvents(t, r)
	if got := string(events[len(events)-1].Type()); got != "RUN_FINISHED" {
		t.Fatalf("the run ended with %s: %s", got, r.body)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sent) != 1 {
		t.Fatalf("%d requests to the model", len(sent))
	}
	var got []string
	for _, msg := range sent[0] {
		got = append(got, fmt.Sprintf("%s: %v", msg["role"], msg["content"]))
	}
	want := []string{"user: my name is Ada", "assistant: hello Ada", "user: what is my name?"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the model was sent %q, want %q", got, want)
	}
}
