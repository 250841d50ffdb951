package agui

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/triage-go/triage/wire/sse"
)

func TestWriter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    *WriterOptions
		events  []Event
		wantErr error // for the last event
		want    string
	}{
		{
			name:   "DataLinesOnly",
			events: []Event{started("r"), finished("r")},
			want: "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
				"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n",
		},
		{
			name:   "EventLines",
			opts:   &WriterOptions{EventLine: true},
			events: []Event{started("r"), runError()},
			want: "event: RUN_STARTED\ndata: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
				"event: RUN_ERROR\ndata: {\"type\":\"RUN_ERROR\",\"message\":\"failed\",\"code\":\"TIMEOUT\"}\n\n",
		},
		{
			name:    "RefusesRunFinishedAfterRunError",
			events:  []Event{started("r"), runError(), finished("r")},
			wantErr: ErrOutOfOrder,
			want: "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
				"data: {\"type\":\"RUN_ERROR\",\"message\":\"failed\",\"code\":\"TIMEOUT\"}\n\n",
		},
		{
			name:    "SkipVerify",
			opts:    &WriterOptions{SkipVerify: true},
			events:  []Event{msgEnd("m"), finished("r")},
			wantErr: nil,
			want: "data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n" +
				"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n",
		},
		{
			name:    "RefusesInvalidEvent",
			events:  []Event{started("r"), &TextMessageStart{MessageID: "m", Role: "tool"}},
			wantErr: ErrInvalidEvent,
			want:    "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			w := NewWriter(sse.NewWriter(&buf), tt.opts)
			for i, e := range tt.events {
				err := w.WriteEvent(e)
				if i < len(tt.events)-1 && err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
				if i == len(tt.events)-1 && !errors.Is(err, tt.wantErr) {
					t.Fatalf("last event: %v, want %v", err, tt.wantErr)
				}
			}
			if buf.String() != tt.want {
				t.Errorf("output\n got %q\nwant %q", buf.String(), tt.want)
			}
		})
	}
}

// TestWriterInvalidLeavesVerifier: an event refused as invalid does not
// advance the ordering state.
func TestWriterInvalidLeavesVerifier(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewWriter(sse.NewWriter(&buf), nil)
	if err := w.WriteEvent(started("r")); err != nil {
		t.Fatal(err)
	}
	bad := &TextMessageStart{MessageID: "m", Role: "tool"}
	if err := w.WriteEvent(bad); !errors.Is(err, ErrInvalidEvent) {
		t.Fatalf("err = %v", err)
	}
	// Had the invalid start counted, this END would be accepted.
	if err := w.WriteEvent(msgEnd("m")); !errors.Is(err, ErrOutOfOrder) {
		t.Errorf("END for a refused start: %v, want ErrOutOfOrder", err)
	}
}

