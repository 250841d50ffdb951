package sqlite

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// Expiring a record deletes its jobs' attempts too (the foreign key
// cascades on the writer's connection).
func TestExpireRecordsDeletesJobAttempts(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tn := s.Tenant("a")
	_, err = tn.SaveOccurrence(t.Context(), store.Occurrence{ErrorID: "e1", QueryID: "q", AgentID: "a", ErrorType: "query_error",
		Severity: "low", NextAction: "resume", Jobs: []store.NewJob{{Kind: store.JobRetry, ErrorID: "e1", RunAt: now}}})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := s.Jobs().Claim(t.Context(), 1, time.Minute)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("Claim: %v, %v", jobs, err)
	}
	if err := s.Jobs().Complete(t.Context(), jobs[0].ID, store.JobAttempt{Attempt: 1, At: now}); err != nil {
		t.Fatal(err)
	}
	attempts := func() (n int) {
		t.Helper()
		if err := s.read.QueryRowContext(t.Context(), `SELECT count(*) FROM job_attempts`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := attempts(); n != 1 {
		t.Fatalf("%d job attempts before Expire, want 1", n)
	}
	now = now.Add(48 * time.Hour)
	if _, err := s.Expire(t.Context(), store.Retention{Records: 24 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	if n := attempts(); n != 0 {
		t.Errorf("%d job attempts left after their record expired", n)
	}
}
