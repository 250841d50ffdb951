package sqlite

import (
	"context"
	"database/sql"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/riverjobs"
	"github.com/triage-go/triage/store/internal/sqlstore"
	"github.com/triage-go/triage/store/storetest"
)

// oldStore is the store of an older schema, which oldSchema hands its
// fill: what an older build left is written through the writer, in
// transactions of fill's own (write), or through today's report path
// (Tenant) where the old schema holds all that path writes (a schema
// before 0029 with the dialect of its history, see oldSchema).
type oldStore struct {
	*sqlstore.Store
	w *writer
}

// write runs fn in one transaction of the writer.
func (o oldStore) write(ctx context.Context, fn func(q sqlstore.Querier) error) error {
	return o.w.write(ctx, fn)
}

// execOn is a storetest.Exec of the statements a storetest fill executes,
// on q.
func execOn(ctx context.Context, q sqlstore.Querier) storetest.Exec {
	return func(query string, args ...any) error {
		_, err := q.Exec(ctx, query, args...)
		return err
	}
}

// oldSchema makes the database at path of the schema of the migrations up
// to last (River's first, as Open migrates it: 0010 uses its table), and
// has fill write in it what an older build left; Open then migrates the
// rest of the way.
func oldSchema(t *testing.T, path string, last int64, fill func(old oldStore) error) {
	t.Helper()
	ctx := t.Context()
	write, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	defer write.Close()
	write.SetMaxOpenConns(1)
	read, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	defer read.Close()
	queue, err := riverjobs.New(riversqlite.New(write), txOf)
	if err != nil {
		t.Fatal(err)
	}
	if err := queue.MigrateDB(ctx); err != nil {
		t.Fatal(err)
	}
	w := newWriter(write)
	defer w.stop()
	db := database{w: w, read: read, readStmts: newStmtCache(read)}
	defer db.readStmts.close()
	if applied, err := sqlstore.MigrateTo(ctx, db, dialect, migrationFiles, "migrations", last); err != nil || len(applied) == 0 || applied[len(applied)-1] != last {
		t.Fatalf("migrating to %04d: %v, %v", last, applied, err)
	}
	// Before migration 0029 history was a row per failure (its count by
	// trigger): today's report path writes and counts it so without the
	// keys' totals.
	d := dialect
	if last < 29 {
		d.HistoryTotals = false
	}
	old := sqlstore.New(db, d, store.Config{}, queue)
	defer old.Close()
	if err := fill(oldStore{Store: old, w: w}); err != nil {
		t.Fatal(err)
	}
}

// TestCountsBySeqMigration migrates a database of the schema before
// migration 0022 (record_counts keyed by the record's error ID) whose
// records were counted: their hourly counts move to the record's seq, a
// record's series and the series by record and by agent read as before,
// and the next occurrence of a record counts into its hour's row.
func TestCountsBySeqMigration(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "triage.db")
	now := time.Now().UTC()
	oldSchema(t, path, 21, func(old oldStore) error {
		return old.write(ctx, func(q sqlstore.Querier) error { return storetest.FillOldCounts(now, execOn(ctx, q)) })
	})

	s, err := Open(ctx, path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var errorIDs int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('record_counts') WHERE name = 'error_id'`).
		Scan(&errorIDs); err != nil || errorIDs != 0 {
		t.Errorf("record_counts still has an error_id column (%d, %v)", errorIDs, err)
	}
	storetest.CheckMigratedCounts(t, s, now)
	var rows int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM record_counts WHERE tenant = 'a'`).Scan(&rows); err != nil || rows != 2 {
		t.Errorf("tenant a has %d rows of counts (%v), want 2 (one per record and hour)", rows, err)
	}
}

