// Package bench measures Triage's graph executor beside Eino's compose
// graph (github.com/cloudwego/eino) on the same graphs: linear chains of 1,
// 10 and 100 nodes and an 8-way fan-out/fan-in.
//
// It is a module of its own, so that Triage's module never depends on Eino;
// its go.mod replaces Triage with the working tree (../), so it measures the
// code beside it. Run it from this directory:
//
//	go test -run '^$' -bench . -count=6 | tee /tmp/graphbench.txt
//	go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da -col /impl /tmp/graphbench.txt
//
// docs/graph-benchmarks.md has the figures and what each graph is.
package bench
