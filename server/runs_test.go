package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/wire/agui"
	"github.com/triage-go/triage/wire/present"
	"github.com/triage-go/triage/wire/sse"
)

func runsFixture(t *testing.T, opts agent.ManagerConfig) *fixture {
	t.Helper()
	m := agent.NewManager(agent.Default().Build(nil), opts)
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return newFixture(t, func(c *Config) { c.Agents = m })
}

func runInput(prompt string) []byte {
	return fmt.Appendf(nil, `{"threadId":"t1","runId":"r1","messages":[{"id":"m1","role":"user","content":%q}],"tools":[],"context":[],"state":{},"forwardedProps":{}}`, prompt)
}

// runEvents reads a run's stream and checks it as a 1.0 client would.
func runEvents(t *testing.T, r response) []agui.Event {
	t.Helper()
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d %s: %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	var events []agui.Event
	rd := sse.NewReader(strings.NewReader(string(r.body)))
	for {
		f, err := rd.Next()
		if err != nil {
			break
		}
		e, err := agui.Parse([]byte(f.Data))
		if err != nil {
			t.Fatalf("%s: %v", f.Data, err)
		}
		events = append(events, e)
	}
	if err := agui.Verify(events...); err != nil {
		t.Fatalf("stream: %v", err)
	}
	return events
}

func TestRunStreamsTheAgent(t *testing.T) {
	t.Parallel()
	f := runsFixture(t, agent.ManagerConfig{})
	events := runEvents(t, f.do("POST", "/v1/agents/echo/runs", runInput("hello there"), nil))
	var text strings.Builder
	var types []string
	for _, e := range events {
		types = append(types, string(e.Type()))
		if c, ok := e.(*agui.TextMessageContent); ok {
			text.WriteString(c.Delta)
		}
	}
	if text.String() != "You said: hello there" || types[0] != "RUN_STARTED" || types[1] != "STEP_STARTED" || types[len(types)-1] != "RUN_FINISHED" {
		t.Fatalf("%v %q", types, text.String())
	}
}

func TestRunFailsWithRunError(t *testing.T) {
	t.Parallel()
	f := runsFixture(t, agent.ManagerConfig{})
	events := runEvents(t, f.do("POST", "/v1/agents/echo/runs", runInput("fail with RATE_LIMITED after 7s"), nil))
	last, ok := events[len(events)-1].(*agui.RunError)
	if !ok || last.Code != "RATE_LIMITED" || fmt.Sprint(last.Metadata["retry_after"]) != "7" || last.Metadata["retryable"] != true {
		t.Fatalf("last event %#v", events[len(events)-1])
	}
	body := f.do("GET", "/metrics", nil, nil).body
	if !strings.Contains(string(body), `triage_runs_total{agent="echo",code="RATE_LIMITED",outcome="failed"} 1`) {
		t.Errorf("metrics lack the failed run")
	}
}

func TestRunRefusesBadInput(t *testing.T) {
	t.Parallel()
	f := runsFixture(t, agent.ManagerConfig{})
	for _, c := range []struct {
		path string
		body string
		want int
	}{
		{"/v1/agents/echo/runs", `{"threadId":"t1"}`, http.StatusBadRequest},
		{"/v1/agents/echo/runs", `not json`, http.StatusBadRequest},
		{"/v1/agents/nobody/runs", string(runInput("hi")), http.StatusNotFound},
	} {
		r := f.do("POST", c.path, []byte(c.body), nil)
		if r.status != c.want || r.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s %s: %d %s", c.path, c.body, r.status, r.body)
		}
	}
}

