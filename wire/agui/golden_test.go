package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/testkit/golden"
	"github.com/triage-go/triage/wire/sse"
)

// testNow is the clock of every golden file: 2026-01-11T12:00:00Z.
var testNow = time.Date(2026, 1, 11, 12, 0, 0, 0, time.UTC)

func fixedClock() time.Time { return testNow }

// testTimestamp is testNow in milliseconds.
const testTimestamp = 1768132800000

// errUnknown is an error no classifier recognises: AGENT_EXECUTION_ERROR.
var errUnknown = errors.New("pgx: connection pool exhausted after 30 attempts")

func rateLimited() *fault.Error {
	return fault.New(fault.RateLimited, "Request rate limit exceeded. Please wait before retrying.",
		fault.WithRetryAfter(60*time.Second),
		fault.WithDetail("limit", "requests_per_minute"),
		fault.WithSource("gateway"))
}

// goldenFile is one golden stream: how to produce it, and whether the
// official client must accept it as a whole stream.
type goldenFile struct {
	name  string
	write func(w *Writer) error
	opts  *WriterOptions
}

var goldenFiles = []goldenFile{
	{
		name: "run_error.golden",
		opts: &WriterOptions{EventLine: true},
		write: func(w *Writer) error {
			return w.WriteError(errUnknown, &Options{Now: fixedClock})
		},
	},
	{
		name: "run_error_debug.golden",
		opts: &WriterOptions{EventLine: true},
		write: func(w *Writer) error {
			return w.WriteError(errUnknown, &Options{Now: fixedClock, Debug: true})
		},
	},
	{
		name: "run_error_rate_limited.golden",
		opts: &WriterOptions{EventLine: true},
		write: func(w *Writer) error {
			return w.WriteError(rateLimited(), &Options{Now: fixedClock})
		},
	},
	{
		name: "error_sequence.golden",
		write: func(w *Writer) error {
			ts := BaseEvent{Timestamp: testTimestamp - 1500}
			for _, e := range []Event{
				&RunStarted{ThreadID: "thread-1", RunID: "run-1", BaseEvent: ts},
				&StepStarted{StepName: "retrieve", BaseEvent: ts},
			} {
				if err := w.WriteEvent(e); err != nil {
					return err
				}
			}
			return w.WriteError(rateLimited(), &Options{Now: fixedClock, TextMessageID: "msg-error-run-1"})
		},
	},
	{
		// A run failing mid-stream: a message and a tool call open.
		name: "error_mid_stream.golden",
		write: func(w *Writer) error {
			ts := BaseEvent{Timestamp: testTimestamp - 1500}
			for _, e := range []Event{
				&RunStarted{ThreadID: "thread-1", RunID: "run-1", BaseEvent: ts},
				&StepStarted{StepName: "answer", BaseEvent: ts},
				&TextMessageStart{MessageID: "msg-1", Role: RoleAssistant, BaseEvent: ts},
				&TextMessageContent{MessageID: "msg-1", Delta: "The incident started at", BaseEvent: ts},
				&ToolCallStart{ToolCallID: "call-1", ToolCallName: "search", ParentMessageID: "msg-1", BaseEvent: ts},
				&ToolCallArgs{ToolCallID: "call-1", Delta: `{"query":"gate`, BaseEvent: ts},
			} {
				if err := w.WriteEvent(e); err != nil {
					return err
				}
			}
			return w.WriteError(rateLimited(), &Options{Now: fixedClock, TextMessageID: "msg-error-run-1"})
		},
	},
	{
		name:  "events.golden",
		write: writeAllEvents,
	},
}

