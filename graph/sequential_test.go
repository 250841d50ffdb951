package graph_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/triage-go/triage/graph"
)

// A sequential fan-out runs its branches in order on the caller's
// goroutine, each on its own copy, and merges as a parallel one does.
func TestSequentialFanOut(t *testing.T) {
	t.Parallel()
	var order []string // no lock: the branches must not run concurrently
	var goroutines [3]string
	branch := func(i int, name string) graph.Node[state] {
		return func(_ context.Context, s state) (state, error) {
			goroutines[i] = goroutineID()
			order = append(order, name)
			if s.Tags == nil {
				s.Tags = map[string]string{}
			}
			s.Tags[name] = "seen" // its own copy
			s.Log = append(s.Log, name)
			return s, nil
		}
	}
	r := compile(t, sequentialFanOut(branch(0, "x"), branch(1, "y"), branch(2, "z"), merge), nil)
	out, err := r.Invoke(context.Background(), state{Tags: map[string]string{"shared": "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(order) != "[x y z]" || fmt.Sprint(out.Log) != "[a x y z join]" {
		t.Errorf("ran %v, log %v", order, out.Log)
	}
	if len(out.Tags) != 1 {
		t.Errorf("branches wrote into the shared map: %v", out.Tags)
	}
	if goroutines[0] != goroutines[1] || goroutines[1] != goroutines[2] {
		t.Errorf("the branches ran on goroutines %v: not all on one", goroutines)
	}
}

// goroutineID is the number of the calling goroutine, from its stack
// trace's header ("goroutine 7 [running]:").
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := strings.Cut(strings.TrimPrefix(string(buf), "goroutine "), " ")
	return id
}

// A failing branch stops the branches after it and fails the fan-out; with
// WaitForAllBranches every branch runs and every failure is reported.
func TestSequentialFanOutFails(t *testing.T) {
	t.Parallel()
	var zRan atomic.Int32
	z := func(_ context.Context, s state) (state, error) { zRan.Add(1); return s, nil }
	g := sequentialFanOut(step("x"), fail(errBoom), z, merge)
	_, err := compile(t, g, nil).Invoke(context.Background(), state{})
	var ne *graph.NodeError
	if !errors.As(err, &ne) || ne.Node != "y" || len(ne.Branches) != 1 || !errors.Is(err, errBoom) {
		t.Fatalf("got %v", err)
	}
	if zRan.Load() != 0 {
		t.Error("the branch after a failure ran")
	}
	errZ := errors.New("z failed")
	g = sequentialFanOut(fail(errBoom), step("y"), fail(errZ), merge)
	_, err = compile(t, g, &graph.Config[state]{WaitForAllBranches: true}).Invoke(context.Background(), state{})
	if !errors.As(err, &ne) || len(ne.Branches) != 2 || ne.Branches[0].Node != "x" || ne.Branches[1].Node != "z" {
		t.Fatalf("waiting for all: got %v", err)
	}
}

func TestSequentialFanOutIsChecked(t *testing.T) {
	t.Parallel()
	g := graph.New[state]().AddNode("a", step("a")).AddNode("x", step("x")).AddSequentialFanOut("a", "", "x").
		AddEdge("x", graph.End).SetEntry("a")
	if _, err := g.Compile(nil); err == nil {
		t.Error("a sequential fan-out without a fan-in node compiled")
	}
}
