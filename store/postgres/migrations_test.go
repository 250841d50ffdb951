package postgres_test

import (
	"strings"
	"testing"
	"time"

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
