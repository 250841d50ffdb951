package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/resilience"
)

// emitting is a node that emits its outputs, then appends its name to the
// log.
func emitting(name string, outputs ...any) graph.Node[state] {
	return func(ctx context.Context, s state) (state, error) {
		for _, o := range outputs {
			graph.Emit(ctx, o)
		}
		return step(name)(ctx, s)
	}
}

// collect streams a run and returns its events, a failure reported as the
// iterator's error included as a last event of type "raised".
func collect(r *graph.Runnable[state], ctx context.Context, opts ...graph.RunOption) []graph.Event[state] {
	var events []graph.Event[state]
	for ev, err := range r.Stream(ctx, state{}, opts...) {
		if err != nil {
			ne, _ := errors.AsType[*graph.NodeError](err)
			ev = graph.Event[state]{Type: "raised", Err: ne}
			if ne != nil {
				ev.Node = ne.Node
			}
		}
		events = append(events, ev)
	}
	return events
}

// trace writes a stream's events one a line: type, node, step (for a node
// call's events) and output.
func trace(events []graph.Event[state]) string {
	var b strings.Builder
	for _, ev := range events {
		switch ev.Type {
		case graph.EventNodeStarted, graph.EventNodeFinished, graph.EventNotice:
			fmt.Fprintf(&b, "%s %s %d\n", ev.Type, ev.Node, ev.Step)
		case graph.EventOutput:
			fmt.Fprintf(&b, "%s %s %d %v\n", ev.Type, ev.Node, ev.Step, ev.Output)
		case graph.EventEnd:
			fmt.Fprintf(&b, "%s\n", ev.Type)
		default:
			fmt.Fprintf(&b, "%s %s\n", ev.Type, ev.Node)
		}
	}
	return b.String()
}

// checkCalls says what is wrong with the order of a stream's events: every
// event of a node call (node, step) must come after its node_started and
// before its end (node_finished, error_routed, or the run's failure), each
// call must have its own step, and every call must end.
func checkCalls(events []graph.Event[state]) string {
	type call struct {
		node string
		step int
	}
	open := map[call]bool{}
	var ended []call
	for i, ev := range events {
		c := call{ev.Node, ev.Step}
		switch ev.Type {
		case graph.EventNodeStarted:
			if open[c] || slices.Contains(ended, c) {
				return fmt.Sprintf("event %d: %s started twice (or its step is another call's)", i, ev.Node)
			}
			for o := range open {
				if o.step == c.step {
					return fmt.Sprintf("event %d: %s has the step of %s, still running", i, ev.Node, o.node)
				}
			}
			open[c] = true
		case graph.EventOutput, graph.EventNotice, graph.EventNodeFinished:
			if !open[c] {
				return fmt.Sprintf("event %d: %s of %s step %d, which is not running", i, ev.Type, ev.Node, ev.Step)
			}
			if ev.Type == graph.EventNodeFinished {
				delete(open, c)
				ended = append(ended, c)
			}
		case graph.EventErrorRouted, graph.EventError, "raised":
			// These carry no step: they end the one call of the node open.
			n := 0
			for o := range open {
				if o.node == ev.Node {
					delete(open, o)
					n++
				}
			}
			if n > 1 {
				return fmt.Sprintf("event %d: %s ends %d calls of %s", i, ev.Type, n, ev.Node)
			}
		}
	}
	if len(open) > 0 && events[len(events)-1].Type != "raised" && events[len(events)-1].Type != graph.EventError {
		return fmt.Sprintf("calls %v never ended", open)
	}
	return ""
}

// For sequential nodes the stream is each node's node_started, its outputs
// and notices in the order sent, its node_finished.
func TestEmitSequential(t *testing.T) {
	t.Parallel()
	notice := fault.From(errBoom)
	g := graph.New[state]().
		AddNode("a", emitting("a", "a1", "a2")).
		AddNode("b", func(ctx context.Context, s state) (state, error) {
			graph.Emit(ctx, "b1")
			graph.Notify(ctx, notice)
			graph.Emit(ctx, map[string]int{"b": 2})
			return s, nil
		}).
		AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
	got := trace(collect(compile(t, g, nil), context.Background()))
	want := `node_started a 1
output a 1 a1
output a 1 a2
node_finished a 1
node_started b 2
output b 2 b1
notice b 2
output b 2 map[b:2]
node_finished b 2
end
`
	if got != want {
		t.Fatalf("events:\n%s\nwant:\n%s", got, want)
	}
}

