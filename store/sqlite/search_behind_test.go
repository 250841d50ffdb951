package sqlite

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// TestSearchBehindMigration migrates a database of the schema before
// migration 0027 (records queued for records_fts in every transaction)
// holding indexed records: every record is then caught up (the mark at
// the greatest seq), the index matches the records, and a new record is
// behind it until a search catches it up, which then finds it.
func TestSearchBehindMigration(t *testing.T) {
	ctx := t.Context()
	slowIdle(t)
	path := filepath.Join(t.TempDir(), "triage.db")
	oldSchema(t, path, 26, func(old oldStore) error {
		reportTitled(t, old.Tenant("default"), "d_alpha", "err_alpha", "alpha before")
		reportTitled(t, old.Tenant("default"), "d_beta", "err_beta", "beta before")
		return nil
	})
	s, err := Open(ctx, path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	assertCaughtUp(t, s)
	assertIndexMatches(t, s.write)
	tn := s.Tenant("default")
	reportTitled(t, tn, "d_gamma", "err_gamma", "gamma after")
	var last, mark int64
	if err := s.read.QueryRowContext(ctx, behindSQL).Scan(&last, &mark); err != nil || last != mark+1 {
		t.Fatalf("after a new record: records at %d, the index at %d (%v): want it one behind", last, mark, err)
	}
	for word, want := range map[string]string{"alpha": "err_alpha", "gamma": "err_gamma"} {
		p, err := tn.ErrorRecords(ctx, store.Filter{Search: word})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Records) != 1 || p.Records[0].ErrorID != want {
			t.Errorf("search %q: %+v, want %s", word, p.Records, want)
		}
	}
	assertCaughtUp(t, s)
	assertIndexMatches(t, s.write)
}

// TestSearchBehindAtCloseAndOpen: the records behind the index are
// indexed when the store closes; and when a crash left some behind (the
// index emptied and its mark moved back, by hand), when it opens.
func TestSearchBehindAtCloseAndOpen(t *testing.T) {
	ctx := t.Context()
	slowIdle(t)
	path := filepath.Join(t.TempDir(), "triage.db")
	s, err := Open(ctx, path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b", "c"} {
		reportTitled(t, s.Tenant("default"), "d_"+k, "err_"+k, "word"+k+" happened")
	}
	var last, mark int64
	if err := s.read.QueryRowContext(ctx, behindSQL).Scan(&last, &mark); err != nil || last == mark {
		t.Fatalf("records at %d, the index at %d (%v): want them behind (indexEvery %d)", last, mark, err, indexEvery)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if err := raw.QueryRowContext(ctx, behindSQL).Scan(&last, &mark); err != nil || last != mark || last != 3 {
		t.Fatalf("closed: records at %d, the index at %d (%v): want both at 3", last, mark, err)
	}
	assertIndexMatches(t, raw)
	// A crash: nothing indexed, every record behind.
	for _, q := range []string{`INSERT INTO records_fts (records_fts) VALUES ('delete-all')`, `UPDATE records_fts_behind SET seq = 0`} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	assertCaughtUp(t, s)
	assertIndexMatches(t, s.write)
	var n int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM records_fts WHERE records_fts MATCH 'wordb'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("wordb found %d times in the index (%v), want 1", n, err)
	}
}

// assertIndexMatches holds records_fts to FTS5's integrity check against
// its content, the records.
func assertIndexMatches(t *testing.T, db *sql.DB) {
	t.Helper()
	if _, err := db.ExecContext(t.Context(), `INSERT INTO records_fts (records_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Errorf("records_fts does not match the records: %v", err)
	}
}

// slowIdle keeps the stores the test opens from catching their search
// index up when idle: only a search, Close and Open do.
func slowIdle(t testing.TB) {
	prior := indexIdle
	indexIdle = time.Hour
	t.Cleanup(func() { indexIdle = prior })
}
