package storetest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/checkpoint"
)

// pipeline is the state of ResumeAfterRestart's graph.
type pipeline struct {
	Query  string
	Rows   []string
	Answer string
}

// Clone copies the rows, for the fan-out's branches.
func (p pipeline) Clone() pipeline {
	p.Rows = slices.Clone(p.Rows)
	return p
}

// ResumeAfterRestart checks that a graph run checkpointed by
// checkpoint.New resumes after the process restarts: a run whose
// nodes fail is resumed by a runner built anew, on a store opened anew on
// the same database, and the nodes that completed before the failure do
// not run again. open opens a store on one database, the same at every
// call (it may register the database's removal with t.Cleanup, which runs
// after the stores are closed); ResumeAfterRestart closes the stores.
//
// The graph is parse, then a fan-out to the branches web and db, merged by
// the fan-in merge, then answer. The first process fails in the branch db
// (web completes); the second resumes, runs db and merge, and fails in
// answer; the third resumes and finishes.
func ResumeAfterRestart(t *testing.T, open func(t *testing.T) store.Store) {
	ctx := t.Context()
	var (
		mu      sync.Mutex
		calls   = map[string]int{}
		failing map[string]bool // the nodes that fail in this process
	)
	count := func(name string) error {
		mu.Lock()
		defer mu.Unlock()
		calls[name]++
		if failing[name] {
			return errors.New(name + " is down")
		}
		return nil
	}
	node := func(name string, f func(p pipeline) pipeline) graph.Node[pipeline] {
		return func(_ context.Context, p pipeline) (pipeline, error) {
			if err := count(name); err != nil {
				return p, err
			}
			return f(p), nil
		}
	}
	branch := func(name string) graph.Node[pipeline] {
		return node(name, func(p pipeline) pipeline {
			p.Rows = []string{name + " rows"}
			return p
		})
	}
	// build is what a process does once it starts: open the store, and
	// compile the graph with the tenant's checkpointer.
	build := func(s store.Store, tenant string) *graph.Runnable[pipeline] {
		t.Helper()
		g := graph.New[pipeline]().
			AddNode("parse", node("parse", func(p pipeline) pipeline {
				p.Rows = append(p.Rows, "parsed "+p.Query)
				return p
			})).
			AddNode("web", branch("web")).
			AddNode("db", branch("db")).
			AddFanIn("merge", func(_ context.Context, p pipeline, branches []pipeline) (pipeline, error) {
				if err := count("merge"); err != nil {
					return p, err
				}
				for _, b := range branches {
					p.Rows = append(p.Rows, b.Rows...)
				}
				return p, nil
			}).
			AddNode("answer", node("answer", func(p pipeline) pipeline {
				p.Answer = strings.Join(p.Rows, "; ")
				return p
			})).
			AddFanOut("parse", "merge", "web", "db").
			AddEdge("web", "merge").AddEdge("db", "merge").
			AddEdge("merge", "answer").AddEdge("answer", graph.End).
			SetEntry("parse")
		r, err := g.Compile(&graph.Config[pipeline]{
			Checkpointer:       checkpoint.New[pipeline](s.Tenant(tenant)),
			WaitForAllBranches: true, // web completes though db fails
		})
		must(t, err)
		return r
	}
	process := func(fail ...string) store.Store {
		t.Helper()
		mu.Lock()
		failing = map[string]bool{}
		for _, n := range fail {
			failing[n] = true
		}
		mu.Unlock()
		return open(t)
	}
	checkCalls := func(when string, want map[string]int) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if !maps.Equal(calls, want) {
			t.Errorf("%s, the nodes ran %v times; want %v", when, calls, want)
		}
	}
	failedAt := func(err error, want string) {
		t.Helper()
		var ne *graph.NodeError
		if !errors.As(err, &ne) || ne.Node != want || ne.RunID != "run-1" {
			t.Fatalf("the run failed with %v; want a NodeError of node %q in run-1", err, want)
		}
	}

	// The first process: db fails.
	s := process("db")
	_, err := build(s, "acme").Invoke(ctx, pipeline{Query: "revenue"}, graph.WithRunID("run-1"))
	failedAt(err, "db")
	must(t, s.Close())
	checkCalls("after the first process", map[string]int{"parse": 1, "web": 1, "db": 1})

	// The second: db runs again, web does not; answer fails.
	s = process("answer")
	_, err = build(s, "acme").Resume(ctx, "run-1")
	failedAt(err, "answer")
	must(t, s.Close())
	checkCalls("after the second process", map[string]int{"parse": 1, "web": 1, "db": 2, "merge": 1, "answer": 1})

	// The third: answer runs again, and the run finishes.
	s = process()
	defer func() { must(t, s.Close()) }()
	r := build(s, "acme")
	out, err := r.Resume(ctx, "run-1")
	must(t, err)
	const want = "parsed revenue; web rows; db rows"
	if out.Answer != want {
		t.Errorf("the resumed run answered %q, want %q", out.Answer, want)
	}
	after := map[string]int{"parse": 1, "web": 1, "db": 2, "merge": 1, "answer": 2}
	checkCalls("after the third process", after)

	// A finished run's result is returned again, nothing run.
	if out, err := r.Resume(ctx, "run-1"); err != nil || out.Answer != want {
		t.Errorf("Resume of the finished run = %+v, %v; want its result", out, err)
	}
	checkCalls("after resuming the finished run", after)

	// Another tenant has no such run.
	if _, err := build(s, "globex").Resume(ctx, "run-1"); !errors.Is(err, graph.ErrNoCheckpoint) {
		t.Errorf("another tenant's Resume of run-1: %v, want an error wrapping graph.ErrNoCheckpoint", err)
	}
	checkCalls("after another tenant's Resume", after)
}
