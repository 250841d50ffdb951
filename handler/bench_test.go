package handler

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/internal/testkit/cputime"
	"github.com/triage-go/triage/memory"
)

// scenarios are the reports BenchmarkHandle and BenchmarkPlainJSON read:
// the CLI's test reports, one per scenario of seed 004's table.
var scenarios = []string{"db_timeout", "ambiguous_input", "schema_synonym", "chart_incompatible", "service_outage"}

// scenario is one report for the benchmarks, its query id split out: a
// new report is head, a number, tail.
type scenario struct {
	head, tail []byte
}

func readScenario(b *testing.B, name string) scenario {
	raw, err := os.ReadFile(filepath.Join("..", "cmd", "triage", "internal", "cli", "testdata", "handle", name+".json"))
	if err != nil {
		b.Fatal(err)
	}
	i := bytes.Index(raw, []byte(`"query_id": "q_`)) + len(`"query_id": "q_`)
	j := i + bytes.IndexByte(raw[i:], '"')
	return scenario{head: raw[:i], tail: raw[j:]}
}

// report appends the scenario's report with query id "q_n" to buf[:0].
func (s scenario) report(buf []byte, n int) []byte {
	return append(strconv.AppendInt(append(buf[:0], s.head...), int64(n), 10), s.tail...)
}

// benchHandler is the handler BenchmarkHandle measures: stores that do not
// grow with b.N, so that the figure is the pipeline's and not the garbage
// collector's work on a test store's history.
func benchHandler(b *testing.B) *Handler {
	syn := &memory.Synonyms{}
	syn.Set("sales", triage.SchemaInfo{Fields: []string{"order_id", "sku_id", "region"}, Synonyms: map[string]string{"product_id": "sku_id"}})
	return newHandler(b, Config{Synonyms: syn, Cache: anyCache{}, Notifier: discard{},
		State: &memory.State{Attempts: memory.Attempts{Max: 1000}, Deliveries: memory.Deliveries{Max: 1000}}})
}

// BenchmarkHandle measures one report through the whole pipeline, from
// its JSON to the feedback: decode, validate, fingerprint, classify,
// analyze, decide, act and write the message in parallel, format, count.
// Each iteration reports a new query (so none is a duplicate and every one
// is a first attempt), with the in-memory stores, no logger and the no-op
// tracer. BenchmarkPlainJSON is its floor.
func BenchmarkHandle(b *testing.B) {
	for _, name := range scenarios {
		s := readScenario(b, name)
		b.Run(name, func(b *testing.B) {
			h := benchHandler(b)
			buf := make([]byte, 0, len(s.head)+len(s.tail)+16)
			ctx := context.Background()
			b.ReportAllocs()
			c0 := cputime.Process()
			for n := 0; b.Loop(); n++ {
				buf = s.report(buf, n)
				if _, err := h.Handle(ctx, buf); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, c0)
		})
	}
	b.Run("duplicate", func(b *testing.B) {
		h := newHandler(b, Config{})
		raw := []byte(validReport)
		if _, err := h.Handle(context.Background(), raw); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		c0 := cputime.Process()
		for b.Loop() {
			if fb, err := h.Handle(context.Background(), raw); err != nil || !fb.Duplicate {
				b.Fatal(err)
			}
		}
		reportCPU(b, c0)
	})
	b.Run("invalid", func(b *testing.B) {
		h := newHandler(b, Config{})
		raw := bytes.Replace([]byte(validReport), []byte(`"query_error"`), []byte(`"db_error"`), 1)
		b.ReportAllocs()
		c0 := cputime.Process()
		for b.Loop() {
			if _, err := h.Handle(context.Background(), raw); err == nil {
				b.Fatal("accepted")
			}
		}
		reportCPU(b, c0)
	})
}

// BenchmarkPlainJSON is BenchmarkHandle's floor, what the ratio is
// taken against: for the same reports, encoding/json decoding each into a
// triage.Report and encoding the feedback the handler gives for it (as
// cmd/loadbench's bare handler does), and nothing else.
func BenchmarkPlainJSON(b *testing.B) {
	for _, name := range scenarios {
		s := readScenario(b, name)
		b.Run(name, func(b *testing.B) {
			fb, err := benchHandler(b).Handle(context.Background(), s.report(nil, 0))
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 0, len(s.head)+len(s.tail)+16)
			b.ReportAllocs()
			c0 := cputime.Process()
			for n := 0; b.Loop(); n++ {
				buf = s.report(buf, n)
				var r triage.Report
				if err := json.Unmarshal(buf, &r); err != nil {
					b.Fatal(err)
				}
				out := *fb
				out.QueryID, out.Timestamp, out.Context = r.Data.QueryID, r.Timestamp, r.Data.Context
				if _, err := json.Marshal(&out); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, c0)
		})
	}
}

// reportCPU reports the process's CPU time per iteration since c0, the
// garbage collector's included: on this shared machine, where other
// processes take the cores for milliseconds at a time, it moves far less
// than the wall time per iteration, and the ratio of two benchmarks' CPU
// times is the figure to compare.
func reportCPU(b *testing.B, c0 time.Duration) {
	if b.N > 0 {
		b.ReportMetric(float64(cputime.Process()-c0)/float64(b.N), "cpu-ns/op")
	}
}

// anyCache has a result for every query, an hour old.
type anyCache struct{}

func (anyCache) Get(context.Context, string) (triage.CachedResult, bool, error) {
	return triage.CachedResult{StoredAt: now.Add(-time.Hour), Summary: "sales by month"}, true, nil
}

// discard takes escalations and retries and keeps nothing.
type discard struct{}

func (discard) Notify(context.Context, triage.Escalation) error { return nil }