// writeAllEvents writes every modelled event type, optional members set,
// in an order a 1.0 client accepts.
func writeAllEvents(w *Writer) error {
	ts := func(off int64) BaseEvent { return BaseEvent{Timestamp: testTimestamp + off} }
	input := map[string]any{
		"threadId": "thread-1", "runId": "run-1", "messages": []any{
			map[string]any{"id": "msg-user-1", "role": "user", "content": "Summarise the incident."},
		},
		"tools": []any{}, "context": []any{}, "state": map[string]any{}, "forwardedProps": map[string]any{},
	}
	events := []Event{
		&RunStarted{ThreadID: "thread-1", RunID: "run-1", ParentRunID: "run-0", Input: input, BaseEvent: BaseEvent{
			Timestamp: testTimestamp, RawEvent: map[string]any{"source": "langgraph"}, Metadata: map[string]any{"tenant": "acme"},
		}},
		&StepStarted{StepName: "classify", BaseEvent: ts(1)},
		&TextMessageStart{MessageID: "msg-1", Role: RoleAssistant, Name: "triage", BaseEvent: ts(2)},
		&TextMessageContent{MessageID: "msg-1", Delta: "Upstream <search> & \"quotes\" — ünïcode", BaseEvent: ts(3)},
		&TextMessageContent{MessageID: "msg-1", Delta: "", BaseEvent: ts(3)},
		&TextMessageEnd{MessageID: "msg-1", BaseEvent: ts(4)},
		&StateSnapshot{Snapshot: map[string]any{"attempts": 2, "codes": []any{"TIMEOUT"}}, BaseEvent: ts(5)},
		&StateSnapshot{Snapshot: nil, BaseEvent: ts(5)},
		&Custom{Name: "triage.diagnosis", Value: map[string]any{"code": "TIMEOUT", "confidence": 0.9}, BaseEvent: ts(6)},
		&Custom{Name: "triage.null", Value: nil},
		&TextMessageStart{MessageID: "msg-3", Role: RoleAssistant, BaseEvent: ts(6)},
		&ToolCallStart{ToolCallID: "call-1", ToolCallName: "search", ParentMessageID: "msg-3", BaseEvent: ts(6)},
		&ToolCallArgs{ToolCallID: "call-1", Delta: `{"query":"incident`, BaseEvent: ts(6)},
		&ToolCallStart{ToolCallID: "call-2", ToolCallName: "lookup", BaseEvent: ts(6)},
		&ToolCallArgs{ToolCallID: "call-1", Delta: ` 42"}`, BaseEvent: ts(6)},
		&TextMessageEnd{MessageID: "msg-3", BaseEvent: ts(6)},
		&ToolCallEnd{ToolCallID: "call-1", BaseEvent: ts(6)},
		&ToolCallEnd{ToolCallID: "call-2", BaseEvent: ts(6)},
		&ToolCallResult{MessageID: "msg-tool-1", ToolCallID: "call-1", Content: "3 results", Role: RoleTool, BaseEvent: ts(6)},
		&ToolCallResult{MessageID: "msg-tool-2", ToolCallID: "call-2", Parts: []ContentPart{
			{Type: PartText, ID: "p1", Text: "a chart:", Metadata: "any value"},
			{Type: PartImage, Source: &PartSource{Type: SourceData, Value: "iVBORw0KGgo=", MimeType: "image/png"}},
			{Type: PartDocument, Source: &PartSource{Type: SourceURL, Value: "https://example.com/r.pdf"}},
			{Type: PartAudio, Source: &PartSource{Type: SourceFile, Value: "file-123", Provider: "openai", MimeType: "audio/wav"}},
			{Type: PartVideo, Source: &PartSource{Type: SourceData, Value: ""}},
		}},
		&StateDelta{Delta: []PatchOperation{
			{Op: PatchAdd, Path: "/attempts", Value: 3},
			{Op: PatchAdd, Path: "/codes/-", Value: nil},
			{Op: PatchReplace, Path: "/a~1b/c~0d", Value: map[string]any{"x": []any{1, "y"}}},
			{Op: PatchTest, Path: "", Value: false},
			{Op: PatchMove, From: "/attempts", Path: "/tries"},
			{Op: PatchCopy, From: "/tries", Path: "/attempts"},
			{Op: PatchRemove, Path: "/tries"},
		}, BaseEvent: ts(6)},
		&StateDelta{BaseEvent: ts(6)},
		&MessagesSnapshot{Messages: []Message{
			{ID: "msg-dev", Role: RoleDeveloper, Content: "Be brief.", Name: "ops"},
			{ID: "msg-sys", Role: RoleSystem, Content: "You triage incidents.", EncryptedValue: "enc"},
			{ID: "msg-user-1", Role: RoleUser, Content: "Summarise the incident.", Metadata: map[string]any{"k": "v"}},
			{ID: "msg-user-2", Role: RoleUser, Parts: []ContentPart{{Type: PartText, Text: "And this: "},
				{Type: PartImage, Source: &PartSource{Type: SourceURL, Value: "https://example.com/a.png", MimeType: "image/png"}}}},
			{ID: "msg-3", Role: RoleAssistant, ToolCalls: []ToolCall{
				{ID: "call-1", Function: FunctionCall{Name: "search", Arguments: `{"query":"incident 42"}`}},
				{ID: "call-2", Function: FunctionCall{Name: "lookup", Arguments: ""}, EncryptedValue: "e", Metadata: map[string]any{}},
			}},
			{ID: "msg-tool-1", Role: RoleTool, Content: "3 results", ToolCallID: "call-1"},
			{ID: "msg-tool-2", Role: RoleTool, Parts: []ContentPart{}, ToolCallID: "call-2", Error: "lookup failed"},
			{ID: "msg-1", Role: RoleAssistant, Content: "Upstream timeout.", Name: "triage", SubagentRunID: "sub-1"},
			{ID: "msg-act", Role: RoleActivity, ActivityType: "progress", ActivityContent: map[string]any{"done": 2}},
			{ID: "msg-act-2", Role: RoleActivity, ActivityType: "empty"},
			{ID: "msg-think", Role: RoleReasoning, Content: "Checking the gateway first."},
		}, BaseEvent: ts(6)},
		&StepFinished{StepName: "classify", BaseEvent: ts(7)},
		&RunFinished{ThreadID: "thread-1", RunID: "run-1", Result: map[string]any{"ok": true},
			Outcome: &Outcome{Type: OutcomeSuccess, PendingToolCallIDs: []string{"call-1"}}, BaseEvent: ts(8)},
		&RunStarted{ThreadID: "thread-1", RunID: "run-2", BaseEvent: ts(9)},
		&RunFinished{ThreadID: "thread-1", RunID: "run-2", Outcome: &Outcome{Type: OutcomeInterrupt, Interrupts: []Interrupt{{
			ID: "int-1", Reason: "approval", Message: "Approve the refund?", ToolCallID: "call-2",
			ResponseSchema: map[string]any{"type": "object"}, ExpiresAt: "2026-01-12T12:00:00Z", Metadata: map[string]any{"k": "v"},
		}}}, BaseEvent: ts(10)},
		&RunStarted{ThreadID: "thread-1", RunID: "run-3", BaseEvent: ts(11)},
		&RunFinished{ThreadID: "thread-1", RunID: "run-3", Outcome: &Outcome{Type: OutcomeCancelled}, BaseEvent: ts(12)},
		&RunStarted{ThreadID: "thread-1", RunID: "run-4", BaseEvent: ts(13)},
		&TextMessageStart{MessageID: "msg-2"},
		&RunError{Message: "Request timed out. Please try again.", Code: "TIMEOUT", BaseEvent: ts(14)},
	}
	for _, e := range events {
		if err := w.WriteEvent(e); err != nil {
			return err
		}
	}
	return nil
}

