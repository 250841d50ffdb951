package postgres_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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
	// The planner evaluates the reads' horizon (pg_snapshot_xmin) for its
	// estimates, and the horizon is the oldest transaction still running
	// in the whole cluster: while another test's or process's, begun
	// before these rows, runs, none of them is below it, and
	// occurrences_by_xid's empty range is rightly the cheaper plan. The
	// plans checked are those of a horizon past the rows, as a stream's
	// is but while a long transaction runs: the test waits for it.
	for {
		var past bool
		if err := conn.QueryRow(t.Context(), `SELECT pg_snapshot_xmin(pg_current_snapshot())
			> greatest((SELECT max(xid) FROM occurrences), (SELECT max(ended_xid) FROM runs))`).Scan(&past); err != nil {
			t.Fatal(err)
		}
		if past {
			break
		}
		time.Sleep(10 * time.Millisecond)
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
		text := explainPG(t, conn, c.query, "quiet", 0, 100)
		if !strings.Contains(text, "Index Scan using "+c.index) || !strings.Contains(text, "Index Cond: ((tenant = ") ||
			strings.Contains(text, "Sort") {
			t.Errorf("the plan of\n%s\nis\n%s\nwant an index scan of %s's range for the tenant, in order", c.query, text, c.index)
		}
	}
}

