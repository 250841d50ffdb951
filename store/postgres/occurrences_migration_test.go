package postgres_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/storetest"
)

// TestOccurrencesBySeqMigration opens a schema of the migrations before
// 0025 (occurrences found by their error ID) with records and
// occurrences: the occurrences are found by their record's seq and read
// as before.
func TestOccurrencesBySeqMigration(t *testing.T) {
	ctx := t.Context()
	dbURL := pgtest.FreshSchema(t)
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil { // 0010 uses River's table
		t.Fatal(err)
	}
	files, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	conn := connect(t, dbURL)
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
			return err
		}
		for _, f := range files {
			if f.Name() >= "0025" {
				break
			}
			sql, err := os.ReadFile("migrations/" + f.Name())
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return fmt.Errorf("%s: %w", f.Name(), err)
			}
			var v int64
			if _, err := fmt.Sscanf(f.Name(), "%d_", &v); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations VALUES ($1, $2, 0)`, v, f.Name()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A statement each, committed on its own: an occurrence's xid (its
	// stream position) is its transaction's, unique.
	err = storetest.FillOldOccurrences(now, func(query string, args ...any) error {
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
