package postgres_test

import (
	"testing"
	"time"

	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
)

// BenchmarkRunTotals is the SQLite store's BenchmarkRunTotals on
// PostgreSQL: a week of 400,000 runs of two tenants, 20 agents, one in
// ten failed with one of 5 codes; a count reads the latest
// store.MaxRunsTotalled of one tenant's.
//
//	TRIAGE_TEST_POSTGRES=… go test ./store/postgres -run '^$' -bench RunTotals -benchtime 20x
func BenchmarkRunTotals(b *testing.B) {
	dbURL := pgtest.FreshSchema(b)
	s := open(b, dbURL, store.Config{})
	defer s.Close()
	conn := connect(b, dbURL)
	now := time.Now()
	week := now.Add(-7 * 24 * time.Hour).UnixNano()
	step := int64(7*24*time.Hour) / 400_000
	if _, err := conn.Exec(b.Context(), `INSERT INTO runs (tenant, run_id, thread_id, agent_id, outcome, started_at, finished_at, answer_bytes, code, fault)
		SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END, 'r' || i, 't', 'agent' || ((i / 2) % 20),
			CASE WHEN (i / 2) % 10 = 0 THEN 'failed' ELSE 'finished' END, $1::bigint + i * $2::bigint, $1::bigint + i * $2::bigint + 1000, 0,
			CASE WHEN (i / 2) % 10 = 0 THEN 'CODE_' || ((i / 20) % 5) END,
			CASE WHEN (i / 2) % 10 = 0 THEN ('{"code":"CODE_' || ((i / 20) % 5) || '","message":"m"}')::jsonb END
		FROM generate_series(1, 400000) AS i`, week, step); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(b.Context(), "ANALYZE runs"); err != nil {
		b.Fatal(err)
	}
	tn := s.Tenant("a")
	b.ResetTimer()
	for b.Loop() {
		c, err := tn.RunTotals(b.Context(), store.RunTotalsFilter{Since: now.Add(-8 * 24 * time.Hour), Until: now})
		if err != nil || !c.Capped || c.Runs != store.MaxRunsTotalled || len(c.Agents) != 20 || len(c.Codes) != 5 {
			b.Fatalf("%+v %v", c, err)
		}
	}
}
