package bridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
)

// failure is what a failed call's structured content says.
type failure struct {
	Message      string         `json:"message"`
	Type         string         `json:"type"`
	Code         string         `json:"code"`
	Retryable    bool           `json:"retryable"`
	SessionValid bool           `json:"sessionValid"`
	RetryAfter   int64          `json:"retryAfter"`
	Details      map[string]any `json:"details"`
	Tool         string         `json:"tool"`
	Recovery     []struct {
		Action, Tool string
	} `json:"recovery"`
}

func failed(t *testing.T, cs *mcp.ClientSession, name string, args any) (failure, string) {
	t.Helper()
	out, res := call(t, cs, name, args)
	if !res.IsError {
		t.Fatalf("%s succeeded: %v", name, out)
	}
	data, _ := json.Marshal(out["error"])
	var f failure
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f, text(res)
}

func scripted(t *testing.T, yaml string) *agent.Registry {
	t.Helper()
	reg, err := agent.Parse([]byte(yaml), "agents.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestSeedFailures(t *testing.T) {
	reg := scripted(t, `
agents:
  - id: echo
    kind: script
  - id: small
    kind: script
    maxSessions: 1
  - id: broken
    kind: script
    script: {fail: {code: UPSTREAM_ERROR, after: 1}}
`)
	cs := connect(t, reg, agent.ManagerConfig{PromptTimeout: 200 * time.Millisecond},
		bridge.Config{MaxPromptBytes: 64, MaxMetadataBytes: 32})
	s, _ := call(t, cs, "sessions_create", map[string]any{"agentId": "echo"})
	id := s["sessionId"].(string)
	call(t, cs, "sessions_create", map[string]any{"agentId": "small"})

	for _, c := range []struct {
		name         string
		tool         string
		args         map[string]any
		message      string
		typ, code    string
		retryable    bool
		sessionValid bool
		recovery     string // a tool the recovery names
	}{
		{"session not found", "sessions_prompt", map[string]any{"sessionId": "abc-123", "prompt": "hi"},
			"Session not found: abc-123", "UPSTREAM", "SESSION_NOT_FOUND", false, false, "sessions_create"},
		{"agent not found", "sessions_create", map[string]any{"agentId": "nobody"},
			"Agent not found: nobody", "UPSTREAM", "CAPABILITY_NOT_FOUND", false, false, "agents_discover"},
		{"capacity", "sessions_create", map[string]any{"agentId": "small"},
			"Session capacity reached", "UPSTREAM", "SERVICE_UNAVAILABLE", false, false, "sessions_close"},
		{"prompt too large", "sessions_prompt", map[string]any{"sessionId": id, "prompt": strings.Repeat("x", 65)},
			"Prompt exceeds maximum size", "UPSTREAM", "PAYLOAD_TOO_LARGE", false, true, "sessions_prompt"},
		{"metadata too large", "sessions_create", map[string]any{"agentId": "echo", "metadata": map[string]any{"k": strings.Repeat("x", 40)}},
			"Metadata exceeds maximum size", "UPSTREAM", "PAYLOAD_TOO_LARGE", false, true, "sessions_create"},
		{"rate limited", "sessions_prompt", map[string]any{"sessionId": id, "prompt": "fail with RATE_LIMITED after 7s"},
			"", "UPSTREAM", "RATE_LIMITED", true, true, "sessions_prompt"},
		{"agent failed", "sessions_prompt", map[string]any{"sessionId": id, "prompt": "fail"},
			"Agent echo failed", "UPSTREAM", "UPSTREAM_ERROR", false, true, "bridge_health"},
		{"prompt timeout", "sessions_prompt", map[string]any{"sessionId": id, "prompt": "hang"},
			"Prompt timed out after 200ms", "TIMEOUT", "TIMEOUT", true, true, "sessions_prompt"},
		{"delegate to a failing agent", "tasks_delegate", map[string]any{"agentId": "broken", "prompt": "x"},
			"", "UPSTREAM", "UPSTREAM_ERROR", false, false, "bridge_health"},
		{"invalid arguments", "sessions_create", map[string]any{},
			"The arguments do not match the tool's input schema", "PROTOCOL", "INVALID_REQUEST", false, true, "sessions_create"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, txt := failed(t, cs, c.tool, c.args)
			if c.message != "" && f.Message != c.message {
				t.Errorf("message %q, want %q", f.Message, c.message)
			}
			if f.Type != c.typ || f.Code != c.code || f.Retryable != c.retryable || f.SessionValid != c.sessionValid {
				t.Errorf("got %s/%s retryable=%v sessionValid=%v, want %s/%s %v %v",
					f.Type, f.Code, f.Retryable, f.SessionValid, c.typ, c.code, c.retryable, c.sessionValid)
			}
			named := false
			for _, r := range f.Recovery {
				named = named || r.Tool == c.recovery
			}
			if !named {
				t.Errorf("recovery %+v does not name %s", f.Recovery, c.recovery)
			}
			want := strings.TrimSuffix(f.Message, ".") + " (" + c.typ
			if !strings.Contains(txt, want) || !strings.Contains(txt, "You can:\n1. ") {
				t.Errorf("text %q lacks %q or recovery", txt, want)
			}
		})
	}
	// Every failure of a known session names its agent.
	for _, p := range []string{"hang", "fail", "fail with SESSION_BUSY"} {
		if _, txt := failed(t, cs, "sessions_prompt", map[string]any{"sessionId": id, "prompt": p}); !strings.HasPrefix(txt, "Failed to submit prompt to agent 'echo':\n") {
			t.Errorf("%s: %q", p, txt)
		}
	}
	// The rate limit carries the delay the prompt asked for.
	f, txt := failed(t, cs, "sessions_prompt", map[string]any{"sessionId": id, "prompt": "fail with RATE_LIMITED after 7s"})
	if f.RetryAfter != 7 || !strings.Contains(txt, "retryable after 7s") {
		t.Errorf("retryAfter %d, text %q", f.RetryAfter, txt)
	}
}

