package aguirun_test

import (
	"testing"

	"github.com/triage-go/triage/wire/agui"
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
			agents := `agents:
  - {id: a, kind: script, script: {delay: ` + delay + `}}
  - {id: b, kind: script, script: {delay: ` + delay + `}}
  - {id: duo, kind: team, members: [a, b]}
`
			events, _, err := runAgentOf(t, agents, "duo", `call get_weather {"city":"Paris"}`)
			if err != nil {
				t.Fatalf("run error: %v\n%s", err, types(events))
			}
			ids := map[string]int{}
			for _, e := range events {
				if s, ok := e.(*agui.ToolCallStart); ok {
					ids[s.ToolCallID]++
				}
			}
			if len(ids) != 2 || events[len(events)-1].Type() != agui.TypeRunFinished {
				t.Errorf("tool calls %v, events %s; want two calls of their own and RUN_FINISHED", ids, types(events))
			}
		})
	}
}
