package aguirun_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/aguirun"
	"github.com/triage-go/triage/wire/agui"
	"github.com/triage-go/triage/wire/sse"
)

// A team of two script agents, each asked to call a frontend tool: both
// number their calls from 1, but every tool call of the run has an id of
// its own (the member's message id and the agent's), and the run finishes.
// With the agents' own ids, the overlapping calls were refused and the
// stream stopped; in turns, the client appended the second call's
// arguments to the first's.
func TestTeamToolCallIDsAreTheRuns(t *testing.T) {
	for _, delay := range []string{"0s", "20ms"} {
		t.Run("delay="+delay, func(t *testing.T) {
			yaml := `agents:
  - {id: a, kind: script, script: {delay: ` + delay + `}}
  - {id: b, kind: script, script: {delay: ` + delay + `}}
  - {id: duo, kind: team, members: [a, b]}
`
			reg, err := agent.Parse([]byte(yaml), "t.yaml")
			if err != nil {
				t.Fatal(err)
			}
			m := agent.NewManager(reg.Build(agent.BuildOptions{}), agent.Options{})
			if err := m.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = m.Shutdown() })
			g, err := aguirun.AgentGraph(m, "duo")
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			state := aguirun.AgentState{AgentID: "duo", Owner: "acme", Prompt: `call get_weather {"city":"Paris"}`, MessageID: "msg-r1"}
			_, runErr := aguirun.Run(context.Background(), agui.NewWriter(sse.NewWriter(&buf), nil), g, state,
				aguirun.Options[aguirun.AgentState]{ThreadID: "t1", RunID: "r1"})
			if runErr != nil {
				t.Fatalf("run error: %v\n%s", runErr, buf.String())
			}
			ids := map[string]int{}
			var last agui.Event
			rd := sse.NewReader(&buf)
			for {
				f, err := rd.Next()
				if err != nil {
					break
				}
				e, err := agui.Parse([]byte(f.Data))
				if err != nil {
					t.Fatal(err)
				}
				if s, ok := e.(*agui.ToolCallStart); ok {
					ids[s.ToolCallID]++
				}
				last = e
			}
			for id, n := range ids {
				if n > 1 {
					t.Errorf("toolCallId %q started %d times in one run", id, n)
				}
			}
			if len(ids) != 2 || last == nil || last.Type() != agui.TypeRunFinished {
				t.Errorf("tool calls %v, last event %v; want two calls and RUN_FINISHED", ids, last)
			}
		})
	}
}
