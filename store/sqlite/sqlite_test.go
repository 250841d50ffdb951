package sqlite_test

import (
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
	"github.com/triage-go/triage/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, opts store.Config) store.Store {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), opts)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestReopenKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "triage.db")
	s, err := sqlite.Open(t.Context(), path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tenant("a").Next(t.Context(), "q1|E"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = sqlite.Open(t.Context(), path, store.Config{}) // the migrations are not applied again
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err := s.Tenant("a").Next(t.Context(), "q1|E"); err != nil || n != 2 {
		t.Errorf("Next after reopening = %d, %v; want 2", n, err)
	}
}

func TestOpenRefusesNonFiles(t *testing.T) {
	for _, path := range []string{"", ":memory:", "db?mode=ro"} {
		if s, err := sqlite.Open(t.Context(), path, store.Config{}); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded, want an error", path)
		}
	}
}

// A database a later build migrated is refused: this build's code could
// misread what that one writes.
func TestOpenRefusesANewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "triage.db")
	s, err := sqlite.Open(t.Context(), path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_later.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if s, err := sqlite.Open(t.Context(), path, store.Config{}); !errors.Is(err, store.ErrNewerSchema) || !strings.Contains(err.Error(), "9999") {
		if err == nil {
			s.Close()
		}
		t.Fatalf("Open of a newer schema: %v, want ErrNewerSchema naming migration 9999", err)
	}
}

// A delivery whose occurrence is gone (deleted by hand, a partial
// restore) is no answer: its claim is taken over once the lease is past,
// rather than answered "in flight" until it expires.
func TestClaimOfAVanishedOccurrence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "triage.db")
	now := time.Unix(1_700_000_000, 0)
	s, err := sqlite.Open(t.Context(), path, store.Config{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tn := s.Tenant("a")
	if _, first, err := tn.Claim(t.Context(), "d1"); err != nil || !first {
		t.Fatalf("Claim = %v, %v; want first", first, err)
	}
	if _, err := tn.SaveOccurrence(t.Context(), store.Occurrence{DeliveryKey: "d1", ErrorID: "e1", QueryID: "q", AgentID: "agent",
		ErrorType: "query_error", Severity: "low", NextAction: "resume", Attempt: 1, Feedback: []byte(`{"error_id":"e1"}`)}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DELETE FROM occurrences`); err != nil {
		t.Fatal(err)
	}
	now = now.Add(store.ClaimLease + time.Second)
	if prior, first, err := tn.Claim(t.Context(), "d1"); err != nil || !first || prior != nil {
		t.Fatalf("Claim of a delivery whose occurrence is gone = %+v, %v, %v; want it taken over", prior, first, err)
	}
	// The new claim is in flight: a duplicate within its lease waits.
	if prior, first, err := tn.Claim(t.Context(), "d1"); err != nil || first || prior != nil {
		t.Errorf("Claim within the new lease = %+v, %v, %v; want in flight", prior, first, err)
	}
}

// Two instances on one file run each job once.
func TestWorkOnTwoInstances(t *testing.T) {
	path := filepath.Join(t.TempDir(), "triage.db")
	storetest.WorkOnTwoInstances(t, func(t *testing.T) store.Store {
		s, err := sqlite.Open(t.Context(), path, store.Config{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// A save whose jobs River fails to insert (here a trigger refuses them)
// leaves neither the occurrence nor any job.
func TestSaveRolledBackEnqueuesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "triage.db")
	s, err := sqlite.Open(t.Context(), path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TRIGGER refuse_job BEFORE INSERT ON river_job WHEN NEW.args->>'error_id' = 'refused'
		BEGIN SELECT RAISE(ABORT, 'refused'); END`); err != nil {
		t.Fatal(err)
	}
	tn := s.Tenant("a")
	for _, errorID := range []string{"refused", "e1"} {
		_, err := tn.SaveOccurrence(t.Context(), store.Occurrence{ErrorID: errorID, QueryID: "q", AgentID: "agent",
			ErrorType: "query_error", Severity: "low", NextAction: "resume",
			Jobs: []store.NewJob{{Kind: store.JobRetry, ErrorID: errorID}, {Kind: store.JobEscalation, ErrorID: errorID}}})
		if refused := errorID == "refused"; refused != (err != nil) {
			t.Fatalf("SaveOccurrence(%s): %v", errorID, err)
		}
	}
	var jobs, occurrences int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM river_job), (SELECT count(*) FROM occurrences)`).Scan(&jobs, &occurrences); err != nil {
		t.Fatal(err)
	}
	if jobs != 2 || occurrences != 1 {
		t.Errorf("%d jobs and %d occurrences; want those of the save that committed, 2 and 1", jobs, occurrences)
	}
	if _, ok, err := tn.ErrorRecord(t.Context(), "refused"); err != nil || ok {
		t.Errorf("the refused save's record: %v, %v; want none", ok, err)
	}
}

// BenchmarkBulkChange measures a bulk resolve of 10,000 records by filter
// (docs/service.md): run it once, with -bench BulkChange -benchtime 1x
// (each run fills a store of its own, untimed by the benchmark: the
// figures are the ones it logs).
func BenchmarkBulkChange(b *testing.B) {
	for b.Loop() {
		s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "triage.db"), store.Config{})
		if err != nil {
			b.Fatal(err)
		}
		storetest.MeasureBulkChange(b, s, 10_000)
		s.Close()
	}
}

// Reports of one query and of one delivery at once, from two instances
// on one file.
func TestReportOnInstances(t *testing.T) {
	path := filepath.Join(t.TempDir(), "triage.db")
	storetest.ReportOnInstances(t, func(t *testing.T) store.Store {
		s, err := sqlite.Open(t.Context(), path, store.Config{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
