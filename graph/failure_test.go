package graph_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
)

// deepFanOut is a → {x → x2, y, z} → join, the fan-out declared by add: a
// failure in x2 is two nodes deep inside its branch.
func deepFanOut(add func(g *graph.Graph[state], from, join string, branches ...string) *graph.Graph[state],
	x2 graph.Node[state]) *graph.Graph[state] {
	g := graph.New[state]().AddNode("a", step("a")).AddNode("x", step("x")).AddNode("x2", x2).
		AddNode("y", step("y")).AddNode("z", step("z")).AddFanIn("join", merge)
	return add(g, "a", "join", "x", "y", "z").AddEdge("x", "x2").
		AddEdge("x2", "join").AddEdge("y", "join").AddEdge("z", "join").AddEdge("join", graph.End).SetEntry("a")
}

// Invoke returns, on every path, the state the failing node received: the
// state its NodeError carries and its error event shows.
func TestInvokeReturnsFailingNodeState(t *testing.T) {
	t.Parallel()
	failingRouter := func(context.Context, state) (string, error) { return "", errBoom }
	cases := []struct {
		name string
		g    *graph.Graph[state]
		node string
		log  []string // the failing node's input state's log
	}{
		{"sequential", graph.New[state]().AddNode("a", step("a")).AddNode("b", fail(errBoom)).
			AddEdge("a", "b").AddEdge("b", graph.End).SetEntry("a"), "b", []string{"a"}},
		{"router", graph.New[state]().AddNode("a", step("a")).AddNode("b", step("b")).
			AddConditionalEdges("a", failingRouter, "b").AddEdge("b", graph.End).SetEntry("a"), "a", []string{"a"}},
		{"parallel fan-out, two nodes deep", deepFanOut((*graph.Graph[state]).AddFanOut, fail(errBoom)), "x2", []string{"a", "x"}},
		{"sequential fan-out, two nodes deep", deepFanOut((*graph.Graph[state]).AddSequentialFanOut, fail(errBoom)), "x2", []string{"a", "x"}},
		{"nested fan-out", graph.New[state]().AddNode("a", step("a")).AddNode("x", step("x")).AddNode("y", step("y")).
			AddNode("p", step("p")).AddNode("p2", fail(errBoom)).AddNode("q", step("q")).
			AddFanIn("inner", merge).AddFanIn("outer", merge).
			AddFanOut("a", "outer", "x", "y").AddFanOut("x", "inner", "p", "q").
			AddEdge("p", "p2").AddEdge("p2", "inner").AddEdge("q", "inner").AddEdge("inner", "outer").
			AddEdge("y", "outer").AddEdge("outer", graph.End).SetEntry("a"), "p2", []string{"a", "x", "p"}},
		{"fan-in node", fanOut(step("x"), step("y"), step("z"),
			func(context.Context, state, []state) (state, error) { return state{Log: []string{"wrong"}}, errBoom }),
			"join", []string{"a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := compile(t, c.g, &graph.Config[state]{WaitForAllBranches: true})
			out, err := r.Invoke(context.Background(), state{})
			var ne *graph.NodeError
			if !errors.As(err, &ne) || ne.Node != c.node {
				t.Fatalf("Invoke: %v, want a failure in %q", err, c.node)
			}
			carried, _ := ne.State.(state)
			if fmt.Sprint(out.Log) != fmt.Sprint(c.log) || fmt.Sprint(carried.Log) != fmt.Sprint(c.log) {
				t.Errorf("Invoke returned the log %v and NodeError.State the log %v, want %v for both", out.Log, carried.Log, c.log)
			}
			var last graph.Event[state]
			for ev, err := range r.Stream(context.Background(), state{}, graph.ErrorEvents()) {
				if err != nil {
					t.Fatalf("ErrorEvents raised %v", err)
				}
				last = ev
			}
			if last.Type != graph.EventError || fmt.Sprint(last.State.Log) != fmt.Sprint(c.log) {
				t.Errorf("error event %s with the log %v, want %v", last.Type, last.State.Log, c.log)
			}
		})
	}
}

