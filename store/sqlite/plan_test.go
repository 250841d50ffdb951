package sqlite

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"errors"
	"fmt"
	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/sqlstore"
	"slices"
)

// TestStreamsReadTheirTenantsRange checks the plans of the event streams'
// reads: each goes through its tenant's range of an index, so that what
// a stream costs does not grow with other tenants' rows (by the positions'
// own index, a tenant with few occurrences resuming from position 0 read
// the whole table).
func TestStreamsReadTheirTenantsRange(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct{ query, want string }{
		{sqlstore.FeedbackAfterSQL(dialect), "SEARCH occurrences USING INDEX occurrences_by_tenant (tenant=? AND rowid>?)"},
		{sqlstore.RunsEndedAfterSQL(dialect), "SEARCH runs USING INDEX runs_by_tenant_end (tenant=? AND ended_pos>?)"},
	} {
		plan := explain(t, s, c.query, "a", 0, 10)
		if len(plan) != 1 || plan[0] != c.want {
			t.Errorf("the plan of\n%s\nis\n%s\nwant %s (the tenant's range, in order, no sort)", c.query, strings.Join(plan, "\n"), c.want)
		}
	}
}

// TestRunListReadsItsTenantsRange: GET /v1/runs reads the tenant's (or
// its agent's) range of an index in the order it lists, with no sort, on
// every page.
func TestRunListReadsItsTenantsRange(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Tenant("a").StartRun(t.Context(), store.Run{RunID: "r1", AgentID: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tenant("a").StartRun(t.Context(), store.Run{RunID: "r0", AgentID: "echo"}); err != nil {
		t.Fatal(err)
	}
	page, err := s.Tenant("a").ListRuns(t.Context(), store.RunFilter{Limit: 1})
	if err != nil || page.Next == "" {
		t.Fatalf("no second page: %+v %v", page, err)
	}
	for _, c := range []struct {
		f    store.RunFilter
		want string
	}{
		{store.RunFilter{}, "SEARCH runs USING INDEX runs_by_tenant_start (tenant=?)"},
		{store.RunFilter{Cursor: page.Next}, "SEARCH runs USING INDEX runs_by_tenant_start (tenant=? AND started_at<?)"},
		{store.RunFilter{Outcome: "failed", Code: "TIMEOUT"}, "SEARCH runs USING INDEX runs_by_tenant_start (tenant=?)"},
		{store.RunFilter{AgentID: "echo", Cursor: page.Next}, "SEARCH runs USING INDEX runs_by_agent_start (tenant=? AND agent_id=? AND started_at<?)"},
	} {
		query, args, err := sqlstore.ListRunsSQL("a", c.f)
		if err != nil {
			t.Fatal(err)
		}
		plan := explain(t, s, query, args...)
		if len(plan) != 1 || plan[0] != c.want {
			t.Errorf("the plan of %+v is\n%s\nwant %s (the range, in order, no sort)", c.f, strings.Join(plan, "\n"), c.want)
		}
	}
}

// explain returns the lines of SQLite's plan of query with args.
func explain(t *testing.T, s *Store, query string, args ...any) []string {
	t.Helper()
	rows, err := s.read.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notUsed int
		var detail string
		if err := rows.Scan(&id, &parent, &notUsed, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}

// TestCountOccurrencesReadsTheWindow: counting an error's occurrences in
// a window (an ignore condition, an alert rule) looks the record's seq up
// by its error ID, then reads that window's range of
// occurrences_by_record, and no row.
func TestCountOccurrencesReadsTheWindow(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	plan := explain(t, s, sqlstore.CountOccurrencesSQL, "a", "e1", 0, 10)
	want := []string{
		"SEARCH occurrences USING COVERING INDEX occurrences_by_record (tenant=? AND record_seq=? AND received_at>?)",
		"SEARCH records USING COVERING INDEX sqlite_autoindex_records_1 (tenant=? AND error_id=?)",
	}
	for _, w := range want {
		if !slices.Contains(plan, w) || slices.ContainsFunc(plan, func(l string) bool { return strings.HasPrefix(l, "SCAN occurrences") }) {
			t.Errorf("the plan of\n%s\nis\n%s\nwant %s", sqlstore.CountOccurrencesSQL, strings.Join(plan, "\n"), w)
		}
	}
}

// TestOccurrencesReadTheirRecordsRange: a page of a record's occurrences
// (GET /v1/errors/{id} and its occurrences' pages), its sizes and then its
// documents, reads the record's range of occurrences_by_record in the
// page's order, with no sort; so do Expire's deletes of an expired
// record's occurrences and their deliveries, and each of its other
// deletes its own index's range. Since migration 0024 the occurrences are
// found by the record's seq, not its error ID (a hash), so that a new
// record's go at the end of the index.
func TestOccurrencesReadTheirRecordsRange(t *testing.T) {
	s, _ := openTest(t)
	cursor := base64.RawURLEncoding.EncodeToString([]byte("occ:100:10"))
	for _, c := range []struct {
		cursor string
		want   string
	}{
		{"", "SEARCH occurrences USING INDEX occurrences_by_record (tenant=? AND record_seq=?)"},
		{cursor, "SEARCH occurrences USING INDEX occurrences_by_record (tenant=? AND record_seq=? AND received_at<?)"},
	} {
		sizes, docs, args, err := sqlstore.OccurrencePageSQL("a", 3, 10, c.cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct {
			query string
			args  []any
		}{{sizes, args}, {docs, append(slices.Clone(args), 100, 10)}} {
			plan := explain(t, s, q.query, q.args...)
			if len(plan) != 1 || !strings.HasPrefix(plan[0], "SEARCH occurrences USING INDEX occurrences_by_record (tenant=? AND record_seq=?") ||
				q.query == sizes && plan[0] != c.want {
				t.Errorf("the plan of\n%s\nis\n%s\nwant the record's range of occurrences_by_record, in order (no sort)",
					q.query, strings.Join(plan, "\n"))
			}
		}
	}
	for i, want := range [][]string{
		{"SEARCH deliveries USING PRIMARY KEY (tenant=? AND delivery_key=?)", "LIST SUBQUERY 1",
			"SEARCH occurrences USING INDEX occurrences_by_record (tenant=? AND record_seq=?)"},
		{"SEARCH occurrences USING COVERING INDEX occurrences_by_record (tenant=? AND record_seq=?)"},
		{"SEARCH record_transitions USING INDEX record_transitions_by_error (tenant=? AND error_id=?)"},
		{"SEARCH river_job USING INDEX river_job_by_error (<expr>=? AND <expr>=?)"},
		{"SEARCH record_counts USING PRIMARY KEY (tenant=? AND seq=?)"},
	} {
		del := sqlstore.ExpireRecordSQL[i]
		if plan := explain(t, s, del.Query, "a", 1); !slices.Equal(plan, want) {
			t.Errorf("the plan of\n%s\nis\n%s\nwant\n%s", del.Query, strings.Join(plan, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestRecordDeleteLooksItsOccurrencesUp: deleting a record (Expire) has
// SQLite's foreign key check look its occurrences up (the deferred key of
// occurrences on the record's tenant and seq, since migration 0024)
// through occurrences_by_record, not a scan of the table: with the key on
// the error ID and no index of it left, each delete would have read every
// occurrence. EXPLAIN QUERY PLAN does not show the check; its bytecode
// opens the index and seeks in it.
func TestRecordDeleteLooksItsOccurrencesUp(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	roots := map[int64]string{}
	rows, err := s.read.QueryContext(ctx, `SELECT rootpage, name FROM sqlite_schema WHERE tbl_name = 'occurrences'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var root int64
		var name string
		if err := rows.Scan(&root, &name); err != nil {
			t.Fatal(err)
		}
		roots[root] = name
	}
	rows.Close()
	const query = `DELETE FROM records WHERE tenant = 'a' AND error_id = 'e'`
	rows, err = s.read.QueryContext(ctx, "EXPLAIN "+query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	opened := map[int64]string{} // cursor → what it reads of occurrences
	var seeks []string
	for rows.Next() {
		var (
			addr, p1, p2, p3 int64
			op               string
			p4, p5, comment  any
		)
		if err := rows.Scan(&addr, &op, &p1, &p2, &p3, &p4, &p5, &comment); err != nil {
			t.Fatal(err)
		}
		switch {
		case op == "OpenRead" && roots[p2] != "":
			opened[p1] = roots[p2]
		case opened[p1] != "" && (op == "SeekGE" || op == "Rewind"):
			seeks = append(seeks, op+" "+opened[p1])
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seeks, []string{"SeekGE occurrences_by_record"}) {
		t.Errorf("%s reads occurrences by %v, want one seek of occurrences_by_record (the foreign key's check)", query, seeks)
	}
}

// TestStatusFilterReadsItsIndex: the listing's status filter (and a bulk
// change's) reads records_by_status, the tenant's and status's range in
// the listing's order, with no sort; unresolved (which counts the ignored
// records whose time passed) reads the tenant's records in order.
func TestStatusFilterReadsItsIndex(t *testing.T) {
	s, _ := openTest(t)
	now := time.Now()
	for _, c := range []struct {
		f    store.Filter
		want string
	}{
		// (The bulk change's statement reads its records' workflow: no
		// index covers it.)
		{store.Filter{Status: triage.StatusResolved}, "SEARCH r USING INDEX records_by_status (tenant=? AND status=?)"},
		{store.Filter{Status: triage.StatusIgnored}, "SEARCH r USING INDEX records_by_status (tenant=? AND status=?)"},
		{store.Filter{Status: triage.StatusUnresolved}, "SEARCH r USING INDEX records_by_seq (tenant=?)"},
	} {
		where, args := sqlstore.RecordWhereSQL("a", c.f, now)
		plan := explain(t, s, sqlstore.BulkSQL(dialect, where, "51"), args...)
		if err := listedFirst(plan, []string{c.want}); err != nil {
			t.Errorf("the plan of %+v is\n%s\nwant %s (the range, in order, no sort): %v", c.f, strings.Join(plan, "\n"), c.want, err)
		}
	}
}

// listedFirst tells whether plan is sqlstore.ListedFirst's (migration
// 0028): the listed records read by listed (the plan of the statement
// before the listing's indexes were written behind), then sorted (no
// more than the page), and the records behind them read by their range
// of seq, never a scan of the tenant's records.
func listedFirst(plan, listed []string) error {
	i, j := slices.Index(plan, "CO-ROUTINE listed"), slices.Index(plan, "SCAN listed")
	if len(plan) == 0 || plan[0] != "MERGE (UNION ALL)" || i < 0 || j < i {
		return errors.New("not the listed and unlisted records merged")
	}
	if !slices.Equal(plan[i+1:j], listed) {
		return fmt.Errorf("the listed records read by\n%s", strings.Join(plan[i+1:j], "\n"))
	}
	k := slices.Index(plan, "RIGHT")
	if k < j || k+1 >= len(plan) || !strings.HasPrefix(plan[k+1], "SEARCH r USING INDEX records_by_seq (tenant=? AND seq>?") {
		return errors.New("the unlisted records not read by their range of seq")
	}
	for _, l := range plan[k+1:] {
		if l == "SCAN r" || strings.HasPrefix(l, "SCAN r ") {
			return fmt.Errorf("the unlisted records read by %s", l)
		}
	}
	return nil
}

// TestCountRunsReadsTheWindow: counting an agent's runs in a window (a
// failure-rate alert rule) reads that window's range of
// runs_by_agent_start, the latest first, with no sort.
func TestCountRunsReadsTheWindow(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := "SEARCH runs USING INDEX runs_by_agent_start (tenant=? AND agent_id=? AND started_at>?)"
	plan := strings.Join(explain(t, s, sqlstore.CountRunsSQL, "a", "planner", 0, 100), "\n")
	if !strings.Contains(plan, want) || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("the plan of\n%s\nis\n%s\nwant %s, and no sort", sqlstore.CountRunsSQL, plan, want)
	}
}

// TestRunTotalsReadTheRange: the overview's totals of runs (GET
// /v1/counts/runs) read the range of runs_by_tenant_start, the latest
// first, with no sort before the LIMIT that bounds them (the grouping
// sorts what the LIMIT let through, at most store.MaxRunsTotalled rows).
func TestRunTotalsReadTheRange(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := "SEARCH runs USING INDEX runs_by_tenant_start (tenant=? AND started_at>? AND started_at<?)"
	plan := explain(t, s, sqlstore.RunTotalsSQL, "a", 0, 100, 100)
	if !slices.Contains(plan, want) || slices.ContainsFunc(plan, func(l string) bool { return strings.Contains(l, "ORDER BY") }) {
		t.Errorf("the plan of\n%s\nis\n%s\nwant %s, and no sort for the ORDER BY", sqlstore.RunTotalsSQL, strings.Join(plan, "\n"), want)
	}
}

// TestRecordListsWalkTheirIndex: each sort of GET /v1/errors walks its
// index in its order, first page or next, with no sort step; a search
// reads the full-text index (records_fts) first, then each match by its
// key, and sorts them; a sort by count in a window reads the window's
// hours of record_counts, then each record by its key (record_counts is
// keyed by the record's seq since migration 0022).
func TestRecordListsWalkTheirIndex(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tn := s.Tenant("a")
	for i := range 3 {
		o := store.Occurrence{ErrorID: fmt.Sprint("e", i), QueryID: "q", AgentID: "planner", ErrorType: "query_error",
			Severity: "high", Title: "DB_TIMEOUT: query timed out", Code: "DB_TIMEOUT"}
		if _, err := tn.SaveOccurrence(t.Context(), o); err != nil {
			t.Fatal(err)
		}
	}
	const (
		latest  = "SEARCH o USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN"
		byQuery = "SEARCH r USING INDEX records_by_query (tenant=? AND query_id=?)"
		sorted  = "USE TEMP B-TREE FOR ORDER BY"
	)
	for _, c := range []struct {
		f    store.Filter
		want []string
	}{
		{store.Filter{}, []string{"SEARCH r USING INDEX records_by_last_seen (tenant=?)", latest}},
		{store.Filter{Sort: store.SortFirstSeen}, []string{"SEARCH r USING INDEX records_by_seq (tenant=?)", latest}},
		{store.Filter{Sort: store.SortCount}, []string{"SEARCH r USING INDEX records_by_count (tenant=?)", latest}},
		// A query's records, through its range, sorted: by the sort's
		// index SQLite walked every record of the tenant to find them
		// (GET ?query_id, 1.5 ms → 30 ms at 4k records in loadbench).
		{store.Filter{QueryID: "q"}, []string{byQuery, latest, sorted}},
		{store.Filter{QueryID: "q", Sort: store.SortFirstSeen}, []string{byQuery, latest}},
		{store.Filter{QueryID: "q", Sort: store.SortCount}, []string{byQuery, latest, sorted}},
		{store.Filter{QueryID: "q", AgentID: "planner", Status: triage.StatusUnresolved}, []string{byQuery, latest, sorted}},
		{store.Filter{Search: "timed plan"}, []string{"SCAN records_fts VIRTUAL TABLE INDEX 0:M4",
			"SEARCH r USING INTEGER PRIMARY KEY (rowid=?)", latest, sorted}},
		{store.Filter{Sort: store.SortCount, Window: 24 * time.Hour}, []string{"CO-ROUTINE c",
			"SEARCH record_counts USING INDEX record_counts_by_hour (tenant=? AND hour>? AND hour<?)", "USE TEMP B-TREE FOR GROUP BY",
			"SCAN c", "SEARCH r USING INTEGER PRIMARY KEY (rowid=?)", latest, sorted}},
	} {
		for page := range 2 {
			f := c.f
			if page == 1 {
				f.Limit = 1
				p, err := tn.ErrorRecords(t.Context(), f)
				if err != nil || p.Next == "" {
					t.Fatalf("%+v: no next page: %+v %v", f, p, err)
				}
				f.Cursor = p.Next
			}
			query, args, err := sqlstore.ErrorRecordsSQL(dialect, time.Now(), "a", f)
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			if f.Cursor != "" && f.Window == 0 && f.Search == "" { // the walk starts at the cursor
				want = slices.Clone(want)
				// SQLite shows the range of the row value (key, seq) by its
				// first column.
				key := map[string]string{"": "last_seen", store.SortFirstSeen: "seq", store.SortCount: "occurrence_count"}[f.Sort]
				want[0] = strings.Replace(want[0], "(tenant=?)", "(tenant=? AND "+key+"<?)", 1)
				if f.QueryID != "" && f.Sort == store.SortFirstSeen {
					want[0] = strings.Replace(want[0], "query_id=?)", "query_id=? AND seq<?)", 1)
				}
			}
			plan := explain(t, s, query, args...)
			if f.Window == 0 && f.Search == "" { // the listing's indexes, and the records behind them
				if err := listedFirst(plan, want); err != nil {
					t.Errorf("the plan of %+v is\n%s\nwant the listed records by\n%s\n%v", f, strings.Join(plan, "\n"), strings.Join(want, "\n"), err)
				}
			} else if !slices.Equal(plan, want) {
				t.Errorf("the plan of %+v is\n%s\nwant\n%s", f, strings.Join(plan, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}

// TestCountsReadTheirRange: a series by agent or code reads the range's
// hours of record_counts_by_hour; a series of given records, their
// ranges of the primary key, each record's seq found by its error ID
// through the records' unique index; a series by record then looks each
// record up by its key (record_counts is keyed by the record's seq since
// migration 0022, so that a new record's count appends). No table is
// scanned.
func TestCountsReadTheirRange(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		f        store.CountFilter
		top, all string
	}{
		{store.CountFilter{By: store.CountByAgent}, "SEARCH record_counts USING INDEX record_counts_by_hour (tenant=? AND hour>? AND hour<?)",
			"SEARCH record_counts USING INDEX record_counts_by_hour (tenant=? AND hour>? AND hour<?)"},
		{store.CountFilter{}, "SEARCH record_counts USING INDEX record_counts_by_hour (tenant=? AND hour>? AND hour<?)",
			"SEARCH record_counts USING PRIMARY KEY (tenant=? AND seq=? AND hour>? AND hour<?)"},
		{store.CountFilter{ErrorIDs: []string{"e1", "e2"}}, "SEARCH record_counts USING PRIMARY KEY (tenant=? AND seq=? AND hour>? AND hour<?)",
			"SEARCH record_counts USING PRIMARY KEY (tenant=? AND seq=? AND hour>? AND hour<?)"},
	} {
		first, hours, n, err := c.f.Range(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		top, args, buckets, err := sqlstore.CountsSQL("a", c.f, first, hours, n)
		if err != nil {
			t.Fatal(err)
		}
		all, allArgs := buckets([]string{"k1", "k2"})
		if c.f.By == store.CountByAgent {
			all, allArgs = buckets(nil) // every agent's buckets, in one read of the range
		}
		for _, q := range []struct {
			query, want string
			args        []any
		}{{top, c.top, args}, {all, c.all, allArgs}} {
			plan := explain(t, s, q.query, q.args...)
			// The first read of record_counts, and no scan of it or of
			// records (the records are looked up by key or error ID).
			first := slices.IndexFunc(plan, func(l string) bool { return strings.HasPrefix(l, "SEARCH record_counts") })
			scans := slices.ContainsFunc(plan, func(l string) bool {
				return strings.HasPrefix(l, "SCAN record") || strings.HasPrefix(l, "SCAN r ") || l == "SCAN r" ||
					strings.HasPrefix(l, "SEARCH r ") && !strings.Contains(l, "PRIMARY KEY (rowid=?)") ||
					strings.HasPrefix(l, "SEARCH records ") && !strings.Contains(l, "sqlite_autoindex_records_1 (tenant=? AND error_id=?)")
			})
			if first < 0 || plan[first] != q.want || scans {
				t.Errorf("the plan of %+v's\n%s\nis\n%s\nwant its first read of record_counts %s, and no scan", c.f, q.query, strings.Join(plan, "\n"), q.want)
			}
		}
	}
}

// TestExpireCountsReadsEachTenantsRange: Expire deletes the old hourly
// counts through each tenant's range of record_counts_by_hour, finding the
// tenants one look-up each, and scans no table (an index on the hour
// alone served it before migration 0019, at the cost of an entry on a
// random leaf for every new record).
func TestExpireCountsReadsEachTenantsRange(t *testing.T) {
	s, _ := openTest(t)
	plan := explain(t, s, sqlstore.ExpireCountsSQL, int64(1e18))
	want := "SEARCH record_counts USING INDEX record_counts_by_hour (tenant=? AND hour<?)"
	text := strings.Join(plan, "\n")
	if len(plan) == 0 || plan[0] != want || strings.Contains(text, "SCAN record_counts") || strings.Contains(text, "SCAN c") {
		t.Errorf("the plan of\n%s\nis\n%s\nwant %s and no scan", sqlstore.ExpireCountsSQL, text, want)
	}
}

// TestHistoryWindowReadsItsRanges: the peek counts the window's failures
// from history's key (migration 0029): the range after the window, which
// ends with the key's total, and the range before it; no scan, no other
// B-tree.
func TestHistoryWindowReadsItsRanges(t *testing.T) {
	s, _ := openTest(t)
	peek := sqlstore.PeekSQL(dialect)
	plan := explain(t, s, peek, "a", "d1", "q1", "planner", "E", 0, 10, 254, "q")
	for _, w := range []string{
		"SEARCH h USING PRIMARY KEY (tenant=? AND agent=? AND code=? AND at>?)",
		"SEARCH h USING PRIMARY KEY (tenant=? AND agent=? AND code=? AND at<?)",
	} {
		if !slices.Contains(plan, w) || slices.ContainsFunc(plan, func(l string) bool {
			return strings.HasPrefix(l, "SCAN h") || strings.Contains(l, "history_")
		}) {
			t.Errorf("the plan of the peek is\n%s\nwant %s, and no scan of history", strings.Join(plan, "\n"), w)
		}
	}
}
