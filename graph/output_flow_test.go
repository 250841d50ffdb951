package graph_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/triage-go/triage/graph"
)

// flood is a node that emits n outputs, 0 to n-1, counting in sent those
// whose Emit returned, then closes done.
func flood(n int, sent *atomic.Int64, done chan struct{}) graph.Node[state] {
	return func(ctx context.Context, s state) (state, error) {
		defer close(done)
		for i := range n {
			graph.Emit(ctx, i)
			sent.Add(1)
		}
		return s, nil
	}
}

// A node that emits faster than the loop reads blocks: with the loop
// holding one event, every goroutine of the run ends up blocked (synctest
// waits for that, no clock involved) with at most the stream's buffer of
// outputs sent; then the loop reads on and gets every one, in order.
func TestEmitBackpressure(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const n = 1000
		var sent atomic.Int64
		g := graph.New[state]().AddNode("a", flood(n, &sent, make(chan struct{}))).
			AddEdge("a", graph.End).SetEntry("a")
		r := compile(t, g, nil)
		next := 0
		for ev, err := range r.Stream(context.Background(), state{}) {
			if err != nil {
				t.Fatal(err)
			}
			switch ev.Type {
			case graph.EventNodeStarted:
				synctest.Wait() // the run goroutine is blocked: in Emit
				if got := sent.Load(); got > 16 {
					t.Fatalf("%d outputs sent while the loop read none", got)
				}
			case graph.EventOutput:
				if ev.Output != next {
					t.Fatalf("output %v, want %d", ev.Output, next)
				}
				next++
			}
		}
		if next != n {
			t.Fatalf("%d outputs read, want %d", next, n)
		}
	})
}

// A loop that stops reading does not leave a node stuck in Emit: when it
// breaks, the run is cancelled and what it sends is dropped; when it
// panics, the stream is gone and Emit returns at once.
func TestEmitAfterLoopStops(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"break", "panic"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			var sent atomic.Int64
			done := make(chan struct{})
			g := graph.New[state]().AddNode("a", flood(10000, &sent, done)).
				AddNode("b", step("b")).AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
			r := compile(t, g, nil)
			func() {
				defer func() { _ = recover() }()
				for ev := range r.Stream(context.Background(), state{}) {
					if ev.Type == graph.EventOutput {
						if how == "panic" {
							panic("the loop broke")
						}
						break
					}
				}
			}()
			<-done // the node emitted all it had: no Emit was left blocked
			if sent.Load() != 10000 {
				t.Errorf("sent %d", sent.Load())
			}
		})
	}
}

// When the run's context ends while a node emits, nothing blocks and
// nothing is lost: the loop, still reading, gets every output sent, then
// the cancellation.
func TestEmitWhenContextEnds(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	g := graph.New[state]().
		AddNode("a", func(ctx context.Context, s state) (state, error) {
			for i := 0; ctx.Err() == nil; i++ {
				graph.Emit(ctx, i)
				sent.Add(1)
			}
			return s, ctx.Err()
		}).
		AddEdge("a", graph.End).SetEntry("a")
	r := compile(t, g, nil)
	for range 20 {
		sent.Store(0)
		ctx, cancel := context.WithCancel(context.Background())
		read := 0
		var last error
		for ev, err := range r.Stream(ctx, state{}) {
			if err != nil {
				last = err
				continue
			}
			if ev.Type != graph.EventOutput {
				continue
			}
			if ev.Output != read {
				t.Fatalf("output %v, want %d", ev.Output, read)
			}
			if read++; read == 5 {
				cancel()
			}
		}
		cancel()
		if !errors.Is(last, context.Canceled) || int64(read) != sent.Load() {
			t.Fatalf("ended with %v after %d outputs read of %d sent", last, read, sent.Load())
		}
	}
}
