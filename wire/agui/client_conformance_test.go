package agui

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/triage-go/triage/internal/testkit/golden"
	"github.com/triage-go/triage/wire/sse"
)

// clientReport is what testdata/client.cjs prints.
type clientReport struct {
	Bodies []struct {
		Name string `json:"name"`
		Body string `json:"body"`
	} `json:"bodies"`
	Inputs []struct {
		Name    string   `json:"name"`
		Success bool     `json:"success"`
		Issues  []string `json:"issues"`
	} `json:"inputs"`
	Runs []clientRun `json:"runs"`
}

// clientRun is what HttpAgent.runAgent made of one response body.
type clientRun struct {
	Name     string  `json:"name"`
	Resolved bool    `json:"resolved"`
	Error    *string `json:"error"`
	Failed   *string `json:"failed"`
	RunError *struct {
		Message  string         `json:"message"`
		Code     string         `json:"code"`
		Metadata map[string]any `json:"metadata"`
	} `json:"runError"`
	RunFinished  bool              `json:"runFinished"`
	Events       []EventType       `json:"events"`
	ToolCallEnds []json.RawMessage `json:"toolCallEnds"`
	NewToolCalls []json.RawMessage `json:"newToolCalls"`
	Messages     []json.RawMessage `json:"messages"`
	State        json.RawMessage   `json:"state"`
	Warnings     []string          `json:"warnings"`
}

// clientRunCase is a response body for HttpAgent, written by a Writer.
type clientRunCase struct {
	Name string `json:"name"`
	SSE  string `json:"sse"`
}

