package agui

import (
	"bytes"
	"encoding/json"
	"testing"
)

// fastEvents are events of every kind appendFast encodes, each with the
// strings in s, and with their optional members both set and left out.
func fastEvents(s string) []Event {
	base := BaseEvent{Timestamp: 1700000000000}
	return []Event{
		&TextMessageContent{MessageID: s, Delta: s},
		&TextMessageContent{MessageID: "m", Delta: s, BaseEvent: base},
		&TextMessageStart{MessageID: s},
		&TextMessageStart{MessageID: s, Role: RoleUser, Name: s, BaseEvent: base},
		&TextMessageEnd{MessageID: s, BaseEvent: BaseEvent{Timestamp: -5}},
		&StepStarted{StepName: s},
		&StepFinished{StepName: s, BaseEvent: base},
		&ToolCallStart{ToolCallID: s, ToolCallName: s},
		&ToolCallStart{ToolCallID: s, ToolCallName: s, ParentMessageID: s, BaseEvent: base},
		&ToolCallArgs{ToolCallID: s, Delta: s},
		&ToolCallEnd{ToolCallID: s, BaseEvent: base},
		&RunStarted{ThreadID: s, RunID: s},
		&RunStarted{ThreadID: s, RunID: s, ParentRunID: s, BaseEvent: base},
		&RunFinished{ThreadID: s, RunID: s, BaseEvent: base},
	}
}

// reflected is Marshal's output before the fast path: encoding/json
// through the events' MarshalJSON methods, HTML escaping off.
func reflected(t testing.TB, e Event) []byte {
	t.Helper()
	b, err := marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var encodeStrings = []string{
	"", "word ", "msg-bench", `quote " backslash \ slash /`,
	"<script>&amp;</script>", "\x00\x01\b\f\n\r\t\x1f\x7f",
	"é ü 日本 🙂", "\u2028\u2029", "bad \xff\xfe utf-8 \xe2\x82", "\xed\xa0\x80 surrogate",
}

// TestAppendMarshalMatchesEncodingJSON holds the encoder without
// reflection to encoding/json's output, byte for byte.
func TestAppendMarshalMatchesEncodingJSON(t *testing.T) {
	for _, s := range encodeStrings {
		for _, e := range fastEvents(s) {
			if _, ok := appendFast(nil, e); !ok {
				t.Fatalf("%T is not encoded by the fast path", e)
			}
			got, err := Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			if want := reflected(t, e); !bytes.Equal(got, want) {
				t.Errorf("%T of %q:\n got %s\nwant %s", e, s, got, want)
			}
			if !json.Valid(got) {
				t.Errorf("%T of %q: invalid JSON %s", e, s, got)
			}
		}
	}
}

// TestAppendMarshalFallsBack: an event carrying what the fast path does
// not encode (RawEvent, Metadata, a RunStarted's input, a result) goes
// through encoding/json, and AppendMarshal appends to what b holds.
func TestAppendMarshalFallsBack(t *testing.T) {
	for _, e := range []Event{
		&TextMessageContent{MessageID: "m", Delta: "d", BaseEvent: BaseEvent{Metadata: map[string]any{}}},
		&StepStarted{StepName: "s", BaseEvent: BaseEvent{RawEvent: map[string]any{"a": "<b>"}}},
		&RunStarted{ThreadID: "t", RunID: "r", Input: map[string]any{"threadId": "t", "runId": "r", "messages": []any{}}},
		&RunFinished{ThreadID: "t", RunID: "r", Result: "done"},
		&RunFinished{ThreadID: "t", RunID: "r", Outcome: &Outcome{Type: OutcomeSuccess}},
		&RunError{Message: "m", Code: "RATE_LIMITED"},
	} {
		if _, ok := appendFast(nil, e); ok {
			t.Fatalf("%T was encoded by the fast path", e)
		}
		got, err := AppendMarshal([]byte("prefix:"), e)
		if err != nil {
			t.Fatal(err)
		}
		if want := append([]byte("prefix:"), reflected(t, e)...); !bytes.Equal(got, want) {
			t.Errorf("%T:\n got %s\nwant %s", e, got, want)
		}
	}
	if _, err := AppendMarshal(nil, &TextMessageEnd{MessageID: "m", BaseEvent: BaseEvent{Timestamp: 1 << 60}}); err == nil {
		t.Error("an invalid timestamp was encoded")
	}
}

func FuzzAppendMarshal(f *testing.F) {
	for _, s := range encodeStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range fastEvents(s) {
			got, err := Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			if want := reflected(t, e); !bytes.Equal(got, want) {
				t.Fatalf("%T of %q:\n got %s\nwant %s", e, s, got, want)
			}
		}
	})
}

func BenchmarkMarshalTextMessageContent(b *testing.B) {
	e := &TextMessageContent{MessageID: "msg-bench", Delta: "word ", BaseEvent: BaseEvent{Timestamp: 1700000000000}}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = AppendMarshal(buf[:0], e); err != nil {
			b.Fatal(err)
		}
	}
}
