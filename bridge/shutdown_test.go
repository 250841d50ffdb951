package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/internal/testkit/acptest"
)

// runOverPipes serves a bridge with Run over a pair of pipes, as `triage
// bridge` serves stdio, and connects the go-sdk client to it. stop cancels
// Run's context (SIGTERM's doing in `triage bridge`); done is closed when
// Run has returned.
func runOverPipes(t *testing.T, m *agent.Manager) (cs *mcp.ClientSession, stop func(), done <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b := bridge.New(bridge.Config{Manager: m})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ran := make(chan error, 1)
	go func() { ran <- b.Run(ctx, &mcp.IOTransport{Reader: inR, Writer: outW}) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cs.Close()
		inW.Close()
		outR.Close()
	})
	return cs, cancel, ran
}

// startManager starts a manager over the agents file, shut down when the
// test ends.
func startManager(t *testing.T, yaml string) *agent.Manager {
	t.Helper()
	return startManagerLogging(t, yaml, nil)
}

// startManagerLogging is startManager with the agents' logs (their
// workers' stderr included) written to logs at debug level; nil discards
// them.
func startManagerLogging(t *testing.T, yaml string, logs io.Writer) *agent.Manager {
	t.Helper()
	var opts *agent.BuildOptions
	if logs != nil {
		opts = &agent.BuildOptions{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	}
	m := agent.NewManager(scripted(t, yaml).Build(opts), agent.ManagerConfig{})
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return m
}

// When Run's context ends (SIGTERM in `triage bridge`) while prompts hang,
// on a script agent, Triage's worker and the agent on the official
// TypeScript ACP SDK, each call gets its answer before the connection
// closes: SERVICE_UNAVAILABLE, retryable after a delay, the session gone.
// Run returns at once, and the Manager's shutdown leaves no worker behind.
// Issue 23: the calls hung until the prompt timeout (5 minutes), then the
// client saw the connection close instead of an answer.
func TestRunAnswersCallsInFlightOnShutdown(t *testing.T) {
	sdk := acptest.SDKAgent(t)
	yaml := fmt.Sprintf(`
agents:
  - id: script
    kind: script
  - id: worker
    kind: acp
    command: [%q]
    env: {TRIAGE_BRIDGE_TEST_WORKER: "1", TRIAGE_WORKER_DELAY: "1ms"}
  - id: sdk
    kind: acp
    command: [%q, %q]
`, os.Args[0], sdk[0], sdk[1])
	var logs logBuffer
	m := startManagerLogging(t, yaml, &logs)
	cs, stop, done := runOverPipes(t, m)

	var pids []int
	var sessions []string
	type pending struct {
		tool  string
		agent string
		res   chan *mcp.CallToolResult
	}
	var calls []pending
	for _, id := range []string{"script", "worker", "sdk"} {
		s, res := call(t, cs, "sessions_create", map[string]any{"agentId": id})
		if res.IsError {
			t.Fatalf("create %s: %s", id, text(res))
		}
		sid := s["sessionId"].(string)
		sessions = append(sessions, sid)
		if id != "script" {
			p, _ := call(t, cs, "sessions_prompt", map[string]any{"sessionId": sid, "prompt": "pid"})
			var pid int
			if _, err := fmt.Sscanf(p["text"].(string), "pid: %d", &pid); err != nil {
				t.Fatalf("%s pid: %v", id, p)
			}
			pids = append(pids, pid)
		}
		c := pending{"sessions_prompt", id, make(chan *mcp.CallToolResult, 1)}
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sessions_prompt",
				Arguments: map[string]any{"sessionId": sid, "prompt": "hang"}})
			if err != nil {
				t.Errorf("%s: the call failed instead of being answered: %v", id, err)
			}
			c.res <- res
		}()
		calls = append(calls, c)
	}
	d := pending{"tasks_delegate", "sdk", make(chan *mcp.CallToolResult, 1)}
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_delegate",
			Arguments: map[string]any{"agentId": "sdk", "prompt": "hang"}})
		if err != nil {
			t.Errorf("delegate: the call failed instead of being answered: %v", err)
		}
		d.res <- res
	}()
	calls = append(calls, d)
	waitRunning(t, cs, sessions, 4)
	// The three prompts on the worker and the SDK agent have reached them:
	// each says so on its stderr.
	logs.awaitCount(t, " begins: hang", 3)

	begun := time.Now()
	stop()
	for _, c := range calls {
		var res *mcp.CallToolResult
		select {
		case res = <-c.res:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s on %s: no answer 10s after the shutdown began", c.tool, c.agent)
		}
		if res == nil {
			continue
		}
		f := failureOf(t, res)
		if !res.IsError || f.Code != "SERVICE_UNAVAILABLE" || f.Type != "TRANSPORT" || !f.Retryable || f.RetryAfter != 5 ||
			f.SessionValid || f.Message != "The bridge is shutting down" || f.Details["agentId"] != c.agent {
			t.Errorf("%s on %s: %+v\n%s", c.tool, c.agent, f, text(res))
		}
		if !strings.Contains(text(res), "The bridge is shutting down (TRANSPORT, retryable after 5s, session not valid)") {
			t.Errorf("%s on %s: text %q", c.tool, c.agent, text(res))
		}
	}
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return")
	}
	if d := time.Since(begun); d > 3*time.Second {
		t.Errorf("the shutdown took %v", d)
	}
	if err := m.Shutdown(); err != nil {
		t.Errorf("Manager.Shutdown: %v", err)
	}
	if d := time.Since(begun); d > 5*time.Second {
		t.Errorf("the shutdown, the workers' included, took %v", d)
	}
	for _, pid := range pids {
		if syscall.Kill(pid, 0) != syscall.ESRCH {
			t.Errorf("worker %d outlived the shutdown", pid)
		}
	}
}

