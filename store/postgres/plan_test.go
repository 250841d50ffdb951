package postgres_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/sqlstore"
)

// TestStreamsReadTheirTenantsRange checks the plans of the event streams'
// reads, once the planner knows one tenant has many occurrences and ended
// runs and another few: each goes through its tenant's range of an index
// (by occurrences_by_xid alone, a stream of the quiet tenant resuming from
// position 0 read every other tenant's rows).
func TestStreamsReadTheirTenantsRange(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	s := open(t, dbURL, store.Config{})
	defer s.Close()
	busy, quiet := s.Tenant("busy"), s.Tenant("quiet")
	for i := range 300 {
		if _, err := busy.SaveOccurrence(t.Context(), occurrence(fmt.Sprint("d", i))); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if _, err := busy.StartRun(t.Context(), store.Run{RunID: fmt.Sprint("r", i), AgentID: "echo"}); err != nil {
				t.Fatal(err)
			}
			if _, err := busy.FinishRun(t.Context(), fmt.Sprint("r", i), store.RunEnd{Outcome: store.RunFinished}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := quiet.SaveOccurrence(t.Context(), occurrence("q")); err != nil {
		t.Fatal(err)
	}
	conn := connect(t, dbURL)
	if _, err := conn.Exec(t.Context(), "ANALYZE occurrences; ANALYZE runs"); err != nil {
		t.Fatal(err)
	}
	d := sqlstore.Dialect{XidPositions: true}
	for _, c := range []struct {
		query, index string
		small        bool
	}{
		{sqlstore.FeedbackAfterSQL(d), "occurrences_by_tenant", false},
		// A hundred runs fit in a few pages, which the planner rightly
		// reads whole: the check is that the index serves the range.
		{sqlstore.RunsEndedAfterSQL(d), "runs_by_end", true},
	} {
		if _, err := conn.Exec(t.Context(), fmt.Sprintf("SET enable_seqscan = %t", !c.small)); err != nil {
			t.Fatal(err)
		}
		rows, err := conn.Query(t.Context(), "EXPLAIN "+c.query, "quiet", 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, strings.TrimSpace(line))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		if !strings.Contains(text, "Index Scan using "+c.index) || !strings.Contains(text, "Index Cond: ((tenant = ") ||
			strings.Contains(text, "Sort") {
			t.Errorf("the plan of\n%s\nis\n%s\nwant an index scan of %s's range for the tenant, in order", c.query, text, c.index)
		}
	}
}

// TestCountOccurrencesReadsTheWindow: counting an error's occurrences in
// a window (an ignore condition, an alert rule) reads that window's range
// of occurrences_by_error, once the planner knows the table is large.
func TestCountOccurrencesReadsTheWindow(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	s := open(t, dbURL, store.Config{})
	defer s.Close()
	a := s.Tenant("a")
	for i := range 300 {
		o := occurrence(fmt.Sprint("d", i))
		o.ErrorID = fmt.Sprint("e", i%30)
		if _, err := a.SaveOccurrence(t.Context(), o); err != nil {
			t.Fatal(err)
		}
	}
	conn := connect(t, dbURL)
	if _, err := conn.Exec(t.Context(), "ANALYZE occurrences"); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(t.Context(), "EXPLAIN "+sqlstore.CountOccurrencesSQL, "a", "e1", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, strings.TrimSpace(line))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	text := strings.Join(plan, "\n")
	if !strings.Contains(text, "on occurrences_by_error") && !strings.Contains(text, "using occurrences_by_error") || !strings.Contains(text, "Index Cond: ((tenant = ") ||
		!strings.Contains(text, "(received_at >= ") || strings.Contains(text, "Seq Scan") {
		t.Errorf("the plan of\n%s\nis\n%s\nwant a scan of occurrences_by_error's range for the error and the window", sqlstore.CountOccurrencesSQL, text)
	}
}

// TestStatusFilterReadsItsIndex: the listing's filter by status (and a
// bulk change's) reads records_by_status's range for the tenant and the
// status, in the listing's order (no sort).
func TestStatusFilterReadsItsIndex(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	s := open(t, dbURL, store.Config{})
	defer s.Close()
	a := s.Tenant("a")
	for i := range 300 {
		o := occurrence(fmt.Sprint("d", i))
		o.ErrorID = fmt.Sprint("e", i)
		if _, err := a.SaveOccurrence(t.Context(), o); err != nil {
			t.Fatal(err)
		}
	}
	var resolved []string // a tenth, more than a page of 10
	for i := range 30 {
		resolved = append(resolved, fmt.Sprint("e", i))
	}
	if _, err := a.ChangeRecords(t.Context(), store.Filter{ErrorIDs: resolved},
		triage.Change{Status: triage.StatusResolved}, "ana"); err != nil {
		t.Fatal(err)
	}
	conn := connect(t, dbURL)
	for _, q := range []string{"ANALYZE records", "SET enable_seqscan = off"} {
		if _, err := conn.Exec(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	where, args := sqlstore.RecordWhereSQL("a", store.Filter{Status: triage.StatusResolved}, time.Now())
	query := `SELECT r.seq FROM records r WHERE ` + where + ` ORDER BY r.seq DESC LIMIT 11`
	rows, err := conn.Query(t.Context(), "EXPLAIN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, strings.TrimSpace(line))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	text := strings.Join(plan, "\n")
	if !strings.Contains(text, "records_by_status") || strings.Contains(text, "Sort") || strings.Contains(text, "Seq Scan") {
		t.Errorf("the plan of\n%s\nis\n%s\nwant records_by_status's range, in order", query, text)
	}
}

// TestCountRunsReadsTheWindow: counting an agent's runs in a window (a
// failure-rate alert rule) reads that window's range of
// runs_by_agent_start, once the planner knows the table is large.
func TestCountRunsReadsTheWindow(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	s := open(t, dbURL, store.Config{})
	defer s.Close()
	// 6,000 ended runs of 3 agents (written directly: through the store
	// it would take minutes), a tenth failed.
	conn := connect(t, dbURL)
	if _, err := conn.Exec(t.Context(), `INSERT INTO runs (tenant, run_id, thread_id, agent_id, outcome, started_at, finished_at, answer_bytes)
		SELECT 'a', 'r' || i, 'th', 'agent' || (i % 3), CASE WHEN i % 10 = 0 THEN 'failed' ELSE 'finished' END, i * 1000, i * 1000 + 1, 0
		FROM generate_series(1, 6000) AS i`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(t.Context(), "ANALYZE runs"); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(t.Context(), "EXPLAIN "+sqlstore.CountRunsSQL, "a", "agent1", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, strings.TrimSpace(line))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	text := strings.Join(plan, "\n")
	if !strings.Contains(text, "runs_by_agent_start") || !strings.Contains(text, "(started_at >= ") ||
		strings.Contains(text, "Seq Scan") || strings.Contains(text, "Sort") {
		t.Errorf("the plan of\n%s\nis\n%s\nwant a scan of runs_by_agent_start's range for the agent and the window", sqlstore.CountRunsSQL, text)
	}
}
