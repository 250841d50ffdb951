package sqlite

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/sqlstore"
	"github.com/triage-go/triage/store/storetest"
)

// TestOccurrencesBySeqMigration migrates a database of the schema before
// migration 0024 (occurrences found by their error ID) with records and
// occurrences: the occurrences are found by their record's seq, read as
// before, and the IDs go on after the largest ever taken (one deleted
// included: an occurrence's ID is its position in the event streams).
func TestOccurrencesBySeqMigration(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "triage.db")
	now := time.Now().UTC()
	var deleted int64
	oldSchema(t, path, 23, func(old oldStore) error {
		return old.write(ctx, func(q sqlstore.Querier) error {
			if err := storetest.FillOldOccurrences(now, execOn(ctx, q)); err != nil {
				return err
			}
			// The latest occurrence of all goes: its ID is not taken again.
			if err := q.QueryRow(ctx, `SELECT max(id) FROM occurrences`).Scan(&deleted); err != nil {
				return err
			}
			_, err := q.Exec(ctx, `DELETE FROM occurrences WHERE id = $1`, deleted)
			return err
		})
	})

	s, err := Open(ctx, path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var byError int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'occurrences_by_error'`).
		Scan(&byError); err != nil || byError != 0 {
		t.Errorf("occurrences_by_error is still there (%d, %v)", byError, err)
	}
	// The deleted one was b's e1's, the last filled: put it back, for the
	// check's, under a new ID.
	saved, err := s.Tenant("b").SaveOccurrence(ctx, store.Occurrence{DeliveryKey: "k1", ErrorID: "e1", QueryID: "q",
		AgentID: "planner", ErrorType: "query_error", Severity: "low", NextAction: "resume", Attempt: 1,
		ReceivedAt: now.Add(-100 * 24 * time.Hour)})
	if err != nil || saved.ID <= deleted {
		t.Fatalf("an occurrence saved after the migration: %+v, %v; want an ID after the deleted %d", saved, err, deleted)
	}
	storetest.CheckMigratedOccurrences(t, s, now)
	var fk string
	if err := s.read.QueryRowContext(ctx, `SELECT group_concat("from", ',') FROM pragma_foreign_key_list('occurrences')`).
		Scan(&fk); err != nil || fk != "tenant,record_seq" {
		t.Errorf("occurrences' foreign key is on %q (%v), want tenant,record_seq", fk, err)
	}
}
