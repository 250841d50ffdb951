package agui

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Event
	}{
		{"RunStarted", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`, &RunStarted{ThreadID: "t", RunID: "r"}},
		{
			"RunStartedFull",
			`{"type":"RUN_STARTED","threadId":"t","runId":"r","parentRunId":"p","input":{"threadId":"t","runId":"r","messages":[]},"protocolVersion":"1.0"}`,
			&RunStarted{ThreadID: "t", RunID: "r", ParentRunID: "p", Input: map[string]any{"threadId": "t", "runId": "r", "messages": []any{}}},
		},
		{"RunFinished", `{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":0}`, &RunFinished{ThreadID: "t", RunID: "r", Result: json.Number("0")}},
		{
			"RunFinishedInterrupt",
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i","reason":"approval"}]}}`,
			&RunFinished{ThreadID: "t", RunID: "r", Outcome: &Outcome{Type: OutcomeInterrupt, Interrupts: []Interrupt{{ID: "i", Reason: "approval"}}}},
		},
		{
			"RunFinishedSuccessIgnoresForeignMembers",
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success","interrupts":"ignored","pendingToolCallIds":[]}}`,
			&RunFinished{ThreadID: "t", RunID: "r", Outcome: &Outcome{Type: OutcomeSuccess, PendingToolCallIDs: []string{}}},
		},
		{"RunError", `{"type":"RUN_ERROR","message":"m"}`, &RunError{Message: "m"}},
		{
			"RunErrorFull",
			`{"type":"RUN_ERROR","message":"m","code":"TIMEOUT","timestamp":1e3,"rawEvent":false,"metadata":{"http_status":504,"big":12345678901234567890}}`,
			&RunError{Message: "m", Code: "TIMEOUT", BaseEvent: BaseEvent{Timestamp: 1000, RawEvent: false,
				Metadata: map[string]any{"http_status": json.Number("504"), "big": json.Number("12345678901234567890")}}},
		},
		{"RunErrorUnknownMembersIgnored", `{"type":"RUN_ERROR","message":"m","http_status":429,"Code":"x"}`, &RunError{Message: "m"}},
		{"TimestampNegative", `{"type":"RUN_ERROR","message":"m","timestamp":-9007199254740991}`, &RunError{Message: "m", BaseEvent: BaseEvent{Timestamp: -9007199254740991}}},
		{"TimestampFloatInteger", `{"type":"RUN_ERROR","message":"m","timestamp":5.0}`, &RunError{Message: "m", BaseEvent: BaseEvent{Timestamp: 5}}},
		{"TextMessageStart", `{"type":"TEXT_MESSAGE_START","messageId":"m","role":"user","name":"n"}`, &TextMessageStart{MessageID: "m", Role: RoleUser, Name: "n"}},
		{"TextMessageContentEmptyDelta", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":""}`, &TextMessageContent{MessageID: "m"}},
		{"TextMessageEnd", `{"type":"TEXT_MESSAGE_END","messageId":"m"}`, &TextMessageEnd{MessageID: "m"}},
		{"StepStarted", `{"type":"STEP_STARTED","stepName":"s"}`, &StepStarted{StepName: "s"}},
		{"StepFinished", `{"type":"STEP_FINISHED","stepName":"s"}`, &StepFinished{StepName: "s"}},
		{"StateSnapshotNull", `{"type":"STATE_SNAPSHOT","snapshot":null}`, &StateSnapshot{}},
		{"StateSnapshotArray", `{"type":"STATE_SNAPSHOT","snapshot":[1,"a"]}`, &StateSnapshot{Snapshot: []any{json.Number("1"), "a"}}},
		{"CustomNullValue", `{"type":"CUSTOM","name":"c","value":null}`, &Custom{Name: "c"}},
		{"EmptyMetadata", `{"type":"STEP_STARTED","stepName":"s","metadata":{}}`, &StepStarted{StepName: "s", BaseEvent: BaseEvent{Metadata: map[string]any{}}}},
		{"EscapedStrings", `{"type":"RUN_ERROR","message":"\u003cb\u003e \"q\" \ud83d\ude00"}`, &RunError{Message: "<b> \"q\" 😀"}},
		{"DuplicateMemberLastWins", `{"type":"RUN_ERROR","message":"a","message":"b"}`, &RunError{Message: "b"}},
		{"ToolCallStart", `{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"n","parentMessageId":"m","subagentRunId":"ignored"}`, &ToolCallStart{ToolCallID: "c", ToolCallName: "n", ParentMessageID: "m"}},
		{"ToolCallArgs", `{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"a\":"}`, &ToolCallArgs{ToolCallID: "c", Delta: `{"a":`}},
		{"ToolCallEnd", `{"type":"TOOL_CALL_END","toolCallId":"c","timestamp":7}`, &ToolCallEnd{ToolCallID: "c", BaseEvent: BaseEvent{Timestamp: 7}}},
		{"ToolCallResultText", `{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":"ok","role":"tool"}`, &ToolCallResult{MessageID: "m", ToolCallID: "c", Content: "ok", Role: RoleTool}},
		{
			"ToolCallResultParts",
			`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":[{"type":"text","text":"t"},{"type":"document","id":"d","source":{"type":"file","value":"f","provider":"p","mimeType":"application/pdf"},"metadata":[1]}]}`,
			&ToolCallResult{MessageID: "m", ToolCallID: "c", Parts: []ContentPart{{Type: PartText, Text: "t"},
				{Type: PartDocument, ID: "d", Source: &PartSource{Type: SourceFile, Value: "f", Provider: "p", MimeType: "application/pdf"}, Metadata: []any{json.Number("1")}}}},
		},
		{
			"StateDelta",
			`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":{"b":1}},{"op":"remove","path":"/c","value":"ignored"},{"op":"copy","from":"/a","path":"/d"},{"op":"replace","path":"","value":null}]}`,
			&StateDelta{Delta: []PatchOperation{{Op: PatchAdd, Path: "/a", Value: map[string]any{"b": json.Number("1")}},
				{Op: PatchRemove, Path: "/c"}, {Op: PatchCopy, From: "/a", Path: "/d"}, {Op: PatchReplace, Path: ""}}},
		},
		{"StateDeltaEmpty", `{"type":"STATE_DELTA","delta":[]}`, &StateDelta{Delta: []PatchOperation{}}},
		{
			"MessagesSnapshot",
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":"hi","name":"ana"},{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"n","arguments":"{}"},"metadata":{}}]},{"id":"x","role":"activity","activityType":"p","content":{"n":1}}]}`,
			&MessagesSnapshot{Messages: []Message{{ID: "u", Role: RoleUser, Content: "hi", Name: "ana"},
				{ID: "a", Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Function: FunctionCall{Name: "n", Arguments: "{}"}, Metadata: map[string]any{}}}},
				{ID: "x", Role: RoleActivity, ActivityType: "p", ActivityContent: map[string]any{"n": json.Number("1")}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse\n got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

// schemaCases are events and EventSchemas' verdict on each: the
// conformance test checks every verdict against the real schema (which
// makes the invalid ones negative controls of its harness too), and
// TestParseSchemaCases checks Parse against each.
var schemaCases = []struct {
	event string
	valid bool
}{
	{`{"type":"RUN_ERROR","code":"TIMEOUT"}`, false},
	{`{"type":"RUN_ERROR","message":"m","metadata":null}`, false},
	{`{"type":"RUN_ERROR","message":"m","timestamp":1.5}`, false},
	{`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"tool"}`, false},
	{`{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":null}`, false},
	{`{"type":"NOT_AN_EVENT"}`, false},
	{`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user"}]}}`, false},
	{`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"forwardedProps":null}}`, false},
	{`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"state":null,"tools":[{"name":"n","description":"d"}]}}`, true},
	{`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":""}`, true},
	{`{"type":"TOOL_CALL_START","toolCallId":"c"}`, false},
	{`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"n","parentMessageId":null}`, false},
	{`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":""}`, true},
	{`{"type":"TOOL_CALL_ARGS","toolCallId":"c"}`, false},
	{`{"type":"TOOL_CALL_END","toolCallId":"c"}`, true},
	{`{"type":"TOOL_CALL_END","toolCallId":1}`, false},
	{`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":[]}`, true},
	{`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c"}`, false},
	{`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":1}`, false},
	{`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":"x","role":"user"}`, false},
	{`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":[{"type":"text"}]}`, false},
	{`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":[{"type":"image","source":{"type":"data","value":"x"}}]}`, false},
	{`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":[{"type":"image","source":{"type":"blob","value":"x"}}]}`, false},
	{`{"type":"STATE_DELTA","delta":[]}`, true},
	{`{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/a","value":1,"from":2}]}`, true},
	{`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":null},{"op":"test","path":"/a~0~1","value":[]}]}`, true},
	{`{"type":"STATE_DELTA","delta":[{"op":"copy","from":"","path":"/x/\n ~1"}]}`, true},
	{`{"type":"STATE_DELTA"}`, false},
	{`{"type":"STATE_DELTA","delta":{}}`, false},
	{`{"type":"STATE_DELTA","delta":[{"op":"merge","path":"/a"}]}`, false},
	{`{"type":"STATE_DELTA","delta":[{"op":"remove","path":"a"}]}`, false},
	{`{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/a~2"}]}`, false},
	{`{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/a~"}]}`, false},
	{`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a"}]}`, false},
	{`{"type":"STATE_DELTA","delta":[{"op":"move","path":"/a"}]}`, false},
	{`{"type":"STATE_DELTA","delta":[{"op":"copy","from":"x","path":"/a"}]}`, false},
	{`{"type":"MESSAGES_SNAPSHOT","messages":[]}`, true},
	{`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant"},{"id":"t","role":"tool","content":"x","toolCallId":"c","name":1}]}`, true},
	{`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"bot"}]}`, false},
	{`{"type":"MESSAGES_SNAPSHOT","messages":[{"role":"user","content":"c"}]}`, false},
	{`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user"}]}`, false},
	{`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"tool","function":{"name":"n","arguments":""}}]}]}`, false},
	{`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"activity","activityType":"p","content":[]}]}`, false},
	{`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"t","role":"tool","content":"x"}]}`, false},
	{`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"s","role":"system","content":"x","metadata":null}]}`, false},
}

func TestParseSchemaCases(t *testing.T) {
	t.Parallel()
	for _, c := range schemaCases {
		e, err := Parse([]byte(c.event))
		if (err == nil) != c.valid {
			t.Errorf("Parse(%s) = %v, %v; the schema says valid=%v", c.event, e, err, c.valid)
		}
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		target error
		msg    string
	}{
		{"NotJSON", `{`, ErrInvalidEvent, "not a JSON object"},
		{"Array", `[]`, ErrInvalidEvent, "not a JSON object"},
		{"Null", `null`, ErrInvalidEvent, "not a JSON object: null"},
		{"TrailingData", `{"type":"RUN_ERROR","message":"m"} {}`, ErrInvalidEvent, "not a JSON object"},
		{"NoType", `{"message":"m"}`, ErrInvalidEvent, `missing required member "type"`},
		{"TypeNull", `{"type":null}`, ErrInvalidEvent, `member "type" must be a string`},
		{"TypeNumber", `{"type":1}`, ErrInvalidEvent, `member "type" must be a string`},
		{"UnknownType", `{"type":"RUN_EXPLODED"}`, ErrUnknownType, `agui: unknown event type "RUN_EXPLODED"`},
		{"LowercaseType", `{"type":"run_error","message":"m"}`, ErrUnknownType, `"run_error"`},
		{"UnsupportedType", `{"type":"REASONING_START","messageId":"r"}`, ErrUnsupportedType, `"REASONING_START"`},
		{"MissingMessage", `{"type":"RUN_ERROR","code":"TIMEOUT"}`, ErrInvalidEvent, `agui: invalid event: RUN_ERROR: missing required member "message"`},
		{"CaseMismatchIsMissing", `{"type":"RUN_ERROR","Message":"m"}`, ErrInvalidEvent, `missing required member "message"`},
		{"MessageNull", `{"type":"RUN_ERROR","message":null}`, ErrInvalidEvent, `member "message" must be a string`},
		{"CodeNull", `{"type":"RUN_ERROR","message":"m","code":null}`, ErrInvalidEvent, `member "code" must be a string`},
		{"CodeNumber", `{"type":"RUN_ERROR","message":"m","code":500}`, ErrInvalidEvent, `member "code" must be a string`},
		{"MetadataNull", `{"type":"RUN_ERROR","message":"m","metadata":null}`, ErrInvalidEvent, `member "metadata" must be an object`},
		{"MetadataArray", `{"type":"RUN_ERROR","message":"m","metadata":[]}`, ErrInvalidEvent, `member "metadata" must be an object`},
		{"RawEventNull", `{"type":"RUN_ERROR","message":"m","rawEvent":null}`, ErrInvalidEvent, `member "rawEvent" must not be null`},
		{"TimestampFraction", `{"type":"RUN_ERROR","message":"m","timestamp":1.5}`, ErrInvalidEvent, `member "timestamp" must be an integer`},
		{"TimestampUnsafe", `{"type":"RUN_ERROR","message":"m","timestamp":9007199254740992}`, ErrInvalidEvent, `member "timestamp"`},
		{"TimestampString", `{"type":"RUN_ERROR","message":"m","timestamp":"1"}`, ErrInvalidEvent, `member "timestamp"`},
		{"TimestampHuge", `{"type":"RUN_ERROR","message":"m","timestamp":1e400}`, ErrInvalidEvent, `member "timestamp"`},
		{"MissingThreadID", `{"type":"RUN_STARTED","runId":"r"}`, ErrInvalidEvent, `RUN_STARTED: missing required member "threadId"`},
		{"MissingRunID", `{"type":"RUN_FINISHED","threadId":"t"}`, ErrInvalidEvent, `RUN_FINISHED: missing required member "runId"`},
		{"InputNotObject", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":[]}`, ErrInvalidEvent, `member "input" must be a RunAgentInput object, not an array`},
		{"InputNoMessages", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r"}}`, ErrInvalidEvent, `member "input.messages" is required`},
		{"InputNull", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":null}`, ErrInvalidEvent, `member "input" must be a RunAgentInput object, not null`},
		{"InputBadMessage", `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user"}]}}`, ErrInvalidEvent, `member "input.messages[0].content" is required`},
		{"ResultNull", `{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":null}`, ErrInvalidEvent, `member "result" must not be null`},
		{"OutcomeUnknown", `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"exploded"}}`, ErrInvalidEvent, `"outcome.type" must be success, interrupt or cancelled`},
		{"OutcomeNotObject", `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":"success"}`, ErrInvalidEvent, `member "outcome" must be an object`},
		{"OutcomeNoType", `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{}}`, ErrInvalidEvent, `missing required member "outcome.type"`},
		{"InterruptsEmpty", `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[]}}`, ErrInvalidEvent, `needs at least one interrupt`},
		{"InterruptsMissing", `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt"}}`, ErrInvalidEvent, `missing required member "outcome.interrupts"`},
		{"InterruptNoReason", `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i"}]}}`, ErrInvalidEvent, `missing required member "outcome.interrupts[0].reason"`},
		{"PendingNotStrings", `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success","pendingToolCallIds":["a",null]}}`, ErrInvalidEvent, `"outcome.pendingToolCallIds" must be an array of strings`},
		{"RoleTool", `{"type":"TEXT_MESSAGE_START","messageId":"m","role":"tool"}`, ErrInvalidEvent, `member "role" must be developer, system, assistant or user, not "tool"`},
		{"RoleEmpty", `{"type":"TEXT_MESSAGE_START","messageId":"m","role":""}`, ErrInvalidEvent, `member "role"`},
		{"RoleNull", `{"type":"TEXT_MESSAGE_START","messageId":"m","role":null}`, ErrInvalidEvent, `member "role" must be a string`},
		{"MissingDelta", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m"}`, ErrInvalidEvent, `missing required member "delta"`},
		{"MissingStepName", `{"type":"STEP_FINISHED"}`, ErrInvalidEvent, `missing required member "stepName"`},
		{"MissingSnapshot", `{"type":"STATE_SNAPSHOT"}`, ErrInvalidEvent, `missing required member "snapshot"`},
		{"MissingValue", `{"type":"CUSTOM","name":"c"}`, ErrInvalidEvent, `missing required member "value"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := Parse([]byte(tt.in))
			if err == nil {
				t.Fatalf("Parse = %#v, want an error", e)
			}
			if e != nil {
				t.Errorf("Parse returned %#v with its error", e)
			}
			if !errors.Is(err, tt.target) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error = %q, want %v containing %q", err, tt.target, tt.msg)
			}
		})
	}
}

func TestMarshalRejects(t *testing.T) {
	t.Parallel()
	var nilRunError *RunError
	tests := []struct {
		name string
		e    Event
		msg  string
	}{
		{"Nil", nil, "nil event"},
		{"TypedNil", nilRunError, "nil event"},
		{"TimestampUnsafe", &RunError{Message: "m", BaseEvent: BaseEvent{Timestamp: 1 << 53}}, "timestamp"},
		{"RawEventNilMap", &RunError{Message: "m", BaseEvent: BaseEvent{RawEvent: map[string]any(nil)}}, "rawEvent must not be null"},
		{"RawEventRawNull", &RunError{Message: "m", BaseEvent: BaseEvent{RawEvent: json.RawMessage("null")}}, "rawEvent must not be null"},
		{"ResultNilPointer", &RunFinished{Result: (*int)(nil)}, "result must not be null"},
		{"Role", &TextMessageStart{MessageID: "m", Role: "tool"}, `role "tool"`},
		{"OutcomeUnknown", &RunFinished{Outcome: &Outcome{Type: "done"}}, `unknown outcome type "done"`},
		{"InterruptWithoutInterrupts", &RunFinished{Outcome: &Outcome{Type: OutcomeInterrupt}}, "at least one interrupt"},
		{"SuccessWithInterrupts", &RunFinished{Outcome: &Outcome{Type: OutcomeSuccess, Interrupts: []Interrupt{{ID: "i"}}}}, "no interrupts"},
		{"CancelledWithPending", &RunFinished{Outcome: &Outcome{Type: OutcomeCancelled, PendingToolCallIDs: []string{}}}, "nothing but its type"},
		{"InterruptWithPending", &RunFinished{Outcome: &Outcome{Type: OutcomeInterrupt, Interrupts: []Interrupt{{ID: "i", Reason: "r"}}, PendingToolCallIDs: []string{"c"}}}, "pendingToolCallIds"},
		{"InputNotObject", &RunStarted{Input: []string{"x"}}, "RunAgentInput object"},
		{"InputWithoutMessages", &RunStarted{Input: map[string]any{"threadId": "t", "runId": "r"}}, "input.messages"},
		{"InputUnencodable", &RunStarted{Input: make(chan int)}, "input"},
		{"InputInvalidMessage", &RunStarted{Input: &RunAgentInput{Messages: []Message{{Role: "bot"}}}}, `role "bot"`},
		{"InputNullForwardedProps", &RunStarted{Input: &RunAgentInput{ForwardedProps: map[string]any(nil)}}, `member "input.forwardedProps" must not be null`},
		{"ToolResultRole", &ToolCallResult{Role: RoleUser}, `role "user" is not tool`},
		{"ToolResultContentAndParts", &ToolCallResult{Content: "c", Parts: []ContentPart{}}, "exclusive"},
		{"ToolResultBadPart", &ToolCallResult{Parts: []ContentPart{{Type: PartImage}}}, "content[0]: an image part needs a source"},
		{"PatchOp", &StateDelta{Delta: []PatchOperation{{Op: "merge", Path: "/a"}}}, `delta[0]: op "merge"`},
		{"PatchPath", &StateDelta{Delta: []PatchOperation{{Op: PatchRemove, Path: "a"}}}, `path "a" is not a JSON Pointer`},
		{"PatchFrom", &StateDelta{Delta: []PatchOperation{{Op: PatchMove, From: "/a~", Path: "/b"}}}, `from "/a~" is not a JSON Pointer`},
		{"PatchFromOnAdd", &StateDelta{Delta: []PatchOperation{{Op: PatchAdd, From: "/a", Path: "/b"}}}, "add has no from"},
		{"PatchValueOnCopy", &StateDelta{Delta: []PatchOperation{{Op: PatchCopy, Path: "/b", Value: 1}}}, "copy has no value"},
		{"PatchValueOnRemove", &StateDelta{Delta: []PatchOperation{{Op: PatchRemove, Path: "/b", Value: 1}}}, "remove has neither"},
		{"SnapshotRole", &MessagesSnapshot{Messages: []Message{{ID: "m", Role: "bot"}}}, `messages[0]: role "bot"`},
		{"SnapshotMemberOfOtherRole", &MessagesSnapshot{Messages: []Message{{ID: "m", Role: RoleTool, Name: "n"}}}, "a tool message has no name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := Marshal(tt.e)
			if !errors.Is(err, ErrInvalidEvent) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Marshal = %s, %v; want ErrInvalidEvent containing %q", b, err, tt.msg)
			}
		})
	}
	// A value JSON cannot encode is an encoding error, not an invalid event.
	_, err := Marshal(&Custom{Name: "c", Value: make(chan int)})
	if err == nil || errors.Is(err, ErrInvalidEvent) || !strings.Contains(err.Error(), "agui: encode CUSTOM") {
		t.Errorf("Marshal(unencodable value) = %v", err)
	}
}

// TestMarshalJSON: the standard encoder writes the type member too, so an
// event can be embedded in any JSON document.
func TestMarshalJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(map[string]any{"event": &TextMessageContent{MessageID: "m", Delta: "<b>"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"event":{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\u003cb\u003e"}}`
	if string(b) != want {
		t.Errorf("json.Marshal = %s, want %s", b, want)
	}
	b, err = Marshal(&TextMessageContent{MessageID: "m", Delta: "<b> & </b>"})
	if err != nil || string(b) != `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"<b> & </b>"}` {
		t.Errorf("Marshal = %s, %v; want no HTML escaping", b, err)
	}
}

func TestBase(t *testing.T) {
	t.Parallel()
	var e Event = &StepStarted{StepName: "s"}
	e.Base().Timestamp = 42
	e.Base().Metadata = map[string]any{"k": "v"}
	b, err := Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"STEP_STARTED","stepName":"s","timestamp":42,"metadata":{"k":"v"}}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
