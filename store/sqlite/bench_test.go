package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/internal/testkit/cputime"
	"github.com/triage-go/triage/store"
)

// BenchmarkReport runs the store's part of handling one new report, as
// triage serve does it, both ways: one_write, PeekReport (a read) then
// Report (the claim, the attempt, the failure, the occurrence, its record,
// the delivery's completion and its job, which goes into River's table:
// one transaction, one entry of the writer's batch; issue 28), and
// two_writes, as it was before: Start (claim the delivery, count the
// attempt, record the failure), then SaveOccurrence (the rest). From 16
// goroutines (go test -cpu sets GOMAXPROCS; the goroutines are 16 per
// GOMAXPROCS). writes/report counts the writer's entries per report,
// cpu-µs/report the process's CPU time (Linux).
//
//	go test ./store/sqlite -run '^$' -bench 'BenchmarkReport$' -count 6
func BenchmarkReport(b *testing.B) {
	for _, way := range []struct {
		name     string
		oneWrite bool
	}{{"two_writes", false}, {"one_write", true}} {
		b.Run(way.name, func(b *testing.B) {
			// One agent, as cmd/loadbench sends: the window's count is
			// of every failure so far (they are all within it).
			b.Run("one_agent", func(b *testing.B) { benchmarkReport(b, oneAgent, sequentialIDs, 0, way.oneWrite) })
			// An agent per report: the window holds one failure.
			b.Run("agent_each", func(b *testing.B) {
				benchmarkReport(b, func(i int64) string { return fmt.Sprint("agent_", i) }, sequentialIDs, 0, way.oneWrite)
			})
			// Reports of 100 errors: most count into a record that is
			// there (which moves in the sorts' indexes and its hour's
			// count), as a recurring error's do.
			b.Run("one_agent_100_errors", func(b *testing.B) { benchmarkReport(b, oneAgent, hundredErrors, 0, way.oneWrite) })
		})
	}
}

// hundredErrors are report i's delivery key and one of 100 error IDs.
func hundredErrors(i int64) (key, errorID string) {
	return fmt.Sprintf("delivery-%d", i), fmt.Sprintf("err_%d", i%100)
}

// BenchmarkReportGrown is BenchmarkReport's one_agent on a store that
// holds 1k and then 100k reports already (written before the timer
// starts; 100k take about a minute), with delivery keys and error IDs
// scattered as the service's hashes are: how the report's write slows as
// the store grows.
//
//	go test ./store/sqlite -run '^$' -bench BenchmarkReportGrown -benchtime 5000x
func BenchmarkReportGrown(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("records_%dk", n/1000), func(b *testing.B) { benchmarkReport(b, oneAgent, scatteredIDs, n, true) })
	}
}

func oneAgent(int64) string { return "query_engine" }

func oneQuery(int64) string { return "q_1" }

// scatteredQuery is report i's query ID, its own as cmd/loadbench's are.
func scatteredQuery(i int64) string {
	return fmt.Sprintf("q_%016x", uint64(i)*0x9e3779b97f4a7c15^0x2545f491)
}

// sequentialIDs are report i's delivery key and error ID, in order.
func sequentialIDs(i int64) (key, errorID string) {
	return fmt.Sprintf("delivery-%d", i), fmt.Sprintf("err_%d", i)
}

// scatteredIDs are report i's delivery key and error ID spread over the
// key space, as hashes are.
func scatteredIDs(i int64) (key, errorID string) {
	h := uint64(i) * 0x9e3779b97f4a7c15
	return fmt.Sprintf("delivery-%016x", h), fmt.Sprintf("err_%016x", h^0x5bd1e995)
}

