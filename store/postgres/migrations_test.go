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
