package postgres_test

import (
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
