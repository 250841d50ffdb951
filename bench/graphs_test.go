package bench

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cloudwego/eino/compose"
	"github.com/triage-go/triage/graph"
)

// Counter is the state both implementations carry: small, with nothing to
// clone, so that what is measured is the executor's overhead, not the
// nodes' work.
type Counter struct{ N int }

// increment is every node but the fan-in: it adds by to the counter.
func increment(by int) func(context.Context, Counter) (Counter, error) {
	return func(_ context.Context, s Counter) (Counter, error) {
		s.N += by
		return s, nil
	}
}

// mergeBranches is the fan-in: it weighs branch i's counter by i+1, so
// that branches merged out of declaration order give another sum, and adds
// 1.
func mergeBranches(branches []Counter) Counter {
	var out Counter
	for i, b := range branches {
		out.N += (i + 1) * b.N
	}
	out.N++
	return out
}

// shape is one of the benchmarks' graphs.
type shape struct {
	name  string
	nodes int                  // every node the graph runs, fan-in included
	want  func(in Counter) int // the result, computed without a graph
	fan   int                  // the fan-out's width; 0 for a chain
}

func linear(n int) shape {
	return shape{name: fmt.Sprintf("linear-%d", n), nodes: n, want: func(in Counter) int { return in.N + n }}
}

// fanOut is a node that adds 1, then n parallel branches (branch i adds
// i+1 to its own copy), then a fan-in node (mergeBranches): n+2 nodes.
func fanOut(n int) shape {
	return shape{name: fmt.Sprintf("fanout-%d", n), nodes: n + 2, fan: n, want: func(in Counter) int {
		bs := make([]Counter, n)
		for i := range bs {
			bs[i].N = in.N + 1 + i + 1
		}
		return mergeBranches(bs).N
	}}
}

var shapes = []shape{linear(1), linear(10), linear(100), fanOut(8)}

// invoker runs a compiled graph, of any implementation.
type invoker func(ctx context.Context, in Counter) (Counter, error)

func nodeName(i int) string   { return fmt.Sprintf("n%d", i) }
func branchName(i int) string { return fmt.Sprintf("b%d", i) }

// buildTriage compiles the shape on Triage's graph, with the default
// Config: no Checkpointer, no Logger.
func buildTriage(s shape) (invoker, error) {
	g := graph.New[Counter]()
	if s.fan == 0 {
		for i := range s.nodes {
			g.AddNode(nodeName(i), increment(1))
			if i > 0 {
				g.AddEdge(nodeName(i-1), nodeName(i))
			}
		}
		g.AddEdge(nodeName(s.nodes-1), graph.End).SetEntry(nodeName(0))
	} else {
		g.AddNode("fork", increment(1))
		branches := make([]string, s.fan)
		for i := range s.fan {
			branches[i] = branchName(i)
			g.AddNode(branches[i], increment(i+1)).AddEdge(branches[i], "join")
		}
		g.AddFanIn("join", func(_ context.Context, _ Counter, bs []Counter) (Counter, error) {
			return mergeBranches(bs), nil
		})
		g.AddFanOut("fork", "join", branches...).AddEdge("join", graph.End).SetEntry("fork")
	}
	r, err := g.Compile(nil)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, in Counter) (Counter, error) { return r.Invoke(ctx, in) }, nil
}

// buildEino compiles the shape on Eino's compose.Graph with opts (none
// gives the default runner: AnyPredecessor, Pregel-style). Its fan-out is
// Eino's own: a node with several successors runs them in parallel, and a
// node with several predecessors receives their outputs merged. Eino merges
// in map order, so each branch puts its result under its own output key
// (compose.WithOutputKey, as compose.Parallel does) and the fan-in node
// reads them back in declaration order.
func buildEino(ctx context.Context, s shape, opts ...compose.GraphCompileOption) (invoker, error) {
	g := compose.NewGraph[Counter, Counter]()
	var errs []error
	check := func(err error) { errs = append(errs, err) }
	if s.fan == 0 {
		for i := range s.nodes {
			check(g.AddLambdaNode(nodeName(i), compose.InvokableLambda(increment(1))))
			if i == 0 {
				check(g.AddEdge(compose.START, nodeName(i)))
			} else {
				check(g.AddEdge(nodeName(i-1), nodeName(i)))
			}
		}
		check(g.AddEdge(nodeName(s.nodes-1), compose.END))
	} else {
		keys := make([]string, s.fan)
		for i := range s.fan {
			keys[i] = branchName(i)
		}
		// Eino wants a node added before an edge names it.
		check(g.AddLambdaNode("fork", compose.InvokableLambda(increment(1))))
		for i, k := range keys {
			check(g.AddLambdaNode(k, compose.InvokableLambda(increment(i+1)), compose.WithOutputKey(k)))
		}
		check(g.AddLambdaNode("join", compose.InvokableLambda(func(_ context.Context, m map[string]any) (Counter, error) {
			bs := make([]Counter, len(keys))
			for i, k := range keys {
				c, ok := m[k].(Counter)
				if !ok {
					return Counter{}, fmt.Errorf("join: branch %q sent %T", k, m[k])
				}
				bs[i] = c
			}
			return mergeBranches(bs), nil
		})))
		check(g.AddEdge(compose.START, "fork"))
		for _, k := range keys {
			check(g.AddEdge("fork", k))
			check(g.AddEdge(k, "join"))
		}
		check(g.AddEdge("join", compose.END))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("eino: build %s: %w", s.name, err)
	}
	r, err := g.Compile(ctx, opts...)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, in Counter) (Counter, error) { return r.Invoke(ctx, in) }, nil
}

// impls are the implementations under test, in the order they are run:
// Triage, Eino's default runner, and Eino's DAG runner (AllPredecessor),
// whose fan-in waits for every predecessor by definition.
var impls = []struct {
	name  string
	build func(context.Context, shape) (invoker, error)
}{
	{"triage", func(_ context.Context, s shape) (invoker, error) { return buildTriage(s) }},
	{"eino", func(ctx context.Context, s shape) (invoker, error) { return buildEino(ctx, s) }},
	{"eino-dag", func(ctx context.Context, s shape) (invoker, error) {
		return buildEino(ctx, s, compose.WithNodeTriggerMode(compose.AllPredecessor))
	}},
}

// TestSameResult checks that each graph computes, on each implementation,
// the result the plain Go computation gives, so that no benchmark measures
// a graph that does not do its work.
func TestSameResult(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			for _, in := range []Counter{{N: 0}, {N: 7}} {
				want := s.want(in)
				for _, impl := range impls {
					run, err := impl.build(ctx, s)
					if err != nil {
						t.Fatalf("%s: build: %v", impl.name, err)
					}
					out, err := run(ctx, in)
					if err != nil || out.N != want {
						t.Errorf("%s: Invoke(%d) = %d, %v; want %d", impl.name, in.N, out.N, err, want)
					}
				}
			}
		})
	}
}