// Goroutines a node starts emit with its context: all their outputs sit
// between the node's node_started and node_finished, each goroutine's in
// the order it emitted them.
func TestEmitFromGoroutines(t *testing.T) {
	t.Parallel()
	const workers, each = 4, 50
	g := graph.New[state]().
		AddNode("a", step("a")).
		AddNode("b", func(ctx context.Context, s state) (state, error) {
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := range each {
						graph.Emit(ctx, [2]int{w, i})
					}
				})
			}
			wg.Wait()
			return s, nil
		}).
		AddNode("c", step("c")).
		AddEdge("a", "b").AddEdge("b", "c").AddEdge("c", graph.End).SetEntry("a")
	r := compile(t, g, nil)
	for run := range 50 {
		events := collect(r, context.Background())
		if msg := checkCalls(events); msg != "" {
			t.Fatalf("run %d: %s\n%s", run, msg, trace(events))
		}
		next := make([]int, workers)
		for _, ev := range events {
			if ev.Type != graph.EventOutput {
				continue
			}
			o := ev.Output.([2]int)
			if ev.Node != "b" || o[1] != next[o[0]] {
				t.Fatalf("run %d: output %v of %s, want worker %d's output %d of b", run, o, ev.Node, o[0], next[o[0]])
			}
			next[o[0]]++
		}
		for w, n := range next {
			if n != each {
				t.Fatalf("run %d: worker %d's outputs: %d of %d", run, w, n, each)
			}
		}
	}
}

// Output (and a notice) sent after its node call returned is dropped: it
// neither lands in the next node's events nor reaches OnOutput. Before the
// node call was a window, a late notice of a's was yielded among b's
// events.
func TestEmitAfterReturnIsDropped(t *testing.T) {
	t.Parallel()
	newGraph := func() *graph.Graph[state] {
		release, sent := make(chan struct{}), make(chan struct{})
		return graph.New[state]().
			AddNode("a", func(ctx context.Context, s state) (state, error) {
				go func() {
					<-release // a has returned: b is running
					graph.Emit(ctx, "late")
					graph.Notify(ctx, fault.From(errBoom))
					close(sent)
				}()
				return step("a")(ctx, s)
			}).
			AddNode("b", func(ctx context.Context, s state) (state, error) {
				close(release)
				<-sent
				graph.Emit(ctx, "b")
				return s, nil
			}).
			AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
	}
	got := trace(collect(compile(t, newGraph(), nil), context.Background()))
	want := "node_started a 1\nnode_finished a 1\nnode_started b 2\noutput b 2 b\nnode_finished b 2\nend\n"
	if got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}

	var mu sync.Mutex
	var outputs, notices []string
	r := compile(t, newGraph(), &graph.Config[state]{
		OnOutput: func(_ context.Context, node string, step int, o any) {
			mu.Lock()
			defer mu.Unlock()
			outputs = append(outputs, fmt.Sprint(node, step, o))
		},
		OnNotice: func(_ context.Context, node string, _ *fault.Error) {
			mu.Lock()
			defer mu.Unlock()
			notices = append(notices, node)
		},
	})
	if _, err := r.Invoke(context.Background(), state{}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(outputs, notices) != "[b2b] []" {
		t.Errorf("OnOutput got %v, OnNotice %v", outputs, notices)
	}
}

// A goroutine that keeps emitting while its node returns: what it sent
// before the node returned is between the node's events, the rest is
// dropped, whichever way the race goes.
func TestEmitRacingReturn(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	var stop atomic.Bool
	g := graph.New[state]().
		AddNode("a", func(ctx context.Context, s state) (state, error) {
			wg.Go(func() {
				for i := 0; !stop.Load(); i++ {
					graph.Emit(ctx, i)
					graph.Notify(ctx, fault.From(errBoom))
				}
			})
			graph.Emit(ctx, -1)
			return s, nil
		}).
		AddNode("b", emitting("b", "b")).
		AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
	r := compile(t, g, nil)
	for run := range 200 {
		stop.Store(false)
		events := collect(r, context.Background())
		stop.Store(true)
		wg.Wait()
		if msg := checkCalls(events); msg != "" {
			t.Fatalf("run %d: %s\n%s", run, msg, trace(events))
		}
	}
}

