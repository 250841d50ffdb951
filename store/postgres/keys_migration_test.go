package postgres_test

import (
	"testing"
	"time"

	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/storetest"
)

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
