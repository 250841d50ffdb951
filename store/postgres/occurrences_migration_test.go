package postgres_test

import (
	"testing"
	"time"

	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/postgres"
	"github.com/triage-go/triage/store/storetest"
)

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
