package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
)

// A node's goroutine that sends a notice after the stream has ended, or
// while the run goes on, neither crashes nor races.
func TestNotifyFromGoroutines(t *testing.T) {
	t.Parallel()
	notice := fault.From(errBoom)
	var wg sync.WaitGroup
	var ended chan struct{} // closed when the run's stream has ended
	g := graph.New[state]().
		AddNode("a", func(ctx context.Context, s state) (state, error) {
			ended := ended
			wg.Add(2)
			go func() { defer wg.Done(); graph.Notify(ctx, notice) }()
			go func() {
				defer wg.Done()
				<-ended
				graph.Notify(ctx, notice)
			}()
			return s, nil
		}).
		AddNode("b", step("b")).AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
	r := compile(t, g, nil)
	for range 20 {
		ended = make(chan struct{})
		for _, err := range r.Stream(context.Background(), state{}) {
			if err != nil {
				t.Fatal(err)
			}
		}
		close(ended)
	}
	wg.Wait()
}

// A panic outside a node or router — in a Clone on a branch's goroutine,
// in ErrorState, in a Checkpointer, in OnNotice — is the run's failure, in
// the one shape, not the process's end.
func TestPanicsOutsideNodes(t *testing.T) {
	t.Parallel()
	fan := func() *graph.Graph[state] { return fanOut(step("x"), step("y"), step("z"), merge) }
	cases := []struct {
		name string
		g    *graph.Graph[state]
		cfg  *graph.Config[state]
	}{
		{"clone on a branch", fan(), &graph.Config[state]{Clone: func(state) state { panic("clone broke") }}},
		{"error state", graph.New[state]().AddNode("a", fail(errBoom), graph.OnError("h")).AddNode("h", step("h")).
			AddEdge("a", graph.End).AddEdge("h", graph.End).SetEntry("a"),
			&graph.Config[state]{ErrorState: func(state, *graph.NodeError) state { panic("error state broke") }}},
		{"checkpointer", fan(), &graph.Config[state]{Checkpointer: panicky{}}},
		{"on notice", graph.New[state]().AddNode("a", func(ctx context.Context, s state) (state, error) {
			graph.Notify(ctx, fault.From(errBoom))
			return s, nil
		}).AddEdge("a", graph.End).SetEntry("a"),
			&graph.Config[state]{OnNotice: func(context.Context, string, *fault.Error) { panic("on notice broke") }}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := compile(t, c.g, c.cfg)
			_, err := r.Invoke(context.Background(), state{})
			var ne *graph.NodeError
			var pe *graph.PanicError
			if !errors.As(err, &ne) || !errors.As(err, &pe) || !strings.Contains(pe.Error(), "broke") {
				t.Fatalf("Invoke: %v", err)
			}
			if c.cfg.OnNotice != nil {
				return // a stream delivers notices as events, not to OnNotice
			}
			var last error
			for _, err := range r.Stream(context.Background(), state{}) {
				last = err
			}
			if !errors.As(last, &pe) {
				t.Errorf("Stream: %v", last)
			}
		})
	}
}

type panicky struct{}

func (panicky) Save(context.Context, graph.Checkpoint[state]) error { panic("checkpointer broke") }
func (panicky) Load(context.Context, string) (graph.Checkpoint[state], error) {
	return graph.Checkpoint[state]{}, graph.ErrNoCheckpoint
}

// Resuming after the fan-in node failed hands it the branches' results
// again, without running the branches.
func TestResumeAfterFanInFailure(t *testing.T) {
	t.Parallel()
	var branchRuns atomic.Int32
	counted := func(name string) graph.Node[state] {
		return func(ctx context.Context, s state) (state, error) {
			branchRuns.Add(1)
			return step(name)(ctx, s)
		}
	}
	joinDown := atomic.Bool{}
	joinDown.Store(true)
	join := func(ctx context.Context, s state, b []state) (state, error) {
		if joinDown.Load() {
			return s, errBoom
		}
		return merge(ctx, s, b)
	}
	cps := &graph.MemoryCheckpointer[state]{}
	r := compile(t, fanOut(counted("x"), counted("y"), counted("z"), join), &graph.Config[state]{Checkpointer: cps})
	want, _ := compile(t, fanOut(step("x"), step("y"), step("z"), merge), nil).Invoke(context.Background(), state{})
	if _, err := r.Invoke(context.Background(), state{}, graph.WithRunID("join")); !errors.Is(err, errBoom) {
		t.Fatalf("first run: %v", err)
	}
	joinDown.Store(false)
	out, err := r.Resume(context.Background(), "join")
	if err != nil || fmt.Sprint(out.Log) != fmt.Sprint(want.Log) || branchRuns.Load() != 3 {
		t.Fatalf("resume: %v %v (want %v), branches ran %d times", out.Log, err, want.Log, branchRuns.Load())
	}
}

