package bridge_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/fault"
)

// The failures of seed 002's WorkerExecutor table, with real worker
// processes, as an MCP client sees them.
func TestWorkerFailures(t *testing.T) {
	reg := scripted(t, workerAgents(t, 1, "1ms"))
	cs := connect(t, reg, agent.ManagerConfig{PromptTimeout: 500 * time.Millisecond}, bridge.Config{})

	newSession := func() string {
		s, res := call(t, cs, "sessions_create", map[string]any{"agentId": "worker"})
		if res.IsError {
			t.Fatalf("create: %s", text(res))
		}
		return s["sessionId"].(string)
	}
	h, _ := call(t, cs, "bridge_health", map[string]any{})
	if a := h["agents"].([]any)[0].(map[string]any); a["ready"] != true || a["workersAlive"] != 1.0 || a["workers"] != 1.0 {
		t.Fatalf("health: %v", h)
	}
	id := newSession()
	if p, res := call(t, cs, "sessions_prompt", map[string]any{"sessionId": id, "prompt": "hello worker"}); res.IsError || p["text"] != "You said: hello worker" {
		t.Fatalf("prompt: %v %s", p, text(res))
	}

	// A prompt past its deadline: the worker is told to cancel, the
	// session survives.
	f, txt := failed(t, cs, "sessions_prompt", map[string]any{"sessionId": id, "prompt": "hang"})
	if f.Code != "TIMEOUT" || f.Type != "TRANSPORT" || !f.Retryable || !f.SessionValid || !strings.HasPrefix(f.Message, "Worker ") || !strings.HasSuffix(f.Message, " timed out") {
		t.Errorf("hang: %+v\n%s", f, txt)
	}
	if p, res := call(t, cs, "sessions_prompt", map[string]any{"sessionId": id, "prompt": "still there"}); res.IsError || p["text"] != "You said: still there" {
		t.Errorf("after the timeout: %v %s", p, text(res))
	}

	// A worker that answers with an error.
	f, _ = failed(t, cs, "sessions_prompt", map[string]any{"sessionId": id, "prompt": "fail with RATE_LIMITED"})
	if f.Type != "UPSTREAM" || !strings.HasSuffix(f.Message, "failed: session/prompt") {
		t.Errorf("worker error: %+v", f)
	}

	// A stray line on the worker's output fails nothing, and
	// bridge_health counts it.
	if p, res := call(t, cs, "sessions_prompt", map[string]any{"sessionId": id, "prompt": "stray loading"}); res.IsError || p["text"] != "You said: stray loading" {
		t.Errorf("stray line: %v %s", p, text(res))
	}
	if h, _ := call(t, cs, "bridge_health", map[string]any{}); h["agents"].([]any)[0].(map[string]any)["workerStrayLines"] != 1.0 {
		t.Errorf("health after a stray line: %v", h)
	}

	// A refusal is not a success.
	f, _ = failed(t, cs, "sessions_prompt", map[string]any{"sessionId": id, "prompt": "refuse"})
	if f.Code != "CONTENT_REFUSED" || f.Retryable {
		t.Errorf("refusal: %+v", f)
	}

	// A malformed answer.
	id = newSession()
	f, _ = failed(t, cs, "sessions_prompt", map[string]any{"sessionId": id, "prompt": "malformed"})
	if f.Code != "PROTOCOL_ERROR" || f.Type != "UPSTREAM" || f.Message != "Invalid worker response: malformed prompt result" {
		t.Errorf("malformed: %+v", f)
	}

	// A crash mid-prompt invalidates the session; the agent recovers.
	id = newSession()
	f, _ = failed(t, cs, "sessions_prompt", map[string]any{"sessionId": id, "prompt": "crash"})
	if f.Code != "TRANSPORT_ERROR" || f.Type != "TRANSPORT" || !f.Retryable || f.SessionValid {
		t.Errorf("crash: %+v", f)
	}
	if st, _ := call(t, cs, "sessions_status", map[string]any{"sessionId": id}); st["state"] != "failed" {
		t.Errorf("crashed session state %v", st["state"])
	}
	f, _ = failed(t, cs, "sessions_prompt", map[string]any{"sessionId": id, "prompt": "again"})
	if f.Code != "SESSION_NOT_FOUND" || f.SessionValid {
		t.Errorf("prompt to the crashed session: %+v", f)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		d, res := call(t, cs, "tasks_delegate", map[string]any{"agentId": "worker", "prompt": "back"})
		if !res.IsError && d["text"] == "You said: back" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker never came back: %s", text(res))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestWorkerThatCannotStart(t *testing.T) {
	reg := scripted(t, workerAgents(t, 1, "not-a-duration"))
	m := agent.NewManager(reg.Build(nil), agent.ManagerConfig{})
	err := m.Start(context.Background())
	f, ok := fault.As(err)
	if !ok || f.Code != fault.TransportError || f.Category != fault.CategoryTransport || f.Message != "Failed to start worker" || f.Source != "worker" {
		t.Fatalf("Start: %v", err)
	}
	if _, err := m.Create(context.Background(), "", "worker", nil); fault.CodeOf(err) != fault.InternalError {
		t.Fatalf("Create on a manager that did not start: %v", err)
	}
}

// Nothing is left behind: after a session of every kind of failure and
// Shutdown, the goroutines are back where they were.
func TestNothingLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		reg := scripted(t, workerAgents(t, 2, "1ms"))
		m := agent.NewManager(reg.Build(nil), agent.ManagerConfig{PromptTimeout: 300 * time.Millisecond})
		if err := m.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		for _, p := range []string{"hello", "hang", "crash", "malformed", "fail with TIMEOUT"} {
			s, err := m.Create(ctx, "", "worker", nil)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			_, _ = m.Prompt(ctx, "", s.ID, p, nil)
			_ = m.Close("", s.ID)
		}
		if err := m.Shutdown(); err != nil {
			t.Logf("Shutdown: %v", err)
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestWorkerWithoutSessionID(t *testing.T) {
	yaml := strings.Replace(workerAgents(t, 1, "1ms"), `TRIAGE_WORKER_DELAY:`, `TRIAGE_WORKER_NO_SESSION_ID: "1", TRIAGE_WORKER_DELAY:`, 1)
	cs := connect(t, scripted(t, yaml), agent.ManagerConfig{}, bridge.Config{})
	f, txt := failed(t, cs, "sessions_create", map[string]any{"agentId": "worker"})
	if f.Code != "PROTOCOL_ERROR" || f.Type != "UPSTREAM" || f.Message != "Invalid worker response: missing sessionId" || f.Retryable {
		t.Errorf("%+v\n%s", f, txt)
	}
	if h, _ := call(t, cs, "bridge_health", map[string]any{}); h["sessions"] != 0.0 {
		t.Errorf("the failed create holds a slot: %v", h)
	}
}
