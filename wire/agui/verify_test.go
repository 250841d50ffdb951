package agui

import (
	"errors"
	"strings"
	"testing"
)

func started(run string) *RunStarted   { return &RunStarted{ThreadID: "t", RunID: run} }
func finished(run string) *RunFinished { return &RunFinished{ThreadID: "t", RunID: run} }
func runError() *RunError              { return &RunError{Message: "failed", Code: "TIMEOUT"} }
func msgStart(id string) *TextMessageStart {
	return &TextMessageStart{MessageID: id, Role: RoleAssistant}
}
func msgContent(id string) *TextMessageContent { return &TextMessageContent{MessageID: id, Delta: "x"} }
func msgEnd(id string) *TextMessageEnd         { return &TextMessageEnd{MessageID: id} }
func stepStart(n string) *StepStarted          { return &StepStarted{StepName: n} }
func stepEnd(n string) *StepFinished           { return &StepFinished{StepName: n} }

// sequenceCase is one stream and the verdict of @ag-ui/client 1.0.0's
// verifyEvents on it. The conformance test runs the same streams through
// the real verifyEvents when it is installed.
type sequenceCase struct {
	name    string
	events  []Event
	wantAt  int    // index of the rejected event, -1 if the stream is fine
	wantMsg string // part of the rejection's reason
}

func callStart(id, parent string) *ToolCallStart {
	return &ToolCallStart{ToolCallID: id, ToolCallName: "search", ParentMessageID: parent}
}
func callArgs(id string) *ToolCallArgs { return &ToolCallArgs{ToolCallID: id, Delta: "{}"} }
func callEnd(id string) *ToolCallEnd   { return &ToolCallEnd{ToolCallID: id} }

// subagentHistory has message a, of subagent s1, which made call c1, and
// message b, of the parent agent.
var subagentHistory = []Message{
	{ID: "a", Role: RoleAssistant, SubagentRunID: "s1", ToolCalls: []ToolCall{{ID: "c1", Function: FunctionCall{Name: "search"}}}},
	{ID: "b", Role: RoleAssistant, Content: "b"},
}

func startedWith(run string, history []Message) *RunStarted {
	return &RunStarted{ThreadID: "t", RunID: run, Input: &RunAgentInput{ThreadID: "t", RunID: run, Messages: history}}
}

