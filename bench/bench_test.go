package bench

import (
	"context"
	"runtime"
	"testing"
)

// BenchmarkInvoke runs each graph on each implementation in one
// invocation: BenchmarkInvoke/impl=triage/graph=linear-10 beside
// BenchmarkInvoke/impl=eino/graph=linear-10, so that benchstat -col /impl
// puts them side by side. Each graph is compiled once; an op is one Invoke.
// Besides ns/op and allocs/op, each reports ns/node and allocs/node: the
// same divided by the graph's number of nodes.
func BenchmarkInvoke(b *testing.B) {
	ctx := context.Background()
	for _, s := range shapes {
		for _, impl := range impls {
			b.Run("impl="+impl.name+"/graph="+s.name, func(b *testing.B) {
				run, err := impl.build(ctx, s)
				if err != nil {
					b.Fatal(err)
				}
				if out, err := run(ctx, Counter{}); err != nil || out.N != s.want(Counter{}) {
					b.Fatalf("Invoke = %d, %v; want %d", out.N, err, s.want(Counter{}))
				}
				b.ReportAllocs()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for b.Loop() {
					if _, err := run(ctx, Counter{}); err != nil {
						b.Fatal(err)
					}
				}
				runtime.ReadMemStats(&after)
				perNode := float64(b.N) * float64(s.nodes)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/perNode, "ns/node")
				b.ReportMetric(float64(after.Mallocs-before.Mallocs)/perNode, "allocs/node")
			})
		}
	}
}
