package aguirun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/aguirun"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/wire/agui"
	"github.com/triage-go/triage/wire/present"
	"github.com/triage-go/triage/wire/sse"
)

type st struct{ Log []string }

func (s st) Clone() st { s.Log = append([]string(nil), s.Log...); return s }

// stream runs g and returns the events written, parsed back, after
// checking them with the Verifier a 1.0 client applies.
func stream(t *testing.T, g *graph.Runnable[st], opts aguirun.Options[st]) ([]agui.Event, error) {
	t.Helper()
	var buf bytes.Buffer
	// A batch writer, as the server's: what Run does not flush is lost.
	w := agui.NewWriter(sse.NewBatchWriter(&buf), nil)
	if opts.ThreadID == "" {
		opts.ThreadID, opts.RunID = "t1", "r1"
	}
	opts.Now = func() time.Time { return time.UnixMilli(1_700_000_000_000) }
	_, runErr := aguirun.Run(context.Background(), w, g, st{}, opts)
	events := verified(t, &buf)
	return events, runErr
}

// verified parses the SSE stream in buf and checks it with the Verifier a
// 1.0 client applies.
func verified(t *testing.T, buf *bytes.Buffer) []agui.Event {
	t.Helper()
	var events []agui.Event
	r := sse.NewReader(buf)
	for {
		f, err := r.Next()
		if err != nil {
			break
		}
		e, err := agui.Parse([]byte(f.Data))
		if err != nil {
			t.Fatalf("unparseable event %s: %v", f.Data, err)
		}
		events = append(events, e)
	}
	if err := agui.Verify(events...); err != nil {
		t.Fatalf("the stream breaks a 1.0 client's rules: %v\n%s", err, types(events))
	}
	return events
}

func types(events []agui.Event) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString(string(e.Type()))
		switch x := e.(type) {
		case *agui.StepStarted:
			b.WriteString("(" + x.StepName + ")")
		case *agui.StepFinished:
			b.WriteString("(" + x.StepName + ")")
		case *agui.TextMessageContent:
			b.WriteString("(" + x.Delta + ")")
		case *agui.RunError:
			b.WriteString("(" + x.Code + ")")
		case *agui.Custom:
			b.WriteString("(" + x.Name + ")")
		}
		b.WriteString(" ")
	}
	return strings.TrimSpace(b.String())
}

func talker(id string, words ...string) graph.Node[st] {
	return func(ctx context.Context, s st) (st, error) {
		for _, w := range words {
			graph.Emit(ctx, aguirun.Text{MessageID: id, Delta: w})
		}
		s.Log = append(s.Log, id)
		return s, nil
	}
}

