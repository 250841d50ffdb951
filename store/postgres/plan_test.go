package postgres_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

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

// TestRecordListsUseTheirIndexes: once the planner knows a tenant has many
// records, each sort of GET /v1/errors walks its index in its order (no
// sort step), and a search for a rare word reads the GIN index of the
// records' words; a series by agent reads the range's hours of
// record_counts_by_hour, a record's its range of the primary key.
func TestRecordListsUseTheirIndexes(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	s := open(t, dbURL, store.Config{})
	defer s.Close()
	// 30,000 records of two tenants, a tenth busy's, one of them with a rare word, each
	// seen in the last hours (the trigger counts them).
	conn := connect(t, dbURL)
	if _, err := conn.Exec(t.Context(), `INSERT INTO records (tenant, error_id, query_id, agent_id, error_type, severity,
			first_seen, last_seen, occurrence_count, code, title)
		SELECT CASE WHEN i % 10 = 0 THEN 'busy' ELSE 'other' END, 'e' || i, 'q', 'agent' || (i % 10), 'query_error', 'low',
			$1::bigint - i::bigint * 1000000000, $1::bigint - i::bigint * 1000000000, 1 + i % 7, 'DB_TIMEOUT',
			CASE WHEN i = 80 THEN 'SCHEMA_DRIFT: column zanzibar is missing' ELSE 'DB_TIMEOUT: query timed out' END
		FROM generate_series(1, 30000) AS i`, time.Now().UnixNano()); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(t.Context(), "ANALYZE records; ANALYZE record_counts"); err != nil {
		t.Fatal(err)
	}
	// The planner rightly reads a table this small whole: the check is
	// that the indexes serve each read.
	if _, err := conn.Exec(t.Context(), "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	explain := func(query string, args []any) string {
		t.Helper()
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
		return strings.Join(plan, "\n")
	}
	d := sqlstore.Dialect{FullText: sqlstore.TSVector}
	for _, c := range []struct {
		f      store.Filter
		want   string
		sorted bool
	}{
		{store.Filter{}, "Index Scan Backward using records_by_last_seen on records r", false},
		// seq is the primary key's too.
		{store.Filter{Sort: store.SortFirstSeen}, "Index Scan Backward using records_", false},
		{store.Filter{Sort: store.SortCount}, "Index Scan Backward using records_by_count on records r", false},
		{store.Filter{Search: "zanzibar"}, "Bitmap Index Scan on records_search", true},
	} {
		query, args, err := sqlstore.ErrorRecordsSQL(d, time.Now(), "busy", c.f)
		if err != nil {
			t.Fatal(err)
		}
		plan := explain(query, args)
		if !strings.Contains(plan, c.want) || strings.Contains(plan, "Seq Scan on records") ||
			!c.sorted && strings.Contains(plan, "Sort") {
			t.Errorf("the plan of %+v is\n%s\nwant %s", c.f, plan, c.want)
		}
	}
	for _, c := range []struct {
		f    store.CountFilter
		want string
	}{
		{store.CountFilter{By: store.CountByAgent}, "record_counts_by_hour"},
		{store.CountFilter{ErrorIDs: []string{"e20", "e40"}}, "record_counts_pkey"},
	} {
		first, hours, n, err := c.f.Range(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		_, _, buckets, err := sqlstore.CountsSQL("busy", c.f, first, hours, n)
		if err != nil {
			t.Fatal(err)
		}
		all, allArgs := buckets([]string{"e20", "e40"})
		if c.f.By == store.CountByAgent {
			all, allArgs = buckets(nil) // every agent's buckets, in one read of the range
		}
		if plan := explain(all, allArgs); !strings.Contains(plan, c.want) || strings.Contains(plan, "Seq Scan on record_counts") {
			t.Errorf("the plan of %+v is\n%s\nwant a scan of %s", c.f, plan, c.want)
		}
	}
}