// A run stopped by cancellation or by the step limit resumes at the node it
// stopped before; the nodes that completed do not run again.
func TestResumeAfterCancelAndStepLimit(t *testing.T) {
	t.Parallel()
	var aRuns atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	g := graph.New[state]().
		AddNode("a", func(_ context.Context, s state) (state, error) {
			aRuns.Add(1)
			cancel() // the run is cancelled as "a" completes
			s.Log = append(s.Log, "a")
			return s, nil
		}).
		AddNode("b", step("b")).AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
	cps := &graph.MemoryCheckpointer[state]{}
	r := compile(t, g, &graph.Config[state]{Checkpointer: cps})
	_, err := r.Invoke(ctx, state{}, graph.WithRunID("c"))
	var ne *graph.NodeError
	if !errors.As(err, &ne) || ne.Node != "b" || !errors.Is(err, context.Canceled) {
		t.Fatalf("first run: %v", err)
	}
	if cp, _ := cps.Load(context.Background(), "c"); cp.Node != "b" || cp.Err == "" {
		t.Fatalf("checkpoint %+v", cp)
	}
	out, err := r.Resume(context.Background(), "c")
	if err != nil || fmt.Sprint(out.Log) != "[a b]" || aRuns.Load() != 1 {
		t.Fatalf("resume: %v %v, a ran %d times", out.Log, err, aRuns.Load())
	}

	loop := graph.New[state]().AddNode("a", step("a")).AddNode("b", step("b")).AddEdge("a", "b").
		AddConditionalEdges("b", func(_ context.Context, s state) (string, error) {
			if s.N >= 6 {
				return graph.End, nil
			}
			return "a", nil
		}, "a", graph.End).SetEntry("a")
	cps2 := &graph.MemoryCheckpointer[state]{}
	r2 := compile(t, loop, &graph.Config[state]{Checkpointer: cps2, MaxSteps: 3})
	if _, err := r2.Invoke(context.Background(), state{}, graph.WithRunID("s")); !errors.Is(err, graph.ErrStepLimit) {
		t.Fatalf("step limit: %v", err)
	}
	if cp, _ := cps2.Load(context.Background(), "s"); cp.Node != "b" || fmt.Sprint(cp.Path) != "[a b a]" {
		t.Fatalf("checkpoint after the step limit %+v", cp)
	}
}

type failingSaves struct {
	graph.MemoryCheckpointer[state]
	failAt  int // the save that fails, from 1; 0: the final one
	saves   atomic.Int32
	failAll bool
}

func (f *failingSaves) Save(ctx context.Context, cp graph.Checkpoint[state]) error {
	n := int(f.saves.Add(1))
	if f.failAll || n == f.failAt || (f.failAt == 0 && cp.Done) {
		return errors.New("disk full")
	}
	return f.MemoryCheckpointer.Save(ctx, cp)
}

