package postgres_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
)

// BenchmarkFind is the SQLite store's BenchmarkFind on PostgreSQL: the
// reads of a listing on a tenant of 100k records (20 agents, 50 codes,
// three words of a 500-word vocabulary per title, each seen in one of the
// last 720 hours), inserted in one statement before the timer starts (and
// counted into their hours), then ANALYZE. Each reports its p99 and p50.
//
//	TRIAGE_TEST_POSTGRES=… go test ./store/postgres -run '^$' -bench BenchmarkFind -benchtime 50x
func BenchmarkFind(b *testing.B) {
	dbURL := pgtest.FreshSchema(b)
	s := open(b, dbURL, store.Config{})
	defer s.Close()
	const records = 100_000
	conn := connect(b, dbURL)
	hour := int64(time.Hour)
	if _, err := conn.Exec(b.Context(), `INSERT INTO records (tenant, error_id, query_id, agent_id, error_type, severity,
			first_seen, last_seen, occurrence_count, code, title)
		SELECT 'default', 'err_' || i, 'q_' || (i % 1000), 'agent' || (i % 20), 'query_error', 'medium',
			$1::bigint - (i % 720) * $2::bigint, $1::bigint - (i % 720) * $2::bigint, 1, 'CODE_' || (i % 50),
			'CODE_' || (i % 50) || ': w' || lpad(((i * 7) % 500)::text, 3, '0') || 'x w' || lpad(((i * 13) % 500)::text, 3, '0') ||
			'x w' || lpad(((i * 31) % 500)::text, 3, '0') || 'x failed'
		FROM generate_series(1, $3::bigint) AS i`, time.Now().UnixNano(), hour, records); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(b.Context(), countRecordsSQL); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(b.Context(), "ANALYZE records; ANALYZE record_counts"); err != nil {
		b.Fatal(err)
	}
	t := s.Tenant("default")
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string { return fmt.Sprintf("w%03dx", r.IntN(500)) }
	for _, c := range []struct {
		name string
		read func() error
	}{
		{"search_word", func() error {
			_, err := t.ErrorRecords(b.Context(), store.Filter{Search: word()})
			return err
		}},
		{"search_two_words", func() error {
			_, err := t.ErrorRecords(b.Context(), store.Filter{Search: word() + " " + word()})
			return err
		}},
		{"search_agent_prefix", func() error {
			_, err := t.ErrorRecords(b.Context(), store.Filter{Search: fmt.Sprint("agent", r.IntN(20))[:6]})
			return err
		}},
		{"list_last_seen", func() error {
			_, err := t.ErrorRecords(b.Context(), store.Filter{})
			return err
		}},
		{"list_count_24h", func() error {
			_, err := t.ErrorRecords(b.Context(), store.Filter{Sort: store.SortCount, Window: 24 * time.Hour})
			return err
		}},
		{"counts_by_agent_24h", func() error {
			_, err := t.Counts(b.Context(), store.CountFilter{By: store.CountByAgent})
			return err
		}},
		{"counts_by_code_30d", func() error {
			_, err := t.Counts(b.Context(), store.CountFilter{By: store.CountByCode, Bucket: 24 * time.Hour})
			return err
		}},
		{"counts_page_of_50_24h", func() error {
			ids := make([]string, 50)
			for i := range ids {
				ids[i] = fmt.Sprint("err_", 1+r.IntN(records))
			}
			_, err := t.Counts(b.Context(), store.CountFilter{ErrorIDs: ids, Limit: 50})
			return err
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			took := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				if err := c.read(); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
		})
	}
}
