package storetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// outline is an outline of a run's events as the service keeps it: n
// events a millisecond apart from at, with every kind of id and name.
func outline(at time.Time, n int) []store.RunEvent {
	kinds := []store.RunEvent{
		{Type: "RUN_STARTED"},
		{Type: "STEP_STARTED", StepName: "échø"},
		{Type: "TEXT_MESSAGE_START", MessageID: "msg-1", Role: "assistant"},
		{Type: "TEXT_MESSAGE_CONTENT", MessageID: "msg-1", Count: 57},
		{Type: "TOOL_CALL_START", ToolCallID: "call-1", ToolCallName: "search", MessageID: "msg-1"},
		{Type: "CUSTOM", Name: "user_error"},
		{Type: "RUN_ERROR", Code: "RATE_LIMITED"},
	}
	out := make([]store.RunEvent, n)
	for i := range out {
		e := kinds[i%len(kinds)]
		e.At = at.Add(time.Duration(i) * time.Millisecond)
		if e.Count == 0 {
			e.Count = 1
		}
		out[i] = e
	}
	return out
}

var runEventTests = []test{
	{"RoundTrip", func(t *testing.T, e *env) {
		// A run's events are written with its end and read back by GetRun
		// only: a list of runs and the readers of ended runs have none.
		ctx := t.Context()
		tn := e.s.Tenant("a")
		_, err := tn.StartRun(ctx, store.Run{RunID: "run-1", ThreadID: "thread-1", AgentID: "echo"})
		must(t, err)
		if r := getRun(t, tn, "run-1"); r.Events != nil || r.EventsOmitted != 0 {
			t.Errorf("a running run's events = %+v, %d omitted; want none", r.Events, r.EventsOmitted)
		}
		// Times in another zone, with a monotonic reading: read back in UTC.
		at := time.Now().In(time.FixedZone("X", 3600))
		end := failedEnd()
		end.Events, end.EventsOmitted = outline(at, store.MaxRunEvents), 1234
		got, err := tn.FinishRun(ctx, "run-1", end)
		must(t, err)
		want := outline(at, store.MaxRunEvents)
		for i := range want {
			want[i].At = time.Unix(0, want[i].At.UnixNano()).UTC()
		}
		ended := getRun(t, tn, "run-1")
		for what, r := range map[string]store.Run{"FinishRun": got, "GetRun": ended} {
			if len(r.Events) != len(want) || r.EventsOmitted != 1234 {
				t.Fatalf("%s's events: %d, %d omitted; want %d, 1234 omitted", what, len(r.Events), r.EventsOmitted, len(want))
			}
			for i := range want {
				if r.Events[i] != want[i] {
					t.Errorf("%s's event %d = %+v, want %+v", what, i, r.Events[i], want[i])
				}
			}
		}
		// The rest of the record is as without events.
		failed := ended
		failed.Events, failed.EventsOmitted = nil, 0
		page, err := tn.ListRuns(ctx, store.RunFilter{})
		must(t, err)
		if len(page.Runs) != 1 {
			t.Fatalf("ListRuns = %+v, want the run", page)
		}
		sameRun(t, "ListRuns' run (no events)", page.Runs[0], failed)
		if ends := runsEndedAfter(t, tn, 0, 10, 1); len(ends) != 1 {
			t.Errorf("RunsEndedAfter = %+v, want the run", ends)
		} else {
			sameRun(t, "RunsEndedAfter's run (no events)", ends[0].Run, failed)
		}
		// A link keeps them.
		must(t, tn.LinkRun(ctx, "run-1", "err_0123456789abcdef"))
		if r := getRun(t, tn, "run-1"); len(r.Events) != len(want) || r.EventsOmitted != 1234 {
			t.Errorf("a linked run's events: %d, %d omitted; want %d, 1234", len(r.Events), r.EventsOmitted, len(want))
		}
		// A run ended without events has none; one with only some omitted
		// says so.
		for i, c := range []struct {
			events  []store.RunEvent
			omitted int
		}{{nil, 0}, {[]store.RunEvent{}, 0}, {nil, 3}} {
			id := fmt.Sprint("run-", i+2)
			_, err := tn.StartRun(ctx, store.Run{RunID: id, AgentID: "echo"})
			must(t, err)
			_, err = tn.FinishRun(ctx, id, store.RunEnd{Outcome: store.RunFinished, Events: c.events, EventsOmitted: c.omitted})
			must(t, err)
			if r := getRun(t, tn, id); r.Events != nil || r.EventsOmitted != c.omitted {
				t.Errorf("GetRun(%s) events = %#v, %d omitted; want none, %d omitted", id, r.Events, r.EventsOmitted, c.omitted)
			}
		}
	}},
	{"Invalid", func(t *testing.T, e *env) {
		ctx := t.Context()
		tn := e.s.Tenant("a")
		_, err := tn.StartRun(ctx, store.Run{RunID: "run", AgentID: "echo"})
		must(t, err)
		at := e.clock.Now()
		with := func(change func(*store.RunEvent)) []store.RunEvent {
			ev := outline(at, 3)
			change(&ev[1])
			return ev
		}
		long := strings.Repeat("x", store.MaxRunIDBytes+1)
		for what, end := range map[string]store.RunEnd{
			"too many events":             {Events: outline(at, store.MaxRunEvents+1)},
			"negative omitted":            {Events: outline(at, 2), EventsOmitted: -1},
			"an event without type":       {Events: with(func(e *store.RunEvent) { e.Type = "" })},
			"a count of 0":                {Events: with(func(e *store.RunEvent) { e.Count = 0 })},
			"a long step name":            {Events: with(func(e *store.RunEvent) { e.StepName = long })},
			"a long tool name":            {Events: with(func(e *store.RunEvent) { e.ToolCallName = long })},
			"a message id with NUL":       {Events: with(func(e *store.RunEvent) { e.MessageID = "m\x00" })},
			"a tool call id in bad UTF-8": {Events: with(func(e *store.RunEvent) { e.ToolCallID = "\xff" })},
			"a custom name too long":      {Events: with(func(e *store.RunEvent) { e.Name = long })},
		} {
			end.Outcome = store.RunFinished
			if _, err := tn.FinishRun(ctx, "run", end); !errors.Is(err, store.ErrInvalidRun) {
				t.Errorf("FinishRun with %s: %v, want ErrInvalidRun", what, err)
			}
		}
		if r := getRun(t, tn, "run"); r.Outcome != store.RunRunning || r.Events != nil {
			t.Errorf("a refused FinishRun changed the run: %+v", r)
		}
	}},
}
