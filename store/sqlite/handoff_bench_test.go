package sqlite

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/triage-go/triage/internal/testkit/cputime"
	"github.com/triage-go/triage/store"
)

// BenchmarkWriterHandoff is what a write pays for going through the
// writer goroutine rather than running its transaction itself, one write
// at a time (one client: nothing to batch with). writer is a one-row
// insert through the writer (the hand-off to its goroutine, BEGIN
// IMMEDIATE, the insert, COMMIT and the answer back); direct is the same
// transaction run by the caller on the writer's connection while the
// writer is idle. The difference is the hand-off: two goroutine wake-ups
// and a request, the writer waiting for no batch (it takes what is queued
// and runs it at once). cpu-µs/write is the process's CPU time per write.
//
//	go test ./store/sqlite -run '^$' -bench BenchmarkWriterHandoff -count 6
func BenchmarkWriterHandoff(b *testing.B) {
	// One store for both sub-benchmarks.
	s, err := Open(b.Context(), b.TempDir()+"/triage.db", store.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.Run("writer", func(b *testing.B) {
		cpu := cputime.Process()
		for b.Loop() {
			if err := s.writer.write(b.Context(), insert(fmt.Sprint("w", handoffKeys.Add(1)))); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/write")
	})
	b.Run("direct", func(b *testing.B) {
		ctx := context.Background()
		stmt, err := s.write.PrepareContext(ctx, insertSQL) // prepared, as the writer's are
		if err != nil {
			b.Fatal(err)
		}
		defer stmt.Close()
		cpu := cputime.Process()
		for b.Loop() {
			tx, err := s.write.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tx.StmtContext(ctx, stmt).ExecContext(ctx, fmt.Sprint("d", handoffKeys.Add(1))); err != nil {
				b.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/write")
	})
}

// handoffKeys numbers the rows the benchmark inserts: every run's are new.
var handoffKeys atomic.Int64

// BenchmarkWriterParallel is the writes of 16 clients at once (8 a
// processor on 2), each a one-row insert through the writer: what a
// leader (see writer.lead) costs, or saves, when writes rarely find the
// writer idle. cpu-µs/write is the process's CPU time per write.
//
//	go test ./store/sqlite -run '^$' -bench BenchmarkWriterParallel -count 6
func BenchmarkWriterParallel(b *testing.B) {
	s, err := Open(b.Context(), b.TempDir()+"/triage.db", store.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.SetParallelism(16 / min(16, runtime.GOMAXPROCS(0)))
	batches := s.writer.batches.Load()
	cpu := cputime.Process()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := s.writer.write(b.Context(), insert(fmt.Sprint("p", handoffKeys.Add(1)))); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/write")
	b.ReportMetric(float64(b.N)/float64(s.writer.batches.Load()-batches), "writes/batch")
}