func benchmarkReport(b *testing.B, agentOf func(int64) string, idsOf func(int64) (string, string), prefill int, oneWrite bool) {
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var seq atomic.Int64
	report := newReport(agentOf, idsOf, oneQuery, oneWrite)
	one := func(ctx context.Context, t store.Tenant) error { return report(ctx, t, seq.Add(1)) }
	if prefill > 0 {
		var left atomic.Int64
		left.Store(int64(prefill))
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for range 16 {
			wg.Go(func() {
				for left.Add(-1) >= 0 {
					if err := one(b.Context(), s.Tenant("default")); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
	batches, writes, cpu := s.writer.batches.Load(), s.writer.writes.Load(), cputime.Process()
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		t := s.Tenant("default")
		for pb.Next() {
			if err := one(b.Context(), t); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.StopTimer()
	batches, writes = s.writer.batches.Load()-batches, s.writer.writes.Load()-writes
	b.ReportMetric(float64(writes)/float64(batches), "writes/commit")
	b.ReportMetric(float64(writes)/float64(b.N), "writes/report")
	// The process's CPU per report: on a loaded machine the time per
	// report is mostly waiting for a CPU, this is the work.
	b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/report")
}

// newReport returns the store's part of new report i, as the service
// makes it: PeekReport then Report (oneWrite), or Start then
// SaveOccurrence (as before issue 28), with one retry job.
func newReport(agentOf func(int64) string, idsOf func(int64) (string, string), queryOf func(int64) string, oneWrite bool) func(context.Context, store.Tenant, int64) error {
	report := json.RawMessage(`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:05Z","status":"error","data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s","context":{"metric":"sales"},"query_id":"q_1"}}`)
	fb := &triage.Feedback{ErrorID: "err_0123456789abcdef", UserMessage: "I couldn't retrieve the full sales data right now (database timeout)."}
	feedback, _ := json.Marshal(fb)
	return func(ctx context.Context, t store.Tenant, i int64) error {
		key, errorID := idsOf(i)
		req := triage.StartRequest{Key: key, AttemptKey: "q|" + errorID, Agent: agentOf(i),
			Code: "DB_TIMEOUT", At: time.Now(), Window: time.Hour}
		occ := store.Occurrence{DeliveryKey: key, ErrorID: errorID, QueryID: queryOf(i),
			AgentID: "query_engine", ErrorType: "query_error", Severity: "medium", NextAction: "retry",
			Attempt: 1, ReportedAt: time.Now(), Report: report, Feedback: feedback,
			Code: "DB_TIMEOUT", Title: "DB_TIMEOUT: Query timed out after 30s",
			Jobs: []store.NewJob{{Kind: store.JobRetry, ErrorID: errorID, Payload: json.RawMessage(`{"delay":"2s"}`)}}}
		if oneWrite {
			p, err := t.PeekReport(ctx, req)
			if err != nil || !p.First {
				return fmt.Errorf("PeekReport = %+v, %v", p, err)
			}
			_, err = t.Report(ctx, req, p.StartResult, occ)
			return err
		}
		res, err := t.Start(ctx, req)
		if err != nil || !res.First {
			return fmt.Errorf("Start = %+v, %v", res, err)
		}
		_, err = t.SaveOccurrence(ctx, occ)
		return err
	}
}

// BenchmarkPeekAfterCommit runs new reports from one client, as one
// client sends them, and times each report's peek: the first read after
// the previous report's commit. idle_writer reads on the writer's
// connection, idle between reports (writer.readIdle); reader on a
// reader's, whose page cache that commit dropped. peek-µs is the peek's
// time per report, cpu-µs/report the process's CPU for the whole report.
//
//	go test ./store/sqlite -run '^$' -bench BenchmarkPeekAfterCommit -benchtime 5000x -count 4
func BenchmarkPeekAfterCommit(b *testing.B) {
	for _, way := range []struct {
		name   string
		noIdle bool
	}{{"idle_writer", false}, {"reader", true}} {
		b.Run(way.name, func(b *testing.B) {
			s, err := Open(b.Context(), filepath.Join(b.TempDir(), "triage.db"), store.Config{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			s.writer.noIdleReads = way.noIdle
			report := newReport(oneAgent, scatteredIDs, scatteredQuery, true)
			t := s.Tenant("default")
			var i int64
			for range 1000 {
				i++
				if err := report(b.Context(), t, i); err != nil {
					b.Fatal(err)
				}
			}
			var peek time.Duration
			cpu := cputime.Process()
			for b.Loop() {
				i++
				key, errorID := scatteredIDs(i)
				req := triage.StartRequest{Key: key, AttemptKey: "q|" + errorID, Agent: "query_engine",
					Code: "DB_TIMEOUT", At: time.Now(), Window: time.Hour, QueryID: scatteredQuery(i)}
				start := time.Now()
				if _, err := t.PeekReport(b.Context(), req); err != nil {
					b.Fatal(err)
				}
				peek += time.Since(start)
				if err := report(b.Context(), t, i); err != nil { // its own peek, then its write
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(peek.Microseconds())/float64(b.N), "peek-µs")
			b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/report")
		})
	}
}