func TestSeedExampleMessage(t *testing.T) {
	cs := connect(t, agent.Default(), agent.ManagerConfig{}, bridge.Config{})
	_, txt := failed(t, cs, "sessions_prompt", map[string]any{"sessionId": "abc-123", "prompt": "hi"})
	want := "Failed to submit prompt to session 'abc-123':\n" +
		"Session not found: abc-123 (UPSTREAM, not retryable, session not valid)\n\n" +
		"The session may have expired, been closed, or lost its worker. You can:\n" +
		"1. Create a new session with sessions_create\n" +
		"2. Check available agents with agents_discover"
	if txt != want {
		t.Errorf("text:\n%s\nwant:\n%s", txt, want)
	}
}

// Both a result and a failure match the tool's output schema, as the
// official TypeScript client checks.
func TestStructuredContentMatchesOutputSchema(t *testing.T) {
	cs := connect(t, agent.Default(), agent.ManagerConfig{}, bridge.Config{})
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range tools.Tools {
		data, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		schemas[tool.Name] = r
	}
	check := func(name string, args map[string]any) {
		out, res := call(t, cs, name, args)
		if err := schemas[name].Validate(out); err != nil {
			t.Errorf("%s (isError=%v): %v\n%v", name, res.IsError, err, out)
		}
	}
	s, _ := call(t, cs, "sessions_create", map[string]any{"agentId": "echo"})
	id := s["sessionId"].(string)
	check("sessions_prompt", map[string]any{"sessionId": id, "prompt": "hi"})
	check("sessions_prompt", map[string]any{"sessionId": "nope", "prompt": "hi"})
	check("sessions_status", map[string]any{"sessionId": id})
	check("sessions_status", map[string]any{"sessionId": "nope"})
	check("sessions_create", map[string]any{"agentId": "nobody"})
	check("tasks_delegate", map[string]any{"agentId": "echo", "prompt": "fail with TIMEOUT"})
	check("sessions_prompt", map[string]any{"sessionId": id, "prompt": `call get_weather {"city":"Paris"}`})
	check("tasks_delegate", map[string]any{"agentId": "echo", "prompt": `call get_weather {"city":"Paris"}`})
	check("bridge_health", map[string]any{})
	check("agents_discover", map[string]any{})
}

func TestOverloaded(t *testing.T) {
	cs := connect(t, agent.Default(), agent.ManagerConfig{}, bridge.Config{MaxConcurrent: 1})
	s, _ := call(t, cs, "sessions_create", map[string]any{"agentId": "echo"})
	id := s["sessionId"].(string)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sessions_prompt", Arguments: map[string]any{"sessionId": id, "prompt": "hang"}})
	}()
	// Wait until the hanging prompt holds the one slot. Poll with
	// bridge_health, which takes no slot: polling with a held-back tool
	// could take the slot itself and leave the prompt refused.
	deadline := time.Now().Add(10 * time.Second)
	for {
		h, res := call(t, cs, "bridge_health", map[string]any{})
		if res.IsError {
			t.Fatalf("health = %s", text(res))
		}
		if h["inFlight"] == 1.0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the prompt never took the slot")
		}
		time.Sleep(5 * time.Millisecond)
	}
	f, txt := failed(t, cs, "agents_discover", map[string]any{})
	if f.Message != "Server overloaded" || f.Type != "TRANSPORT" || !f.Retryable || !strings.Contains(txt, "retryable after 1s") {
		t.Errorf("overloaded: %+v %q", f, txt)
	}
	// Health and close are not held back: closing the session stops the
	// prompt and frees the slot.
	if h, res := call(t, cs, "bridge_health", map[string]any{}); res.IsError || h["inFlight"] != 1.0 {
		t.Fatalf("health while full = %v %s", h, text(res))
	}
	if c, res := call(t, cs, "sessions_close", map[string]any{"sessionId": id}); res.IsError || c["closed"] != true {
		t.Fatalf("close while full = %v %s", c, text(res))
	}
	wg.Wait()
	if _, res := call(t, cs, "agents_discover", map[string]any{}); res.IsError {
		t.Fatalf("the slot was not freed: %s", text(res))
	}
}

