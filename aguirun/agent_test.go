package aguirun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/aguirun"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/agui"
	"github.com/triage-go/triage/wire/sse"
)

const teamAgents = `agents:
  - {id: fast, kind: script, script: {reply: "quick {{prompt}}"}}
  - {id: slow, kind: script, script: {chunks: ["one ", "two"], delay: 20ms}}
  - id: limited
    kind: script
    script: {chunks: ["a ", "b"], delay: 10ms, fail: {code: RATE_LIMITED, after: 1, retryAfter: 3s}}
  - {id: slower, kind: script, script: {delay: 2s}}
  - {id: panel, kind: team, members: [slow, fast]}
  - {id: strained, kind: team, members: [slower, limited]}
`

// runAgent runs an agent of teamAgents as an AG-UI run and returns its
// events, checked by the Verifier a 1.0 client applies.
func runAgent(t *testing.T, agentID, prompt string) ([]agui.Event, aguirun.AgentState, error) {
	t.Helper()
	return runAgentOf(t, teamAgents, agentID, prompt)
}

// runAgentOf is runAgent with the agents of the YAML file agents.
func runAgentOf(t *testing.T, agents, agentID, prompt string) ([]agui.Event, aguirun.AgentState, error) {
	t.Helper()
	reg, err := agent.Parse([]byte(agents), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := agent.NewManager(reg.Build(nil), agent.ManagerConfig{})
	if err := m.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	g, err := aguirun.AgentGraph(m, agentID)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	state := aguirun.AgentState{AgentID: agentID, Owner: "acme", Prompt: prompt, MessageID: "msg-r1"}
	final, runErr := aguirun.Run(context.Background(), agui.NewWriter(sse.NewWriter(&buf), nil), g, state,
		aguirun.Options[aguirun.AgentState]{ThreadID: "t1", RunID: "r1"})
	events := verified(t, &buf)
	return events, final, runErr
}

// texts is the text of each message, by id.
func texts(events []agui.Event) map[string]string {
	out := map[string]string{}
	for _, e := range events {
		if c, ok := e.(*agui.TextMessageContent); ok {
			out[c.MessageID] += c.Delta
		}
	}
	return out
}

func steps(events []agui.Event, typ agui.EventType) []string {
	var out []string
	for _, e := range events {
		switch x := e.(type) {
		case *agui.StepStarted:
			if typ == x.Type() {
				out = append(out, x.StepName)
			}
		case *agui.StepFinished:
			if typ == x.Type() {
				out = append(out, x.StepName)
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestAgentGraphOfOneAgent(t *testing.T) {
	events, final, err := runAgent(t, "fast", "hi")
	if err != nil {
		t.Fatal(err)
	}
	if got := types(events); got != "RUN_STARTED STEP_STARTED(fast) TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT(quick ) TEXT_MESSAGE_CONTENT(hi) TEXT_MESSAGE_END STEP_FINISHED(fast) RUN_FINISHED" {
		t.Errorf("events %s", got)
	}
	if final.Answer != "quick hi" || final.StopReason != "end_turn" {
		t.Errorf("final %+v", final)
	}
}

func TestAgentGraphOfATeam(t *testing.T) {
	events, final, err := runAgent(t, "panel", "hi")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := steps(events, agui.TypeStepStarted), []string{"fast", "panel", "panel/answer", "slow"}; !slices.Equal(got, want) {
		t.Errorf("steps started %v, want %v", got, want)
	}
	if got, want := steps(events, agui.TypeStepFinished), []string{"fast", "panel", "panel/answer", "slow"}; !slices.Equal(got, want) {
		t.Errorf("steps finished %v, want %v", got, want)
	}
	// Each member streams a message of its own.
	if got := texts(events); got["msg-r1-slow"] != "one two" || got["msg-r1-fast"] != "quick hi" || len(got) != 2 {
		t.Errorf("messages %q", got)
	}
	if final.Answer != "slow: one two\n\nfast: quick hi" {
		t.Errorf("answer %q", final.Answer)
	}
	if first, last := events[1].(*agui.StepStarted), events[len(events)-2].(*agui.StepFinished); first.StepName != "panel" || last.StepName != "panel/answer" {
		t.Errorf("the run opens with %s and closes with %s", first.StepName, last.StepName)
	}
}

func TestAgentGraphOfATeamFailsInABranch(t *testing.T) {
	events, _, err := runAgent(t, "strained", "hi")
	f, ok := fault.As(err)
	if !ok || f.Code != fault.RateLimited {
		t.Fatalf("err = %v, want RATE_LIMITED", err)
	}
	last, ok := events[len(events)-1].(*agui.RunError)
	if !ok {
		t.Fatalf("last event %s", types(events))
	}
	if last.Code != "RATE_LIMITED" {
		t.Errorf("RUN_ERROR %+v", last)
	}
	md := last.Metadata
	details, _ := md["details"].(map[string]any)
	if fmt.Sprint(md["retry_after"]) != "3" || details["node"] != "limited" || details["agentId"] != "limited" {
		t.Errorf("metadata %v", md)
	}
	// The failing member's text stays, and its message is ended before
	// the RUN_ERROR; the cancelled member said nothing.
	if got := texts(events); got["msg-r1-limited"] != "a " || len(got) != 1 {
		t.Errorf("messages %q", got)
	}
	if !strings.Contains(types(events), "TEXT_MESSAGE_END RUN_ERROR(RATE_LIMITED)") {
		t.Errorf("events %s", types(events))
	}
}

func TestAgentGraphStreamsToolCalls(t *testing.T) {
	events, final, err := runAgent(t, "fast", `call get_weather {"city":"Paris"}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := types(events); got != "RUN_STARTED STEP_STARTED(fast) TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_ARGS TOOL_CALL_END STEP_FINISHED(fast) RUN_FINISHED" {
		t.Errorf("events %s", got)
	}
	start := events[2].(*agui.ToolCallStart)
	if start.ToolCallName != "get_weather" || start.ParentMessageID != "msg-r1" {
		t.Errorf("start %+v", start)
	}
	args := events[3].(*agui.ToolCallArgs).Delta + events[4].(*agui.ToolCallArgs).Delta
	if args != `{"city":"Paris"}` {
		t.Errorf("arguments %q", args)
	}
	if final.StopReason != agent.StopToolCall {
		t.Errorf("stop reason %q", final.StopReason)
	}
}

func TestAgentGraphLeavesAnInterruptedToolCallOpen(t *testing.T) {
	events, _, err := runAgent(t, "fast", `call get_weather {"city":"Paris"} then fail with UPSTREAM_ERROR`)
	if fault.CodeOf(err) != fault.UpstreamError {
		t.Fatalf("err = %v", err)
	}
	// No TOOL_CALL_END: the client must not run a tool on half its
	// arguments.
	if got := types(events); got != "RUN_STARTED STEP_STARTED(fast) TOOL_CALL_START TOOL_CALL_ARGS RUN_ERROR(UPSTREAM_ERROR)" {
		t.Errorf("events %s", got)
	}
}

// A notice (seed 001's user_error) is a CUSTOM event inside the node's
// step, and the run goes on to finish; a team passes its members' on.
func TestAgentGraphSendsNotices(t *testing.T) {
	for _, id := range []string{"fast", "panel"} {
		events, _, err := runAgent(t, id, "warn with SERVICE_UNAVAILABLE")
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		var notices []*agui.Custom
		for _, e := range events {
			if c, ok := e.(*agui.Custom); ok {
				notices = append(notices, c)
			}
		}
		want := 1
		if id == "panel" {
			want = 2 // slow's and fast's
		}
		if len(notices) != want || notices[0].Name != "user_error" {
			t.Fatalf("%s: notices %+v in %s", id, notices, types(events))
		}
		value, _ := json.Marshal(notices[0].Value)
		if !strings.Contains(string(value), `"type":"user_error"`) || !strings.Contains(string(value), `"code":503`) ||
			!strings.Contains(string(value), `"retryable":true`) {
			t.Errorf("%s: notice %s", id, value)
		}
		if _, ok := events[len(events)-1].(*agui.RunFinished); !ok {
			t.Errorf("%s: the run did not finish: %s", id, types(events))
		}
	}
}

func TestConversation(t *testing.T) {
	msg := func(role agui.Role, text string) agui.Message {
		return agui.Message{ID: "m", Role: role, Content: text}
	}
	in := &agui.RunAgentInput{Messages: []agui.Message{
		msg(agui.RoleSystem, "be brief"),
		msg(agui.RoleUser, "hello"),
		msg(agui.RoleAssistant, "hi"),
		msg(agui.RoleUser, "what is 2+2?"),
		msg(agui.RoleUser, "and 3+3?"),
		msg(agui.RoleAssistant, "4"),
		msg(agui.RoleAssistant, "6"), // a second member's answer
		msg(agui.RoleAssistant, ""),  // a tool call
		msg(agui.RoleUser, "fail with RATE_LIMITED"),
		msg(agui.RoleUser, "thanks"),
	}}
	history, prompt := aguirun.Conversation(in)
	want := []agent.Turn{{User: "hello", Assistant: "hi"}, {User: "what is 2+2?\n\nand 3+3?", Assistant: "4\n\n6"}}
	if prompt != "thanks" || !slices.Equal(history, want) {
		t.Errorf("history %q, prompt %q", history, prompt)
	}
	if h, p := aguirun.Conversation(&agui.RunAgentInput{Messages: []agui.Message{msg(agui.RoleAssistant, "hi")}}); h != nil || p != "" {
		t.Errorf("no user message: %q %q", h, p)
	}
}
