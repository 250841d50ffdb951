package sqlite

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// BenchmarkRunTotals: the overview's totals (GET /v1/counts/runs) over a
// week of one tenant's runs, 200,000 of them among another tenant's
// 200,000, 20 agents, one in ten failed with one of 5 codes: the count
// reads the latest 20,000 (store.MaxRunsTotalled) and says so. Run by
// hand: go test ./store/sqlite -run '^$' -bench RunTotals.
func BenchmarkRunTotals(b *testing.B) {
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	week := now.Add(-7 * 24 * time.Hour).UnixNano()
	step := int64(7*24*time.Hour) / 400_000
	if _, err := s.write.ExecContext(b.Context(), `
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400000)
		INSERT INTO runs (tenant, run_id, thread_id, agent_id, outcome, started_at, finished_at, answer_bytes, code, fault)
		SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END, 'r' || i, 't', 'agent' || ((i / 2) % 20),
			CASE WHEN (i / 2) % 10 = 0 THEN 'failed' ELSE 'finished' END, ? + i * ?, ? + i * ? + 1000, 0,
			CASE WHEN (i / 2) % 10 = 0 THEN 'CODE_' || ((i / 20) % 5) END,
			CASE WHEN (i / 2) % 10 = 0 THEN '{"code":"CODE_' || ((i / 20) % 5) || '","message":"m"}' END
		FROM n`, week, step, week, step); err != nil {
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
