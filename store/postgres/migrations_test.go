package postgres_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/postgres"
	"github.com/triage-go/triage/store/storetest"
)

// TestCountsBySeqMigration opens a schema of the migrations before 0023
// (record_counts keyed by the record's error ID) whose records were
// counted: the counts move to the record's seq and read as before.
func TestCountsBySeqMigration(t *testing.T) {
	ctx := t.Context()
	dbURL := pgtest.FreshSchema(t)
	now := time.Now().UTC()
	if err := postgres.OldSchema(ctx, dbURL, 22, func(exec storetest.Exec) error { return storetest.FillOldCounts(now, exec) }); err != nil {
		t.Fatal(err)
	}
	conn := connect(t, dbURL)

	s := open(t, dbURL, store.Config{})
	defer s.Close()
	var errorIDs int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema()
		AND table_name = 'record_counts' AND column_name = 'error_id'`).Scan(&errorIDs); err != nil || errorIDs != 0 {
		t.Errorf("record_counts still has an error_id column (%d, %v)", errorIDs, err)
	}
	storetest.CheckMigratedCounts(t, s, now)
}

// TestOccurrencesByReceivedMigration: migration 0027 indexes the
// occurrences a store holds already, and a recorded session's records are
// read through it: the store is filled, the migration undone (its index
// dropped, its version forgotten), and the store opened again.
func TestOccurrencesByReceivedMigration(t *testing.T) {
	ctx := t.Context()
	dbURL := pgtest.FreshSchema(t)
	now := time.Now().UTC()
	opts := store.Config{Now: func() time.Time { return now }}
	s := open(t, dbURL, opts)
	storetest.FillSessionRecords(t, s, now)
	s.Close()
	conn := connect(t, dbURL)
	if _, err := conn.Exec(ctx, `DROP INDEX occurrences_by_received; DELETE FROM schema_migrations WHERE version = 27`); err != nil {
		t.Fatal(err)
	}

	s = open(t, dbURL, opts)
	defer s.Close()
	var def string
	if err := conn.QueryRow(ctx, `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'occurrences_by_received'`).
		Scan(&def); err != nil || !strings.HasSuffix(def, "(tenant, received_at)") {
		t.Fatalf("occurrences_by_received: %q, %v", def, err)
	}
	storetest.CheckSessionRecords(t, s)
}

// TestCountsInStatementMigration opens a schema of the migrations before
// 0028, whose trigger counted its records by hour: after 0028 (the
// trigger dropped, the statements count), the counts read as before, and
// a save, a report into an old record and a report of a new error each
// count once into their hour.
func TestCountsInStatementMigration(t *testing.T) {
	ctx := t.Context()
	dbURL := pgtest.FreshSchema(t)
	now := time.Now().UTC()
	if err := postgres.OldSchema(ctx, dbURL, 27, func(exec storetest.Exec) error { return storetest.FillOldCounts(now, exec) }); err != nil {
		t.Fatal(err)
	}
	s := open(t, dbURL, store.Config{})
	defer s.Close()
	conn := connect(t, dbURL)
	var triggers int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_trigger WHERE tgrelid = 'records'::regclass AND NOT tgisinternal`).
		Scan(&triggers); err != nil || triggers != 0 {
		t.Errorf("records has %d triggers (%v), want none", triggers, err)
	}
	storetest.CheckMigratedCounts(t, s, now) // a's e2 saved once more

	a := s.Tenant("a")
	for i, errorID := range []string{"e1", "e1", "e3"} {
		req := triage.StartRequest{Key: fmt.Sprint("k", i), AttemptKey: fmt.Sprint("q", i), Agent: "planner", Code: "DB_TIMEOUT",
			At: now, Window: 15 * time.Minute}
		p, err := a.PeekReport(ctx, req)
		if err != nil || !p.First {
			t.Fatalf("PeekReport(%d) = %+v, %v", i, p, err)
		}
		o := store.Occurrence{DeliveryKey: req.Key, ErrorID: errorID, QueryID: "q", AgentID: "planner", ErrorType: "query_error",
			Severity: "low", Attempt: p.Attempt, ReceivedAt: now, Code: "DB_TIMEOUT", Title: "DB_TIMEOUT: timed out"}
		if _, err := a.Report(ctx, req, p.StartResult, o); err != nil {
			t.Fatalf("Report(%d): %v", i, err)
		}
	}
	for _, c := range []struct {
		errorID string
		want    []int64 // the hour before and this one
	}{{"e1", []int64{2, 2}}, {"e2", []int64{0, 2}}, {"e3", []int64{0, 1}}} {
		rc, found, err := a.RecordCounts(ctx, c.errorID, store.CountFilter{})
		if err != nil || !found || len(rc.Series) != 1 || len(rc.Series[0].Counts) < 2 {
			t.Fatalf("RecordCounts(%s) = %+v, %v, %v", c.errorID, rc, found, err)
		}
		n := rc.Series[0].Counts
		if got := n[len(n)-2:]; !slices.Equal(got, c.want) {
			t.Errorf("a's %s: the last two hours count %v, want %v", c.errorID, got, c.want)
		}
	}
	byAgent, err := a.Counts(ctx, store.CountFilter{By: store.CountByAgent})
	if err != nil {
		t.Fatal(err)
	}
	totals := map[string]int64{}
	for _, s := range byAgent.Series {
		totals[s.Key] = s.Total
	}
	// e1's 2 + 2 and e3's 1 are planner's; e2's 1 + 1 sql's.
	if want := map[string]int64{"planner": 5, "sql": 2}; !maps.Equal(totals, want) {
		t.Errorf("tenant a's totals by agent = %v, want %v", totals, want)
	}
}