var sequenceCases = []sequenceCase{
	{name: "RunFinished", events: []Event{started("r"), finished("r")}, wantAt: -1},
	{name: "RunError", events: []Event{started("r"), runError()}, wantAt: -1},
	{name: "RunErrorFirst", events: []Event{runError()}, wantAt: -1},
	{name: "RunErrorAfterRunFinished", events: []Event{started("r"), finished("r"), runError()}, wantAt: -1},
	{name: "NewRunAfterRunError", events: []Event{started("r"), runError(), started("r2"), finished("r2")}, wantAt: -1},
	{name: "NewRunAfterRunFinished", events: []Event{started("r"), finished("r"), started("r2"), runError()}, wantAt: -1},
	{name: "NewRunAfterFirstRunError", events: []Event{runError(), started("r"), finished("r")}, wantAt: -1},
	{
		name:   "TextThenError",
		events: []Event{started("r"), msgStart("m"), msgContent("m"), msgEnd("m"), runError()}, wantAt: -1,
	},
	{name: "RunErrorWithOpenMessageAndStep", events: []Event{started("r"), stepStart("s"), msgStart("m"), runError()}, wantAt: -1},
	{name: "MessageIDReusedAfterEnd", events: []Event{started("r"), msgStart("m"), msgEnd("m"), msgStart("m"), msgEnd("m"), finished("r")}, wantAt: -1},
	{name: "Steps", events: []Event{started("r"), stepStart("a"), stepStart("b"), stepEnd("a"), stepEnd("b"), finished("r")}, wantAt: -1},
	{name: "StateAndCustom", events: []Event{started("r"), &StateSnapshot{}, &Custom{Name: "c"}, finished("r")}, wantAt: -1},
	{name: "OpenStateForgottenByNewRun", events: []Event{started("r"), stepStart("s"), msgStart("m"), runError(), started("r2"), finished("r2")}, wantAt: -1},

	{name: "ToolCall", events: []Event{started("r"), callStart("c", ""), callArgs("c"), callArgs("c"), callEnd("c"), finished("r")}, wantAt: -1},
	{
		name:   "ToolCallsInterleaveWithText",
		events: []Event{started("r"), msgStart("m"), callStart("c", "m"), msgContent("m"), callStart("d", "m"), callArgs("c"), msgEnd("m"), callEnd("d"), callArgs("c"), callEnd("c"), finished("r")}, wantAt: -1,
	},
	{name: "ToolCallIDReusedAfterEnd", events: []Event{started("r"), callStart("c", ""), callEnd("c"), callStart("c", ""), callEnd("c"), finished("r")}, wantAt: -1},
	{name: "RunErrorWithOpenToolCall", events: []Event{started("r"), callStart("c", ""), callArgs("c"), runError()}, wantAt: -1},
	{
		name: "ResultDeltaSnapshotAnywhereInRun",
		events: []Event{started("r"), &ToolCallResult{MessageID: "tm", ToolCallID: "never-started", Content: "ok"},
			&StateDelta{Delta: []PatchOperation{{Op: PatchRemove, Path: "/nowhere"}}}, &MessagesSnapshot{}, finished("r")}, wantAt: -1,
	},
	{name: "ToolCallOfOwnSubagentMessage", events: []Event{started("r"), &MessagesSnapshot{Messages: subagentHistory}, callStart("c1", "a"), callEnd("c1"), finished("r")}, wantAt: -1},
	{name: "ToolCallOwnersForgottenByNewRun", events: []Event{startedWith("r", subagentHistory), runError(), started("r2"), callStart("c1", "b"), callEnd("c1"), finished("r2")}, wantAt: -1},
	{name: "ToolCallArgsWithoutStart", events: []Event{started("r"), callArgs("c")}, wantAt: 1, wantMsg: "No active tool call found with ID 'c'. Start a tool call"},
	{name: "ToolCallEndWithoutStart", events: []Event{started("r"), callEnd("c")}, wantAt: 1, wantMsg: "No active tool call found with ID 'c'. A 'TOOL_CALL_START'"},
	{name: "ToolCallArgsAfterEnd", events: []Event{started("r"), callStart("c", ""), callEnd("c"), callArgs("c")}, wantAt: 3, wantMsg: "No active tool call"},
	{name: "ToolCallStartedTwice", events: []Event{started("r"), callStart("c", ""), callStart("c", "")}, wantAt: 2, wantMsg: "A tool call with ID 'c' is already in progress"},
	{name: "RunFinishedWithOpenToolCalls", events: []Event{started("r"), callStart("d", ""), callStart("c", ""), finished("r")}, wantAt: 3, wantMsg: "tool calls are still active: d, c"},
	{name: "ToolCallAfterRunError", events: []Event{started("r"), runError(), callStart("c", "")}, wantAt: 2, wantMsg: "already errored"},
	{name: "ToolCallBeforeRunStarted", events: []Event{callStart("c", "")}, wantAt: 0, wantMsg: "First event must be 'RUN_STARTED'"},
	{name: "ToolCallOfOtherSubagentsMessage", events: []Event{started("r"), &MessagesSnapshot{Messages: subagentHistory}, callStart("c1", "b")}, wantAt: 2, wantMsg: "tool call 'c1' is owned by 's1' but its parent message 'b' is owned by '(the parent agent)'"},
	{name: "ToolCallOfOtherSubagentsMessageInInput", events: []Event{startedWith("r", subagentHistory), callStart("c1", "b")}, wantAt: 1, wantMsg: "is owned by 's1'"},
	{name: "ToolCallReopenedUnderOtherOwner", events: []Event{started("r"), &MessagesSnapshot{Messages: subagentHistory}, callStart("c2", "a"), callEnd("c2"), callStart("c2", "b")}, wantAt: 4, wantMsg: "tool call 'c2' is owned by 's1'"},

	// Seed 000's bug: RUN_FINISHED after RUN_ERROR.
	{name: "RunFinishedAfterRunError", events: []Event{started("r"), runError(), finished("r")}, wantAt: 2, wantMsg: "already errored"},
	{name: "TextAfterRunError", events: []Event{started("r"), runError(), msgStart("m")}, wantAt: 2, wantMsg: "already errored"},
	{name: "RunErrorTwice", events: []Event{started("r"), runError(), runError()}, wantAt: 2, wantMsg: "already errored"},
	{name: "EventAfterRunFinished", events: []Event{started("r"), finished("r"), &Custom{Name: "c"}}, wantAt: 2, wantMsg: "already finished"},
	{name: "RunFinishedTwice", events: []Event{started("r"), finished("r"), finished("r")}, wantAt: 2, wantMsg: "already finished"},
	{name: "FirstEventNotRunStarted", events: []Event{msgStart("m")}, wantAt: 0, wantMsg: "First event must be 'RUN_STARTED'"},
	{name: "FirstEventRunFinished", events: []Event{finished("r")}, wantAt: 0, wantMsg: "First event must be 'RUN_STARTED'"},
	{name: "RunStartedWhileActive", events: []Event{started("r"), started("r2")}, wantAt: 1, wantMsg: "still active"},
	{name: "ContentWithoutStart", events: []Event{started("r"), msgContent("m")}, wantAt: 1, wantMsg: "No active text message found with ID 'm'"},
	{name: "EndWithoutStart", events: []Event{started("r"), msgEnd("m")}, wantAt: 1, wantMsg: "No active text message"},
	{name: "ContentAfterEnd", events: []Event{started("r"), msgStart("m"), msgEnd("m"), msgContent("m")}, wantAt: 3, wantMsg: "No active text message"},
	{name: "MessageStartedTwice", events: []Event{started("r"), msgStart("m"), msgStart("m")}, wantAt: 2, wantMsg: "already in progress"},
	{name: "StepFinishedNotStarted", events: []Event{started("r"), stepEnd("s")}, wantAt: 1, wantMsg: `step "s" that was not started`},
	{name: "StepStartedTwice", events: []Event{started("r"), stepStart("s"), stepStart("s")}, wantAt: 2, wantMsg: "already active"},
	{name: "RunFinishedWithOpenStep", events: []Event{started("r"), stepStart("b"), stepStart("a"), finished("r")}, wantAt: 3, wantMsg: "steps are still active: b, a"},
	{name: "RunFinishedWithOpenMessage", events: []Event{started("r"), msgStart("m"), finished("r")}, wantAt: 2, wantMsg: "text messages are still active: m"},
	{name: "StepOfPreviousRun", events: []Event{started("r"), stepStart("s"), runError(), started("r2"), stepEnd("s")}, wantAt: 4, wantMsg: "not started"},
}

