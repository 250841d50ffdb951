package cli_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/triage-go/triage/internal/testkit/pgtest"
)

// TestServeNoRetryJobWithoutCallback (issue 28, "no work that can only
// fail"): `triage serve` enqueues no retry job for a report whose agent
// has no callback URL (the feedback says the caller retries), so a fill
// leaves nothing queued; once the agent has one, its next report's retry
// is one job in the store. The jobs are counted in River's table itself,
// every kind and state.
func TestServeNoRetryJobWithoutCallback(t *testing.T) {
	db := filepath.Join(t.TempDir(), "triage.db")
	serveRetryJobs(t, db, func() map[string]int {
		conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro&_pragma=busy_timeout(10000)")
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		rows, err := conn.Query(`SELECT kind, count(*) FROM river_job GROUP BY kind`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := map[string]int{}
		for rows.Next() {
			var kind string
			var c int
			if err := rows.Scan(&kind, &c); err != nil {
				t.Fatal(err)
			}
			n[kind] = c
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return n
	})
}

// TestServeNoRetryJobWithoutCallbackPostgres is the same on PostgreSQL.
func TestServeNoRetryJobWithoutCallbackPostgres(t *testing.T) {
	db := pgtest.FreshSchema(t)
	serveRetryJobs(t, db, func() map[string]int {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		rows, err := conn.Query(ctx, `SELECT kind, count(*)::int FROM river_job GROUP BY kind`)
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		var kind string
		var c int
		if _, err := pgx.ForEachRow(rows, []any{&kind, &c}, func() error { n[kind] = c; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	})
}

func serveRetryJobs(t *testing.T, db string, jobs func() map[string]int) {
	t.Setenv("TRIAGE_API_KEYS", "")
	svc := startServe(t, "--db", db)
	post := func(i int) reply {
		t.Helper()
		// loadbench's report: a timeout of its own query, whose feedback
		// plans a retry.
		r := call(t, "POST", svc.base+"/v1/errors", fmt.Appendf(nil, `{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:05Z","status":"error","data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s","context":{"metric":"sales"},"query_id":"q_jobs_%d"}}`, i))
		if r.status != 201 {
			t.Fatalf("POST %d: %d %s", i, r.status, r.body)
		}
		return r
	}
	const n = 50
	for i := range n {
		r := post(i)
		if plan, _ := r.field(t, "retry").(map[string]any); plan["by"] != "caller" || plan["attempt"] != 2.0 {
			t.Fatalf("report %d without a callback URL: retry %v", i, plan)
		}
	}
	if got := jobs(); len(got) != 0 {
		t.Errorf("after %d reports of an agent without a callback URL the store holds jobs %v, want none", n, got)
	}

	agent := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer agent.Close()
	if r := call(t, "PUT", svc.base+"/v1/agents/query_engine", []byte(`{"callback_url":"`+agent.URL+`/retry"}`)); r.status != 200 {
		t.Fatalf("PUT agent: %d %s", r.status, r.body)
	}
	r := post(n)
	if plan, _ := r.field(t, "retry").(map[string]any); plan["by"] != "callback" {
		t.Fatalf("with a callback URL: retry %v", plan)
	}
	if got := jobs(); len(got) != 1 || got["retry"] != 1 {
		t.Errorf("with a callback URL, one report: jobs %v, want one retry", got)
	}
}