// reopenable is the store at path, opened with opts, and the reach of a
// migration test into its database (storetest.Undone), which follows the
// store as Reopen opens it again; the last is closed when t ends.
func reopenable(t *testing.T, path string, opts store.Config) (*Store, storetest.Undone) {
	t.Helper()
	ctx := t.Context()
	s, err := Open(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, storetest.Undone{
		Exec: func(query string, args ...any) error {
			_, err := s.write.ExecContext(ctx, query, args...)
			return err
		},
		Count: func(query string) (n int, err error) {
			return n, s.read.QueryRowContext(ctx, query).Scan(&n)
		},
		Reopen: func() store.Store {
			s.Close()
			if s, err = Open(ctx, path, opts); err != nil {
				t.Fatal(err)
			}
			return s
		},
	}
}

// TestOccurrencesByReceivedMigration: migration 0026 indexes the
// occurrences a store holds already (storetest.OccurrencesByReceivedMigration).
func TestOccurrencesByReceivedMigration(t *testing.T) {
	now := time.Now().UTC()
	s, db := reopenable(t, filepath.Join(t.TempDir(), "triage.db"), store.Config{Now: func() time.Time { return now }})
	storetest.OccurrencesByReceivedMigration(t, s, now, 26, db, `SELECT count(*) = 2 FROM pragma_index_info('occurrences_by_received')
		WHERE (seqno = 0 AND name = 'tenant') OR (seqno = 1 AND name = 'received_at')`)
}

// TestDeliveryKeysMigration: migration 0023 rewrites the delivery keys of
// the former form (storetest.DeliveryKeysMigration).
func TestDeliveryKeysMigration(t *testing.T) {
	s, db := reopenable(t, filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	storetest.DeliveryKeysMigration(t, s, 23, db)
}

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

// TestHistoryKeyedMigration migrates a database of the schema before
// migration 0029 (history by rowid, history_by_key, history_counts and
// its triggers) whose handler recorded failures: history becomes one
// B-tree keyed by tenant, agent, code and time, each key's total the
// count history_counts held, and the windows count as before
// (storetest.CheckMigratedHistory).
func TestHistoryKeyedMigration(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "triage.db")
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	oldCounts := map[string]int{}
	oldSchema(t, path, 28, func(old oldStore) error {
		return old.write(ctx, func(q sqlstore.Querier) error {
			if err := storetest.FillOldHistory(at, execOn(ctx, q)); err != nil {
				return err
			}
			rows, err := q.Query(ctx, `SELECT tenant || '/' || agent || '/' || code, n FROM history_counts`)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var (
					key string
					n   int
				)
				if err := rows.Scan(&key, &n); err != nil {
					return err
				}
				oldCounts[key] = n
			}
			return rows.Err()
		})
	})
	if want := map[string]int{"a/planner/E": 7, "a/planner/F": 1, "b/planner/E": 3}; !maps.Equal(oldCounts, want) {
		t.Fatalf("history_counts before the migration = %v, want %v", oldCounts, want)
	}

	s, err := Open(ctx, path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var (
		objects int
		schema  string
	)
	if err := s.read.QueryRowContext(ctx, `SELECT count(*), group_concat(type || ' ' || name || ': ' || COALESCE(sql, ''), char(10)) FROM sqlite_schema
		WHERE tbl_name IN ('history', 'history_counts', 'history_keyed') OR name LIKE 'history%'`).Scan(&objects, &schema); err != nil {
		t.Fatal(err)
	}
	if objects != 1 || !strings.HasPrefix(schema, `table history: CREATE TABLE "history"`) || !strings.HasSuffix(schema, "WITHOUT ROWID") {
		t.Errorf("history's schema after the migration (%d objects):\n%s\nwant its one table, WITHOUT ROWID, and no index, trigger or count table", objects, schema)
	}
	totals := map[string]int{}
	rows, err := s.read.QueryContext(ctx, `SELECT tenant || '/' || agent || '/' || code, n FROM history WHERE at = 9223372036854775807`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var (
			key string
			n   int
		)
		if err := rows.Scan(&key, &n); err != nil {
			t.Fatal(err)
		}
		totals[key] = n
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(totals, oldCounts) {
		t.Errorf("the keys' totals after the migration = %v, want history_counts' %v", totals, oldCounts)
	}
	var timesOfE int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM history WHERE tenant = 'a' AND agent = 'planner' AND code = 'E'
		AND at < 9223372036854775807`).Scan(&timesOfE); err != nil || timesOfE != 5 {
		t.Errorf("a's planner E has %d rows of failures (%v), want 5 (one per time)", timesOfE, err)
	}
	checkHistoryTotals(t, s)
	storetest.CheckMigratedHistory(t, s, at)
	checkHistoryTotals(t, s)
}
