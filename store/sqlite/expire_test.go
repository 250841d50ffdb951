package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// Expiring a record deletes its finished jobs from River's table, through
// the writer's connection.
func TestExpireRecordsDeletesRiverJobs(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tn := s.Tenant("a")
	_, err = tn.SaveOccurrence(t.Context(), store.Occurrence{ErrorID: "e1", QueryID: "q", AgentID: "a", ErrorType: "query_error",
		Severity: "low", NextAction: "resume", Jobs: []store.NewJob{{Kind: store.JobRetry, ErrorID: "e1"}}})
	if err != nil {
		t.Fatal(err)
	}
	jobs := func(state string) (n int) {
		t.Helper()
		if err := s.read.QueryRowContext(t.Context(), `SELECT count(*) FROM river_job WHERE state = $1`, state).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- s.Jobs().Work(ctx, func(context.Context, store.Job) error { return nil }, store.WorkOptions{Poll: 20 * time.Millisecond})
	}()
	for deadline := time.Now().Add(10 * time.Second); jobs(store.JobCompleted) != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the job did not complete")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	now = now.Add(48 * time.Hour)
	if _, err := s.Expire(t.Context(), store.Retention{Records: 24 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	if n := jobs(store.JobCompleted); n != 0 {
		t.Errorf("%d finished jobs left after their record expired", n)
	}
}
