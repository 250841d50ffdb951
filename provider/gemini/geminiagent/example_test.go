package geminiagent_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/fault"
	_ "github.com/triage-go/triage/provider/gemini/geminiagent" // registers the gemini kind
)

// An agents file's gemini agent, once the package is imported: here it
// calls a local stand-in for the Gemini API (baseURL), which is over its
// quota: the fault is retryable after the delay the API asks for.
func Example() {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"code":429,"message":"Quota exceeded.","status":"RESOURCE_EXHAUSTED",`+
			`"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}]}}`)
	}))
	defer api.Close()
	reg, err := agent.Parse([]byte("agents:\n  - {id: gemini, kind: gemini, model: gemini-2.5-flash, baseURL: '"+api.URL+"'}\n"), "agents.yaml")
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	getenv := func(name string) string {
		if name == "GEMINI_API_KEY" {
			return "example-key-0123456789abcdef"
		}
		return ""
	}
	m := agent.NewManager(reg.Build(&agent.BuildOptions{Getenv: getenv}), agent.ManagerConfig{})
	if err := m.Start(ctx); err != nil {
		panic(err)
	}
	defer m.Shutdown()
	s, _ := m.Create(ctx, "", "gemini", nil)
	_, err = m.Prompt(ctx, "", s.ID, "hello", nil)
	f, _ := fault.As(err)
	fmt.Println(f.Code, f.Category, f.Retryable, f.RetryAfter, f.Source)
	// Output:
	// RATE_LIMITED UPSTREAM true 30s google-gemini
}
