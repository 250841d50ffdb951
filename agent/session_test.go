package agent_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/fault"
)

func manager(t *testing.T, yaml string, opts agent.ManagerConfig) *agent.Manager {
	t.Helper()
	reg, err := agent.Parse([]byte(yaml), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := agent.NewManager(reg.Build(nil), opts)
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return m
}

const oneEcho = "agents:\n  - {id: echo, kind: script, maxSessions: 4}\n"

func TestSessionLifecycle(t *testing.T) {
	m := manager(t, oneEcho, agent.ManagerConfig{})
	ctx := context.Background()
	s, err := m.Create(ctx, "acme", "echo", map[string]any{"k": "v"})
	if err != nil || s.State != agent.StateIdle || s.AgentID != "echo" || s.Metadata["k"] != "v" {
		t.Fatalf("%+v %v", s, err)
	}
	var chunks []string
	res, err := m.Prompt(ctx, "acme", s.ID, "a b", func(c agent.Chunk) { chunks = append(chunks, c.Text) })
	if err != nil || res.Text != "You said: a b" || res.StopReason != "end_turn" || len(chunks) != 4 {
		t.Fatalf("%+v %v %q", res, err, chunks)
	}
	st, _ := m.Status("acme", s.ID)
	if st.Prompts != 1 || st.State != agent.StateIdle {
		t.Fatalf("%+v", st)
	}
	// Another owner does not see it.
	if _, err := m.Status("globex", s.ID); fault.CodeOf(err) != fault.SessionNotFound {
		t.Fatalf("another owner: %v", err)
	}
	if err := m.Close("globex", s.ID); err != nil {
		t.Fatal(err)
	}
	if st, _ := m.Status("acme", s.ID); st.State != agent.StateIdle {
		t.Fatalf("another owner closed it: %+v", st)
	}
	if err := m.Close("acme", s.ID); err != nil {
		t.Fatal(err)
	}
	if err := m.Close("acme", s.ID); err != nil {
		t.Fatal("second close:", err)
	}
	if st, _ := m.Status("acme", s.ID); st.State != agent.StateClosed {
		t.Fatalf("%+v", st)
	}
	if h := m.Health(); !h.Ready || h.Sessions != 0 {
		t.Fatalf("%+v", h)
	}
}

func TestCapacity(t *testing.T) {
	m := manager(t, oneEcho, agent.ManagerConfig{OwnerShare: 2})
	ctx := context.Background()
	var ids []string
	for range 2 {
		s, err := m.Create(ctx, "acme", "echo", nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	_, err := m.Create(ctx, "acme", "echo", nil)
	f, _ := fault.As(err)
	if f == nil || f.Message != "Session capacity reached" || f.Category != fault.CategoryUpstream || f.Retryable || f.Details["maxSessions"] != 2 {
		t.Fatalf("owner's share: %v", err)
	}
	for range 2 {
		if _, err := m.Create(ctx, "globex", "echo", nil); err != nil {
			t.Fatal("the other owner:", err)
		}
	}
	if _, err := m.Create(ctx, "initech", "echo", nil); err == nil {
		t.Fatal("past the agent's capacity")
	}
	_ = m.Close("acme", ids[0])
	if _, err := m.Create(ctx, "acme", "echo", nil); err != nil {
		t.Fatal("a closed session's slot was not freed:", err)
	}
}

// HealthOf counts one owner's sessions only, and its share of each
// agent: a tenant must not read another's activity. Health counts all.
func TestHealthOf(t *testing.T) {
	m := manager(t, oneEcho, agent.ManagerConfig{OwnerShare: 2})
	ctx := context.Background()
	for _, owner := range []string{"acme", "acme", "globex"} {
		if _, err := m.Create(ctx, owner, "echo", nil); err != nil {
			t.Fatal(err)
		}
	}
	for owner, want := range map[string]int{"acme": 2, "globex": 1, "initech": 0} {
		h := m.HealthOf(owner)
		if !h.Ready || h.Sessions != want || len(h.Agents) != 1 ||
			h.Agents[0].Sessions != want || h.Agents[0].MaxSessions != 2 {
			t.Errorf("HealthOf(%q) = %+v, want %d sessions of at most 2", owner, h, want)
		}
	}
	if h := m.Health(); h.Sessions != 3 || h.Agents[0].Sessions != 3 || h.Agents[0].MaxSessions != 4 {
		t.Errorf("Health = %+v, want 3 sessions of 4", h)
	}
	// Without OwnerShare an owner may hold the agent's every session.
	one := manager(t, oneEcho, agent.ManagerConfig{})
	if _, err := one.Create(ctx, "", "echo", nil); err != nil {
		t.Fatal(err)
	}
	if h := one.HealthOf(""); h.Sessions != 1 || h.Agents[0].MaxSessions != 4 {
		t.Errorf("HealthOf without a share = %+v", h)
	}
}

func TestIdleSessionsClose(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	m := manager(t, oneEcho, agent.ManagerConfig{IdleTTL: 40 * time.Millisecond, Now: clock})
	s, err := m.Create(context.Background(), "", "echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	now.Add(int64(time.Second))
	waitFor(t, func() bool { st, _ := m.Status("", s.ID); return st.State == agent.StateClosed })
	if m.Health().Sessions != 0 {
		t.Fatal("the idle session holds its slot")
	}
	// One more TTL and it is forgotten.
	now.Add(int64(time.Second))
	waitFor(t, func() bool { _, err := m.Status("", s.ID); return fault.CodeOf(err) == fault.SessionNotFound })
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Cancel racing completion: either the answer or CANCELLED, never both,
// never a session stuck running.
func TestCancelRacesCompletion(t *testing.T) {
	m := manager(t, "agents:\n  - {id: echo, kind: script, script: {delay: 1ms}}\n", agent.ManagerConfig{})
	ctx := context.Background()
	s, err := m.Create(ctx, "", "echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	var done, cancelled int
	for i := range 300 {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i%60) * 100 * time.Microsecond)
			_, _, _ = m.Cancel(ctx, "", s.ID)
		}()
		res, err := m.Prompt(ctx, "", s.ID, "hi", nil)
		wg.Wait()
		switch {
		case err == nil && res.Text == "You said: hi":
			done++
		case fault.CodeOf(err) == fault.Cancelled:
			cancelled++
		default:
			t.Fatalf("run %d: %+v %v", i, res, err)
		}
		st, _ := m.Status("", s.ID)
		if st.State != agent.StateIdle && st.State != agent.StateCancelled {
			t.Fatalf("run %d: state %s", i, st.State)
		}
	}
	t.Logf("%d answered, %d cancelled", done, cancelled)
	if done == 0 || cancelled == 0 {
		t.Errorf("the race was not run: %d answered, %d cancelled", done, cancelled)
	}
}

func TestSessionBusyAndClose(t *testing.T) {
	m := manager(t, oneEcho, agent.ManagerConfig{})
	ctx := context.Background()
	s, _ := m.Create(ctx, "", "echo", nil)
	errs := make(chan error, 1)
	go func() {
		_, err := m.Prompt(ctx, "", s.ID, "hang", nil)
		errs <- err
	}()
	waitFor(t, func() bool { st, _ := m.Status("", s.ID); return st.State == agent.StateRunning })
	if _, err := m.Prompt(ctx, "", s.ID, "second", nil); fault.CodeOf(err) != fault.SessionBusy {
		t.Fatalf("second prompt: %v", err)
	}
	_ = m.Close("", s.ID)
	err := <-errs
	if f, ok := fault.As(err); !ok || f.Code != fault.Cancelled || f.SessionValid {
		t.Fatalf("prompt closed under it: %v", err)
	}
	if _, err := m.Prompt(ctx, "", s.ID, "x", nil); fault.CodeOf(err) != fault.SessionNotFound {
		t.Fatalf("prompt after close: %v", err)
	}
}

func TestCallerGoesAway(t *testing.T) {
	m := manager(t, oneEcho, agent.ManagerConfig{})
	s, _ := m.Create(context.Background(), "", "echo", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := m.Prompt(ctx, "", s.ID, "hang", nil)
	if f, ok := fault.As(err); !ok || f.Code != fault.Cancelled || !f.SessionValid {
		t.Fatalf("%v", err)
	}
}

func TestNotStartedAndNoAgents(t *testing.T) {
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
	if _, err := m.Create(context.Background(), "", "echo", nil); fault.CodeOf(err) != fault.InternalError {
		t.Fatalf("before Start: %v", err)
	}
	_, err := m.Prompt(context.Background(), "", "x", "y", nil)
	if f, ok := fault.As(err); !ok || f.Message != "Executor not started" || f.Category != fault.CategoryInternal {
		t.Fatalf("before Start: %v", err)
	}
	none := agent.NewManager(nil, agent.ManagerConfig{})
	if f, ok := fault.As(none.Start(context.Background())); !ok || f.Message != "No agents registered" || f.Category != fault.CategoryConfig {
		t.Fatal("no agents")
	}
	started := manager(t, oneEcho, agent.ManagerConfig{})
	_ = started.Shutdown()
	if _, err := started.Create(context.Background(), "", "echo", nil); fault.CodeOf(err) != fault.InternalError {
		t.Fatalf("after Shutdown: %v", err)
	}
}

func TestScriptedFailures(t *testing.T) {
	m := manager(t, `
agents:
  - id: echo
    kind: script
  - id: flaky
    kind: script
    script: {chunks: ["one ", "two"], fail: {code: UPSTREAM_ERROR, after: 1, message: "Flaky upstream"}}
`, agent.ManagerConfig{})
	ctx := context.Background()
	s, _ := m.Create(ctx, "", "echo", nil)
	_, err := m.Prompt(ctx, "", s.ID, "fail with RATE_LIMITED after 9s", nil)
	if f, ok := fault.As(err); !ok || f.Code != fault.RateLimited || f.RetryAfter != 9*time.Second || f.Source != "echo" || f.Details["agentId"] != "echo" {
		t.Fatalf("%v", err)
	}
	_, err = m.Prompt(ctx, "", s.ID, "fail with TIMEOUT", nil)
	if f, _ := fault.As(err); f.RetryAfter != 2*time.Second {
		t.Fatalf("default delay: %v", f.RetryAfter)
	}
	_, err = m.Prompt(ctx, "", s.ID, "fail", nil)
	if f, ok := fault.As(err); !ok || f.Message != "Agent echo failed" || f.Category != fault.CategoryUpstream || f.Retryable || !f.SessionValid {
		t.Fatalf("%v", err)
	}
	fs, _ := m.Create(ctx, "", "flaky", nil)
	var got string
	res, err := m.Prompt(ctx, "", fs.ID, "x", func(c agent.Chunk) { got += c.Text })
	if f, ok := fault.As(err); !ok || f.Message != "Flaky upstream" || got != "one " || res.Text != "one " {
		t.Fatalf("%+v %v %q", res, err, got)
	}
}

func TestDelegate(t *testing.T) {
	m := manager(t, oneEcho, agent.ManagerConfig{})
	res, s, err := m.Delegate(context.Background(), "", "echo", "task", nil, nil)
	if err != nil || res.Text != "You said: task" || s.State != agent.StateClosed {
		t.Fatalf("%+v %+v %v", res, s, err)
	}
	_, _, err = m.Delegate(context.Background(), "", "echo", "fail with TIMEOUT", nil, nil)
	if f, ok := fault.As(err); !ok || f.SessionValid {
		t.Fatalf("a delegated session is closed either way: %v", err)
	}
	if _, _, err := m.Delegate(context.Background(), "", "nobody", "x", nil, nil); fault.CodeOf(err) != fault.CapabilityNotFound {
		t.Fatal(err)
	}
	if m.Health().Sessions != 0 {
		t.Fatal("delegation left a session open")
	}
}

// A tenant opening and closing sessions in a loop cannot grow the memory of
// ended sessions without bound.
func TestEndedSessionsAreBounded(t *testing.T) {
	m := manager(t, oneEcho, agent.ManagerConfig{})
	ctx := context.Background()
	var first, last string
	for i := range agent.MaxEnded + 10 {
		s, err := m.Create(ctx, "", "echo", map[string]any{"big": "metadata"})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = s.ID
		}
		last = s.ID
		_ = m.Close("", s.ID)
	}
	if _, err := m.Status("", first); fault.CodeOf(err) != fault.SessionNotFound {
		t.Errorf("the oldest ended session is remembered: %v", err)
	}
	st, err := m.Status("", last)
	if err != nil || st.State != agent.StateClosed || st.Metadata != nil {
		t.Errorf("the newest: %+v %v", st, err)
	}
}

func TestScriptedToolCalls(t *testing.T) {
	m := manager(t, oneEcho, agent.ManagerConfig{})
	var calls []agent.ToolCall
	res, _, err := m.Delegate(t.Context(), "acme", "echo", `call get_weather {"city":"Paris"}`, nil, func(c agent.Chunk) {
		if c.Text != "" || c.ToolCall == nil {
			t.Errorf("chunk %+v", c)
			return
		}
		calls = append(calls, *c.ToolCall)
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != agent.StopToolCall || res.Text != "" {
		t.Errorf("result %+v", res)
	}
	if len(calls) != 2 || calls[0].Name != "get_weather" || calls[1].Name != "" || calls[0].End || !calls[1].End ||
		calls[0].ID == "" || calls[0].ID != calls[1].ID || calls[0].Args+calls[1].Args != `{"city":"Paris"}` {
		t.Errorf("calls %+v", calls)
	}

	calls = nil
	_, _, err = m.Delegate(t.Context(), "acme", "echo", `call get_weather {"city":"Paris"} then fail with RATE_LIMITED after 4s`, nil, func(c agent.Chunk) {
		calls = append(calls, *c.ToolCall)
	})
	if f, ok := fault.As(err); !ok || f.Code != fault.RateLimited || f.RetryAfter != 4*time.Second {
		t.Errorf("err = %v", err)
	}
	if len(calls) != 1 || calls[0].End || calls[0].Name != "get_weather" {
		t.Errorf("an interrupted call: %+v", calls)
	}

	// Arguments that are not JSON are no call: the prompt is echoed.
	res, _, err = m.Delegate(t.Context(), "acme", "echo", `call get_weather {city}`, nil, nil)
	if err != nil || res.Text != "You said: call get_weather {city}" {
		t.Errorf("%+v %v", res, err)
	}
}

func TestScriptedNotice(t *testing.T) {
	m := manager(t, oneEcho, agent.ManagerConfig{})
	var notices []*fault.Error
	var text string
	res, _, err := m.Delegate(t.Context(), "acme", "echo", "warn with SERVICE_UNAVAILABLE after 5s, then hello", nil, func(c agent.Chunk) {
		if c.Notice != nil {
			notices = append(notices, c.Notice)
		}
		text += c.Text
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(notices) != 1 || notices[0].Code != fault.ServiceUnavailable || notices[0].RetryAfter != 5*time.Second {
		t.Fatalf("notices %+v", notices)
	}
	if text != "You said: warn with SERVICE_UNAVAILABLE after 5s, then hello" || res.Text != text || res.StopReason != "end_turn" {
		t.Errorf("the answer after the notice: %q, %+v", text, res)
	}
}

// slowClose is a backend whose Close takes a second, as an ACP agent's
// does while its workers finish their turns.
type slowClose struct{ agent.Backend }

func (slowClose) Close() error { time.Sleep(time.Second); return nil }

// Shutdown stops the agents at once: three agents taking a second each
// to close stop in one second, not three. (Issue 23: a bridge with several
// ACP agents stopped them one after another.)
func TestShutdownClosesAgentsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg, err := agent.Parse([]byte("agents:\n  - {id: a, kind: script}\n  - {id: b, kind: script}\n  - {id: c, kind: script}\n"), "t.yaml")
		if err != nil {
			t.Fatal(err)
		}
		agents := reg.Build(nil)
		for i := range agents {
			agents[i].Backend = slowClose{agents[i].Backend}
		}
		m := agent.NewManager(agents, agent.ManagerConfig{})
		if err := m.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		begun := time.Now()
		if err := m.Shutdown(); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(begun); d != time.Second {
			t.Errorf("Shutdown took %v of the bubble's clock, want 1s", d)
		}
	})
}