// render produces a golden file's bytes.
func render(t *testing.T, g goldenFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := g.write(NewWriter(sse.NewWriter(&buf), g.opts)); err != nil {
		t.Fatalf("%s: %v", g.name, err)
	}
	return buf.Bytes()
}

// readFrames reads every frame of an SSE stream.
func readFrames(t *testing.T, data []byte) []sse.Frame {
	t.Helper()
	r := sse.NewReader(bytes.NewReader(data))
	var frames []sse.Frame
	for {
		f, err := r.Next()
		if err == io.EOF {
			return frames
		}
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, g := range goldenFiles {
		t.Run(strings.TrimSuffix(g.name, ".golden"), func(t *testing.T) {
			t.Parallel()
			got := render(t, g)
			golden.Check(t, g.name, got)
			if bytes.ContainsRune(got, '\r') {
				t.Error("CR in output: AG-UI frames use LF only")
			}

			// Every frame decodes, re-encodes to the same bytes, and the
			// stream as a whole is in order.
			var events []Event
			for i, f := range readFrames(t, got) {
				e, err := Parse([]byte(f.Data))
				if err != nil {
					t.Fatalf("frame %d: %v", i, err)
				}
				if g.opts != nil && g.opts.EventLine && f.Event != string(e.Type()) {
					t.Errorf("frame %d: event line %q, type %s", i, f.Event, e.Type())
				}
				again, err := Marshal(e)
				if err != nil {
					t.Fatal(err)
				}
				if string(again) != f.Data {
					t.Errorf("frame %d re-encodes differently:\n got %s\nwant %s", i, again, f.Data)
				}
				events = append(events, e)
			}
			if err := Verify(events...); err != nil {
				t.Errorf("golden stream out of order: %v", err)
			}
		})
	}
}

// goldenEvents returns the JSON of every event in every golden file, by
// file.
func goldenEvents(t *testing.T) map[string][]json.RawMessage {
	t.Helper()
	out := make(map[string][]json.RawMessage)
	for _, g := range goldenFiles {
		data, err := os.ReadFile(filepath.Join("testdata", g.name))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range readFrames(t, data) {
			out[g.name] = append(out[g.name], json.RawMessage(f.Data))
		}
	}
	return out
}
