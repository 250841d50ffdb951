package sqlite

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// BenchmarkReport runs the store's part of handling one new report, as
// triage serve does it: Start (claim the delivery, count the attempt,
// record the failure), then SaveOccurrence (the occurrence, its record,
// the delivery's completion and its job, which goes into River's table in
// the same transaction): two writes. From 16 goroutines (go test -cpu
// sets GOMAXPROCS; the goroutines are 16 per GOMAXPROCS).
func BenchmarkReport(b *testing.B) {
	// One agent, as internal/loadbench sends: History.Record counts every
	// failure so far (they are all within the window).
	b.Run("one_agent", func(b *testing.B) { benchmarkReport(b, func(int64) string { return "query_engine" }) })
	// An agent per report: History.Record counts one failure.
	b.Run("agent_each", func(b *testing.B) { benchmarkReport(b, func(i int64) string { return fmt.Sprint("agent_", i) }) })
}

func benchmarkReport(b *testing.B, agentOf func(int64) string) {
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "triage.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	batches, writes := s.writer.batches.Load(), s.writer.writes.Load()
	report := json.RawMessage(`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:05Z","status":"error","data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s","context":{"metric":"sales"},"query_id":"q_1"}}`)
	fb := &triage.Feedback{ErrorID: "err_0123456789abcdef", UserMessage: "I couldn't retrieve the full sales data right now (database timeout)."}
	feedback, _ := json.Marshal(fb)
	var seq atomic.Int64
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := b.Context()
		t := s.Tenant("default")
		for pb.Next() {
			i := seq.Add(1)
			key := fmt.Sprintf("delivery-%d", i)
			errorID := fmt.Sprintf("err_%d", i)
			agent := agentOf(i)
			res, err := t.Start(ctx, triage.StartRequest{Key: key, AttemptKey: "q|" + errorID, Agent: agent,
				Code: "DB_TIMEOUT", At: time.Now(), Window: time.Hour})
			if err != nil || !res.First {
				b.Fatal(res, err)
			}
			if _, err := t.SaveOccurrence(ctx, store.Occurrence{DeliveryKey: key, ErrorID: errorID, QueryID: "q_1",
				AgentID: "query_engine", ErrorType: "query_error", Severity: "medium", NextAction: "retry",
				Attempt: 1, ReportedAt: time.Now(), Report: report, Feedback: feedback,
				Jobs: []store.NewJob{{Kind: store.JobRetry, ErrorID: errorID, Payload: json.RawMessage(`{"delay":"2s"}`)}}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.StopTimer()
	batches, writes = s.writer.batches.Load()-batches, s.writer.writes.Load()-writes
	b.ReportMetric(float64(writes)/float64(batches), "writes/commit")
}
