package sqlite

import (
	"database/sql"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/riverjobs"
	"github.com/triage-go/triage/store/internal/sqlstore"
	"github.com/triage-go/triage/store/storetest"
)

// TestCountsBySeqMigration migrates a database of the schema before
// migration 0022 (record_counts keyed by the record's error ID) whose
// records were counted: their hourly counts move to the record's seq, a
// record's series and the series by record and by agent read as before,
// and the next occurrence of a record counts into its hour's row.
func TestCountsBySeqMigration(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "triage.db")
	write, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	write.SetMaxOpenConns(1)
	queue, err := riverjobs.New(riversqlite.New(write), txOf)
	if err != nil {
		t.Fatal(err)
	}
	if err := queue.MigrateDB(ctx); err != nil { // 0010 uses River's table
		t.Fatal(err)
	}
	entries, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	v21 := fstest.MapFS{}
	for _, e := range entries {
		if e.Name() < "0022" {
			data, err := migrationFiles.ReadFile("migrations/" + e.Name())
			if err != nil {
				t.Fatal(err)
			}
			v21["m/"+e.Name()] = &fstest.MapFile{Data: data}
		}
	}
	w := newWriter(write)
	if applied, err := sqlstore.Migrate(ctx, database{w: w}, dialect, v21, "m"); err != nil || len(applied) != 21 {
		t.Fatalf("migrating to 0021: %v, %v", applied, err)
	}
	now := time.Now().UTC()
	err = w.write(ctx, func(q sqlstore.Querier) error {
		return storetest.FillOldCounts(now, func(query string, args ...any) error {
			_, err := q.Exec(ctx, query, args...)
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	w.stop()
	write.Close()

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
