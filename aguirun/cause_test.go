package aguirun_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/triage-go/triage/aguirun"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/wire/agui"
	"github.com/triage-go/triage/wire/present"
	"github.com/triage-go/triage/wire/sse"
)

// hanging is a graph whose node streams a word, says it is waiting, and
// waits for its context.
func hanging(t *testing.T, waiting chan<- struct{}) *graph.Runnable[st] {
	return compile(t, graph.New[st]().
		AddNode("answer", func(ctx context.Context, s st) (st, error) {
			graph.Emit(ctx, aguirun.Text{MessageID: "m1", Delta: "Half"})
			close(waiting)
			<-ctx.Done()
			return s, ctx.Err()
		}).
		AddEdge("answer", graph.End).SetEntry("answer"))
}

// A run whose context is cancelled with a fault as its cause (a server
// shutting down) ends with that fault's RUN_ERROR, not CANCELLED: the
// client is told why, and when to come back.
func TestRunStoppedWithACause(t *testing.T) {
	waiting := make(chan struct{})
	g := hanging(t, waiting)
	stop := fault.New(fault.ServiceUnavailable, "The service is shutting down.", fault.WithRetryAfter(5*time.Second))
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { <-waiting; cancel(stop) }()
	var buf bytes.Buffer
	w := agui.NewWriter(sse.NewWriter(&buf), nil)
	_, err := aguirun.Run(ctx, w, g, st{}, aguirun.Options[st]{ThreadID: "t1", RunID: "r1"})
	if fault.CodeOf(err) != fault.ServiceUnavailable {
		t.Fatalf("Run returned %v, want the cause's SERVICE_UNAVAILABLE", err)
	}
	events := verified(t, &buf)
	last, ok := events[len(events)-1].(*agui.RunError)
	if !ok || last.Code != "SERVICE_UNAVAILABLE" || last.Message != "The service is shutting down." ||
		last.Metadata["retryable"] != true || fmt.Sprint(last.Metadata["retry_after"]) != "5" || fmt.Sprint(last.Metadata["http_status"]) != "503" {
		t.Fatalf("last event %#v, want the cause's RUN_ERROR (%s)", events[len(events)-1], types(events))
	}
	if d, _ := last.Metadata["details"].(map[string]any); d["node"] != "answer" {
		t.Errorf("details %v: the node the run was in is not named", last.Metadata["details"])
	}

	// A cause that is no fault (a plain cancel) is CANCELLED, as before.
	waiting = make(chan struct{})
	ctx, cancel = context.WithCancelCause(context.Background())
	go func() { <-waiting; cancel(nil) }()
	buf.Reset()
	_, err = aguirun.Run(ctx, agui.NewWriter(sse.NewWriter(&buf), nil), hanging(t, waiting), st{}, aguirun.Options[st]{ThreadID: "t1", RunID: "r1"})
	if fault.CodeOf(err) != fault.Cancelled {
		t.Fatalf("a plain cancel: %v", err)
	}
}

// RunCAP ends the same way, with an error packet, its last.
func TestRunCAPStoppedWithACause(t *testing.T) {
	waiting := make(chan struct{})
	g := hanging(t, waiting)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		<-waiting
		cancel(fault.New(fault.ServiceUnavailable, "The service is shutting down.", fault.WithRetryAfter(5*time.Second)))
	}()
	var buf bytes.Buffer
	_, err := aguirun.RunCAP(ctx, &buf, g, st{}, aguirun.CAPOptions{StreamID: "r1"})
	if fault.CodeOf(err) != fault.ServiceUnavailable {
		t.Fatalf("RunCAP returned %v", err)
	}
	var last *present.Packet
	for sc := bufio.NewScanner(&buf); sc.Scan(); {
		if last, err = present.ParsePacket(sc.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	if last == nil || last.Op != present.OpError || last.Error.Code != "SERVICE_UNAVAILABLE" || last.Error.Severity != present.SeverityTransient {
		t.Fatalf("last packet %+v", last)
	}
}
