package aguirun_test

import (
	"testing"

	"github.com/triage-go/triage/agent"
)

// An AG-UI run of a team answers what the team agent answers (both run
// agent.TeamGraph): the same text and the same stop reason, a tool call's
// included.
func TestTeamRunAnswersAsTheTeamAgent(t *testing.T) {
	const agents = `agents:
  - {id: a, kind: script, script: {reply: "ok {{prompt}}"}}
  - {id: b, kind: script, script: {chunks: ["one ", "two"]}}
  - {id: duo, kind: team, members: [a, b]}
`
	for _, prompt := range []string{"hi", `call get_weather {"city":"Paris"}`} {
		reg, err := agent.Parse([]byte(agents), "t.yaml")
		if err != nil {
			t.Fatal(err)
		}
		m := agent.NewManager(reg.Build(nil), agent.ManagerConfig{})
		if err := m.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = m.Shutdown() })
		want, _, err := m.Delegate(t.Context(), "acme", "duo", prompt, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, final, err := runAgentOf(t, agents, "duo", prompt)
		if err != nil {
			t.Fatal(err)
		}
		if final.Answer != want.Text || final.StopReason != want.StopReason {
			t.Errorf("%s: the run answered %q (%s), the team agent %q (%s)", prompt, final.Answer, final.StopReason, want.Text, want.StopReason)
		}
		if prompt != "hi" && want.StopReason != agent.StopToolCall {
			t.Errorf("%s: stop reason %q, want %q", prompt, want.StopReason, agent.StopToolCall)
		}
	}
}