// A checkpoint that cannot be saved is a failure in the one shape, the
// final one included; a failure's own checkpoint that cannot be saved is
// logged.
func TestSaveFailures(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().AddNode("a", step("a")).AddNode("b", step("b")).
		AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
	for _, failAt := range []int{0, 1, 2} {
		r := compile(t, g, &graph.Config[state]{Checkpointer: &failingSaves{failAt: failAt}})
		_, err := r.Invoke(context.Background(), state{})
		var ne *graph.NodeError
		if !errors.As(err, &ne) || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("save %d failing: %v", failAt, err)
		}
		var last graph.Event[state]
		for ev, err := range compile(t, g, &graph.Config[state]{Checkpointer: &failingSaves{failAt: failAt}}).
			Stream(context.Background(), state{}, graph.ErrorEvents()) {
			if err != nil {
				t.Fatalf("ErrorEvents raised %v", err)
			}
			last = ev
		}
		if last.Type != graph.EventError {
			t.Errorf("save %d failing: last event %s", failAt, last.Type)
		}
	}
	var logs bytes.Buffer
	r := compile(t, graph.New[state]().AddNode("a", fail(errBoom)).AddEdge("a", graph.End).SetEntry("a"),
		&graph.Config[state]{Checkpointer: &failingSaves{failAll: true}, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	r.Invoke(context.Background(), state{})
	if !strings.Contains(logs.String(), "disk full") {
		t.Errorf("an unsaved failure checkpoint was not logged: %s", logs.String())
	}
}

// Changing a Graph after Compile changes nothing that runs.
func TestGraphChangedAfterCompile(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().AddNode("a", step("a")).AddNode("b", step("b")).
		AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
	r := compile(t, g, nil)
	g.AddEdge("b", "ghost") // a second way out, and to nowhere
	out, err := r.Invoke(context.Background(), state{})
	if err != nil || fmt.Sprint(out.Log) != "[a b]" {
		t.Fatalf("%v %v", out.Log, err)
	}
}

// A checkpoint from a graph whose nodes have since changed is refused.
func TestResumeUnknownNode(t *testing.T) {
	t.Parallel()
	cps := &graph.MemoryCheckpointer[state]{}
	cps.Save(context.Background(), graph.Checkpoint[state]{RunID: "old", Node: "renamed"})
	r := compile(t, graph.New[state]().AddNode("a", step("a")).AddEdge("a", graph.End).SetEntry("a"),
		&graph.Config[state]{Checkpointer: cps})
	if _, err := r.Resume(context.Background(), "old"); err == nil || !strings.Contains(err.Error(), `node "renamed"`) {
		t.Fatalf("got %v", err)
	}
}

// Shapes that would lose work at run time do not compile.
func TestCompileRejectsLossyShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		g    *graph.Graph[state]
		want string
	}{
		{"fan-in reached by a plain edge", graph.New[state]().AddNode("a", step("a")).AddNode("x", step("x")).
			AddNode("side", step("side")).AddFanIn("j", merge).AddFanOut("a", "j", "x").AddEdge("x", "j").
			AddEdge("j", "side").AddEdge("side", "j").SetEntry("a"),
			`fan-in node "j" is reached from node "side", outside the branches of the fan-out from "a"`},
		{"a branch that can end the run", graph.New[state]().AddNode("a", step("a")).AddNode("x", step("x")).
			AddFanIn("j", merge).AddFanOut("a", "j", "x").
			AddConditionalEdges("x", func(context.Context, state) (string, error) { return graph.End, nil }, "j", graph.End).
			AddEdge("j", graph.End).SetEntry("a"),
			`node "x", in a branch of the fan-out from "a", can end the run`},
		{"a nested fan-out sharing the fan-in", graph.New[state]().AddNode("a", step("a")).AddNode("x", step("x")).
			AddNode("p", step("p")).AddNode("q", step("q")).AddFanIn("j", merge).
			AddFanOut("a", "j", "x").AddFanOut("x", "j", "p", "q").AddEdge("p", "j").AddEdge("q", "j").
			AddEdge("j", graph.End).SetEntry("a"),
			`converges on the same fan-in node "j"`},
		{"a fan-in node no fan-out uses", graph.New[state]().AddNode("a", step("a")).AddFanIn("j", merge).
			AddEdge("a", "j").AddEdge("j", graph.End).SetEntry("a"),
			`fan-in node "j" is not the fan-in node of any fan-out`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if _, err := c.g.Compile(nil); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

// A nested fan-out's failures are all reachable, and the error event keeps
// every branch's failure.
func TestNestedFanOutCauses(t *testing.T) {
	t.Parallel()
	errP, errQ, errY := errors.New("p down"), errors.New("q down"), errors.New("y down")
	g := graph.New[state]().AddNode("a", step("a")).AddNode("x", step("x")).AddNode("y", fail(errY)).
		AddNode("p", fail(errP)).AddNode("q", fail(errQ)).AddFanIn("inner", merge).AddFanIn("outer", merge).
		AddFanOut("a", "outer", "x", "y").AddFanOut("x", "inner", "p", "q").
		AddEdge("p", "inner").AddEdge("q", "inner").AddEdge("inner", "outer").AddEdge("y", "outer").
		AddEdge("outer", graph.End).SetEntry("a")
	r := compile(t, g, &graph.Config[state]{WaitForAllBranches: true})
	_, err := r.Invoke(context.Background(), state{})
	for _, want := range []error{errP, errQ, errY} {
		if !errors.Is(err, want) {
			t.Errorf("errors.Is does not reach %v in %v", want, err)
		}
	}
	var last graph.Event[state]
	for ev := range r.Stream(context.Background(), state{}, graph.ErrorEvents()) {
		last = ev
	}
	data, _ := json.Marshal(last)
	var doc map[string]any
	json.Unmarshal(data, &doc)
	if msg, _ := doc["error"].(string); !strings.Contains(msg, "p down") || !strings.Contains(msg, "y down") {
		t.Errorf("the error event loses a failure: %s", data)
	}
}

// A state whose Clone has a pointer receiver is cloned with it; a state
// that branches would share, without a Clone, does not compile.
type ptrClone struct{ M map[string]int }

func (p *ptrClone) Clone() ptrClone {
	m := make(map[string]int, len(p.M))
	for k, v := range p.M {
		m[k] = v
	}
	return ptrClone{M: m}
}

type shared struct{ M map[string]int }

func TestCloneChoice(t *testing.T) {
	t.Parallel()
	write := func(k string) graph.Node[ptrClone] {
		return func(_ context.Context, s ptrClone) (ptrClone, error) { s.M[k] = 1; return s, nil }
	}
	g := graph.New[ptrClone]().AddNode("a", write("a")).AddNode("x", write("x")).AddNode("y", write("y")).
		AddFanIn("j", func(_ context.Context, s ptrClone, b []ptrClone) (ptrClone, error) { return s, nil }).
		AddFanOut("a", "j", "x", "y").AddEdge("x", "j").AddEdge("y", "j").AddEdge("j", graph.End).SetEntry("a")
	r, err := g.Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Invoke(context.Background(), ptrClone{M: map[string]int{}})
	if err != nil || len(out.M) != 1 {
		t.Fatalf("branches wrote into the fan-out's map: %v %v", out.M, err)
	}

	noop := func(_ context.Context, s shared) (shared, error) { return s, nil }
	g2 := graph.New[shared]().AddNode("a", noop).AddNode("x", noop).
		AddFanIn("j", func(_ context.Context, s shared, _ []shared) (shared, error) { return s, nil }).
		AddFanOut("a", "j", "x").AddEdge("x", "j").AddEdge("j", graph.End).SetEntry("a")
	if _, err := g2.Compile(nil); err == nil || !strings.Contains(err.Error(), "give it a Clone() method or set Config.Clone") {
		t.Fatalf("a shared map compiled: %v", err)
	}
	if _, err := g2.Compile(&graph.Config[shared]{Clone: func(s shared) shared { return s }}); err != nil {
		t.Fatalf("with Config.Clone: %v", err)
	}
}

// A stream whose consumer stops is logged as stopped, not as a failure.
func TestStoppedStreamIsNotAFailure(t *testing.T) {
	t.Parallel()
	// synctest.Wait returns once the run has noticed the cancellation and
	// its goroutines have ended, logging whatever they log.
	synctest.Test(t, func(t *testing.T) {
		var logs bytes.Buffer
		var mu sync.Mutex
		g := graph.New[state]().AddNode("a", step("a")).AddNode("b", step("b")).
			AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
		r := compile(t, g, &graph.Config[state]{Logger: slog.New(slog.NewJSONHandler(&lockedBuffer{b: &logs, mu: &mu}, nil))})
		for range r.Stream(context.Background(), state{}) {
			break
		}
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(logs.String(), `"level":"ERROR"`) {
			t.Errorf("a stopped stream logged an error: %s", logs.String())
		}
	})
}

type lockedBuffer struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func TestStateOf(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().AddNode("a", step("a")).AddNode("b", fail(errBoom)).
		AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
	_, err := compile(t, g, nil).Invoke(context.Background(), state{})
	if s, ok := graph.StateOf[state](fmt.Errorf("wrapped: %w", err)); !ok || fmt.Sprint(s.Log) != "[a]" {
		t.Errorf("StateOf: %v %v", s, ok)
	}
	if _, ok := graph.StateOf[int](err); ok {
		t.Error("StateOf of the wrong type")
	}
}