// In a parallel fan-out the branches' outputs interleave as they were
// sent, each between its own branch node's node_started and node_finished.
func TestEmitFanOut(t *testing.T) {
	t.Parallel()
	// The branches take turns: x1 y1 z1 x2 y2 z2, each sent once the
	// previous one's Emit has returned.
	turns := map[string]chan struct{}{"x": make(chan struct{}, 1), "y": make(chan struct{}, 1), "z": make(chan struct{}, 1)}
	nextOf := map[string]string{"x": "y", "y": "z", "z": "x"}
	var started sync.WaitGroup
	started.Add(3)
	taking := func(name string) graph.Node[state] {
		return func(ctx context.Context, s state) (state, error) {
			started.Done()
			started.Wait() // every branch has its node_started in the stream
			for i := 1; i <= 2; i++ {
				<-turns[name]
				graph.Emit(ctx, fmt.Sprint(name, i))
				turns[nextOf[name]] <- struct{}{}
			}
			return step(name)(ctx, s)
		}
	}
	turns["x"] <- struct{}{}
	events := collect(compile(t, fanOut(taking("x"), taking("y"), taking("z"), merge), nil), context.Background())
	if msg := checkCalls(events); msg != "" {
		t.Fatalf("%s\n%s", msg, trace(events))
	}
	var outputs []any
	for _, ev := range events {
		if ev.Type == graph.EventOutput {
			outputs = append(outputs, ev.Output)
		}
	}
	if fmt.Sprint(outputs) != "[x1 y1 z1 x2 y2 z2]" {
		t.Errorf("outputs %v\n%s", outputs, trace(events))
	}

	// A sequential fan-out runs its branches in order: so are their events.
	events = collect(compile(t, sequentialFanOut(emitting("x", "x"), emitting("y", "y"), emitting("z", "z"), merge), nil), context.Background())
	want := `node_started a 1
node_finished a 1
node_started x 2
output x 2 x
node_finished x 2
node_started y 3
output y 3 y
node_finished y 3
node_started z 4
output z 4 z
node_finished z 4
node_started join 5
node_finished join 5
end
`
	if got := trace(events); got != want {
		t.Errorf("sequential fan-out:\n%s\nwant:\n%s", got, want)
	}
}

// Concurrent branches each have their own step: the number was read back
// from the run's counter, so two branches reaching it together got the
// same one (and an output's Step could name another branch's call).
func TestStepsOfConcurrentBranches(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().AddNode("a", step("a"))
	var branches []string
	const n = 32
	for i := range n {
		b := fmt.Sprint("b", i)
		branches = append(branches, b)
		g.AddNode(b, emitting(b, b)).AddEdge(b, "join")
	}
	g.AddFanIn("join", merge).AddFanOut("a", "join", branches...).AddEdge("join", graph.End).SetEntry("a")
	r := compile(t, g, nil)
	for run := range 300 {
		events := collect(r, context.Background())
		steps := map[int]string{}
		for _, ev := range events {
			if ev.Type != graph.EventNodeStarted {
				continue
			}
			if other, ok := steps[ev.Step]; ok {
				t.Fatalf("run %d: %s and %s both have step %d", run, other, ev.Node, ev.Step)
			}
			steps[ev.Step] = ev.Node
		}
		if msg := checkCalls(events); msg != "" {
			t.Fatalf("run %d: %s\n%s", run, msg, trace(events))
		}
		if len(steps) != n+2 {
			t.Fatalf("run %d: %d calls", run, len(steps))
		}
	}
}

// A node that fails after emitting: its outputs, then the failure, in
// either mode; in a branch, the siblings' events stay well-formed.
func TestEmitThenFail(t *testing.T) {
	t.Parallel()
	failing := func(ctx context.Context, s state) (state, error) {
		graph.Emit(ctx, "partial")
		return s, errBoom
	}
	g := graph.New[state]().AddNode("a", emitting("a", "a")).AddNode("b", failing).
		AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
	r := compile(t, g, nil)
	head := "node_started a 1\noutput a 1 a\nnode_finished a 1\nnode_started b 2\noutput b 2 partial\n"
	if got := trace(collect(r, context.Background(), graph.ErrorEvents())); got != head+"error b\n" {
		t.Errorf("error events:\n%s", got)
	}
	if got := trace(collect(r, context.Background())); got != head+"raised b\n" {
		t.Errorf("raised:\n%s", got)
	}

	fan := compile(t, fanOut(emitting("x", "x"), failing, emitting("z", "z"), merge), nil)
	for run := range 50 {
		events := collect(fan, context.Background(), graph.ErrorEvents())
		if msg := checkCalls(events); msg != "" {
			t.Fatalf("run %d: %s\n%s", run, msg, trace(events))
		}
		if last := events[len(events)-1]; last.Type != graph.EventError || last.Node != "y" {
			t.Fatalf("run %d:\n%s", run, trace(events))
		}
	}
}

