package server

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/wire/agui"
)

// A run's record keeps an outline of the events its stream carried: each
// one's type, time, names and ids, in order (a text message's content
// events as one, counted), and none of their content.
func TestRunRecordOutline(t *testing.T) {
	t.Parallel()
	f := recordsFixture(t, nil)
	for _, c := range []struct{ id, prompt string }{
		{"run-ok", "hello there secret-words"},
		{"run-failed", "fail with RATE_LIMITED after 7s secret-words"},
		{"run-warned", "warn with SERVICE_UNAVAILABLE after 5s secret-words"},
	} {
		streamed := runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody(c.id, c.prompt), nil))
		// What the outline should be: the stream's events, content ones
		// of one message counted as one.
		var want []store.RunEvent
		for _, e := range streamed {
			ev := outlineOf(e)
			ev.At = time.UnixMilli(e.Base().Timestamp).UTC()
			if n := len(want); n > 0 && stretches(&want[n-1], &ev) {
				want[n-1].Count++
				continue
			}
			want = append(want, ev)
		}
		run, _ := f.getRunRecord(c.id, nil)
		if fmt.Sprint(run.Events) != fmt.Sprint(want) || run.EventsOmitted != 0 {
			t.Errorf("%s's events =\n%+v (%d omitted)\nwant\n%+v", c.id, run.Events, run.EventsOmitted, want)
		}
		r := f.do("GET", "/v1/runs/"+c.id, nil, nil)
		if bytes.Contains(r.body, []byte("secret-words")) || bytes.Contains(r.body, []byte("You said")) {
			t.Errorf("GET /v1/runs/%s carries the run's content: %s", c.id, r.body)
		}
		// The list of runs carries no events.
		if l := f.do("GET", "/v1/runs", nil, nil); l.status != http.StatusOK || bytes.Contains(l.body, []byte(`"events"`)) {
			t.Errorf("GET /v1/runs: %d %s", l.status, l.body)
		}
	}
	// The types each run's outline should name.
	for id, types := range map[string][]string{
		"run-ok":     {"RUN_STARTED", "STEP_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "STEP_FINISHED", "RUN_FINISHED"},
		"run-failed": {"RUN_STARTED", "STEP_STARTED", "RUN_ERROR"},
	} {
		run, _ := f.getRunRecord(id, nil)
		var got []string
		for _, e := range run.Events {
			got = append(got, e.Type)
		}
		if fmt.Sprint(got) != fmt.Sprint(types) {
			t.Errorf("%s's event types = %v, want %v", id, got, types)
		}
		if last := run.Events[len(run.Events)-1]; id == "run-failed" && last.Code != "RATE_LIMITED" {
			t.Errorf("run-failed's RUN_ERROR = %+v, want its code", last)
		}
	}
}

// The outline is bounded: a long stream keeps its first and last
// MaxRunEvents/2, the events between counted; a stretch of content events
// of one message is one, however long; ids are cut to what a run record
// holds.
func TestRunOutlineBound(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	o := newRunOutline(func() time.Time { return at })
	// Each event a millisecond after the one before, but the first, which
	// has no timestamp: the outline's clock tells its time.
	ms := at.UnixMilli()
	write := func(e agui.Event) {
		e.Base().Timestamp = ms
		ms++
		o.written(e)
	}
	o.written(&agui.RunStarted{RunID: "r", ThreadID: "t", Input: "secret"})
	const steps = 1000
	for i := range steps {
		name := fmt.Sprint("step-", i)
		write(&agui.StepStarted{StepName: name})
		write(&agui.TextMessageStart{MessageID: name, Role: agui.RoleAssistant})
		for range 50 {
			write(&agui.TextMessageContent{MessageID: name, Delta: "secret"})
		}
		write(&agui.TextMessageEnd{MessageID: name})
		write(&agui.StepFinished{StepName: name})
	}
	write(&agui.RunFinished{RunID: "r", ThreadID: "t"})
	events, omitted := o.events()
	if len(events) != store.MaxRunEvents {
		t.Fatalf("%d events kept, want %d", len(events), store.MaxRunEvents)
	}
	// Every event is kept or counted omitted: 54 a step, and the run's two.
	kept := 0
	for _, e := range events {
		kept += e.Count
	}
	if total := 2 + 54*steps; kept+omitted != total || omitted == 0 {
		t.Errorf("%d kept and %d omitted, want %d in all", kept, omitted, total)
	}
	if events[0].Type != "RUN_STARTED" || events[1].StepName != "step-0" || events[1].At != at {
		t.Errorf("the first events = %+v", events[:2])
	}
	if e := events[3]; e.Type != "TEXT_MESSAGE_CONTENT" || e.Count != 50 || e.MessageID != "step-0" {
		t.Errorf("a message's content = %+v, want its 50 events as one", e)
	}
	if last := events[len(events)-1]; last.Type != "RUN_FINISHED" {
		t.Errorf("the last event = %+v, want RUN_FINISHED", last)
	}
	if e := events[len(events)-2]; e.Type != "STEP_FINISHED" || e.StepName != fmt.Sprint("step-", steps-1) {
		t.Errorf("the last step = %+v", e)
	}
	for i := 1; i < len(events); i++ {
		if events[i].At.Before(events[i-1].At) {
			t.Fatalf("events out of order at %d: %+v, %+v", i, events[i-1], events[i])
		}
	}
	// Ids a record cannot hold are made storable.
	long := &agui.ToolCallStart{ToolCallID: "c\x00\xff", ToolCallName: string(bytes.Repeat([]byte("é"), store.MaxRunIDBytes))}
	ev := outlineOf(long)
	if ev.ToolCallID != "c\uFFFD" || len(ev.ToolCallName) != store.MaxRunIDBytes {
		t.Errorf("outline of %q, %d bytes: %q, %d bytes", long.ToolCallID, len(long.ToolCallName), ev.ToolCallID, len(ev.ToolCallName))
	}
}