func TestCancelAndClose(t *testing.T) {
	cs := connect(t, agent.Default(), agent.ManagerConfig{}, bridge.Config{})
	s, _ := call(t, cs, "sessions_create", map[string]any{"agentId": "echo"})
	id := s["sessionId"].(string)
	done := make(chan failure, 1)
	go func() {
		f, _ := failed(t, cs, "sessions_prompt", map[string]any{"sessionId": id, "prompt": "hang"})
		done <- f
	}()
	waitState(t, cs, id, "running")
	c, _ := call(t, cs, "sessions_cancel", map[string]any{"sessionId": id})
	if c["cancelled"] != true {
		t.Fatalf("cancel = %v", c)
	}
	f := <-done
	if f.Code != "CANCELLED" || !f.SessionValid {
		t.Fatalf("cancelled prompt = %+v", f)
	}
	waitState(t, cs, id, "cancelled")
	// The session takes new prompts.
	if p, res := call(t, cs, "sessions_prompt", map[string]any{"sessionId": id, "prompt": "again"}); res.IsError || p["text"] != "You said: again" {
		t.Fatalf("prompt after cancel: %v", p)
	}
	// Close while running: the prompt ends, the session is closed and
	// no longer valid.
	go func() {
		f, _ := failed(t, cs, "sessions_prompt", map[string]any{"sessionId": id, "prompt": "hang"})
		done <- f
	}()
	waitState(t, cs, id, "running")
	call(t, cs, "sessions_close", map[string]any{"sessionId": id})
	f = <-done
	if f.Code != "CANCELLED" || f.SessionValid {
		t.Fatalf("prompt closed under it = %+v", f)
	}
	f, _ = failed(t, cs, "sessions_prompt", map[string]any{"sessionId": id, "prompt": "x"})
	if f.Code != "SESSION_NOT_FOUND" || f.Message != "Session "+id+" is closed" {
		t.Fatalf("prompt to a closed session = %+v", f)
	}
}

func waitState(t *testing.T, cs *mcp.ClientSession, id, state string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, _ := call(t, cs, "sessions_status", map[string]any{"sessionId": id})
		if st["state"] == state {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("state %v, want %s", st["state"], state)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestJSONRPCErrorMode(t *testing.T) {
	c := newRawClient(t, bridge.Config{ErrorMode: bridge.ErrorsAsJSONRPC})
	for _, tc := range []struct {
		tool string
		args map[string]any
		code float64
		typ  string
	}{
		{"sessions_prompt", map[string]any{"sessionId": "abc-123", "prompt": "hi"}, -32002, "UPSTREAM"},
		{"tasks_delegate", map[string]any{"agentId": "echo", "prompt": "fail with TIMEOUT"}, -32001, "TIMEOUT"},
		{"tasks_delegate", map[string]any{"agentId": "echo", "prompt": "fail with CONFIG_ERROR"}, -32004, "CONFIG"},
		{"tasks_delegate", map[string]any{"agentId": "echo", "prompt": "fail with PROVIDER_AUTH_FAILED"}, -32003, "AUTH"},
		{"tasks_delegate", map[string]any{"agentId": "echo", "prompt": "fail with TRANSPORT_ERROR"}, -32000, "TRANSPORT"},
		{"tasks_delegate", map[string]any{"agentId": "echo", "prompt": "fail with INTERNAL_ERROR"}, -32603, "INTERNAL"},
	} {
		resp := c.request("tools/call", map[string]any{"name": tc.tool, "arguments": tc.args})
		e, ok := resp["error"].(map[string]any)
		if !ok {
			t.Fatalf("%v: no error: %v", tc.args, resp)
		}
		data, _ := e["data"].(map[string]any)
		if e["code"] != tc.code || data["type"] != tc.typ || data["retryable"] == nil || data["sessionValid"] == nil || data["recovery"] == nil {
			t.Errorf("%v: %v, want code %v type %s", tc.args, e, tc.code, tc.typ)
		}
	}
	// Argument failures are errors too, and protocol failures keep their
	// standard codes.
	resp := c.request("tools/call", map[string]any{"name": "sessions_create", "arguments": map[string]any{}})
	if e, _ := resp["error"].(map[string]any); e == nil || e["code"] != -32602.0 {
		t.Errorf("invalid arguments: %v", resp)
	}
	resp = c.request("tools/call", map[string]any{"name": "nope", "arguments": map[string]any{}})
	if e, _ := resp["error"].(map[string]any); e == nil || e["code"] != -32602.0 {
		t.Errorf("unknown tool: %v", resp)
	}
}

func TestUnknownToolIsAProtocolError(t *testing.T) {
	cs := connect(t, agent.Default(), agent.ManagerConfig{}, bridge.Config{})
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"})
	var we *sdkjsonrpc.Error
	if !errors.As(err, &we) || we.Code != sdkjsonrpc.CodeInvalidParams {
		t.Fatalf("unknown tool: %v", err)
	}
}
