package server

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/agent"
)

// runFrames are the functions a run's goroutines run in: the handler's
// stream, the graph, the bridge from graph to AG-UI, the agents' prompts.
// A goroutine in one of them after every run has ended is a leak.
var runFrames = []string{
	"server.(*Server).postRun", "server.(*Server).streamAGUI",
	"triage/graph.", "triage/aguirun.",
	"agent.(*Manager).Prompt", "agent.(*Manager).Delegate", "agent.(*scriptBackend).Prompt", "agent.(*teamBackend).Prompt",
}

// runGoroutines returns the stacks of the goroutines still in a run.
func runGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, f := range runFrames {
			if strings.Contains(g, f) {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

// No run leaves a goroutine behind when its client aborts it: neither a
// one-node run nor a team's fan-out, whose branches run on goroutines of
// their own, each waiting on an agent.
func TestAbortedRunsLeakNoGoroutines(t *testing.T) {
	t.Parallel()
	reg, err := agent.Parse([]byte(`agents:
  - {id: echo, kind: script}
  - {id: other, kind: script}
  - {id: panel, kind: team, members: [echo, other]}
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := agent.NewManager(reg.Build(nil), agent.ManagerConfig{})
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown()
	f := newFixture(t, func(c *Config) { c.Agents = m })

	for i, agentID := range []string{"echo", "panel", "echo", "panel"} {
		body := strings.Replace(string(runInput("hang")), `"runId":"r1"`, `"runId":"r`+strconv.Itoa(i)+`"`, 1)
		leave := startRunOf(t, f, agentID, []byte(body))
		if len(runGoroutines()) == 0 {
			t.Fatalf("%s: no goroutine seen in a running run: runFrames no longer names the run's code", agentID)
		}
		leave()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := runGoroutines()
		if len(left) == 0 && m.Health().Sessions == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines outlived the aborted runs (sessions %d):\n\n%s", len(left), m.Health().Sessions, strings.Join(left, "\n\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
