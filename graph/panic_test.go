package graph_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
)

// panickyAt is a MemoryCheckpointer whose Save panics when panics says so,
// given the save's number (from 1) and its checkpoint.
type panickyAt struct {
	graph.MemoryCheckpointer[state]
	saves  atomic.Int32
	panics func(n int, cp graph.Checkpoint[state]) bool
}

func (p *panickyAt) Save(ctx context.Context, cp graph.Checkpoint[state]) error {
	if p.panics(int(p.saves.Add(1)), cp) {
		panic("checkpointer broke")
	}
	return p.MemoryCheckpointer.Save(ctx, cp)
}

// saveNumber makes a panickyAt panic on its nth save only.
func saveNumber(n int) func(int, graph.Checkpoint[state]) bool {
	return func(i int, _ graph.Checkpoint[state]) bool { return i == n }
}

// A panic outside a node — in ErrorState, in a Checkpointer's Save, in a
// Clone — follows the contract: its NodeError names the node being run or
// exited when it happened, with the path so far and that node's state;
// Invoke returns that state; the cause is a *PanicError, which fault.From
// classifies as a node's panic (AGENT_EXECUTION_ERROR, not retryable); and
// the checkpoint records the failure where the run stood.
func TestPanicOutsideNodeFollowsContract(t *testing.T) {
	t.Parallel()
	errorStatePanics := func(state, *graph.NodeError) state { panic("error state broke") }
	failingRouter := func(context.Context, state) (string, error) { return "", errBoom }
	toB := func(context.Context, state) (string, error) { return "b", nil }
	type checkpointAt struct {
		node   string
		atExit bool
		path   []string
		done   []string // the branches whose results the checkpoint keeps
	}
	cases := []struct {
		name  string
		g     *graph.Graph[state]
		cfg   graph.Config[state]
		saves func(int, graph.Checkpoint[state]) bool // nil: a MemoryCheckpointer
		node  string
		path  []string
		log   []string // the state's log
		cp    *checkpointAt
	}{
		{name: "error state, for a node",
			g: graph.New[state]().AddNode("a", step("a")).AddNode("q", fail(errBoom), graph.OnError("h")).AddNode("h", step("h")).
				AddEdge("a", "q").AddEdge("q", graph.End).AddEdge("h", graph.End).SetEntry("a"),
			cfg:  graph.Config[state]{ErrorState: errorStatePanics},
			node: "q", path: []string{"a"}, log: []string{"a"}, cp: &checkpointAt{node: "q", path: []string{"a"}}},
		{name: "error state, for a router",
			g: graph.New[state]().AddNode("a", step("a"), graph.OnError("h")).AddNode("b", step("b")).AddNode("h", step("h")).
				AddConditionalEdges("a", failingRouter, "b").AddEdge("b", graph.End).AddEdge("h", graph.End).SetEntry("a"),
			cfg:  graph.Config[state]{ErrorState: errorStatePanics},
			node: "a", path: []string{"a"}, log: []string{"a"}, cp: &checkpointAt{node: "a", atExit: true, path: []string{"a"}}},
		{name: "error state, in a branch",
			g: graph.New[state]().AddNode("a", step("a")).AddNode("x", step("x")).AddNode("y", step("y")).
				AddNode("y2", fail(errBoom), graph.OnError("yh")).AddNode("yh", step("yh")).AddFanIn("join", merge).
				AddFanOut("a", "join", "x", "y").AddEdge("x", "join").AddEdge("y", "y2").AddEdge("y2", "join").
				AddEdge("yh", "join").AddEdge("join", graph.End).SetEntry("a"),
			cfg:  graph.Config[state]{ErrorState: errorStatePanics, WaitForAllBranches: true},
			node: "y2", path: []string{"a", "y"}, log: []string{"a", "y"},
			cp: &checkpointAt{node: "a", atExit: true, path: []string{"a"}, done: []string{"x"}}},
		{name: "checkpointer, before a node",
			g: graph.New[state]().AddNode("a", step("a")).AddNode("b", step("b")).
				AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a"),
			saves: saveNumber(2),
			node:  "b", path: []string{"a"}, log: []string{"a"}, cp: &checkpointAt{node: "b", path: []string{"a"}}},
		{name: "checkpointer, at a router's exit",
			g: graph.New[state]().AddNode("a", step("a")).AddNode("b", step("b")).
				AddConditionalEdges("a", toB, "b").AddEdge("b", graph.End).SetEntry("a"),
			saves: saveNumber(2),
			node:  "a", path: []string{"a"}, log: []string{"a"}, cp: &checkpointAt{node: "a", atExit: true, path: []string{"a"}}},
		{name: "checkpointer, after a branch",
			g:     sequentialFanOut(step("x"), step("y"), step("z"), merge),
			saves: saveNumber(3), // before a, at a's exit, after x
			node:  "x", path: []string{"a"}, log: []string{"a"},
			cp: &checkpointAt{node: "a", atExit: true, path: []string{"a"}, done: []string{"x"}}},
		{name: "checkpointer, the final save",
			g: graph.New[state]().AddNode("a", step("a")).AddNode("b", step("b")).
				AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a"),
			saves: func(_ int, cp graph.Checkpoint[state]) bool { return cp.Done },
			node:  "b", path: []string{"a", "b"}, log: []string{"a", "b"},
			cp: &checkpointAt{node: "b", atExit: true, path: []string{"a", "b"}}},
		{name: "clone, on a branch",
			g:    fanOut(step("x"), step("y"), step("z"), merge),
			cfg:  graph.Config[state]{Clone: func(state) state { panic("clone broke") }, WaitForAllBranches: true},
			node: "x", path: []string{"a"}, log: []string{"a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := c.cfg
			var cps graph.Checkpointer[state]
			if c.cp != nil {
				cps = &graph.MemoryCheckpointer[state]{}
				if c.saves != nil {
					cps = &panickyAt{panics: c.saves}
				}
				cfg.Checkpointer = cps
			}
			r := compile(t, c.g, &cfg)
			out, err := r.Invoke(context.Background(), state{}, graph.WithRunID("run"))
			var ne *graph.NodeError
			var pe *graph.PanicError
			if !errors.As(err, &ne) || !errors.As(err, &pe) || !strings.Contains(pe.Error(), "broke") {
				t.Fatalf("got %v, want a NodeError caused by the panic", err)
			}
			carried, _ := ne.State.(state)
			if ne.Node != c.node || fmt.Sprint(ne.Path) != fmt.Sprint(c.path) || fmt.Sprint(carried.Log) != fmt.Sprint(c.log) {
				t.Errorf("NodeError names %q after %v with the log %v; want %q after %v with %v",
					ne.Node, ne.Path, carried.Log, c.node, c.path, c.log)
			}
			if fmt.Sprint(out.Log) != fmt.Sprint(c.log) {
				t.Errorf("Invoke returned the log %v, want %v", out.Log, c.log)
			}
			if f := fault.From(err); f.Code != fault.AgentExecutionError || f.Retryable {
				t.Errorf("fault.From says %s (retryable %v), want a panic's AGENT_EXECUTION_ERROR", f.Code, f.Retryable)
			}
			if c.cp == nil {
				return
			}
			cp, err := cps.Load(context.Background(), "run")
			if err != nil {
				t.Fatal(err)
			}
			var done []string
			for b := range cp.Branches {
				done = append(done, b)
			}
			if !strings.Contains(cp.Err, "broke") || cp.Done || cp.Node != c.cp.node || cp.AtExit != c.cp.atExit ||
				fmt.Sprint(cp.Path) != fmt.Sprint(c.cp.path) || fmt.Sprint(done) != fmt.Sprint(c.cp.done) {
				t.Errorf("checkpoint at %q (at exit %v) after %v keeping %v, error %q; want at %q (at exit %v) after %v keeping %v, the panic",
					cp.Node, cp.AtExit, cp.Path, done, cp.Err, c.cp.node, c.cp.atExit, c.cp.path, c.cp.done)
			}
		})
	}
}

