package handler

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
)

func cause(t *testing.T, r *Report, syn Synonyms, recent int) RootCause {
	t.Helper()
	f := reportFault(r)
	rc, err := analyze(context.Background(), analysis{report: r, class: classify(r, f, nil), fault: f, synonyms: syn, recent: recent})
	if err != nil {
		t.Fatal(err)
	}
	if rc.Confidence <= 0 || rc.Confidence > 1 || len(rc.Evidence) == 0 {
		t.Fatalf("root cause without confidence or evidence: %+v", rc)
	}
	return rc
}

func withContext(r *Report, c map[string]any) *Report { r.Data.Context = c; return r }

func TestAnalyzeScope(t *testing.T) {
	heavyRange := withContext(report("query_engine", QueryError, "DB_TIMEOUT", "timed out"),
		map[string]any{"date_range": map[string]any{"start": "2015-01-01", "end": "2025-08-01"}})
	rc := cause(t, heavyRange, nil, 1)
	if rc.Cause != CauseScope || !slices.ContainsFunc(rc.Evidence, func(e string) bool { return strings.Contains(e, "days") }) {
		t.Errorf("a ten-year range: %+v", rc)
	}
	manyRows := withContext(report("query_engine", QueryError, "QUERY_TIMEOUT", "timed out"), map[string]any{"row_count": 48_000_000})
	if rc := cause(t, manyRows, nil, 1); rc.Cause != CauseScope || !slices.ContainsFunc(rc.Evidence, func(e string) bool { return strings.Contains(e, "48,000,000") }) {
		t.Errorf("48M rows: %+v", rc)
	}
	// A timeout over a small query is not a scope problem: it is transient
	// the first time, persistent after repeated failures.
	small := withContext(report("query_engine", QueryError, "DB_TIMEOUT", "timed out"), map[string]any{"row_count": 1200})
	if rc := cause(t, small, nil, 1); rc.Cause != CauseTransient {
		t.Errorf("a small query's first timeout: %+v", rc)
	}
	if rc := cause(t, small, nil, persistentFailures); rc.Cause != CausePersistent {
		t.Errorf("a small query's third timeout in the window: %+v", rc)
	}
}

func TestAnalyzeSchema(t *testing.T) {
	syn := &MemorySynonyms{}
	syn.Set("sales", SchemaInfo{Fields: []string{"sku_id", "region"}, Synonyms: map[string]string{"product_id": "sku_id"}})
	drift := withContext(report("query_engine", SchemaError, "FIELD_NOT_FOUND", "m"), map[string]any{"field": "product_id", "source": "sales"})
	if rc := cause(t, drift, syn, 1); rc.Cause != CauseSchemaDrift {
		t.Errorf("a renamed field: %+v", rc)
	}
	missing := withContext(report("query_engine", SchemaError, "FIELD_NOT_FOUND", "m"), map[string]any{"field": "discount", "source": "sales"})
	if rc := cause(t, missing, syn, 1); rc.Cause != CauseMissingField {
		t.Errorf("a missing field: %+v", rc)
	}
	if rc := cause(t, missing, nil, 1); rc.Cause != CauseMissingField {
		t.Errorf("no inventory: %+v", rc)
	}
	// A failing inventory fails the analysis: the handler reports it, it
	// does not guess.
	_, err := analyze(context.Background(), analysis{report: drift, class: Classification{Type: SchemaError}, fault: reportFault(drift), synonyms: failingSynonyms{}})
	if err == nil {
		t.Error("a failing synonym store was ignored")
	}
}

type failingSynonyms struct{}

func (failingSynonyms) Lookup(context.Context, string, string) (string, bool, error) {
	return "", false, errors.New("inventory down")
}
func (failingSynonyms) Fields(context.Context, string) ([]string, error) {
	return nil, errors.New("inventory down")
}