func TestWriterConcurrent(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	sw := sse.NewWriter(&buf)
	w := NewWriter(sw, nil)
	if err := w.WriteEvent(started("r")); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				id := fmt.Sprintf("m-%d-%d", g, i)
				for _, e := range []Event{msgStart(id), msgContent(id), msgEnd(id)} {
					if err := w.WriteEvent(e); err != nil {
						t.Error(err)
					}
				}
				if err := sw.WriteComment("heartbeat"); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := w.WriteEvent(finished("r")); err != nil {
		t.Fatal(err)
	}
	var events []Event
	for _, f := range readFrames(t, buf.Bytes()) {
		e, err := Parse([]byte(f.Data))
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	if len(events) != 2+8*20*3 {
		t.Fatalf("%d events", len(events))
	}
	if err := Verify(events...); err != nil {
		t.Errorf("the written stream is out of order: %v", err)
	}
}

// written parses every frame a Writer wrote.
func written(t *testing.T, data []byte) []Event {
	t.Helper()
	var events []Event
	for _, f := range readFrames(t, data) {
		e, err := Parse([]byte(f.Data))
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	return events
}

// describe names each event by its type and the id it is about.
func describe(events []Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = string(e.Type())
		switch e := e.(type) {
		case *TextMessageStart:
			out[i] += " " + e.MessageID
		case *TextMessageContent:
			out[i] += " " + e.MessageID + " " + e.Delta
		case *TextMessageEnd:
			out[i] += " " + e.MessageID
		case *ToolCallStart:
			out[i] += " " + e.ToolCallID
		case *ToolCallEnd:
			out[i] += " " + e.ToolCallID
		case *StepStarted:
			out[i] += " " + e.StepName
		case *StepFinished:
			out[i] += " " + e.StepName
		}
	}
	return out
}

// writeErrorCase is a stream that ends in WriteError: the events written
// before it, the options, and what the whole stream must be. The
// conformance test replays the same streams through @ag-ui/client's
// HttpAgent.
type writeErrorCase struct {
	name   string
	before []Event
	opts   *Options
	want   []string
}

var limitText = rateLimited().Message

var writeErrorCases = []writeErrorCase{
	{
		name:   "BeforeRun",
		before: nil,
		opts:   &Options{TextMessageID: "err-1"},
		want:   []string{"RUN_ERROR"},
	},
	{
		name:   "AfterRunFinished",
		before: []Event{started("r"), finished("r")},
		opts:   &Options{TextMessageID: "err-1"},
		want:   []string{"RUN_STARTED", "RUN_FINISHED", "RUN_ERROR"},
	},
	{
		name:   "Fallback",
		before: []Event{started("r")},
		opts:   &Options{TextMessageID: "err-1"},
		want: []string{"RUN_STARTED", "TEXT_MESSAGE_START err-1", "TEXT_MESSAGE_CONTENT err-1 " + limitText,
			"TEXT_MESSAGE_END err-1", "RUN_ERROR"},
	},
	{
		// Issue 14 (b): the open message is ended, its text stays.
		name:   "OpenMessageEnded",
		before: []Event{started("r"), msgStart("m1"), &TextMessageContent{MessageID: "m1", Delta: "Partial answer"}},
		opts:   &Options{TextMessageID: "err-1"},
		want: []string{"RUN_STARTED", "TEXT_MESSAGE_START m1", "TEXT_MESSAGE_CONTENT m1 Partial answer", "TEXT_MESSAGE_END m1",
			"TEXT_MESSAGE_START err-1", "TEXT_MESSAGE_CONTENT err-1 " + limitText, "TEXT_MESSAGE_END err-1", "RUN_ERROR"},
	},
	{
		name:   "OpenMessagesEndedLastFirst",
		before: []Event{started("r"), msgStart("a"), msgStart("b"), msgStart("c"), msgEnd("b")},
		want: []string{"RUN_STARTED", "TEXT_MESSAGE_START a", "TEXT_MESSAGE_START b", "TEXT_MESSAGE_START c", "TEXT_MESSAGE_END b",
			"TEXT_MESSAGE_END c", "TEXT_MESSAGE_END a", "RUN_ERROR"},
	},
	{
		// Issue 14 (a): the fallback's id is still in progress. Before
		// the fix WriteError wrote nothing at all, and HttpAgent reported
		// the failed run as a success.
		name:   "FallbackIDInProgress",
		before: []Event{started("r"), msgStart("m1"), &TextMessageContent{MessageID: "m1", Delta: "Partial answer"}},
		opts:   &Options{TextMessageID: "m1"},
		want:   []string{"RUN_STARTED", "TEXT_MESSAGE_START m1", "TEXT_MESSAGE_CONTENT m1 Partial answer", "TEXT_MESSAGE_END m1", "RUN_ERROR"},
	},
	{
		// The id was a finished message: the client would append the
		// fallback text to it.
		name:   "FallbackIDUsedBefore",
		before: []Event{started("r"), msgStart("m1"), msgContent("m1"), msgEnd("m1")},
		opts:   &Options{TextMessageID: "m1"},
		want:   []string{"RUN_STARTED", "TEXT_MESSAGE_START m1", "TEXT_MESSAGE_CONTENT m1 x", "TEXT_MESSAGE_END m1", "RUN_ERROR"},
	},
	{
		name: "FallbackIDInHistory",
		before: []Event{&RunStarted{ThreadID: "t", RunID: "r", Input: &RunAgentInput{ThreadID: "t", RunID: "r",
			Messages: []Message{{ID: "u1", Role: RoleUser, Content: "hi"}}}}},
		opts: &Options{TextMessageID: "u1"},
		want: []string{"RUN_STARTED", "RUN_ERROR"},
	},
	{
		// A tool call interrupted mid-arguments stays open: ending it
		// would hand truncated arguments to the application. The step
		// did not finish either.
		name: "OpenToolCallAndStepLeftOpen",
		before: []Event{started("r"), stepStart("s"), msgStart("m1"),
			&ToolCallStart{ToolCallID: "c1", ToolCallName: "delete_file", ParentMessageID: "m1"},
			&ToolCallArgs{ToolCallID: "c1", Delta: `{"path":"/tmp/a`}},
		opts: &Options{TextMessageID: "err-1"},
		want: []string{"RUN_STARTED", "STEP_STARTED s", "TEXT_MESSAGE_START m1", "TOOL_CALL_START c1", "TOOL_CALL_ARGS",
			"TEXT_MESSAGE_END m1", "TEXT_MESSAGE_START err-1", "TEXT_MESSAGE_CONTENT err-1 " + limitText, "TEXT_MESSAGE_END err-1", "RUN_ERROR"},
	},
}

// writeErrorStream writes a case's stream.
func writeErrorStream(t *testing.T, c writeErrorCase) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(sse.NewWriter(&buf), nil)
	for _, e := range c.before {
		if err := w.WriteEvent(e); err != nil {
			t.Fatal(err)
		}
	}
	opts := &Options{Now: fixedClock}
	if c.opts != nil {
		opts.TextMessageID = c.opts.TextMessageID
	}
	if err := w.WriteError(rateLimited(), opts); err != nil {
		t.Fatalf("WriteError: %v", err)
	}
	return buf.Bytes()
}