// TestConformanceClient drives the official @ag-ui/client 1.0.0 HttpAgent
// (testdata/client.cjs):
//
//   - the exact bodies HttpAgent POSTs read with ParseRunAgentInput, and
//     encode back to the same JSON;
//   - RunAgentInputSchema's verdict on every case of inputCases is the one
//     the table states, so ParseRunAgentInput refuses all the schema
//     refuses;
//   - the streams of every WriteError case, and a run with tool calls and
//     state deltas, through HttpAgent.runAgent: each run fails with the
//     RUN_ERROR HttpAgent's subscriber receives (code, retry delay), the
//     text streamed stays, no half-streamed tool call reaches the
//     application, and the client neither fails nor warns; and, as a
//     control, a stream that stops without RUN_ERROR passes for a success.
func TestConformanceClient(t *testing.T) {
	t.Parallel()
	node, dir := conformanceSetup(t, true)

	var cases struct {
		Inputs []struct {
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"inputs"`
		Runs []clientRunCase `json:"runs"`
	}
	for _, c := range inputCases {
		cases.Inputs = append(cases.Inputs, struct {
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		}{c.name, json.RawMessage(c.input)})
	}
	streams := map[string][]Event{}
	for _, c := range writeErrorCases {
		data := writeErrorStream(t, c)
		cases.Runs = append(cases.Runs, clientRunCase{c.name, string(data)})
		streams[c.name] = written(t, data)
	}
	// The control: what WriteError wrote when the fallback was refused
	// (issue 14), a stream that just stops. HttpAgent takes it for a
	// success, which is why every WriteError case must end in RUN_ERROR.
	control := stream(t, []Event{started("r"), msgStart("m1"), &TextMessageContent{MessageID: "m1", Delta: "Partial answer"}})
	cases.Runs = append(cases.Runs, clientRunCase{"ToolCallRun", toolCallRun(t)}, clientRunCase{"SnapshotRun", snapshotRun(t)},
		clientRunCase{"ControlNoRunError", control})

	cmd := runNode(t, node, "client.cjs", dir, cases)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.cjs failed (%v):\n%s", err, stderr.Bytes())
	}
	var report clientReport
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("client.cjs printed %s: %v", out, err)
	}

	t.Run("Bodies", func(t *testing.T) {
		if len(report.Bodies) < 3 {
			t.Fatalf("%d bodies", len(report.Bodies))
		}
		for _, b := range report.Bodies {
			in, err := ParseRunAgentInput([]byte(b.Body))
			if err != nil {
				t.Errorf("%s: %v\n%s", b.Name, err, b.Body)
				continue
			}
			again, err := json.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			if !golden.SameJSON(again, []byte(b.Body)) {
				t.Errorf("%s: read differently\nsent %s\nread %s", b.Name, b.Body, again)
			}
		}
	})
	t.Run("Inputs", func(t *testing.T) {
		if len(report.Inputs) != len(inputCases) {
			t.Fatalf("%d verdicts for %d cases", len(report.Inputs), len(inputCases))
		}
		for i, c := range inputCases {
			if r := report.Inputs[i]; r.Success != c.schemaOK {
				t.Errorf("%s: RunAgentInputSchema says success=%v (%q), the table %v", c.name, r.Success, r.Issues, c.schemaOK)
			}
		}
	})
	t.Run("Runs", func(t *testing.T) {
		for _, r := range report.Runs {
			if r.Error != nil || r.Failed != nil || !r.Resolved {
				t.Errorf("%s: the run failed in the client: %v %v", r.Name, deref(r.Error), deref(r.Failed))
			}
			if len(r.Warnings) > 0 {
				t.Errorf("%s: the client warned: %q", r.Name, r.Warnings)
			}
			events, isErrorCase := streams[r.Name]
			if !isErrorCase {
				continue
			}
			checkFailedRun(t, r, events)
		}
		checkToolCallRun(t, findRun(t, report.Runs, "ToolCallRun"))
		checkSnapshotRun(t, findRun(t, report.Runs, "SnapshotRun"))
		if r := findRun(t, report.Runs, "ControlNoRunError"); r.RunError != nil || r.RunFinished || !r.Resolved {
			t.Errorf("control: a stream that stops is not the silent success issue 14 saw: %+v", r)
		}
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func findRun(t *testing.T, runs []clientRun, name string) clientRun {
	t.Helper()
	for _, r := range runs {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no run %s in the report", name)
	return clientRun{}
}

// checkFailedRun checks what the client made of a WriteError stream: the
// RUN_ERROR, last, with its retry delay; every event seen; each streamed
// message's text intact; no tool call handed to the application.
func checkFailedRun(t *testing.T, r clientRun, events []Event) {
	t.Helper()
	if r.RunError == nil {
		t.Errorf("%s: onRunErrorEvent never called: the client saw a successful run", r.Name)
		return
	}
	if r.RunError.Code != "RATE_LIMITED" || r.RunError.Message != limitText || r.RunError.Metadata["retry_after"] != float64(60) {
		t.Errorf("%s: RUN_ERROR %+v", r.Name, r.RunError)
	}
	want := make([]EventType, len(events))
	for i, e := range events {
		want[i] = e.Type()
	}
	if r.RunFinished != slices.Contains(want, TypeRunFinished) {
		t.Errorf("%s: onRunFinishedEvent called: %v", r.Name, r.RunFinished)
	}
	if !slices.Equal(r.Events, want) {
		t.Errorf("%s: the client saw %v, the stream has %v", r.Name, r.Events, want)
	}
	if len(r.ToolCallEnds) > 0 || len(r.NewToolCalls) > 0 {
		t.Errorf("%s: tool calls handed to the application: %s %s", r.Name, r.ToolCallEnds, r.NewToolCalls)
	}
	text := map[string]string{}
	for _, e := range events {
		switch e := e.(type) {
		case *TextMessageStart:
			text[e.MessageID] += ""
		case *TextMessageContent:
			text[e.MessageID] += e.Delta
		}
	}
	got := map[string]string{}
	for _, raw := range r.Messages {
		var m struct {
			ID      string `json:"id"`
			Content any    `json:"content"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if s, ok := m.Content.(string); ok {
			got[m.ID] = s
		}
	}
	for id, want := range text {
		if got[id] != want {
			t.Errorf("%s: message %s holds %q, the stream sent %q", r.Name, id, got[id], want)
		}
	}
}

// toolCallRun is a successful run with a text message, a tool call, its
// result, a state snapshot and delta, inside a step.
func toolCallRun(t *testing.T) string {
	t.Helper()
	return stream(t, []Event{
		started("r"), stepStart("plan"),
		&TextMessageStart{MessageID: "m", Role: RoleAssistant}, &TextMessageContent{MessageID: "m", Delta: "Searching."},
		&ToolCallStart{ToolCallID: "c", ToolCallName: "search", ParentMessageID: "m"},
		&ToolCallArgs{ToolCallID: "c", Delta: `{"q":`}, msgEnd("m"), &ToolCallArgs{ToolCallID: "c", Delta: `"x"}`}, callEnd("c"),
		&ToolCallResult{MessageID: "tm", ToolCallID: "c", Content: "found", Role: RoleTool},
		&StateSnapshot{Snapshot: map[string]any{"count": 1, "items": []any{}, "gone": true}},
		&StateDelta{Delta: []PatchOperation{
			{Op: PatchReplace, Path: "/count", Value: 2}, {Op: PatchAdd, Path: "/items/-", Value: "a"},
			{Op: PatchRemove, Path: "/gone"}, {Op: PatchCopy, From: "/count", Path: "/copy"}, {Op: PatchTest, Path: "/copy", Value: 2},
		}},
		stepEnd("plan"), finished("r"),
	})
}

func checkToolCallRun(t *testing.T, r clientRun) {
	t.Helper()
	if !r.RunFinished || r.RunError != nil {
		t.Errorf("ToolCallRun: finished %v, RUN_ERROR %+v", r.RunFinished, r.RunError)
	}
	if len(r.ToolCallEnds) != 1 || !golden.SameJSON(r.ToolCallEnds[0], []byte(`{"id":"c","args":{"q":"x"}}`)) {
		t.Errorf("ToolCallRun: onToolCallEndEvent got %s", r.ToolCallEnds)
	}
	call := `{"id":"c","type":"function","function":{"name":"search","arguments":"{\"q\":\"x\"}"}}`
	if len(r.NewToolCalls) != 1 || !golden.SameJSON(r.NewToolCalls[0], []byte(call)) {
		t.Errorf("ToolCallRun: onNewToolCall got %s", r.NewToolCalls)
	}
	if !golden.SameJSON(r.State, []byte(`{"count":2,"items":["a"],"copy":2}`)) {
		t.Errorf("ToolCallRun: state %s", r.State)
	}
	want := []string{
		`{"id":"u1","role":"user","content":"hi"}`,
		`{"id":"m","role":"assistant","content":"Searching.","toolCalls":[` + call + `]}`,
		`{"id":"tm","role":"tool","content":"found","toolCallId":"c"}`,
	}
	if len(r.Messages) != len(want) {
		t.Fatalf("ToolCallRun: messages %s", r.Messages)
	}
	for i, m := range r.Messages {
		if !golden.SameJSON(m, []byte(want[i])) {
			t.Errorf("ToolCallRun: message %d is %s, want %s", i, m, want[i])
		}
	}
}

// snapshotMessages are the messages of SnapshotRun's MESSAGES_SNAPSHOT.
var snapshotMessages = []Message{
	{ID: "u1", Role: RoleUser, Content: "hi"},
	{ID: "a1", Role: RoleAssistant, Content: "Let me check.", ToolCalls: []ToolCall{{ID: "c1", Function: FunctionCall{Name: "search", Arguments: "{}"}}}},
	{ID: "t1", Role: RoleTool, Parts: []ContentPart{{Type: PartText, Text: "none"}}, ToolCallID: "c1", Error: "empty"},
	{ID: "r1", Role: RoleReasoning, Content: "Nothing found."},
	{ID: "a2", Role: RoleAssistant, Content: "Nothing found.", Metadata: map[string]any{"k": "v"}},
}

func snapshotRun(t *testing.T) string {
	t.Helper()
	return stream(t, []Event{started("r"), &MessagesSnapshot{Messages: snapshotMessages}, finished("r")})
}

func checkSnapshotRun(t *testing.T, r clientRun) {
	t.Helper()
	var got []any
	for _, m := range r.Messages {
		v, err := decodeValue(m)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	b, err := json.Marshal(snapshotMessages)
	if err != nil {
		t.Fatal(err)
	}
	want, err := decodeValue(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(any(got), want) {
		t.Errorf("SnapshotRun: the client holds %s, the snapshot sent %s", r.Messages, b)
	}
}

// stream writes events with a Writer and returns the SSE body.
func stream(t *testing.T, events []Event) string {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(sse.NewWriter(&buf), nil)
	for _, e := range events {
		if err := w.WriteEvent(e); err != nil {
			t.Fatal(err)
		}
	}
	return buf.String()
}
