package bridge_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
)

// OnFailure's func is told of each failed call once its answer is
// written, with the agent it was about; a call that succeeds, or that the
// shutdown answers, is not told; Shutdown waits for the funcs running.
func TestOnFailure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	b := bridge.New(bridge.Config{Manager: m, MaxMetadataBytes: 16})
	var (
		mu   sync.Mutex
		told []bridge.CallFailure
	)
	release := make(chan struct{})
	b.OnFailure(func(ctx context.Context, c bridge.CallFailure) {
		<-release // a slow func: Shutdown waits for it
		if ctx.Err() != nil {
			t.Errorf("the func's context is done: %v", ctx.Err())
		}
		mu.Lock()
		told = append(told, c)
		mu.Unlock()
	})
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

	// The answer comes while the func is held: it never waits for it.
	out, res := call(t, cs, "sessions_create", map[string]any{"agentId": "echo", "metadata": map[string]any{"note": strings.Repeat("x", 64)}})
	if e, _ := out["error"].(map[string]any); !res.IsError || e["code"] != "PAYLOAD_TOO_LARGE" {
		t.Fatalf("the answer %v", out)
	}
	if _, res := call(t, cs, "sessions_create", map[string]any{"agentId": "echo"}); res.IsError {
		t.Fatalf("a call that succeeds failed: %s", text(res))
	}
	sctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := b.Shutdown(sctx); err == nil {
		t.Fatal("Shutdown returned while a func was held")
	}
	if _, res := call(t, cs, "bridge_health", nil); !res.IsError {
		t.Fatal("a call during the shutdown succeeded")
	}
	close(release)
	sctx, cancel = context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := b.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(told) != 1 {
		t.Fatalf("told %d failures, want the first call's: %+v", len(told), told)
	}
	c := told[0]
	if c.Tool != "sessions_create" || c.AgentID != "echo" || c.Fault == nil || c.Fault.Code != "PAYLOAD_TOO_LARGE" || c.Header != nil {
		t.Errorf("told %+v", c)
	}
}