// With several failed branches, the error is the failure it names: errors.As
// and fault.From classify that one (a caller must not retry a bug because a
// sibling was rate limited), while every failure stays reachable through
// Branches and Failures, and errors.Is still finds each branch's own cause.
func TestFanOutClassifiesByNamedFailure(t *testing.T) {
	t.Parallel()
	errX, errZ := errors.New("x has a bug"), errors.New("z has a bug")
	rateLimited := fault.New(fault.RateLimited, "slow down")
	cases := []struct {
		name      string
		x, z      error
		code      fault.Code // fault.From of the error: x's
		retryable bool
		zCode     fault.Code // fault.From of the second failure: z's
		isZ       bool       // errors.Is(err, z) holds
	}{
		{"a bug beside a rate limit", errX, rateLimited, fault.AgentExecutionError, false, fault.RateLimited, true},
		{"a rate limit beside a bug", rateLimited, errZ, fault.RateLimited, true, fault.AgentExecutionError, true},
		{"a bug beside a timeout", errX, context.DeadlineExceeded, fault.AgentExecutionError, false, fault.Timeout, false},
		{"a bug beside a cancellation", errX, context.Canceled, fault.AgentExecutionError, false, fault.Cancelled, false},
	}
	builds := []struct {
		name  string
		build func(x, y, z graph.Node[state], join graph.FanIn[state]) *graph.Graph[state]
	}{{"parallel", fanOut}, {"sequential", sequentialFanOut}}
	for _, b := range builds {
		for _, c := range cases {
			t.Run(b.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				r := compile(t, b.build(fail(c.x), step("y"), fail(c.z), merge), &graph.Config[state]{WaitForAllBranches: true})
				_, err := r.Invoke(context.Background(), state{})
				var ne *graph.NodeError
				if !errors.As(err, &ne) || ne.Node != "x" {
					t.Fatalf("got %v, want a failure named x", err)
				}
				if f := fault.From(err); f.Code != c.code || f.Retryable != c.retryable {
					t.Errorf("fault.From says %s (retryable %v), want x's %s (retryable %v)", f.Code, f.Retryable, c.code, c.retryable)
				}
				if got := fault.CodeOf(err); got != c.code {
					t.Errorf("fault.CodeOf says %s, want %s", got, c.code)
				}
				var fe *fault.Error
				if found := errors.As(err, &fe); found != (c.code == fault.RateLimited) {
					t.Errorf("errors.As found a *fault.Error: %v (%v), want only x's", found, fe)
				}
				if !errors.Is(err, c.x) {
					t.Errorf("errors.Is does not find the named cause %v", c.x)
				}
				if errors.Is(err, c.z) != c.isZ {
					t.Errorf("errors.Is(err, %v) = %v, want %v", c.z, !c.isZ, c.isZ)
				}
				failures := ne.Failures()
				if len(failures) != 2 || len(ne.Branches) != 2 || failures[0].Node != "x" || failures[1].Node != "z" {
					t.Fatalf("Failures %v, Branches %v: want x and z", failures, ne.Branches)
				}
				if got := fault.From(failures[1]).Code; got != c.zCode {
					t.Errorf("fault.From of z's failure says %s, want %s", got, c.zCode)
				}
				if !errors.Is(failures[1], c.z) {
					t.Errorf("z's failure does not reach its cause %v", c.z)
				}
			})
		}
	}
}

// A failure outside a fan-out reports itself as its only failure.
func TestFailuresOfASingleFailure(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().AddNode("a", fail(errBoom)).AddEdge("a", graph.End).SetEntry("a")
	_, err := compile(t, g, nil).Invoke(context.Background(), state{})
	var ne *graph.NodeError
	if !errors.As(err, &ne) {
		t.Fatalf("got %v", err)
	}
	if f := ne.Failures(); len(f) != 1 || f[0] != ne {
		t.Errorf("Failures %v, want the error itself", f)
	}
}