// alwaysPanics is a Checkpointer whose every call panics.
type alwaysPanics struct{}

func (alwaysPanics) Save(context.Context, graph.Checkpoint[state]) error { panic("checkpointer broke") }
func (alwaysPanics) Load(context.Context, string) (graph.Checkpoint[state], error) {
	panic("checkpointer broke")
}

// A Checkpointer that always panics fails the run before its first node,
// in the one shape; the failure's own checkpoint cannot be written, which
// is logged; Resume, whose Load panics, returns the panic as its error.
// Nothing takes the process down.
func TestCheckpointerThatAlwaysPanics(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	var mu sync.Mutex
	g := graph.New[state]().AddNode("a", step("a")).AddNode("b", step("b")).
		AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a")
	r := compile(t, g, &graph.Config[state]{Checkpointer: alwaysPanics{},
		Logger: slog.New(slog.NewJSONHandler(&lockedBuffer{b: &logs, mu: &mu}, nil))})
	checkContract(t, context.Background, r, state{}, want{
		node: "a", text: "save checkpoint: panic: checkpointer broke", code: fault.AgentExecutionError,
	})
	mu.Lock()
	logged := logs.String()
	mu.Unlock()
	if !strings.Contains(logged, "checkpoint of a failure not saved") || !strings.Contains(logged, "checkpointer broke") {
		t.Errorf("the unsaved failure checkpoint was not logged: %s", logged)
	}
	_, err := r.Resume(context.Background(), "run")
	var pe *graph.PanicError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "graph: resume run run: load checkpoint: panic: checkpointer broke") {
		t.Errorf("Resume: %v", err)
	}
}

// panickingHandler is a slog.Handler whose every record panics.
type panickingHandler struct{ slog.Handler }

func (panickingHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (panickingHandler) Handle(context.Context, slog.Record) error { panic("logger broke") }

// A Logger whose handler panics loses its records, not the run: the run
// goes on through an error route, and its failure is still the answer.
func TestPanickingLoggerLosesRecordsNotTheRun(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().AddNode("a", fail(errBoom), graph.OnError("h")).AddNode("h", step("h")).
		AddNode("b", fail(errors.New("b down"))).
		AddEdge("a", graph.End).AddEdge("h", "b").AddEdge("b", graph.End).SetEntry("a")
	r := compile(t, g, &graph.Config[state]{
		ErrorState: func(s state, ne *graph.NodeError) state { s.Err = ne.Error(); return s },
		Logger:     slog.New(panickingHandler{}),
	})
	checkContract(t, context.Background, r, state{}, want{
		node: "b", path: []string{"h"}, text: "b down", code: fault.AgentExecutionError,
		state: state{Log: []string{"h"}},
	})
}