// A client that goes away stops the run: its session is closed.
func TestRunStopsWhenTheClientGoes(t *testing.T) {
	t.Parallel()
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown()
	f := newFixture(t, func(c *Config) { c.Agents = m })
	leave := startRun(t, f, runInput("hang"))
	if m.Health().Sessions != 1 {
		t.Fatalf("sessions %d while running", m.Health().Sessions)
	}
	leave()
	deadline := time.Now().Add(5 * time.Second)
	for m.Health().Sessions != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the run outlived its client")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A client that asks for application/x-ndjson gets seed 001's CAP packets.
func TestRunAsCAPStream(t *testing.T) {
	t.Parallel()
	f := runsFixture(t, agent.ManagerConfig{})
	r := f.do("POST", "/v1/agents/echo/runs", runInput("fail with RATE_LIMITED"), map[string]string{"Accept": "application/x-ndjson"})
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("%d %s: %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	lines := strings.Split(strings.TrimSpace(string(r.body)), "\n")
	last, err := present.ParsePacket([]byte(lines[len(lines)-1]))
	if err != nil || last.Op != present.OpError || last.Error.Code != "RATE_LIMITED" || last.Error.Severity != present.SeverityTransient {
		t.Fatalf("last packet %s: %v", lines[len(lines)-1], err)
	}
	r = f.do("POST", "/v1/agents/echo/runs", runBody("cap-2", "hi there"), map[string]string{"Accept": "application/x-ndjson"})
	var text strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(string(r.body)), "\n") {
		p, err := present.ParsePacket([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(p.Delta)
	}
	if text.String() != "You said: hi there" || !strings.Contains(string(r.body), `"op":"close"`) {
		t.Fatalf("%s", r.body)
	}
}

// startRun posts a run and reads its stream until the agent's step has
// started; it returns what a client that goes away does.
func startRun(t *testing.T, f *fixture, body []byte) (leave func()) {
	t.Helper()
	return startRunOf(t, f, "echo", body)
}

// startRunOf is startRun for any agent.
func startRunOf(t *testing.T, f *fixture, agentID string, body []byte) (leave func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", f.http.URL+"/v1/agents/"+agentID+"/runs", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.http.Client().Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	rd := bufio.NewReader(resp.Body)
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		if strings.Contains(line, "STEP_STARTED") {
			break
		}
	}
	return func() {
		cancel()
		resp.Body.Close()
	}
}

// A run with no prompt (no user message, or one without text) is refused
// before its stream, as /mcp refuses an empty prompt: 422 INVALID_REQUEST,
// and no record.
func TestRunRefusesEmptyPrompt(t *testing.T) {
	t.Parallel()
	f := recordsFixture(t, nil)
	for name, messages := range map[string]string{
		"no message":            `[]`,
		"an assistant message":  `[{"id":"a1","role":"assistant","content":"Hello."}]`,
		"an empty user message": `[{"id":"m1","role":"user","content":""}]`,
		"a blank user message":  `[{"id":"m1","role":"user","content":" \n "}]`,
		"the last one blank":    `[{"id":"m1","role":"user","content":"hi"},{"id":"a1","role":"assistant","content":"You said: hi"},{"id":"m2","role":"user","content":"  "}]`,
		"an image, no text":     `[{"id":"m1","role":"user","content":[{"type":"image","source":{"type":"url","value":"https://x/a.png"}}]}]`,
	} {
		body := fmt.Appendf(nil, `{"threadId":"t1","runId":"empty","messages":%s}`, messages)
		r := f.do("POST", "/v1/agents/echo/runs", body, nil)
		if r.status != http.StatusUnprocessableEntity || codeOf(t, r) != "INVALID_REQUEST" || !fieldsOf(t, r)["messages"] {
			t.Errorf("%s: %d %s", name, r.status, r.body)
		}
	}
	if r := f.do("GET", "/v1/runs/empty", nil, nil); r.status != http.StatusNotFound {
		t.Errorf("a refused run was recorded: %d %s", r.status, r.body)
	}
	// A thread whose last message is the answer runs its last user message.
	events := runEvents(t, f.do("POST", "/v1/agents/echo/runs",
		[]byte(`{"threadId":"t1","runId":"again","messages":[{"id":"m1","role":"user","content":"hi"},{"id":"a1","role":"assistant","content":"You said: hi"}]}`), nil))
	if events[len(events)-1].Type() != agui.TypeRunFinished {
		t.Errorf("the run ended with %s", events[len(events)-1].Type())
	}
}
