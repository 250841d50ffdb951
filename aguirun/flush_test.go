package aguirun_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage/aguirun"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/wire/agui"
	"github.com/triage-go/triage/wire/sse"
)

// flushed is a stream whose flushes a test watches: each Flush sends what
// the stream holds then.
type flushed struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	flushes chan string
	err     error // Flush's answer
}

func (f *flushed) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.Write(p)
}

func (f *flushed) Flush() error {
	f.mu.Lock()
	s := f.buf.String()
	f.mu.Unlock()
	select {
	case f.flushes <- s:
	default:
	}
	return f.err
}

// TestRunFlushesALoneEvent: on a batch writer, an event the graph sends
// while it has nothing more ready reaches the stream's reader before the
// graph sends the next.
func TestRunFlushesALoneEvent(t *testing.T) {
	out := &flushed{flushes: make(chan string, 64)}
	arrived := make(chan bool, 1)
	g, err := graph.New[st]().
		AddNode("n", func(ctx context.Context, s st) (st, error) {
			graph.Emit(ctx, aguirun.Text{MessageID: "m", Delta: "lone"})
			deadline := time.After(10 * time.Second)
			for {
				select {
				case got := <-out.flushes:
					if strings.Contains(got, `"delta":"lone"`) {
						arrived <- true
						graph.Emit(ctx, aguirun.Text{MessageID: "m", Delta: "next"})
						return s, nil
					}
				case <-deadline:
					arrived <- false
					return st{}, nil
				}
			}
		}).
		AddEdge("n", graph.End).SetEntry("n").Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	w := agui.NewWriter(sse.NewBatchWriter(out), nil)
	if _, err := aguirun.Run(context.Background(), w, g, st{}, aguirun.Options[st]{ThreadID: "t", RunID: "r"}); err != nil {
		t.Fatal(err)
	}
	if !<-arrived {
		t.Fatal("the lone event was not flushed while the graph waited")
	}
	if s := out.buf.String(); !strings.Contains(s, `"delta":"next"`) || !strings.Contains(s, `"type":"RUN_FINISHED"`) {
		t.Fatalf("the stream lacks the last events:\n%s", s)
	}
}

// TestRunFlushFailure: a flush that fails between events is the stream's
// failure, as a failed write is: at the next event Run stops the run (the
// node here would wait for that forever) and returns ErrStream.
func TestRunFlushFailure(t *testing.T) {
	out := &flushed{flushes: make(chan string, 64), err: errors.New("connection reset")}
	g, err := graph.New[st]().
		AddNode("n", func(ctx context.Context, s st) (st, error) {
			graph.Emit(ctx, aguirun.Text{MessageID: "m", Delta: "a"})
			<-ctx.Done()
			return s, ctx.Err()
		}).
		AddEdge("n", graph.End).SetEntry("n").Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	w := agui.NewWriter(sse.NewBatchWriter(out), nil)
	done := make(chan error, 1)
	go func() {
		_, err := aguirun.Run(context.Background(), w, g, st{}, aguirun.Options[st]{ThreadID: "t", RunID: "r"})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, aguirun.ErrStream) {
			t.Fatalf("Run: %v, want ErrStream", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run went on after its stream failed")
	}
}

// TestRunReady: RUN_STARTED is flushed before the graph's first burst, and
// Options.Ready is called then, before the graph starts; an error from it
// ends the run with its RUN_ERROR, the graph never started.
func TestRunReady(t *testing.T) {
	for _, fail := range []bool{false, true} {
		out := &flushed{flushes: make(chan string, 64)}
		var ran atomic.Bool
		g, err := graph.New[st]().
			AddNode("n", func(ctx context.Context, s st) (st, error) {
				ran.Store(true)
				graph.Emit(ctx, aguirun.Text{MessageID: "m", Delta: "hi"})
				return s, nil
			}).
			AddEdge("n", graph.End).SetEntry("n").Compile(nil)
		if err != nil {
			t.Fatal(err)
		}
		readyErr := fault.New(fault.ServiceUnavailable, "Storage is unavailable; please retry shortly.")
		var atReady string
		ready := func() error {
			if ran.Load() {
				t.Error("the graph started before Ready returned")
			}
			select {
			case atReady = <-out.flushes:
			default:
			}
			if fail {
				return readyErr
			}
			return nil
		}
		w := agui.NewWriter(sse.NewBatchWriter(out), nil)
		_, err = aguirun.Run(context.Background(), w, g, st{}, aguirun.Options[st]{ThreadID: "t", RunID: "r", Ready: ready})
		if !strings.Contains(atReady, `"type":"RUN_STARTED"`) || strings.Contains(atReady, "STEP_STARTED") {
			t.Errorf("flushed when Ready was called: %q, want RUN_STARTED alone", atReady)
		}
		s := out.buf.String()
		switch {
		case fail && (fault.CodeOf(err) != fault.ServiceUnavailable || ran.Load() || !strings.Contains(s, `"type":"RUN_ERROR"`) || strings.Contains(s, "STEP_STARTED")):
			t.Errorf("Ready failed: Run = %v, graph ran %v, stream:\n%s", err, ran.Load(), s)
		case !fail && (err != nil || !ran.Load() || !strings.Contains(s, `"type":"RUN_FINISHED"`)):
			t.Errorf("Ready succeeded: Run = %v, graph ran %v, stream:\n%s", err, ran.Load(), s)
		}
	}
}