// TestCountOccurrencesReadsTheWindow: counting an error's occurrences in
// a window (an ignore condition, an alert rule) looks the record's seq up
// through the records' unique index, then reads that window's range of
// occurrences_by_record, once the planner knows the table is large. So do
// a record's pages of occurrences (their sizes, then their documents, in
// the page's order: no sort) and Expire's deletes of an expired record's
// occurrences and their deliveries; each of its other deletes reads its
// own index. Since migration 0025 the occurrences are found by the
// record's seq, not its error ID (a hash), so that a new record's go at
// the end of the index.
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
	// Other tenants' records and occurrences make the tables as large as
	// a store's are, where a scan costs more than the ranges.
	if _, err := conn.Exec(t.Context(), `
		INSERT INTO records (tenant, error_id, query_id, agent_id, error_type, severity, first_seen, last_seen, occurrence_count)
		SELECT 't' || (i % 10), 'x' || i, 'q', 'agent', 'query_error', 'low', 0, 0, 10 FROM generate_series(1, 5000) AS i;
		INSERT INTO occurrences (tenant, delivery_key, error_id, record_seq, query_id, agent_id, error_type, severity,
			next_action, attempt, reported_at, received_at, xid)
		SELECT r.tenant, r.error_id || '@' || j, r.error_id, r.seq, 'q', 'agent', 'query_error', 'low', 'resume', 1, j, j, NULL
		FROM records AS r, generate_series(1, 10) AS j WHERE r.tenant <> 'a';
		INSERT INTO deliveries (tenant, delivery_key, claimed_at, occurrence_id)
		SELECT tenant, delivery_key, 0, id FROM occurrences WHERE tenant <> 'a';
		ANALYZE occurrences; ANALYZE records; ANALYZE deliveries`); err != nil {
		t.Fatal(err)
	}
	byRecord := func(text string) bool {
		return (strings.Contains(text, "on occurrences_by_record") || strings.Contains(text, "using occurrences_by_record")) &&
			strings.Contains(text, "record_seq = ") && !strings.Contains(text, "Seq Scan")
	}
	text := explainPG(t, conn, sqlstore.CountOccurrencesSQL, "a", "e1", 0, 10)
	if !byRecord(text) || !strings.Contains(text, "(received_at >= ") || !strings.Contains(text, "records_tenant_error_id_key") {
		t.Errorf("the plan of\n%s\nis\n%s\nwant the record's seq by its error ID, then a scan of occurrences_by_record's range for the record and the window",
			sqlstore.CountOccurrencesSQL, text)
	}
	var seq int64
	if err := conn.QueryRow(t.Context(), `SELECT seq FROM records WHERE tenant = 'a' AND error_id = 'e1'`).Scan(&seq); err != nil {
		t.Fatal(err)
	}
	page, _, err := a.Occurrences(t.Context(), "e1", store.OccurrenceFilter{Limit: 3})
	if err != nil || page.Next == "" {
		t.Fatalf("no second page: %+v, %v", page, err)
	}
	for _, cursor := range []string{"", page.Next} {
		sizes, docs, args, err := sqlstore.OccurrencePageSQL("a", seq, 3, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct {
			query string
			args  []any
		}{{sizes, args}, {docs, append(slices.Clone(args), int64(1), int64(1))}} {
			if text := explainPG(t, conn, q.query, q.args...); !byRecord(text) || strings.Contains(text, "Sort") {
				t.Errorf("the plan of\n%s\nis\n%s\nwant the record's range of occurrences_by_record, in order (no sort)", q.query, text)
			}
		}
	}
	for i, want := range []string{"occurrences_by_record", "occurrences_by_record", "record_transitions", "river_job_by_error", "record_counts_pkey"} {
		del := sqlstore.ExpireRecordSQL[i]
		var key any = "e1"
		if del.BySeq {
			key = seq
		}
		if text := explainPG(t, conn, del.Query, "a", key); !strings.Contains(text, want) || strings.Contains(text, "Seq Scan") {
			t.Errorf("the plan of\n%s\nis\n%s\nwant a read of %s and no scan", del.Query, text, want)
		}
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
	text := explainPG(t, conn, query, args...)
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
	text := explainPG(t, conn, sqlstore.CountRunsSQL, "a", "agent1", 0, 100)
	if !strings.Contains(text, "runs_by_agent_start") || !strings.Contains(text, "(started_at >= ") ||
		strings.Contains(text, "Seq Scan") || strings.Contains(text, "Sort") {
		t.Errorf("the plan of\n%s\nis\n%s\nwant a scan of runs_by_agent_start's range for the agent and the window", sqlstore.CountRunsSQL, text)
	}
}

// TestRunTotalsReadTheRange: the overview's totals of runs (GET
// /v1/counts/runs) read the range of runs_by_tenant_start for the tenant,
// the latest first under the LIMIT that bounds them, with no scan of the
// table and no sort before the LIMIT.
func TestRunTotalsReadTheRange(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	s := open(t, dbURL, store.Config{})
	defer s.Close()
	conn := connect(t, dbURL)
	// 20,000 runs of 3 agents, a tenth failed; one in twenty is a's, the
	// others another tenant's, over the same time.
	if _, err := conn.Exec(t.Context(), `INSERT INTO runs (tenant, run_id, thread_id, agent_id, outcome, started_at, finished_at, answer_bytes, code)
		SELECT CASE WHEN i % 20 = 0 THEN 'a' ELSE 'b' END, 'r' || i, 'th', 'agent' || (i % 3),
			CASE WHEN i % 10 = 0 THEN 'failed' ELSE 'finished' END, i * 1000, i * 1000 + 1, 0,
			CASE WHEN i % 10 = 0 THEN 'TIMEOUT' END
		FROM generate_series(1, 20000) AS i`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(t.Context(), "ANALYZE runs"); err != nil {
		t.Fatal(err)
	}
	text := explainPG(t, conn, sqlstore.RunTotalsSQL, "a", 0, 30_000_000, 100)
	limit := strings.Index(text, "Limit")
	if !strings.Contains(text, "runs_by_tenant_start") || strings.Contains(text, "Seq Scan") || limit < 0 ||
		strings.Contains(text[limit:], "Sort") {
		t.Errorf("the plan of\n%s\nis\n%s\nwant the tenant's range of runs_by_tenant_start under the Limit, no sort there", sqlstore.RunTotalsSQL, text)
	}
}

// TestRecordListsUseTheirIndexes: once the planner knows a tenant has many
// records, each sort of GET /v1/errors walks its index in its order (no
// sort step), and a search for a rare word reads the GIN index of the
// records' words; a series by agent reads the range's hours of
// record_counts_by_hour, a record's its range of the primary key, and
// Expire's delete of old counts each tenant's range of the former.
func TestRecordListsUseTheirIndexes(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	s := open(t, dbURL, store.Config{})
	defer s.Close()
	// 30,000 records of two tenants, a tenth busy's, one of them with a rare word, each
	// seen in the last hours, and their hourly counts.
	conn := connect(t, dbURL)
	if _, err := conn.Exec(t.Context(), `INSERT INTO records (tenant, error_id, query_id, agent_id, error_type, severity,
			first_seen, last_seen, occurrence_count, code, title)
		SELECT CASE WHEN i % 10 = 0 THEN 'busy' ELSE 'other' END, 'e' || i, 'q', 'agent' || (i % 10), 'query_error', 'low',
			$1::bigint - i::bigint * 1000000000, $1::bigint - i::bigint * 1000000000, 1 + i % 7, 'DB_TIMEOUT',
			CASE WHEN i = 80 THEN 'SCHEMA_DRIFT: column zanzibar is missing' ELSE 'DB_TIMEOUT: query timed out' END
		FROM generate_series(1, 30000) AS i`, time.Now().UnixNano()); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(t.Context(), countRecordsSQL); err != nil {
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
	explain := func(query string, args []any) string { t.Helper(); return explainPG(t, conn, query, args...) }
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
	// The totals by record sum the range by seq, then look each record up
	// by its key (record_counts is keyed by seq since migration 0023), not
	// every record of the table.
	first, hours, n, err := store.CountFilter{}.Range(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	top, topArgs, _, err := sqlstore.CountsSQL("busy", store.CountFilter{}, first, hours, n)
	if err != nil {
		t.Fatal(err)
	}
	if plan := explain(top, topArgs); !strings.Contains(plan, "record_counts_by_hour") || !strings.Contains(plan, "Index Cond: (seq = c.seq)") ||
		strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "Hash Join") {
		t.Errorf("the plan of the totals by record is\n%s\nwant the range of record_counts_by_hour, each record by its key", plan)
	}
	// Expire deletes the old hours of each tenant's range of
	// record_counts_by_hour (migration 0020 dropped the index on the hour;
	// since 0023 the tenants go as an array: joined, the planner read the
	// whole primary key).
	if plan := explain(sqlstore.ExpireCountsAnySQL, []any{time.Now().UnixNano()}); !strings.Contains(plan, "record_counts_by_hour") ||
		strings.Contains(plan, "Seq Scan on record_counts") {
		t.Errorf("the plan of Expire's counts is\n%s\nwant each tenant's range of record_counts_by_hour", plan)
	}
}

// countRecordsSQL counts the records a test inserted into their hours, as
// the statements that count an occurrence into a record do
// (countHourSQL; the trigger did before migration 0028).
const countRecordsSQL = `INSERT INTO record_counts (tenant, seq, hour, agent_id, code, n)
	SELECT tenant, seq, last_seen / 3600000000000, agent_id, code, occurrence_count FROM records`

// explainPG is the plan of query with args, a line a step, trimmed.
func explainPG(t *testing.T, conn *pgx.Conn, query string, args ...any) string {
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

// TestQueryListReadsItsRange: GET /v1/errors?query_id reads that query's
// range of records_by_query in every sort, before and after ANALYZE (this
// project's PostgreSQL runs with autovacuum off), rather than walk the
// sort's index through the tenant's records as SQLite did without its
// INDEXED BY (Dialect.ByQuery).
func TestQueryListReadsItsRange(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	s := open(t, dbURL, store.Config{})
	defer s.Close()
	conn := connect(t, dbURL)
	if _, err := conn.Exec(t.Context(), `INSERT INTO records (tenant, error_id, query_id, agent_id, error_type, severity,
			first_seen, last_seen, occurrence_count, code, title)
		SELECT 'busy', 'e' || i, 'q_' || i, 'query_engine', 'query_error', 'low',
			$1::bigint - i::bigint * 1000000000, $1::bigint - i::bigint * 1000000000, 1 + i % 7, 'DB_TIMEOUT', 'DB_TIMEOUT: query timed out'
		FROM generate_series(1, 4000) AS i`, time.Now().UnixNano()); err != nil {
		t.Fatal(err)
	}
	d := sqlstore.Dialect{FullText: sqlstore.TSVector}
	for _, analyzed := range []bool{false, true} {
		if analyzed {
			if _, err := conn.Exec(t.Context(), "ANALYZE records"); err != nil {
				t.Fatal(err)
			}
		}
		for _, sort := range []string{"", store.SortFirstSeen, store.SortCount} {
			f := store.Filter{QueryID: "q_17", Sort: sort}
			query, args, err := sqlstore.ErrorRecordsSQL(d, time.Now(), "busy", f)
			if err != nil {
				t.Fatal(err)
			}
			if plan := explainPG(t, conn, query, args...); !strings.Contains(plan, "using records_by_query on records r") {
				t.Errorf("analyzed %v: the plan of %+v is\n%s\nwant records_by_query's range", analyzed, f, plan)
			}
		}
	}
}

// TestForgettingReadsItsRange: the one-statement writes forget a key's
// failures before the window through history_by_key's range in the
// generic plan of a prepared statement (pgx prepares each statement once
// per connection; PostgreSQL may turn to the generic plan after five
// runs), not a scan of every key's failures: with "at < $4" alone the
// generic plan estimated a third of the rows and read the whole table at
// every report.
func TestForgettingReadsItsRange(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	s := open(t, dbURL, store.Config{})
	defer s.Close()
	conn := connect(t, dbURL)
	now := time.Now().UnixNano()
	// One agent failing often, every failure in the window (loadbench's
	// reports).
	if _, err := conn.Exec(t.Context(), `
		INSERT INTO history (tenant, agent, code, at)
		SELECT 'default', 'busy', 'DB_TIMEOUT', $1::bigint - i::bigint * 1000000
		FROM generate_series(1, 4000) AS i`, now); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(t.Context(), `ANALYZE history`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(t.Context(), `SET plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(t.Context(), `PREPARE forget (text, text, text, bigint) AS
		DELETE FROM history WHERE tenant = $1 AND agent = $2 AND code = $3 AND `+sqlstore.ForgottenFailures+`$4`); err != nil {
		t.Fatal(err)
	}
	plan := explainPG(t, conn, fmt.Sprintf(`EXECUTE forget('default', 'busy', 'DB_TIMEOUT', %d)`, now-int64(15*time.Minute)))
	if !strings.Contains(plan, "history_by_key") || strings.Contains(plan, "Seq Scan") {
		t.Errorf("the generic plan of forgetting is\n%s\nwant a range of history_by_key", plan)
	}
}
