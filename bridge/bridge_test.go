package bridge_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
)

// connect starts a bridge over the registry and connects a go-sdk client
// to it through in-memory transports.
func connect(t testing.TB, reg *agent.Registry, mcfg agent.ManagerConfig, bcfg bridge.Config) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	m := agent.NewManager(reg.Build(nil), mcfg)
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	bcfg.Manager = m
	b := bridge.New(bcfg)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := b.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls a tool and returns its structured content, decoded.
func call(t testing.TB, cs *mcp.ClientSession, name string, args any) (map[string]any, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out map[string]any
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, data, err)
	}
	return out, res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestToolsListed(t *testing.T) {
	cs := connect(t, agent.Default(), agent.ManagerConfig{}, bridge.Config{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ readOnly, idempotent, destructive bool }{
		"bridge_health":   {true, true, false},
		"agents_discover": {true, true, false},
		"sessions_status": {true, true, false},
		"sessions_close":  {false, true, true},
		"sessions_create": {false, false, false},
		"sessions_prompt": {false, false, false},
		"sessions_cancel": {false, false, true},
		"tasks_delegate":  {false, false, false},
	}
	if len(res.Tools) != len(want) {
		t.Fatalf("%d tools, want %d", len(res.Tools), len(want))
	}
	for _, tool := range res.Tools {
		w, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		a := tool.Annotations
		if a == nil || a.ReadOnlyHint != w.readOnly || a.IdempotentHint != w.idempotent || a.DestructiveHint == nil || *a.DestructiveHint != w.destructive {
			t.Errorf("%s annotations = %+v, want %+v", tool.Name, a, w)
		}
		if tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s lacks a schema", tool.Name)
		}
	}
}

func TestWholeSession(t *testing.T) {
	cs := connect(t, agent.Default(), agent.ManagerConfig{}, bridge.Config{})
	agents, _ := call(t, cs, "agents_discover", map[string]any{})
	list := agents["agents"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["id"] != "echo" {
		t.Fatalf("agents = %v", agents)
	}
	s, res := call(t, cs, "sessions_create", map[string]any{"agentId": "echo"})
	if res.IsError || s["state"] != "idle" {
		t.Fatalf("create = %v %s", s, text(res))
	}
	id := s["sessionId"].(string)
	p, res := call(t, cs, "sessions_prompt", map[string]any{"sessionId": id, "prompt": "hello there"})
	if res.IsError || p["text"] != "You said: hello there" || p["stopReason"] != "end_turn" || p["state"] != "idle" {
		t.Fatalf("prompt = %v %s", p, text(res))
	}
	st, _ := call(t, cs, "sessions_status", map[string]any{"sessionId": id})
	if st["prompts"] != 1.0 || st["state"] != "idle" {
		t.Fatalf("status = %v", st)
	}
	c, _ := call(t, cs, "sessions_close", map[string]any{"sessionId": id})
	if c["closed"] != true {
		t.Fatalf("close = %v", c)
	}
	// Closing again is silent (idempotent).
	if c, res := call(t, cs, "sessions_close", map[string]any{"sessionId": id}); res.IsError || c["closed"] != true {
		t.Fatalf("second close = %v %s", c, text(res))
	}
	d, res := call(t, cs, "tasks_delegate", map[string]any{"agentId": "echo", "prompt": "one call"})
	if res.IsError || d["text"] != "You said: one call" || d["state"] != "closed" {
		t.Fatalf("delegate = %v %s", d, text(res))
	}
	h, _ := call(t, cs, "bridge_health", map[string]any{})
	if h["ready"] != true || h["sessions"] != 0.0 {
		t.Fatalf("health = %v", h)
	}
}

// bridge_health served to many tenants reports the caller's load only:
// tenant B sees none of the sessions and calls tenant A holds.
func TestHealthIsTheTenants(t *testing.T) {
	ctx := context.Background()
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{OwnerShare: 2})
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	// The tenant is the client's name, as /mcp's is its API key's.
	b := bridge.New(bridge.Config{Manager: m, MaxConcurrent: 8, Owner: func(_ context.Context, req *mcp.CallToolRequest) string {
		return req.Session.InitializeParams().ClientInfo.Name
	}})
	dial := func(tenant string) *mcp.ClientSession {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := b.Server().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ss.Close() })
		cs, err := mcp.NewClient(&mcp.Implementation{Name: tenant, Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	a, bee := dial("acme"), dial("globex")

	var ids []string
	for range 2 {
		s, res := call(t, a, "sessions_create", map[string]any{"agentId": "echo"})
		if res.IsError {
			t.Fatalf("create: %s", text(res))
		}
		ids = append(ids, s["sessionId"].(string))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.CallTool(ctx, &mcp.CallToolParams{Name: "sessions_prompt", Arguments: map[string]any{"sessionId": ids[0], "prompt": "hang"}})
	}()
	echo := func(h map[string]any) map[string]any {
		for _, x := range h["agents"].([]any) {
			if ag := x.(map[string]any); ag["id"] == "echo" {
				return ag
			}
		}
		t.Fatalf("no echo in %v", h)
		return nil
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		h, res := call(t, a, "bridge_health", map[string]any{})
		if res.IsError {
			t.Fatalf("health = %s", text(res))
		}
		if h["inFlight"] == 1.0 {
			if h["sessions"] != 2.0 || echo(h)["sessions"] != 2.0 || echo(h)["maxSessions"] != 8.0 || h["maxConcurrent"] != 2.0 {
				t.Errorf("acme's health = %v", h)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the prompt never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	h, res := call(t, bee, "bridge_health", map[string]any{})
	if res.IsError || h["ready"] != true || h["sessions"] != 0.0 || h["inFlight"] != 0.0 ||
		echo(h)["sessions"] != 0.0 || echo(h)["maxSessions"] != 8.0 || h["maxConcurrent"] != 2.0 {
		t.Errorf("globex's health = %v %s, want none of acme's load", h, text(res))
	}
	for _, id := range ids {
		call(t, a, "sessions_close", map[string]any{"sessionId": id})
	}
	<-done
}

func TestProgressStreamsTheAnswer(t *testing.T) {
	ctx := context.Background()
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown()
	b := bridge.New(bridge.Config{Manager: m})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := b.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	chunks := make(chan string, 100)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			chunks <- req.Params.Message
		},
	})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "tasks_delegate", Arguments: map[string]any{"agentId": "echo", "prompt": "a b c"}}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("delegate: %v %v", err, res)
	}
	var got []string
	timeout := time.After(5 * time.Second)
	for len(got) < 5 {
		select {
		case c := <-chunks:
			got = append(got, c)
		case <-timeout:
			t.Fatalf("progress: got %q", got)
		}
	}
	if strings.Join(got, "") != "You said: a b c" {
		t.Fatalf("progress chunks %q", got)
	}
}
