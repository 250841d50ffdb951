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
	dbURL, now := oldCounts(t, 22)
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

// oldCounts is a fresh schema (its URL) of the migrations up to last,
// filled by storetest.FillOldCounts at now.
func oldCounts(t *testing.T, last int64) (string, time.Time) {
	t.Helper()
	dbURL := pgtest.FreshSchema(t)
	now := time.Now().UTC()
	if err := postgres.OldSchema(t.Context(), dbURL, last, func(exec storetest.Exec) error { return storetest.FillOldCounts(now, exec) }); err != nil {
		t.Fatal(err)
	}
	return dbURL, now
}

// TestOccurrencesByReceivedMigration: migration 0027 indexes the
// occurrences a store holds already (storetest.OccurrencesByReceivedMigration).
func TestOccurrencesByReceivedMigration(t *testing.T) {
	now := time.Now().UTC()
	s, db := reopenable(t, store.Config{Now: func() time.Time { return now }})
	storetest.OccurrencesByReceivedMigration(t, s, now, 27, db, `SELECT count(*) FROM pg_indexes
		WHERE schemaname = current_schema() AND indexname = 'occurrences_by_received' AND indexdef LIKE '%(tenant, received_at)'`)
}

// TestCountsInStatementMigration opens a schema of the migrations before
// 0028, whose trigger counted its records by hour: after 0028 (the
// trigger dropped, the statements count), the counts read as before, and
// a save, a report into an old record and a report of a new error each
// count once into their hour.
func TestCountsInStatementMigration(t *testing.T) {
	ctx := t.Context()
	dbURL, now := oldCounts(t, 27)
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
// the former form (storetest.DeliveryKeysMigration).
func TestDeliveryKeysMigration(t *testing.T) {
	s, db := reopenable(t, store.Config{})
	storetest.DeliveryKeysMigration(t, s, 24, db)
}

// reopenable is a store in a fresh schema, opened with opts, and the reach
// of a migration test into its database (storetest.Undone), through a
// connection of the test's own; the store Reopen opens last is closed
// when t ends.
func reopenable(t *testing.T, opts store.Config) (*postgres.Store, storetest.Undone) {
	t.Helper()
	ctx := t.Context()
	dbURL := pgtest.FreshSchema(t)
	conn := connect(t, dbURL)
	s := open(t, dbURL, opts)
	t.Cleanup(func() { s.Close() })
	return s, storetest.Undone{
		Exec: func(query string, args ...any) error {
			_, err := conn.Exec(ctx, query, args...)
			return err
		},
		Count: func(query string) (n int, err error) {
			return n, conn.QueryRow(ctx, query).Scan(&n)
		},
		Reopen: func() store.Store {
			s.Close()
			s = open(t, dbURL, opts)
			return s
		},
	}
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

// TestHistoryKeyedMigration opens a schema of the migrations before 0029
// (history with an id and its primary key) whose handler recorded
// failures: the id and history_pkey are gone, history_by_key stays, each
// key keeps its failures, and the windows count as before
// (storetest.CheckMigratedHistory).
func TestHistoryKeyedMigration(t *testing.T) {
	ctx := t.Context()
	dbURL := pgtest.FreshSchema(t)
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	if err := postgres.OldSchema(ctx, dbURL, 28, func(exec storetest.Exec) error { return storetest.FillOldHistory(at, exec) }); err != nil {
		t.Fatal(err)
	}
	conn := connect(t, dbURL)
	perKey := func() map[string]int {
		t.Helper()
		rows, err := conn.Query(ctx, `SELECT tenant || '/' || agent || '/' || code, count(*) FROM history GROUP BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		m := map[string]int{}
		for rows.Next() {
			var (
				key string
				n   int
			)
			if err := rows.Scan(&key, &n); err != nil {
				t.Fatal(err)
			}
			m[key] = n
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return m
	}
	before := perKey()
	if want := map[string]int{"a/planner/E": 7, "a/planner/F": 1, "b/planner/E": 3}; !maps.Equal(before, want) {
		t.Fatalf("history's failures before the migration = %v, want %v", before, want)
	}

	s := open(t, dbURL, store.Config{})
	defer s.Close()
	var ids int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema()
		AND table_name = 'history' AND column_name = 'id'`).Scan(&ids); err != nil || ids != 0 {
		t.Errorf("history still has an id column (%d, %v)", ids, err)
	}
	var indexes string
	if err := conn.QueryRow(ctx, `SELECT string_agg(indexdef, '; ' ORDER BY indexname) FROM pg_indexes
		WHERE schemaname = current_schema() AND tablename = 'history'`).Scan(&indexes); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(indexes, "CREATE INDEX history_by_key ON") || !strings.HasSuffix(indexes, "(tenant, agent, code, at)") ||
		strings.Contains(indexes, ";") {
		t.Errorf("history's indexes after the migration: %s; want history_by_key (tenant, agent, code, at) alone", indexes)
	}
	if after := perKey(); !maps.Equal(after, before) {
		t.Errorf("history's failures after the migration = %v, want %v", after, before)
	}
	storetest.CheckMigratedHistory(t, s, at)
}
