package graph_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/graph"
)

// runKey carries one streamed run's controls to its nodes: the caller's
// cancel, and the barrier the branches meet at.
type runKey struct{}

type runControls struct {
	cancel  context.CancelFunc
	started sync.WaitGroup
}

func controls(ctx context.Context) *runControls { return ctx.Value(runKey{}).(*runControls) }

// cancelling is a node that cancels the caller's context, and finishes.
func cancelling(name string) graph.Node[state] {
	return func(ctx context.Context, s state) (state, error) {
		controls(ctx).cancel()
		return step(name)(ctx, s)
	}
}

// meeting is a branch that waits until every branch has started, so that
// all are running when one cancels the caller's context; the one that
// cancels does so then. Every one finishes.
func meeting(name string, cancels bool) graph.Node[state] {
	return func(ctx context.Context, s state) (state, error) {
		c := controls(ctx)
		c.started.Done()
		c.started.Wait()
		if cancels {
			c.cancel()
		}
		return step(name)(ctx, s)
	}
}

// When the caller's context ends while the consumer still reads, every
// event of every node that ran is delivered, in order, and then the
// failure: only a consumer that stops reading cuts a stream short.
func TestStreamDeliversEventsAfterCallerCancels(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		g        *graph.Graph[state]
		branches int
		ran      []string // the nodes that start and finish
		failed   string   // the node the cancellation fails
	}{
		{"linear", graph.New[state]().AddNode("a", cancelling("a")).AddNode("b", step("b")).
			AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a"), 0, []string{"a"}, "b"},
		{"fan-out", fanOut(meeting("x", true), meeting("y", false), meeting("z", false), merge),
			3, []string{"a", "x", "y", "z"}, "join"},
	}
	for _, c := range cases {
		for _, errorEvents := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/error events %v", c.name, errorEvents), func(t *testing.T) {
				t.Parallel()
				r := compile(t, c.g, nil)
				var opts []graph.RunOption
				if errorEvents {
					opts = append(opts, graph.ErrorEvents())
				}
				for i := range 200 {
					rc := &runControls{}
					rc.started.Add(c.branches)
					ctx, cancel := context.WithCancel(context.WithValue(context.Background(), runKey{}, rc))
					rc.cancel = cancel
					var events []graph.Event[state]
					var streamErr error
					for ev, err := range r.Stream(ctx, state{}, opts...) {
						if err != nil {
							streamErr = err
							continue
						}
						events = append(events, ev)
					}
					cancel()
					if errorEvents && len(events) > 0 && events[len(events)-1].Type == graph.EventError {
						streamErr = events[len(events)-1].Err
						events = events[:len(events)-1]
					}
					if msg := checkStream(events, streamErr, c.ran, c.failed); msg != "" {
						t.Fatalf("run %d: %s", i, msg)
					}
				}
			})
		}
	}
}

// checkStream says what is wrong with a stream's events and failure: each
// node in ran must start, then finish, with nothing else but the failure,
// last, a cancellation in failed.
func checkStream(events []graph.Event[state], err error, ran []string, failed string) string {
	var started, finished []string
	for _, ev := range events {
		switch ev.Type {
		case graph.EventNodeStarted:
			started = append(started, ev.Node)
		case graph.EventNodeFinished:
			if !slices.Contains(started, ev.Node) {
				return fmt.Sprintf("node %q finished before it started", ev.Node)
			}
			finished = append(finished, ev.Node)
		default:
			return fmt.Sprintf("an event %s before the failure", ev.Type)
		}
	}
	slices.Sort(started)
	slices.Sort(finished)
	if fmt.Sprint(started) != fmt.Sprint(ran) || fmt.Sprint(finished) != fmt.Sprint(ran) {
		return fmt.Sprintf("started %v and finished %v, want %v for both", started, finished, ran)
	}
	var ne *graph.NodeError
	if !errors.As(err, &ne) || ne.Node != failed || !errors.Is(err, context.Canceled) {
		return fmt.Sprintf("the stream ended with %v, want a cancellation of %q", err, failed)
	}
	return ""
}

// TestStreamWhenIdle: Stream calls WhenIdle's function when the loop has
// had every event sent so far, and not between events that were waiting.
func TestStreamWhenIdle(t *testing.T) {
	var (
		release = make(chan struct{}) // the loop has "a": the node sends more
		sent    = make(chan struct{}) // "b", "c" and "d" wait in the stream
		finish  = make(chan struct{}) // the loop went idle after "d"
		log     []string
		seenD   bool
	)
	g, err := graph.New[state]().
		AddNode("n", func(ctx context.Context, s state) (state, error) {
			graph.Emit(ctx, "a")
			<-release
			for _, o := range []string{"b", "c", "d"} {
				graph.Emit(ctx, o)
			}
			close(sent)
			select { // without the idle call, the check below fails
			case <-finish:
			case <-time.After(10 * time.Second):
			}
			return s, nil
		}).
		AddEdge("n", graph.End).SetEntry("n").Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	idle := graph.WhenIdle(func() {
		log = append(log, "idle")
		if seenD {
			seenD = false
			close(finish)
		}
	})
	for ev, err := range g.Stream(context.Background(), state{}, idle) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type != graph.EventOutput {
			continue
		}
		log = append(log, ev.Output.(string))
		switch ev.Output {
		case "a":
			close(release)
			<-sent
		case "d":
			seenD = true
		}
	}
	i := slices.Index(log, "a")
	if want := []string{"a", "b", "c", "d", "idle"}; i < 0 || len(log) < i+len(want) || !slices.Equal(log[i:i+len(want)], want) {
		t.Fatalf("log %q: want %q in it", log, want)
	}
}