// Under WithRetry an attempt's outputs are delivered (they have been
// streamed already), then the retried attempt's: one node call, one step.
func TestEmitRetry(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	flaky := func(ctx context.Context, s state) (state, error) {
		n := calls.Add(1)
		graph.Emit(ctx, fmt.Sprint("attempt ", n))
		if n < 3 {
			return s, fault.New(fault.ServiceUnavailable, "", fault.WithRetryAfter(time.Millisecond))
		}
		return s, nil
	}
	policy := resilience.New(resilience.Config{BaseDelay: time.Millisecond})
	g := graph.New[state]().
		AddNode("flaky", flaky, graph.WithRetry(policy, resilience.Operation{Source: "tool", Idempotent: true})).
		AddEdge("flaky", graph.End).SetEntry("flaky")
	got := trace(collect(compile(t, g, nil), context.Background()))
	want := `node_started flaky 1
output flaky 1 attempt 1
output flaky 1 attempt 2
output flaky 1 attempt 3
node_finished flaky 1
end
`
	if got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
}

// A node that emits and fails into its error route: its outputs, the
// error_routed event, then the route's node's events.
func TestEmitErrorRoute(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().
		AddNode("query", func(ctx context.Context, s state) (state, error) {
			graph.Emit(ctx, "partial")
			return s, errBoom
		}, graph.OnError("handler")).
		AddNode("handler", emitting("handler", "recovered")).
		AddEdge("query", graph.End).AddEdge("handler", graph.End).SetEntry("query")
	r := compile(t, g, &graph.Config[state]{ErrorState: func(s state, ne *graph.NodeError) state {
		s.Err = ne.Error()
		return s
	}})
	got := trace(collect(r, context.Background()))
	want := `node_started query 1
output query 1 partial
error_routed query
node_started handler 2
output handler 2 recovered
node_finished handler 2
end
`
	if got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}

	// A router's failure, routed, comes after its node's node_finished.
	g = graph.New[state]().
		AddNode("query", emitting("query", "rows"), graph.OnError("handler")).
		AddNode("handler", emitting("handler", "recovered")).
		AddConditionalEdges("query", func(context.Context, state) (string, error) { return "", errBoom }, graph.End).
		AddEdge("handler", graph.End).SetEntry("query")
	r = compile(t, g, &graph.Config[state]{ErrorState: func(s state, _ *graph.NodeError) state { return s }})
	got = trace(collect(r, context.Background()))
	want = `node_started query 1
output query 1 rows
node_finished query 1
error_routed query
node_started handler 2
output handler 2 recovered
node_finished handler 2
end
`
	if got != want {
		t.Errorf("router failure routed:\n%s\nwant:\n%s", got, want)
	}
}

// Invoke hands output to OnOutput, in order, with the node call's step;
// without OnOutput, or outside a run, Emit does nothing. An OnOutput that
// emits again does not deadlock; one that panics fails the node.
func TestEmitInvoke(t *testing.T) {
	t.Parallel()
	graph.Emit(context.Background(), "nowhere")
	g := graph.New[state]().AddNode("a", emitting("a", "a1", "a2")).AddNode("b", emitting("b", "b1")).
		AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
	if out, err := compile(t, g, nil).Invoke(context.Background(), state{}); err != nil || fmt.Sprint(out.Log) != "[a b]" {
		t.Fatalf("Invoke without OnOutput: %v %v", out.Log, err)
	}
	var got []string
	r := compile(t, g, &graph.Config[state]{OnOutput: func(ctx context.Context, node string, step int, o any) {
		got = append(got, fmt.Sprint(node, " ", step, " ", o))
		if o == "a1" {
			graph.Emit(ctx, "a1 again")
		}
	}})
	if _, err := r.Invoke(context.Background(), state{}); err != nil {
		t.Fatal(err)
	}
	if want := "[a 1 a1 a 1 a1 again a 1 a2 b 2 b1]"; fmt.Sprint(got) != want {
		t.Errorf("OnOutput got %v, want %v", got, want)
	}

	r = compile(t, g, &graph.Config[state]{OnOutput: func(context.Context, string, int, any) { panic("on output broke") }})
	_, err := r.Invoke(context.Background(), state{})
	ne, _ := errors.AsType[*graph.NodeError](err)
	pe, _ := errors.AsType[*graph.PanicError](err)
	if ne == nil || ne.Node != "a" || pe == nil || pe.Value != "on output broke" {
		t.Errorf("a panicking OnOutput: %v", err)
	}
}

// An output event's JSON.
func TestOutputEventJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(graph.Event[state]{Type: graph.EventOutput, Node: "answer", Step: 3, Output: map[string]string{"delta": "Hel"}})
	if want := `{"type":"output","node":"answer","step":3,"output":{"delta":"Hel"}}`; err != nil || string(b) != want {
		t.Errorf("JSON %s, %v; want %s", b, err, want)
	}
}
