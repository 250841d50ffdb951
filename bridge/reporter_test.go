package bridge_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/client"
)

// posted is what a fake service received at POST /v1/errors.
type posted struct {
	mu      sync.Mutex
	bodies  []map[string]any
	keys    []string
	apiKeys []string
}

// A bridge with a Reporter posts each failed tool call to the service,
// after its answer, under a key of its own, but the calls about an agent
// that opted out; Close waits for the reports queued.
func TestReporterPostsFailures(t *testing.T) {
	t.Parallel()
	var got posted
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/errors" {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var doc map[string]any
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Errorf("the report is not JSON: %s", body)
		}
		got.mu.Lock()
		got.bodies, got.keys = append(got.bodies, doc), append(got.keys, r.Header.Get("Idempotency-Key"))
		got.apiKeys = append(got.apiKeys, r.Header.Get("Authorization"))
		got.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"error_id":"err_0123456789abcdef","query_id":"mcp:sessions_create","error_type":"validation_error","severity":"low","next_action":"await_user","user_message":"x","attempt":1}`)
	}))
	t.Cleanup(svc.Close)

	reg, err := agent.Parse([]byte("agents:\n  - id: echo\n    kind: script\n  - id: quiet\n    kind: script\n    recordFailures: false\n"), "agents.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m := agent.NewManager(reg.Build(nil), agent.ManagerConfig{})
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	c, err := client.New(svc.URL, client.Config{APIKey: "key-a"})
	if err != nil {
		t.Fatal(err)
	}
	rep := bridge.NewReporter(c, m, nil)
	b := bridge.New(bridge.Config{Manager: m, MaxMetadataBytes: 16})
	b.OnFailure(rep.Record)
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

	big := map[string]any{"note": strings.Repeat("x", 64)}
	for _, id := range []string{"quiet", "echo"} {
		out, res := call(t, cs, "sessions_create", map[string]any{"agentId": id, "metadata": big})
		if e, _ := out["error"].(map[string]any); !res.IsError || e["code"] != "PAYLOAD_TOO_LARGE" {
			t.Fatalf("%s: the answer %v", id, out)
		}
	}
	if _, res := call(t, cs, "sessions_create", map[string]any{"agentId": "echo"}); res.IsError {
		t.Fatalf("a call that succeeds failed: %s", text(res))
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := b.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	// A call the shutdown answers is no failure of the call: not told.
	if out, res := call(t, cs, "sessions_create", map[string]any{"agentId": "echo", "metadata": big}); !res.IsError ||
		out["error"].(map[string]any)["code"] != "SERVICE_UNAVAILABLE" {
		t.Fatalf("a call during the shutdown: %v", out)
	}
	if err := rep.Close(sctx); err != nil {
		t.Fatal(err)
	}
	got.mu.Lock()
	defer got.mu.Unlock()
	if len(got.bodies) != 1 {
		t.Fatalf("%d reports posted, want echo's one: %v", len(got.bodies), got.bodies)
	}
	doc := got.bodies[0]
	data, _ := doc["data"].(map[string]any)
	rctx, _ := data["context"].(map[string]any)
	if doc["agent_id"] != "echo" || data["error_code"] != "PAYLOAD_TOO_LARGE" || rctx["tool"] != "sessions_create" || rctx["door"] != "mcp" {
		t.Errorf("the report %v", doc)
	}
	if !strings.HasPrefix(got.keys[0], "triage-mcp-") || got.apiKeys[0] != "Bearer key-a" {
		t.Errorf("posted with Idempotency-Key %q, Authorization %q", got.keys[0], got.apiKeys[0])
	}
	if rep.Dropped() != 0 {
		t.Errorf("%d dropped", rep.Dropped())
	}
}
