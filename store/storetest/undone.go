package storetest

import (
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// Undone is a migration test's reach into its store's database past the
// store, for a migration that the test undoes on a store filled by
// today's code and has the store apply again: Exec runs a statement on
// the database, Count answers a count(*) query on it, and Reopen closes
// the store opened last and opens it again (which applies the migrations
// the schema lacks); the test closes the last one at its end.
type Undone struct {
	Exec   Exec
	Count  func(query string) (int, error)
	Reopen func() store.Store
}

// count is db.Count of query, failing t where it fails.
func (db Undone) count(t *testing.T, query string) int {
	t.Helper()
	n, err := db.Count(query)
	must(t, err)
	return n
}

// oldKeys counts the delivery keys of the former form ("…@…") that
// deliveries and occurrences hold.
const oldKeys = `SELECT (SELECT count(*) FROM deliveries WHERE delivery_key LIKE '%@%')
	+ (SELECT count(*) FROM occurrences WHERE delivery_key LIKE '%@%')`

// DeliveryKeysMigration checks the migration version, which rewrites the
// delivery keys of the former form (the fingerprint, "@", the time) that
// deliveries and occurrences hold to triage.DeliveryKey's: s, just
// opened, is filled by FillOldDeliveryKeys, version is marked not
// applied (its schema is the one after it: it changes data only), and
// the store opened again, which applies it; CheckMigratedDeliveryKeys
// checks the outcome.
func DeliveryKeysMigration(t *testing.T, s store.Store, version int, db Undone) {
	t.Helper()
	now := time.Now()
	FillOldDeliveryKeys(t, s, now, db.Exec)
	if n := db.count(t, oldKeys); n != 11 {
		t.Fatalf("%d keys of the old form before the migration, want 11 (5 deliveries, 6 occurrences)", n)
	}
	must(t, db.Exec(`DELETE FROM schema_migrations WHERE version = $1`, version))
	s = db.Reopen()
	if n := db.count(t, oldKeys); n != 0 {
		t.Errorf("%d keys of the old form after the migration, want none", n)
	}
	CheckMigratedDeliveryKeys(t, s, now)
}

// OccurrencesByReceivedMigration checks the migration version, which
// indexes the occurrences a store holds already by their time
// (occurrences_by_received): s, opened with its clock at now, is filled
// by FillSessionRecords, the migration undone (its index dropped, its
// version forgotten) and the store opened again, which applies it;
// indexed counts 1 when the index is there on (tenant, received_at), and
// CheckSessionRecords checks the session's records read through it.
func OccurrencesByReceivedMigration(t *testing.T, s store.Store, now time.Time, version int, db Undone, indexed string) {
	t.Helper()
	FillSessionRecords(t, s, now)
	must(t, db.Exec(`DROP INDEX occurrences_by_received`))
	must(t, db.Exec(`DELETE FROM schema_migrations WHERE version = $1`, version))
	if n := db.count(t, indexed); n != 0 {
		t.Fatalf("occurrences_by_received still there after it was dropped (%d)", n)
	}
	s = db.Reopen()
	if n := db.count(t, indexed); n != 1 {
		t.Fatalf("occurrences_by_received on (tenant, received_at): %d, want 1", n)
	}
	CheckSessionRecords(t, s)
}