func TestVerifier(t *testing.T) {
	t.Parallel()
	for _, tt := range sequenceCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var v Verifier
			for i, e := range tt.events {
				err := v.Verify(e)
				if i != tt.wantAt {
					if err != nil {
						t.Fatalf("event %d (%s): %v", i, e.Type(), err)
					}
					continue
				}
				var se *SequenceError
				if !errors.As(err, &se) || !errors.Is(err, ErrOutOfOrder) {
					t.Fatalf("event %d (%s): error %v, want a *SequenceError", i, e.Type(), err)
				}
				if se.Index != i || se.Type != e.Type() || !strings.Contains(se.Reason, tt.wantMsg) {
					t.Errorf("error = %+v, want index %d, type %s, reason containing %q", se, i, e.Type(), tt.wantMsg)
				}
				// A rejected event changes nothing: the same event is
				// rejected again.
				if again := v.Verify(e); again == nil || again.Error() != err.Error() {
					t.Errorf("second Verify = %v, want the same rejection", again)
				}
				return
			}
			if err := Verify(tt.events...); (err == nil) != (tt.wantAt < 0) {
				t.Errorf("Verify = %v", err)
			}
		})
	}
}

func TestVerifierRunning(t *testing.T) {
	t.Parallel()
	var v Verifier
	steps := []struct {
		e    Event
		want bool
	}{
		{started("r"), true},
		{msgStart("m"), true},
		{runError(), false},
		{started("r2"), true},
		{finished("r2"), false},
		{runError(), false},
	}
	if v.Running() {
		t.Fatal("a new Verifier is running")
	}
	for i, s := range steps {
		if err := v.Verify(s.e); err != nil {
			t.Fatal(err)
		}
		if v.Running() != s.want {
			t.Errorf("after event %d (%s): Running = %v", i, s.e.Type(), v.Running())
		}
	}
}

func TestVerifierNil(t *testing.T) {
	t.Parallel()
	var v Verifier
	var nilEvent *RunError
	if err := v.Verify(nil); !errors.Is(err, ErrOutOfOrder) {
		t.Errorf("Verify(nil) = %v", err)
	}
	if err := v.Verify(nilEvent); !errors.Is(err, ErrOutOfOrder) {
		t.Errorf("Verify(typed nil) = %v", err)
	}
	err := Verify(started("r"), runError(), finished("r"))
	want := "agui: event 2 (RUN_FINISHED) out of order: Cannot send event type 'RUN_FINISHED': The run has already errored with 'RUN_ERROR'. No further events can be sent."
	if err == nil || err.Error() != want {
		t.Errorf("error text\n got %v\nwant %s", err, want)
	}
}
