package sqlite

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/sqlstore"
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
// a window (an ignore condition, an alert rule) reads that window's range
// of occurrences_by_error, and no row.
func TestCountOccurrencesReadsTheWindow(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := "SEARCH occurrences USING COVERING INDEX occurrences_by_error (tenant=? AND error_id=? AND received_at>?)"
	plan := strings.Join(explain(t, s, sqlstore.CountOccurrencesSQL, "a", "e1", 0, 10), "\n")
	if !strings.Contains(plan, want) {
		t.Errorf("the plan of\n%s\nis\n%s\nwant %s", sqlstore.CountOccurrencesSQL, plan, want)
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
		{store.Filter{Status: triage.StatusResolved}, "SEARCH r USING COVERING INDEX records_by_status (tenant=? AND status=?)"},
		{store.Filter{Status: triage.StatusIgnored}, "SEARCH r USING INDEX records_by_status (tenant=? AND status=?)"},
		{store.Filter{Status: triage.StatusUnresolved}, "SEARCH r USING INDEX records_by_seq (tenant=?)"},
	} {
		where, args := sqlstore.RecordWhereSQL("a", c.f, now)
		plan := explain(t, s, `SELECT r.seq FROM records r WHERE `+where+` ORDER BY r.seq DESC LIMIT 51`, args...)
		if len(plan) != 1 || plan[0] != c.want {
			t.Errorf("the plan of %+v is\n%s\nwant %s (the range, in order, no sort)", c.f, strings.Join(plan, "\n"), c.want)
		}
	}
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
