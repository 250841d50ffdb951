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
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/resilience"
)

func TestCompileReportsEveryProblem(t *testing.T) {
	t.Parallel()
	noop := step("n")
	cases := []struct {
		name string
		g    *graph.Graph[state]
		want []string
	}{
		{"empty", graph.New[state](), []string{"no entry point"}},
		{"unknown entry", graph.New[state]().AddNode("a", noop).AddEdge("a", graph.End).SetEntry("b"), []string{`entry point "b" is not a node`}},
		{"duplicate and reserved", graph.New[state]().AddNode("a", noop).AddNode("a", noop).AddNode(graph.End, noop).AddNode("", noop).
			AddEdge("a", graph.End).SetEntry("a"), []string{`duplicate node "a"`, `"__end__" is reserved`, "empty name"}},
		{"unknown nodes in edges", graph.New[state]().AddNode("a", noop).AddNode("b", noop).
			AddEdge("a", "ghost").AddConditionalEdges("b", func(context.Context, state) (string, error) { return "", nil }, "phantom").
			AddEdge("nobody", "a").SetEntry("a"),
			[]string{`edge from "a" to unknown node "ghost"`, `conditional edge from "b" to unknown node "phantom"`, `edge from unknown node "nobody"`}},
		{"unreachable and no way out", graph.New[state]().AddNode("a", noop).AddNode("island", noop).AddEdge("a", graph.End).SetEntry("a"),
			[]string{`node "island" is unreachable`, `node "island" has no way out`}},
		{"two ways out", graph.New[state]().AddNode("a", noop).AddNode("b", noop).AddEdge("a", "b").AddEdge("a", graph.End).
			AddEdge("b", graph.End).SetEntry("a"), []string{`node "a" has more than one way out`}},
		{"fan-out without a fan-in", graph.New[state]().AddNode("a", noop).AddNode("x", noop).AddFanOut("a", "", "x").
			AddEdge("x", graph.End).SetEntry("a"), []string{`fan-out from "a" has no fan-in node`}},
		{"fan-in that is not one", graph.New[state]().AddNode("a", noop).AddNode("x", noop).AddNode("j", noop).AddFanOut("a", "j", "x").
			AddEdge("x", "j").AddEdge("j", graph.End).SetEntry("a"), []string{`converges on "j", which is not a fan-in node`}},
		{"branch that never joins", graph.New[state]().AddNode("a", noop).AddNode("x", noop).AddNode("y", noop).AddFanIn("j", merge).
			AddFanOut("a", "j", "x", "y", "x").AddEdge("x", "j").AddEdge("y", graph.End).AddEdge("j", graph.End).SetEntry("a"),
			[]string{`branch "y" of the fan-out from "a" never reaches its fan-in node "j"`, `lists branch "x" twice`}},
		{"error route", graph.New[state]().AddNode("a", noop, graph.OnError("handler")).AddEdge("a", graph.End).SetEntry("a"),
			[]string{`routes its errors to unknown node "handler"`, "Config.ErrorState is nil"}},
		{"nil functions", graph.New[state]().AddNode("a", nil).AddFanIn("j", nil).AddConditionalEdges("a", nil).SetEntry("a"),
			[]string{`node "a" has a nil function`, `fan-in node "j" has a nil function`, `node "a" has a nil router`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, err := c.g.Compile(nil)
			if err == nil || r != nil {
				t.Fatalf("compiled: %v", r)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestLinearAndEvents(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().AddNode("a", step("a")).AddNode("b", step("b")).
		AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
	r := compile(t, g, nil)
	out, err := r.Invoke(context.Background(), state{})
	if err != nil || fmt.Sprint(out.Log) != "[a b]" {
		t.Fatalf("Invoke: %+v %v", out, err)
	}
	var lines []string
	for ev, err := range r.Stream(context.Background(), state{}) {
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(ev)
		lines = append(lines, string(b))
	}
	want := []string{
		`{"type":"node_started","node":"a","step":1}`,
		`{"type":"node_finished","node":"a","step":1,"state":{"log":["a"],"n":1}}`,
		`{"type":"node_started","node":"b","step":2}`,
		`{"type":"node_finished","node":"b","step":2,"state":{"log":["a","b"],"n":2}}`,
		`{"type":"end","state":{"log":["a","b"],"n":2}}`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// Branches run on their own copies, concurrently, and the fan-in node gets
// their results in declaration order whatever order they finish in.
func TestFanOutMergesInDeclarationOrder(t *testing.T) {
	t.Parallel()
	// Every branch waits until all three have started (which proves they
	// run concurrently), then they finish in reverse order: z, y, x.
	var started sync.WaitGroup
	started.Add(3)
	finish := map[string]chan struct{}{"x": make(chan struct{}), "y": make(chan struct{}), "z": make(chan struct{})}
	branch := func(name, next string) graph.Node[state] {
		return func(_ context.Context, s state) (state, error) {
			started.Done()
			started.Wait()
			<-finish[name]
			s.Log = append(s.Log, name)
			if s.Tags == nil {
				s.Tags = map[string]string{}
			}
			s.Tags[name] = "seen"
			if next != "" {
				close(finish[next])
			}
			return s, nil
		}
	}
	close(finish["z"])
	g := fanOut(branch("x", ""), branch("y", "x"), branch("z", "y"), merge)
	out, err := compile(t, g, nil).Invoke(context.Background(), state{Tags: map[string]string{"shared": "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(out.Log); got != "[a x y z join]" {
		t.Errorf("log %s", got)
	}
	if len(out.Tags) != 1 {
		t.Errorf("branches wrote into the shared map: %v", out.Tags)
	}
}

// By default the first failure cancels its siblings, which are not reported
// as failures of their own.
func TestFanOutFailsFast(t *testing.T) {
	t.Parallel()
	var cancelled atomic.Bool
	waiter := func(ctx context.Context, s state) (state, error) {
		select {
		case <-ctx.Done():
			cancelled.Store(true)
			return s, ctx.Err()
		case <-time.After(10 * time.Second):
			return s, nil
		}
	}
	g := fanOut(waiter, fail(errBoom), waiter, merge)
	start := time.Now()
	_, err := compile(t, g, nil).Invoke(context.Background(), state{})
	var ne *graph.NodeError
	if !errors.As(err, &ne) || ne.Node != "y" || len(ne.Branches) != 1 {
		t.Fatalf("got %v", err)
	}
	// A sibling either saw its context cancelled or never started: either
	// way none ran its ten seconds.
	if time.Since(start) > 5*time.Second {
		t.Errorf("the siblings were not cancelled (cancelled while running: %v)", cancelled.Load())
	}
}

// Waiting for all branches reports every failure, in declaration order,
// the same on every run.
func TestFanOutReportsEveryFailureDeterministically(t *testing.T) {
	t.Parallel()
	// x fails 20ms after z on synctest's clock, every time: the report's
	// order is the declaration's, not the order the failures came in.
	synctest.Test(t, func(t *testing.T) {
		errX, errZ := errors.New("x failed"), errors.New("z failed")
		slowFail := func(d time.Duration, err error) graph.Node[state] {
			return func(context.Context, state) (state, error) { time.Sleep(d); return state{}, err }
		}
		g := fanOut(slowFail(20*time.Millisecond, errX), step("y"), slowFail(0, errZ), merge)
		r := compile(t, g, &graph.Config[state]{WaitForAllBranches: true})
		for range 5 {
			_, err := r.Invoke(context.Background(), state{})
			var ne *graph.NodeError
			if !errors.As(err, &ne) || len(ne.Branches) != 2 || ne.Branches[0].Node != "x" || ne.Branches[1].Node != "z" {
				t.Fatalf("got %v", err)
			}
			if !errors.Is(err, errX) || !errors.Is(err, errZ) {
				t.Error("errors.Is does not reach every branch's cause")
			}
			if err.Error() != `error in node "x": x failed; error in node "z": z failed` {
				t.Errorf("message %q", err.Error())
			}
		}
	})
}

// A node's error route receives the NodeError in the state and the run
// goes on there.
func TestErrorRoute(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().
		AddNode("a", step("a")).
		AddNode("query", fail(fault.New(fault.Timeout, "DB timeout")), graph.OnError("handler")).
		AddNode("handler", func(_ context.Context, s state) (state, error) {
			s.Log = append(s.Log, "handled: "+s.Err)
			return s, nil
		}).
		AddNode("after", step("after")).
		AddEdge("a", "query").AddEdge("query", "after").AddEdge("handler", graph.End).AddEdge("after", graph.End).SetEntry("a")
	var logs bytes.Buffer
	r := compile(t, g, &graph.Config[state]{
		ErrorState: func(s state, ne *graph.NodeError) state { s.Err = ne.Error(); return s },
		Logger:     slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	out, err := r.Invoke(context.Background(), state{})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(out.Log); got != `[a handled: error in node "query": TIMEOUT: DB timeout]` {
		t.Errorf("log %s", got)
	}
	if !strings.Contains(logs.String(), `"level":"WARN"`) || !strings.Contains(logs.String(), `"handler":"handler"`) {
		t.Errorf("logs %s", logs.String())
	}
	var routed []graph.Event[state]
	for ev, err := range r.Stream(context.Background(), state{}) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == graph.EventErrorRouted {
			routed = append(routed, ev)
		}
	}
	if len(routed) != 1 || routed[0].Node != "query" || routed[0].Handler != "handler" {
		t.Fatalf("routed events %+v", routed)
	}
	b, _ := json.Marshal(routed[0])
	if string(b) != `{"type":"error_routed","node":"query","error":"TIMEOUT: DB timeout","handler":"handler"}` {
		t.Errorf("routed event JSON %s", b)
	}
}

// A node sends a non-fatal notice and the run goes on.
func TestNotices(t *testing.T) {
	t.Parallel()
	notice := fault.New(fault.CapabilityNotFound, "The search tool is unavailable.", fault.WithDebug("tool", "search"))
	g := graph.New[state]().
		AddNode("search", func(ctx context.Context, s state) (state, error) {
			graph.Notify(ctx, notice)
			s.Log = append(s.Log, "search")
			return s, nil
		}).
		AddNode("answer", step("answer")).
		AddEdge("search", "answer").AddEdge("answer", graph.End).SetEntry("search")
	var mu sync.Mutex
	var got []string
	r := compile(t, g, &graph.Config[state]{OnNotice: func(_ context.Context, node string, n *fault.Error) {
		mu.Lock()
		got = append(got, node+": "+n.Message)
		mu.Unlock()
	}})
	out, err := r.Invoke(context.Background(), state{})
	if err != nil || fmt.Sprint(out.Log) != "[search answer]" || fmt.Sprint(got) != "[search: The search tool is unavailable.]" {
		t.Fatalf("Invoke: %v %v, notices %v", out.Log, err, got)
	}
	var types []graph.EventType
	for ev, err := range r.Stream(context.Background(), state{}) {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, ev.Type)
		if ev.Type == graph.EventNotice {
			b, _ := json.Marshal(ev)
			// The fault's payload, without debug.
			if !strings.HasPrefix(string(b), `{"type":"notice","node":"search","notice":{"code":"CAPABILITY_NOT_FOUND","message":"The search tool is unavailable.",`) ||
				strings.Contains(string(b), "debug") {
				t.Errorf("notice JSON %s", b)
			}
		}
	}
	if fmt.Sprint(types) != "[node_started notice node_finished node_started node_finished end]" {
		t.Errorf("events %v", types)
	}
}

// A node under a resilience policy retries what its fault says to retry.
func TestPerNodeRetry(t *testing.T) {
	t.Parallel()
	policy := resilience.New(resilience.Config{BaseDelay: time.Millisecond})
	var calls atomic.Int32
	flaky := func(_ context.Context, s state) (state, error) {
		if calls.Add(1) < 3 {
			return s, fault.New(fault.ServiceUnavailable, "", fault.WithRetryAfter(time.Millisecond))
		}
		s.Log = append(s.Log, "flaky")
		return s, nil
	}
	var badCalls atomic.Int32
	bad := func(_ context.Context, s state) (state, error) {
		badCalls.Add(1)
		return s, fault.New(fault.InvalidRequest, "")
	}
	op := resilience.Operation{Source: "tool", Idempotent: true}
	g := graph.New[state]().
		AddNode("flaky", flaky, graph.WithRetry(policy, op)).AddNode("bad", bad, graph.WithRetry(policy, op)).
		AddEdge("flaky", "bad").AddEdge("bad", graph.End).SetEntry("flaky")
	_, err := compile(t, g, nil).Invoke(context.Background(), state{})
	var ne *graph.NodeError
	if !errors.As(err, &ne) || ne.Node != "bad" || calls.Load() != 3 || badCalls.Load() != 1 {
		t.Fatalf("got %v after %d and %d calls", err, calls.Load(), badCalls.Load())
	}
}

// A failed run resumes from the node that failed; the nodes before it do
// not run again.
func TestResumeAfterFailure(t *testing.T) {
	t.Parallel()
	var aCalls, bCalls atomic.Int32
	down := atomic.Bool{}
	down.Store(true)
	g := graph.New[state]().
		AddNode("a", func(_ context.Context, s state) (state, error) {
			aCalls.Add(1)
			s.Log = append(s.Log, "a")
			return s, nil
		}).
		AddNode("b", func(_ context.Context, s state) (state, error) {
			bCalls.Add(1)
			if down.Load() {
				return s, fault.New(fault.ServiceUnavailable, "")
			}
			s.Log = append(s.Log, "b")
			return s, nil
		}).
		AddNode("c", step("c")).
		AddEdge("a", "b").AddEdge("b", "c").AddEdge("c", graph.End).SetEntry("a")
	cps := &graph.MemoryCheckpointer[state]{}
	r := compile(t, g, &graph.Config[state]{Checkpointer: cps})
	_, err := r.Invoke(context.Background(), state{}, graph.WithRunID("run-1"))
	var ne *graph.NodeError
	if !errors.As(err, &ne) || ne.RunID != "run-1" {
		t.Fatalf("first run: %v", err)
	}
	cp, err := cps.Load(context.Background(), "run-1")
	if err != nil || cp.Node != "b" || cp.AtExit || cp.Err == "" || fmt.Sprint(cp.Path) != "[a]" {
		t.Fatalf("checkpoint %+v %v", cp, err)
	}
	down.Store(false)
	out, err := r.Resume(context.Background(), "run-1")
	if err != nil || fmt.Sprint(out.Log) != "[a b c]" || aCalls.Load() != 1 || bCalls.Load() != 2 {
		t.Fatalf("resume: %v %v (a ran %d times, b %d)", out.Log, err, aCalls.Load(), bCalls.Load())
	}
	// A finished run resumes to its result.
	again, err := r.Resume(context.Background(), "run-1")
	if err != nil || fmt.Sprint(again.Log) != "[a b c]" {
		t.Errorf("resume of a finished run: %v %v", again.Log, err)
	}
	if _, err := r.Resume(context.Background(), "nope"); !errors.Is(err, graph.ErrNoCheckpoint) {
		t.Errorf("unknown run: %v", err)
	}
}

// Resuming a failed fan-out runs only the branches that failed; the fan-in
// node gets every result.
func TestResumeFanOut(t *testing.T) {
	t.Parallel()
	t.Run("parallel", func(t *testing.T) { resumeFanOut(t, fanOut, &graph.Config[state]{WaitForAllBranches: true}) })
	t.Run("sequential", func(t *testing.T) { resumeFanOut(t, sequentialFanOut, &graph.Config[state]{}) })
}

// resumeFanOut runs a fan-out whose second branch fails, then resumes it:
// only the branches that had not completed run again.
func resumeFanOut(t *testing.T, build func(x, y, z graph.Node[state], join graph.FanIn[state]) *graph.Graph[state], cfg *graph.Config[state]) {
	var xCalls, yCalls atomic.Int32
	down := atomic.Bool{}
	down.Store(true)
	x := func(_ context.Context, s state) (state, error) {
		xCalls.Add(1)
		s.Log = append(s.Log, "x")
		return s, nil
	}
	y := func(_ context.Context, s state) (state, error) {
		yCalls.Add(1)
		if down.Load() {
			return s, errBoom
		}
		s.Log = append(s.Log, "y")
		return s, nil
	}
	cfg.Checkpointer = &graph.MemoryCheckpointer[state]{}
	r := compile(t, build(x, y, step("z"), merge), cfg)
	_, err := r.Invoke(context.Background(), state{}, graph.WithRunID("fan"))
	if !errors.Is(err, errBoom) {
		t.Fatalf("first run: %v", err)
	}
	down.Store(false)
	out, err := r.Resume(context.Background(), "fan")
	if err != nil || fmt.Sprint(out.Log) != "[a x y z join]" {
		t.Fatalf("resume: %v %v", out.Log, err)
	}
	if xCalls.Load() != 1 || yCalls.Load() != 2 {
		t.Errorf("x ran %d times, y %d; want 1 and 2", xCalls.Load(), yCalls.Load())
	}
}

func TestLogsFailure(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	g := graph.New[state]().AddNode("a", step("a")).AddNode("b", fail(fault.New(fault.RateLimited, ""))).
		AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
	r := compile(t, g, &graph.Config[state]{Logger: slog.New(slog.NewJSONHandler(&buf, nil))})
	r.Invoke(context.Background(), state{}, graph.WithRunID("r1"))
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("%v: %s", err, buf.Bytes())
	}
	f, _ := rec["fault"].(map[string]any)
	if rec["level"] != "ERROR" || rec["node"] != "b" || fmt.Sprint(rec["path"]) != "[a]" || rec["run_id"] != "r1" || f["code"] != "RATE_LIMITED" {
		t.Errorf("log record %v", rec)
	}
}

// Stopping the loop early cancels the run.
func TestStreamStopsEarly(t *testing.T) {
	t.Parallel()
	var cancelled atomic.Bool
	g := graph.New[state]().AddNode("a", step("a")).
		AddNode("b", func(ctx context.Context, s state) (state, error) {
			select {
			case <-ctx.Done():
				cancelled.Store(true)
			case <-time.After(10 * time.Second):
			}
			return s, ctx.Err()
		}).
		AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
	start := time.Now()
	for ev, err := range compile(t, g, nil).Stream(context.Background(), state{}) {
		if err != nil || ev.Type == graph.EventNodeStarted && ev.Node == "b" {
			break
		}
	}
	if !cancelled.Load() || time.Since(start) > 5*time.Second {
		t.Error("the run was not cancelled when the loop stopped")
	}
}
