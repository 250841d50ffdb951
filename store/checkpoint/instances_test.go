package checkpoint_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/checkpoint"
	"github.com/triage-go/triage/store/postgres"
)

// TestResumeOnAnotherInstance: two instances on one PostgreSQL database,
// both up. A run whose branch fails on the first resumes on the second:
// the branches that completed there do not run again, the failed one
// does, and the run finishes with the first instance's work in its state.
func TestResumeOnAnotherInstance(t *testing.T) {
	db := pgtest.FreshSchema(t)
	ctx := context.Background()
	var mu sync.Mutex
	calls := map[string][]string{} // by instance
	warehouseUp := false
	salesDone := make(chan struct{}) // the first instance's sales branch completed

	instance := func(name string) *graph.Runnable[Report] {
		s, err := postgres.Open(ctx, db, store.Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		node := func(id string, fail bool) graph.Node[Report] {
			return func(_ context.Context, r Report) (Report, error) {
				mu.Lock()
				calls[name] = append(calls[name], id)
				up := warehouseUp
				mu.Unlock()
				if fail && !up {
					// Fail once the sibling branch has completed, so
					// that the checkpoint holds it.
					<-salesDone
					return r, errors.New("the warehouse is down")
				}
				r.Rows = append(r.Rows, id)
				if id == "sales" && name == "a" {
					close(salesDone)
				}
				return r, nil
			}
		}
		g := graph.New[Report]().
			AddNode("parse", node("parse", false)).
			AddFanOut("parse", "merge", "sales", "warehouse").
			AddNode("sales", node("sales", false)).AddEdge("sales", "merge").
			AddNode("warehouse", node("warehouse", true)).AddEdge("warehouse", "merge").
			AddFanIn("merge", func(_ context.Context, r Report, branches []Report) (Report, error) {
				base := len(r.Rows)
				for _, b := range branches {
					r.Rows = append(r.Rows, b.Rows[base:]...)
				}
				return r, nil
			}).
			AddEdge("merge", graph.End).
			SetEntry("parse")
		run, err := g.Compile(&graph.Config[Report]{Checkpointer: checkpoint.New[Report](s.Tenant("acme")),
			Clone: func(r Report) Report { r.Rows = slices.Clone(r.Rows); return r }})
		if err != nil {
			t.Fatal(err)
		}
		return run
	}
	a, b := instance("a"), instance("b")

	if _, err := a.Invoke(ctx, Report{Query: "revenue?"}, graph.WithRunID("run-9")); err == nil {
		t.Fatal("the run did not fail on the first instance")
	}
	mu.Lock()
	warehouseUp = true
	mu.Unlock()
	out, err := b.Resume(ctx, "run-9")
	if err != nil {
		t.Fatalf("resume on the second instance: %v", err)
	}
	if slices.Sort(out.Rows); !slices.Equal(out.Rows, []string{"parse", "sales", "warehouse"}) || out.Query != "revenue?" {
		t.Errorf("final state %+v", out)
	}
	slices.Sort(calls["a"])
	if !slices.Equal(calls["a"], []string{"parse", "sales", "warehouse"}) || !slices.Equal(calls["b"], []string{"warehouse"}) {
		t.Errorf("calls: first instance %v, second %v; want the second to run only the failed branch", calls["a"], calls["b"])
	}
	// The run is over: resuming it again, on either instance, runs
	// nothing and returns its result.
	n := len(calls["a"]) + len(calls["b"])
	again, err := a.Resume(ctx, "run-9")
	if err != nil || !slices.Equal(again.Rows, out.Rows) || len(calls["a"])+len(calls["b"]) != n {
		t.Errorf("a finished run resumed again: %+v %v", again, err)
	}
}
