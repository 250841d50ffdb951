package bridge_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
)

// panicky is a backend whose prompts panic, with a secret in the value.
type panicky struct{}

func (panicky) Start(context.Context) error                { return nil }
func (panicky) NewSession(context.Context) (string, error) { return "s1", nil }
func (panicky) Cancel(context.Context, string) error       { return nil }
func (panicky) CloseSession(string)                        {}
func (panicky) Close() error                               { return nil }
func (panicky) Prompt(context.Context, string, string, func(agent.Chunk)) (agent.Result, error) {
	panic("backend bug; Authorization: Bearer sk-live-0123456789abcdef")
}

// A tool call whose backend panics fails as INTERNAL_ERROR, logged without
// the secret; the session's slot is freed, and the bridge, and the
// process, go on serving.
func TestToolCallPanicIsAFailure(t *testing.T) {
	ctx := context.Background()
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	m := agent.NewManager([]agent.Agent{{Info: agent.Info{ID: "bug", Kind: "script", MaxSessions: 4}, Backend: panicky{}}}, agent.ManagerConfig{Logger: log})
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	b := bridge.New(bridge.Config{Manager: m, Logger: log})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := b.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })

	for range 6 { // the bridge still serves after the first, and the sessions are freed (4 at most)
		out, res := call(t, cs, "tasks_delegate", map[string]any{"agentId": "bug", "prompt": "hi"})
		e, _ := out["error"].(map[string]any)
		if !res.IsError || e["code"] != "INTERNAL_ERROR" {
			t.Fatalf("a panicking backend's call: %v", out)
		}
	}
	if strings.Contains(logs.String(), "sk-live-0123456789abcdef") || !strings.Contains(logs.String(), "agent backend panicked") {
		t.Errorf("logs: %s", logs.String())
	}
	if h, _ := call(t, cs, "bridge_health", map[string]any{}); h["ready"] != true {
		t.Errorf("health after the panics: %v", h)
	}
}
