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
	s := openTitled(t, 26, "alpha", "beta")
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

// TestListingBehindMigration migrates a database of the schema before
// migration 0028 (the listing's five indexes holding every record): its
// records are listed (in the indexes, now partial), a new record is not
// until the writer catches up, and the listing finds both all the same,
// in each sort and through each filter an index serves.
func TestListingBehindMigration(t *testing.T) {
	ctx := t.Context()
	slowIdle(t)
	s := openTitled(t, 27, "alpha")
	listed := func() (on, off int) {
		t.Helper()
		if err := s.read.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE listed = 1), count(*) FILTER (WHERE listed = 0) FROM records`).Scan(&on, &off); err != nil {
			t.Fatal(err)
		}
		return on, off
	}
	if on, off := listed(); on != 1 || off != 0 {
		t.Fatalf("migrated: %d records listed, %d not; want 1, 0", on, off)
	}
	for _, ix := range []string{"records_by_agent", "records_by_status", "records_by_last_seen", "records_by_count", "records_by_query"} {
		var n int
		if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = $1 AND sql LIKE '%WHERE listed = 1'`, ix).Scan(&n); err != nil || n != 1 {
			t.Errorf("%s is not the partial index of the listed records (%v)", ix, err)
		}
	}
	tn := s.Tenant("default")
	reportTitled(t, tn, "d_beta", "err_beta", "beta after")
	if on, off := listed(); on != 1 || off != 1 {
		t.Fatalf("a new record: %d records listed, %d not; want 1, 1", on, off)
	}
	for _, f := range []store.Filter{{}, {Sort: store.SortCount}, {Sort: store.SortFirstSeen}, {AgentID: "query_engine"},
		{Status: "unresolved"}, {Status: "unresolved", Sort: store.SortCount}} {
		p, err := tn.ErrorRecords(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Records) != 2 || p.Total != 2 || p.Records[0].ErrorID != "err_beta" {
			t.Errorf("%+v lists %+v (total %d), want err_beta then err_alpha", f, p.Records, p.Total)
		}
	}
	p, err := tn.ErrorRecords(ctx, store.Filter{QueryID: "q_d_beta"})
	if err != nil || len(p.Records) != 1 || p.Total != 1 || p.Records[0].ErrorID != "err_beta" {
		t.Errorf("query q_d_beta lists %+v (total %d, %v), want err_beta", p.Records, p.Total, err)
	}
	// A search catches both indexes up.
	if _, err := tn.ErrorRecords(ctx, store.Filter{Search: "beta"}); err != nil {
		t.Fatal(err)
	}
	if on, off := listed(); on != 2 || off != 0 {
		t.Errorf("caught up: %d records listed, %d not; want 2, 0", on, off)
	}
}
