package handler

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/memory"
)

// BenchmarkHandle measures one report through the whole pipeline, from
// its JSON to the feedback: decode, validate, fingerprint, classify,
// analyze, decide, act and write the message in parallel, format, count.
// Each iteration reports a new query (so none is a duplicate and every one
// is a first attempt), with the in-memory stores, no logger and the no-op
// tracer.
func BenchmarkHandle(b *testing.B) {
	for _, name := range []string{"db_timeout", "ambiguous_input", "schema_synonym", "chart_incompatible", "service_outage"} {
		raw, err := os.ReadFile(filepath.Join("..", "cmd", "triage", "internal", "cli", "testdata", "handle", name+".json"))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			syn := &memory.Synonyms{}
			syn.Set("sales", triage.SchemaInfo{Fields: []string{"order_id", "sku_id", "region"}, Synonyms: map[string]string{"product_id": "sku_id"}})
			// Stores that do not grow with b.N, so that the figure is the
			// pipeline's and not the garbage collector's work on a test
			// store's history.
			h := newHandler(b, Config{Synonyms: syn, Cache: anyCache{}, Notifier: discard{},
				State: &memory.State{Attempts: memory.Attempts{Max: 1000}, Deliveries: memory.Deliveries{Max: 1000}}})
			// The query id is the only part that changes: "q_" and a number.
			i := bytes.Index(raw, []byte(`"query_id": "q_`)) + len(`"query_id": "q_`)
			j := i + bytes.IndexByte(raw[i:], '"')
			head, tail := raw[:i], raw[j:]
			buf := make([]byte, 0, len(raw)+16)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for n := 0; b.Loop(); n++ {
				buf = append(strconv.AppendInt(append(buf[:0], head...), int64(n), 10), tail...)
				if _, err := h.Handle(ctx, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("duplicate", func(b *testing.B) {
		h := newHandler(b, Config{})
		raw := []byte(validReport)
		if _, err := h.Handle(context.Background(), raw); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if fb, err := h.Handle(context.Background(), raw); err != nil || !fb.Duplicate {
				b.Fatal(err)
			}
		}
	})
	b.Run("invalid", func(b *testing.B) {
		h := newHandler(b, Config{})
		raw := bytes.Replace([]byte(validReport), []byte(`"query_error"`), []byte(`"db_error"`), 1)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h.Handle(context.Background(), raw); err == nil {
				b.Fatal("accepted")
			}
		}
	})
}

// anyCache has a result for every query, an hour old.
type anyCache struct{}

func (anyCache) Get(context.Context, string) (triage.CachedResult, bool, error) {
	return triage.CachedResult{StoredAt: now.Add(-time.Hour), Summary: "sales by month"}, true, nil
}

// discard takes escalations and retries and keeps nothing.
type discard struct{}

func (discard) Notify(context.Context, triage.Escalation) error { return nil }
