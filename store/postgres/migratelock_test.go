package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/postgres"
)

// TestSchemasMigrateApart: the migrations' advisory lock is per schema.
// While an instance of schema a holds it (a transaction of the test's
// taking the key an Open of a takes), a fresh schema b of the same
// database migrates and opens, and another instance of a waits for the
// lock, then finds a migrated. The migrations' statement takes that key
// and no other, and an earlier build's database-wide key held meanwhile
// holds no schema's Open back.
func TestSchemasMigrateApart(t *testing.T) {
	a, b, c := pgtest.FreshSchema(t), pgtest.FreshSchema(t), pgtest.FreshSchema(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	holder := connect(t, a)
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))", postgres.MigrationLockClass); err != nil {
		t.Fatal(err)
	}
	opened := openAside(ctx, a)
	sb, err := postgres.Open(ctx, b, store.Config{})
	if err != nil {
		t.Fatalf("schema b, while an instance of schema a holds its migration lock: %v", err)
	}
	defer sb.Close()
	if _, err := sb.Tenant("t").Next(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	waitForLockWaiter(t, holder, postgres.MigrationLockClass)
	openedOnRelease(t, tx, opened, "a second instance of schema a, while the first held its migration lock")

	// What the migrations' transaction takes: the schema's key, no other.
	check, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := check.Exec(ctx, postgres.MigrationLockSQL); err != nil {
		t.Fatal(err)
	}
	var schemaKey, keys int
	if err := check.QueryRow(ctx, `SELECT
		count(*) FILTER (WHERE objsubid = 2 AND mode = 'ExclusiveLock' AND classid = $1::bigint::oid
			AND objid = (hashtext(current_schema())::bigint & 4294967295)::oid),
		count(*)
		FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()`,
		int64(postgres.MigrationLockClass)).Scan(&schemaKey, &keys); err != nil {
		t.Fatal(err)
	}
	if schemaKey != 1 || keys != 1 {
		t.Errorf("the migrations' locks: %d of the schema, %d in all; want 1, 1", schemaKey, keys)
	}
	if err := check.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	// An earlier build migrating any schema holds the database-wide key:
	// schema c migrates meanwhile.
	older := connect(t, c)
	otx, err := older.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer otx.Rollback(context.WithoutCancel(ctx))
	if _, err := otx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(postgres.DatabaseMigrationLock)); err != nil {
		t.Fatal(err)
	}
	sc, err := postgres.Open(ctx, c, store.Config{})
	if err != nil {
		t.Fatalf("schema c, while an earlier build held the database-wide migration lock: %v", err)
	}
	sc.Close()
}

// openAside opens the store of url in a goroutine of its own, closes it,
// and sends Open's error.
func openAside(ctx context.Context, url string) <-chan error {
	opened := make(chan error, 1)
	go func() {
		s, err := postgres.Open(ctx, url, store.Config{})
		if err == nil {
			s.Close()
		}
		opened <- err
	}()
	return opened
}

// openedOnRelease checks that the Open whose error opened sends (what)
// has not returned while tx holds the lock it waits for, then commits tx
// and checks that it opens.
func openedOnRelease(t *testing.T, tx pgx.Tx, opened <-chan error, what string) {
	t.Helper()
	select {
	case err := <-opened:
		t.Fatalf("%s: opened (%v) before the lock was released", what, err)
	default:
	}
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := <-opened; err != nil {
		t.Fatalf("%s, once the lock was released: %v", what, err)
	}
}

// waitForLockWaiter waits until a backend waits for the per-schema key of
// class for the schema of conn's search path.
func waitForLockWaiter(t *testing.T, conn *pgx.Conn, class int32) {
	t.Helper()
	waitFor(t, conn, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND mode = 'ExclusiveLock'
		AND objsubid = 2 AND classid = $1::bigint::oid AND objid = (hashtext(current_schema())::bigint & 4294967295)::oid`, int64(class))
}

// waitFor waits until query, a count, answers at least 1.
func waitFor(t *testing.T, conn *pgx.Conn, query string, args ...any) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var n int
		if err := conn.QueryRow(t.Context(), query, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no backend waited for the lock (%s)", query)
		}
	}
}