// TestDeliveryKeysMigration: migration 0024 rewrites the delivery keys of
// the former form (the fingerprint, "@", the time) that deliveries and
// occurrences hold to triage.DeliveryKey's (the time first), so that a
// report delivered before it and again after it is a repeat. The schema
// before 0024 is the schema after it (0024 changes data only): the store
// is written through its own report path with keys of the old form, then
// 0024 is marked not applied and the store opened again, which applies it.
func TestDeliveryKeysMigration(t *testing.T) {
	ctx := t.Context()
	dbURL := pgtest.FreshSchema(t)
	conn := connect(t, dbURL)
	s := open(t, dbURL, store.Config{})
	now := time.Now()
	storetest.FillOldDeliveryKeys(t, s, now, func(query string, args ...any) error {
		_, err := conn.Exec(ctx, query, args...)
		return err
	})
	var old int
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM deliveries WHERE delivery_key LIKE 'v1:%@%')
		+ (SELECT count(*) FROM occurrences WHERE delivery_key LIKE 'v1:%@%')`).Scan(&old); err != nil || old != 11 {
		t.Fatalf("%d keys of the old form before the migration (%v), want 11 (5 deliveries, 6 occurrences)", old, err)
	}
	if _, err := conn.Exec(ctx, `DELETE FROM schema_migrations WHERE version = 24`); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = open(t, dbURL, store.Config{})
	defer s.Close()
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM deliveries WHERE delivery_key LIKE '%@%')
		+ (SELECT count(*) FROM occurrences WHERE delivery_key LIKE '%@%')`).Scan(&old); err != nil || old != 0 {
		t.Errorf("%d keys of the old form after the migration (%v), want none", old, err)
	}
	storetest.CheckMigratedDeliveryKeys(t, s, now)
}

// TestOccurrencesBySeqMigration opens a schema of the migrations before
// 0025 (occurrences found by their error ID) with records and
// occurrences: the occurrences are found by their record's seq and read
// as before.
func TestOccurrencesBySeqMigration(t *testing.T) {
	ctx := t.Context()
	dbURL := pgtest.FreshSchema(t)
	now := time.Now().UTC()
	if err := postgres.OldSchema(ctx, dbURL, 24, nil); err != nil {
		t.Fatal(err)
	}
	conn := connect(t, dbURL)
	// A statement each, committed on its own: an occurrence's xid (its
	// stream position) is its transaction's, unique.
	err := storetest.FillOldOccurrences(now, func(query string, args ...any) error {
		_, err := conn.Exec(ctx, query, args...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	s := open(t, dbURL, store.Config{})
	defer s.Close()
	var byError int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema()
		AND indexname = 'occurrences_by_error'`).Scan(&byError); err != nil || byError != 0 {
		t.Errorf("occurrences_by_error is still there (%d, %v)", byError, err)
	}
	storetest.CheckMigratedOccurrences(t, s, now)
}