// Shutdown answers the calls in flight, and every call from then on, over
// any transport; bridge_health included.
func TestShutdownRefusesLaterCalls(t *testing.T) {
	m := startManager(t, "agents:\n  - id: echo\n    kind: script\n")
	b := bridge.New(bridge.Config{Manager: m})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := b.Server().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	s, _ := call(t, cs, "sessions_create", map[string]any{"agentId": "echo"})
	hung := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sessions_prompt",
			Arguments: map[string]any{"sessionId": s["sessionId"], "prompt": "hang"}})
		hung <- res
	}()
	waitRunning(t, cs, []string{s["sessionId"].(string)}, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := b.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	select {
	case res := <-hung:
		if f := failureOf(t, res); f.Code != "SERVICE_UNAVAILABLE" || f.Details["sessionId"] != s["sessionId"] {
			t.Errorf("the hanging prompt: %+v", f)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call in flight was not answered")
	}
	for _, tool := range []string{"bridge_health", "sessions_create"} {
		f, txt := failed(t, cs, tool, map[string]any{"agentId": "echo"})
		if f.Code != "SERVICE_UNAVAILABLE" || !f.Retryable || f.RetryAfter != 5 || len(f.Recovery) == 0 ||
			!strings.HasPrefix(f.Recovery[0].Action, "Reconnect") {
			t.Errorf("%s after Shutdown: %+v\n%s", tool, f, txt)
		}
	}
	if err := b.Shutdown(ctx); err != nil {
		t.Errorf("second Shutdown: %v", err)
	}
}

// waitRunning waits until the sessions run a prompt and the bridge has
// calls calls in flight. A script agent runs in the process: its prompt
// has reached it then; an ACP agent's says so on its stderr (see
// logBuffer.awaitCount).
func waitRunning(t *testing.T, cs *mcp.ClientSession, sessions []string, calls int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ready := true
		for _, id := range sessions {
			if st, _ := call(t, cs, "sessions_status", map[string]any{"sessionId": id}); st["state"] != "running" {
				ready = false
			}
		}
		if h, _ := call(t, cs, "bridge_health", map[string]any{}); h["inFlight"] != float64(calls) {
			ready = false
		}
		if ready {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the prompts are not all running after 20s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// failureOf is a failed call's structured error.
func failureOf(t *testing.T, res *mcp.CallToolResult) failure {
	t.Helper()
	var out struct{ Error failure }
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("structured content %s: %v", data, err)
	}
	return out.Error
}

// Shutdown over streamable HTTP, as `triage serve`'s /mcp serves the
// bridge: the hanging call is answered on its stream and Shutdown returns
// at once, before the HTTP server's own shutdown.
func TestShutdownOverStreamableHTTP(t *testing.T) {
	m := startManager(t, "agents:\n  - id: echo\n    kind: script\n")
	b := bridge.New(bridge.Config{Manager: m})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return b.Server() }, nil))
	t.Cleanup(srv.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	s, _ := call(t, cs, "sessions_create", map[string]any{"agentId": "echo"})
	hung := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sessions_prompt",
			Arguments: map[string]any{"sessionId": s["sessionId"], "prompt": "hang"}})
		if err != nil {
			t.Errorf("the call failed instead of being answered: %v", err)
		}
		hung <- res
	}()
	waitRunning(t, cs, []string{s["sessionId"].(string)}, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	begun := time.Now()
	if err := b.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if d := time.Since(begun); d > 2*time.Second {
		t.Errorf("Shutdown took %v", d)
	}
	select {
	case res := <-hung:
		if res != nil {
			if f := failureOf(t, res); f.Code != "SERVICE_UNAVAILABLE" || f.RetryAfter != 5 {
				t.Errorf("the hanging prompt: %+v", f)
			}
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call in flight was not answered")
	}
}
