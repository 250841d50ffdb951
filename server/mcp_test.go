package server

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
)

// keyTransport sends an API key with every request.
type keyTransport struct {
	header, value string
}

func (k keyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(k.header, k.value)
	return http.DefaultTransport.RoundTrip(r)
}

func mcpFixture(t *testing.T, mods ...func(*Config)) *fixture {
	t.Helper()
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{OwnerShare: 4})
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return newFixture(t, func(c *Config) {
		c.APIKeys = map[string]string{"key-a": "acme", "key-b": "globex"}
		c.Bridge = bridge.New(bridge.Config{Manager: m, Owner: MCPOwner})
		for _, mod := range mods {
			mod(c)
		}
	})
}

func mcpConnect(t *testing.T, f *fixture, header, key string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: f.http.URL + "/mcp", HTTPClient: &http.Client{Transport: keyTransport{header, key}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out map[string]any
	data, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(data, &out)
	return out, res.IsError
}

func TestMCPOverStreamableHTTP(t *testing.T) {
	t.Parallel()
	f := mcpFixture(t)
	a := mcpConnect(t, f, "X-API-Key", "key-a")
	s, isErr := mcpCall(t, a, "sessions_create", map[string]any{"agentId": "echo"})
	if isErr {
		t.Fatalf("create: %v", s)
	}
	id := s["sessionId"].(string)
	p, isErr := mcpCall(t, a, "sessions_prompt", map[string]any{"sessionId": id, "prompt": "over http"})
	if isErr || p["text"] != "You said: over http" {
		t.Fatalf("prompt: %v", p)
	}

	// Another tenant cannot see, prompt or close the session.
	b := mcpConnect(t, f, "Authorization", "Bearer key-b")
	for tool, args := range map[string]map[string]any{
		"sessions_status": {"sessionId": id},
		"sessions_prompt": {"sessionId": id, "prompt": "mine now"},
		"sessions_cancel": {"sessionId": id},
	} {
		out, isErr := mcpCall(t, b, tool, args)
		e, _ := out["error"].(map[string]any)
		if !isErr || e["code"] != "SESSION_NOT_FOUND" {
			t.Errorf("%s from another tenant: %v", tool, out)
		}
	}
	mcpCall(t, b, "sessions_close", map[string]any{"sessionId": id})
	if st, isErr := mcpCall(t, a, "sessions_status", map[string]any{"sessionId": id}); isErr || st["state"] != "idle" {
		t.Errorf("after another tenant's close: %v", st)
	}

	// One tenant holds at most a quarter of the agent's sessions.
	for i := 1; ; i++ {
		out, isErr := mcpCall(t, b, "sessions_create", map[string]any{"agentId": "echo"})
		if isErr {
			e := out["error"].(map[string]any)
			if i != agent.DefaultMaxSessions/4+1 || e["message"] != "Session capacity reached" {
				t.Fatalf("create #%d: %v", i, out)
			}
			break
		}
	}
	if _, isErr := mcpCall(t, a, "sessions_create", map[string]any{"agentId": "echo"}); isErr {
		t.Fatal("the other tenant's sessions took acme's capacity")
	}
}

func TestMCPNeedsAKey(t *testing.T) {
	t.Parallel()
	f := mcpFixture(t)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	for _, h := range []map[string]string{nil, {"X-API-Key": "wrong"}} {
		r := f.do("POST", "/mcp", body, h)
		if r.status != http.StatusUnauthorized && r.status != http.StatusForbidden {
			t.Errorf("headers %v: status %d %s", h, r.status, r.body)
		}
		if r.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("headers %v: content type %q", h, r.header.Get("Content-Type"))
		}
	}
}

// A tenant cannot use the MCP session id another tenant's client holds.
func TestMCPSessionIsTheTenants(t *testing.T) {
	t.Parallel()
	f := mcpFixture(t)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	r := f.do("POST", "/mcp", body, map[string]string{"X-API-Key": "key-a", "Accept": "application/json, text/event-stream"})
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %v %s", r.status, r.header, r.body)
	}
	list := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	r = f.do("POST", "/mcp", list, map[string]string{"X-API-Key": "key-b", "Accept": "application/json, text/event-stream",
		"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-06-18"})
	if r.status < 400 {
		t.Fatalf("another tenant used the session: %d %s", r.status, r.body)
	}
}

// Closing the server (the first step of a graceful shutdown) ends the MCP
// connections, so that their streams do not hold the shutdown open.
func TestMCPCloseEndsTheConnections(t *testing.T) {
	t.Parallel()
	f := mcpFixture(t)
	cs := mcpConnect(t, f, "X-API-Key", "key-a")
	if _, isErr := mcpCall(t, cs, "bridge_health", map[string]any{}); isErr {
		t.Fatal("health")
	}
	f.srv.Close()
	done := make(chan struct{})
	go func() { _ = cs.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the MCP connection outlived Close")
	}
}

// TestMCPCloseAnswersCallsInFlight: a shutdown tells the /mcp sessions: a
// prompt in flight is cancelled and its call answered SERVICE_UNAVAILABLE,
// retryable after the bridge's delay, before the connections close (the
// go-sdk writes no answer on a closing connection).
func TestMCPCloseAnswersCallsInFlight(t *testing.T) {
	t.Parallel()
	f := mcpFixture(t)
	cs := mcpConnect(t, f, "X-API-Key", "key-a")
	s, _ := mcpCall(t, cs, "sessions_create", map[string]any{"agentId": "echo"})
	answered := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sessions_prompt",
			Arguments: map[string]any{"sessionId": s["sessionId"], "prompt": "hang"}})
		if err != nil {
			t.Errorf("the call in flight got no answer: %v", err)
		}
		answered <- res
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, _ := mcpCall(t, cs, "sessions_status", map[string]any{"sessionId": s["sessionId"]})
		if st["state"] == "running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the prompt never ran: %v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	begun := time.Now()
	f.srv.Close()
	if d := time.Since(begun); d > bridge.DefaultShutdownTimeout {
		t.Errorf("Close took %v", d)
	}
	select {
	case res := <-answered:
		if res == nil || !res.IsError {
			t.Fatalf("the call in flight: %+v", res)
		}
		var out struct {
			Error struct {
				Code       string  `json:"code"`
				Retryable  bool    `json:"retryable"`
				RetryAfter float64 `json:"retryAfter"`
			} `json:"error"`
		}
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, &out); err != nil || out.Error.Code != "SERVICE_UNAVAILABLE" || !out.Error.Retryable || out.Error.RetryAfter != 5 {
			t.Errorf("the call in flight was answered %s", data)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call in flight was not answered")
	}
}
