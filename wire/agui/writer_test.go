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
			events:  []Event{runError(), finished("r")},
			wantErr: nil,
			want: "data: {\"type\":\"RUN_ERROR\",\"message\":\"failed\",\"code\":\"TIMEOUT\"}\n\n" +
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

func TestWriteErrorSequence(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewWriter(sse.NewWriter(&buf), nil)
	if err := w.WriteEvent(started("r")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteEvent(msgStart("streaming")); err != nil {
		t.Fatal(err)
	}
	// The agent fails mid-message: the error sequence is still accepted.
	if err := w.WriteError(rateLimited(), &Options{TextMessageID: "err-1", Now: fixedClock}); err != nil {
		t.Fatal(err)
	}
	var types []EventType
	for _, f := range readFrames(t, buf.Bytes()) {
		e, err := Parse([]byte(f.Data))
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, e.Type())
	}
	want := []EventType{TypeRunStarted, TypeTextMessageStart, TypeTextMessageStart, TypeTextMessageContent, TypeTextMessageEnd, TypeRunError}
	if !slices.Equal(types, want) {
		t.Errorf("types = %v, want %v", types, want)
	}
	if !strings.HasSuffix(buf.String(), "}}\n\n") {
		t.Errorf("RUN_ERROR is not last:\n%s", buf.String())
	}
}
