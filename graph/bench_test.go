package graph_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/triage-go/triage/graph"
)

// benchCounter is the benchmarks' state: small, with nothing to clone, so
// that what is measured is the executor's overhead, not the nodes' work.
type benchCounter struct{ N int }

// benchIncrement is the benchmarks' node: it adds by to the counter.
func benchIncrement(by int) graph.Node[benchCounter] {
	return func(_ context.Context, s benchCounter) (benchCounter, error) {
		s.N += by
		return s, nil
	}
}

// benchLinear is a chain of n nodes, each adding 1.
func benchLinear(n int) *graph.Graph[benchCounter] {
	g := graph.New[benchCounter]()
	for i := range n {
		g.AddNode(fmt.Sprintf("n%d", i), benchIncrement(1))
		if i > 0 {
			g.AddEdge(fmt.Sprintf("n%d", i-1), fmt.Sprintf("n%d", i))
		}
	}
	return g.AddEdge(fmt.Sprintf("n%d", n-1), graph.End).SetEntry("n0")
}

// benchFanOut is a node that adds 1, then n parallel branches (branch i
// adds i+1), then a fan-in node that weighs branch i's counter by i+1, so
// that a result out of declaration order gives another sum, and adds 1.
// It has n+2 nodes.
func benchFanOut(n int) *graph.Graph[benchCounter] {
	g := graph.New[benchCounter]().AddNode("fork", benchIncrement(1))
	branches := make([]string, n)
	for i := range n {
		branches[i] = fmt.Sprintf("b%d", i)
		g.AddNode(branches[i], benchIncrement(i+1)).AddEdge(branches[i], "join")
	}
	return g.AddFanIn("join", func(_ context.Context, _ benchCounter, bs []benchCounter) (benchCounter, error) {
		var out benchCounter
		for i, b := range bs {
			out.N += (i + 1) * b.N
		}
		out.N++
		return out, nil
	}).AddFanOut("fork", "join", branches...).AddEdge("join", graph.End).SetEntry("fork")
}

// benchFanOutWant is benchFanOut(n)'s result for a counter starting at 0.
func benchFanOutWant(n int) int {
	want := 1
	for i := range n {
		want += (i + 1) * (1 + i + 1)
	}
	return want
}

// BenchmarkInvoke measures Invoke with the default Config (no
// Checkpointer, no Logger) on graphs of nodes that do almost nothing, so
// that ns/node and allocs/node are the executor's overhead per node. The
// bench module (../bench) runs the same graphs beside Eino's.
func BenchmarkInvoke(b *testing.B) {
	cases := []struct {
		name  string
		g     *graph.Graph[benchCounter]
		nodes int
		want  int
	}{
		{"linear-1", benchLinear(1), 1, 1},
		{"linear-10", benchLinear(10), 10, 10},
		{"linear-100", benchLinear(100), 100, 100},
		{"fanout-8", benchFanOut(8), 10, benchFanOutWant(8)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			r, err := c.g.Compile(nil)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if out, err := r.Invoke(ctx, benchCounter{}); err != nil || out.N != c.want {
				b.Fatalf("Invoke = %d, %v; want %d", out.N, err, c.want)
			}
			benchPerNode(b, c.nodes, func() {
				if _, err := r.Invoke(ctx, benchCounter{}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// benchPerNode runs op in a b.Loop and reports, besides ns/op and
// allocs/op, the same divided by the graph's number of nodes.
func benchPerNode(b *testing.B, nodes int, op func()) {
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		op()
	}
	runtime.ReadMemStats(&after)
	perNode := float64(b.N) * float64(nodes)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/perNode, "ns/node")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/perNode, "allocs/node")
}

// BenchmarkStreamEmit measures a streamed run of one node that emits 100
// outputs, read by a loop that does nothing with them: events/s counts
// every event the loop gets (the outputs, node_started, node_finished and
// the end), ns/output the cost of one Emit through the stream.
func BenchmarkStreamEmit(b *testing.B) {
	const outputs = 100
	r, err := graph.New[benchCounter]().
		AddNode("llm", func(ctx context.Context, s benchCounter) (benchCounter, error) {
			for i := range outputs {
				graph.Emit(ctx, i)
			}
			return s, nil
		}).
		AddEdge("llm", graph.End).SetEntry("llm").Compile(nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	events := 0
	for b.Loop() {
		for ev, err := range r.Stream(ctx, benchCounter{}) {
			if err != nil {
				b.Fatal(err)
			}
			if ev.Type == graph.EventOutput && ev.Output.(int) < 0 {
				b.Fatal("bad output")
			}
			events++
		}
	}
	if events != b.N*(outputs+3) {
		b.Fatalf("%d events in %d runs", events, b.N)
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*outputs), "ns/output")
}