func compile(t *testing.T, g *graph.Graph[st]) *graph.Runnable[st] {
	t.Helper()
	r, err := g.Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRunStreamsStepsAndText(t *testing.T) {
	g := compile(t, graph.New[st]().
		AddNode("plan", talker("m1", "Plan ", "made.")).
		AddNode("answer", talker("m2", "Done.")).
		AddEdge("plan", "answer").AddEdge("answer", graph.End).SetEntry("plan"))
	events, err := stream(t, g, aguirun.Options[st]{Snapshot: func(s st) any { return s.Log }})
	if err != nil {
		t.Fatal(err)
	}
	want := "RUN_STARTED STEP_STARTED(plan) TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT(Plan ) TEXT_MESSAGE_CONTENT(made.) TEXT_MESSAGE_END STATE_SNAPSHOT STEP_FINISHED(plan) " +
		"STEP_STARTED(answer) TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT(Done.) TEXT_MESSAGE_END STATE_SNAPSHOT STEP_FINISHED(answer) RUN_FINISHED"
	if got := types(events); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestRunFailsAfterText(t *testing.T) {
	g := compile(t, graph.New[st]().
		AddNode("answer", func(ctx context.Context, s st) (st, error) {
			graph.Emit(ctx, aguirun.Text{MessageID: "m1", Delta: "Half an "})
			return s, fault.New(fault.RateLimited, "", fault.WithRetryAfter(7*time.Second))
		}).
		AddEdge("answer", graph.End).SetEntry("answer"))
	events, err := stream(t, g, aguirun.Options[st]{})
	if f, ok := fault.As(err); !ok || f.Code != fault.RateLimited || f.Details["node"] != "answer" {
		t.Fatalf("Run returned %v", err)
	}
	got := types(events)
	if !strings.HasPrefix(got, "RUN_STARTED STEP_STARTED(answer) TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT(Half an ) TEXT_MESSAGE_END") ||
		!strings.HasSuffix(got, "RUN_ERROR(RATE_LIMITED)") {
		t.Fatalf("events %s", got)
	}
	last := events[len(events)-1].(*agui.RunError)
	if fmt.Sprint(last.Metadata["retry_after"]) != "7" || last.Metadata["retryable"] != true {
		t.Errorf("metadata %v", last.Metadata)
	}
}

func TestRunFailsInABranch(t *testing.T) {
	g := compile(t, graph.New[st]().
		AddNode("start", talker("m0", "Go.")).
		AddFanOut("start", "join", "left", "right").
		AddNode("left", talker("m1", "left")).
		AddNode("right", func(ctx context.Context, s st) (st, error) {
			return s, fault.New(fault.UpstreamError, "Search is down")
		}).
		AddEdge("left", "join").AddEdge("right", "join").
		AddFanIn("join", func(ctx context.Context, s st, results []st) (st, error) { return s, nil }).
		AddEdge("join", graph.End).SetEntry("start"))
	events, err := stream(t, g, aguirun.Options[st]{})
	if fault.CodeOf(err) != fault.UpstreamError {
		t.Fatalf("Run returned %v", err)
	}
	if got := types(events); !strings.HasSuffix(got, "RUN_ERROR(UPSTREAM_ERROR)") {
		t.Fatalf("events %s", got)
	}
}

func TestRunSendsNotices(t *testing.T) {
	g := compile(t, graph.New[st]().
		AddNode("answer", func(ctx context.Context, s st) (st, error) {
			graph.Notify(ctx, fault.New(fault.ServiceUnavailable, "Using cached data."))
			graph.Emit(ctx, aguirun.Text{MessageID: "m1", Delta: "Cached answer."})
			return s, nil
		}).
		AddEdge("answer", graph.End).SetEntry("answer"))
	events, err := stream(t, g, aguirun.Options[st]{})
	if err != nil {
		t.Fatal(err)
	}
	want := "RUN_STARTED STEP_STARTED(answer) CUSTOM(user_error) TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT(Cached answer.) TEXT_MESSAGE_END STEP_FINISHED(answer) RUN_FINISHED"
	if got := types(events); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// The notice is seed 001's user_error, stamped by the run's clock.
	b, err := json.Marshal(events[2].(*agui.Custom).Value)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := present.ParseEvent(b)
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if u := ev.UserError; u == nil || u.Message != "Using cached data." || u.Code != 503 || !u.Retryable ||
		!ev.Timestamp.Equal(time.UnixMilli(1_700_000_000_000)) {
		t.Errorf("user_error %s", b)
	}
}

func TestRunStopsWhenTheStreamFails(t *testing.T) {
	g := compile(t, graph.New[st]().
		AddNode("answer", talker("m1", "never seen")).
		AddEdge("answer", graph.End).SetEntry("answer"))
	w := agui.NewWriter(sse.NewWriter(failingWriter{}), nil)
	_, err := aguirun.Run(context.Background(), w, g, st{}, aguirun.Options[st]{ThreadID: "t", RunID: "r"})
	if !errors.Is(err, aguirun.ErrStream) {
		t.Fatalf("Run returned %v", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("client gone") }

// An event the Writer refuses (here a tool call started twice) ends the
// run with an INTERNAL_ERROR RUN_ERROR, the last event, rather than a
// stream that stops without RUN_FINISHED or RUN_ERROR (which the official
// client takes for a finished run).
func TestRunEndsWithRunErrorWhenAnEventIsRefused(t *testing.T) {
	g := compile(t, graph.New[st]().
		AddNode("calls", func(ctx context.Context, s st) (st, error) {
			graph.Emit(ctx, aguirun.Text{MessageID: "m1", Delta: "calling"})
			graph.Emit(ctx, &agui.ToolCallStart{ToolCallID: "c1", ToolCallName: "get_weather"})
			graph.Emit(ctx, &agui.ToolCallStart{ToolCallID: "c1", ToolCallName: "get_weather"})
			return s, nil
		}).
		AddEdge("calls", graph.End).SetEntry("calls"))
	events, err := stream(t, g, aguirun.Options[st]{})
	var f *fault.Error
	if !errors.As(err, &f) || f.Code != fault.InternalError || errors.Is(err, aguirun.ErrStream) {
		t.Fatalf("Run returned %v; want an INTERNAL_ERROR fault, not ErrStream", err)
	}
	last, ok := events[len(events)-1].(*agui.RunError)
	if !ok || last.Code != string(fault.InternalError) {
		t.Fatalf("events %s; want RUN_ERROR(INTERNAL_ERROR) last", types(events))
	}
	if got := types(events); !strings.Contains(got, "TEXT_MESSAGE_END") {
		t.Errorf("events %s: the open message was not ended", got)
	}
}