func TestAnalyzeOther(t *testing.T) {
	cases := []struct {
		r    *Report
		want string
	}{
		{report("viz", ChartError, "INCOMPATIBLE_CHART_TYPE", "m"), CauseChartDataMismatch},
		{report("parser", InputError, "AMBIGUOUS_INPUT", "m"), CauseAmbiguousInput},
		{report("resolver", ValidationError, "INVALID_DATE_RANGE", "m"), CauseInvalidValue},
		{report("any", SystemError, "SERVICE_DOWN", "m"), CauseOutage},
		{report("any", "", "", "upstream answered 503 Service Unavailable"), CauseOutage},
		{report("any", SystemError, "OUT_OF_MEMORY", "m"), CauseUnknown},
	}
	for _, c := range cases {
		if rc := cause(t, c.r, nil, 1); rc.Cause != c.want {
			t.Errorf("%s %s: %+v, want %s", c.r.Data.ErrorCode, c.r.Data.Message, rc, c.want)
		}
	}
	// A provider outage reported with a fault.
	r := report("llm_agent", Unknown, "", "LLM call failed")
	r.Data.Fault = fault.New(fault.ServiceUnavailable, "")
	if rc := cause(t, r, nil, 4); rc.Cause != CauseOutage || len(rc.Evidence) != 2 {
		t.Errorf("a provider outage, fourth in the window: %+v", rc)
	}
}

func TestMemoryHistoryWindow(t *testing.T) {
	var h MemoryHistory
	ctx := context.Background()
	at := time.Date(2025, 8, 8, 12, 0, 0, 0, time.UTC)
	for i, want := range []int{1, 2, 3} {
		if n, _ := h.Record(ctx, "a", "X", at.Add(time.Duration(i)*time.Minute), persistentWindow); n != want {
			t.Fatalf("record %d: %d in window", i, n)
		}
	}
	if n, _ := h.Record(ctx, "a", "X", at.Add(20*time.Minute), persistentWindow); n != 1 {
		t.Errorf("after the window: %d", n)
	}
	if n, _ := h.Record(ctx, "b", "X", at, persistentWindow); n != 1 {
		t.Errorf("another agent: %d", n)
	}
	// A report that arrives late counts the failures in the window before
	// it, not those after.
	var late MemoryHistory
	for _, m := range []time.Duration{0, time.Minute, 2 * time.Minute} {
		late.Record(ctx, "a", "X", at.Add(m), persistentWindow)
	}
	if n, _ := late.Record(ctx, "a", "X", at.Add(90*time.Second), persistentWindow); n != 3 {
		t.Errorf("a late report: %d in window, want 3 (0:00, 1:00, 1:30)", n)
	}
	// A burst keeps at most MaxKept.
	var n int
	for range MaxKept + 50 {
		n, _ = h.Record(ctx, "c", "X", at, persistentWindow)
	}
	if n != MaxKept || len(h.events["c\x00X"]) != MaxKept {
		t.Errorf("a burst: counted %d, kept %d", n, len(h.events["c\x00X"]))
	}
}

func TestMemoryStoresBounded(t *testing.T) {
	ctx := context.Background()
	a := &MemoryAttempts{Max: 2}
	for _, k := range []string{"a", "a", "b", "c"} {
		a.Next(ctx, k)
	}
	// "a" was the oldest key and is forgotten; "b" is kept.
	if n, _ := a.Next(ctx, "a"); n != 1 {
		t.Errorf("a forgotten key counts from %d", n)
	}
	if n, _ := a.Next(ctx, "c"); n != 2 {
		t.Errorf("a kept key: %d", n)
	}
	d := &MemoryDeliveries{Max: 2}
	for _, k := range []string{"x", "y", "z"} {
		if _, first, _ := d.Claim(ctx, k); !first {
			t.Fatalf("%s claimed twice", k)
		}
		d.Complete(ctx, k, &Feedback{ErrorID: k})
	}
	if _, first, _ := d.Claim(ctx, "x"); !first {
		t.Error("the oldest delivery is still remembered")
	}
	if fb, first, _ := d.Claim(ctx, "z"); first || fb.ErrorID != "z" {
		t.Errorf("the newest delivery: %v, %v", fb, first)
	}
	if len(d.seen.m) > 2 || len(d.seen.order) > 2 {
		t.Errorf("kept %d entries, %d keys in order", len(d.seen.m), len(d.seen.order))
	}
}