func TestWriteError(t *testing.T) {
	t.Parallel()
	for _, c := range writeErrorCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			events := written(t, writeErrorStream(t, c))
			if got := describe(events); !slices.Equal(got, c.want) {
				t.Errorf("stream\n got %q\nwant %q", got, c.want)
			}
			if err := Verify(events...); err != nil {
				t.Errorf("the stream is out of order: %v", err)
			}
			if last := events[len(events)-1]; last.Type() != TypeRunError {
				t.Errorf("last event is %s", last.Type())
			}
		})
	}
}

// TestWriterNothingAfterRunError: RUN_ERROR is the last event a Writer
// writes, whether WriteError or WriteEvent wrote it; everything after it
// is refused and writes nothing, a new RUN_STARTED too.
func TestWriterNothingAfterRunError(t *testing.T) {
	t.Parallel()
	for _, viaWriteEvent := range []bool{false, true} {
		var buf bytes.Buffer
		w := NewWriter(sse.NewWriter(&buf), nil)
		if err := w.WriteEvent(started("r")); err != nil {
			t.Fatal(err)
		}
		var err error
		if viaWriteEvent {
			err = w.WriteEvent(runError())
		} else {
			err = w.WriteError(rateLimited(), nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		before := buf.Len()
		for _, e := range []Event{started("r2"), finished("r"), &Custom{Name: "c"}, runError()} {
			if err := w.WriteEvent(e); !errors.Is(err, ErrOutOfOrder) || !strings.Contains(err.Error(), "ended with 'RUN_ERROR'") {
				t.Errorf("WriteEvent(%s) after RUN_ERROR = %v, want ErrOutOfOrder", e.Type(), err)
			}
		}
		if err := w.WriteError(rateLimited(), &Options{TextMessageID: "err-2"}); !errors.Is(err, ErrOutOfOrder) {
			t.Errorf("WriteError after RUN_ERROR = %v, want ErrOutOfOrder", err)
		}
		if buf.Len() != before {
			t.Errorf("written after RUN_ERROR:\n%s", buf.Bytes()[before:])
		}
	}

	// With SkipVerify the Writer checks no order, this rule included.
	var buf bytes.Buffer
	w := NewWriter(sse.NewWriter(&buf), &WriterOptions{SkipVerify: true})
	for _, e := range []Event{runError(), started("r2")} {
		if err := w.WriteEvent(e); err != nil {
			t.Errorf("SkipVerify: %v", err)
		}
	}
}

// TestWriteErrorSkipVerify: without verification WriteError writes the
// events of EventsFrom as they are.
func TestWriteErrorSkipVerify(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewWriter(sse.NewWriter(&buf), &WriterOptions{SkipVerify: true})
	if err := w.WriteError(rateLimited(), &Options{TextMessageID: "err-1", Now: fixedClock}); err != nil {
		t.Fatal(err)
	}
	want := []string{"TEXT_MESSAGE_START err-1", "TEXT_MESSAGE_CONTENT err-1 " + limitText, "TEXT_MESSAGE_END err-1", "RUN_ERROR"}
	if got := describe(written(t, buf.Bytes())); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
