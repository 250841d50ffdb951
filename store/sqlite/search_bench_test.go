package sqlite

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// BenchmarkFind measures the reads of a listing on a tenant of 100k
// records (written through SaveOccurrence before the timer starts, so the
// triggers fill records_fts and record_counts; about a minute): a search
// for a word of a few hundred records' titles, the first page with its
// total of each sort, and the series of counts. Each reports its p99 (and
// p50) besides the mean.
//
//	go test ./store/sqlite -run '^$' -bench BenchmarkFind -benchtime 50x
func BenchmarkFind(b *testing.B) {
	const records = 100_000
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			t := s.Tenant("default")
			for i := next.Add(1); i <= records; i = next.Add(1) {
				if _, err := t.SaveOccurrence(b.Context(), findOccurrence(i, now)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	t := s.Tenant("default")
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name string
		read func() error
	}{
		{"search_word", func() error { // a word of ~600 titles
			_, err := t.ErrorRecords(b.Context(), store.Filter{Search: word(r.IntN(len(words)))})
			return err
		}},
		{"search_two_words", func() error {
			_, err := t.ErrorRecords(b.Context(), store.Filter{Search: word(r.IntN(len(words))) + " " + word(r.IntN(len(words)))})
			return err
		}},
		{"search_agent_prefix", func() error { // a prefix of an agent: 5k records
			_, err := t.ErrorRecords(b.Context(), store.Filter{Search: fmt.Sprint("agent", r.IntN(20))[:6]})
			return err
		}},
		{"list_last_seen", func() error {
			_, err := t.ErrorRecords(b.Context(), store.Filter{})
			return err
		}},
		{"list_release", func() error { // a release of 1k records, first or last seen in it
			_, err := t.ErrorRecords(b.Context(), store.Filter{Release: fmt.Sprint("1.", r.IntN(100))})
			return err
		}},
		{"list_environment_release", func() error { // 1 record in 3 of those
			_, err := t.ErrorRecords(b.Context(), store.Filter{Environment: "staging", Release: fmt.Sprint("1.", r.IntN(100))})
			return err
		}},
		{"list_count", func() error {
			_, err := t.ErrorRecords(b.Context(), store.Filter{Sort: store.SortCount})
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
		{"record_counts_30d", func() error {
			_, _, err := t.RecordCounts(b.Context(), fmt.Sprint("err_", 1+r.IntN(records)), store.CountFilter{Bucket: 24 * time.Hour})
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

// words are the vocabulary of the titles: 500 words, each in about 600
// of 100k titles (three words each).
var words = func() []string {
	w := make([]string, 500)
	for i := range w {
		w[i] = fmt.Sprintf("w%03dx", i)
	}
	return w
}()

func word(i int) string { return words[i] }

// findOccurrence is record i's one occurrence: one of 20 agents and 50
// codes, three words of the vocabulary, one of 100 releases and 3
// environments, seen in one of the last 720 hours.
func findOccurrence(i int64, now time.Time) store.Occurrence {
	code := fmt.Sprintf("CODE_%d", i%50)
	title := fmt.Sprintf("%s: %s %s %s failed", code, word(int(i*7%500)), word(int(i*13%500)), word(int(i*31%500)))
	at := now.Add(-time.Duration(i%720) * time.Hour)
	return store.Occurrence{ErrorID: fmt.Sprint("err_", i), QueryID: fmt.Sprint("q_", i%1000), AgentID: fmt.Sprint("agent", i%20),
		ErrorType: "query_error", Severity: "medium", NextAction: "resume", Attempt: 1, ReportedAt: at, ReceivedAt: at,
		Code: code, Title: title, Release: fmt.Sprint("1.", i%100), Environment: []string{"prod", "staging", "dev"}[i%3]}
}
