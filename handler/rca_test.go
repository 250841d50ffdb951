package handler

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/classify"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/memory"
)

func cause(t *testing.T, r *triage.Report, syn triage.Synonyms, recent int) triage.RootCause {
	t.Helper()
	f := reportFault(r)
	rc, err := analyze(context.Background(), analysis{report: r, class: defaultClasses.Classify(r, f), fault: f, synonyms: syn, recent: recent})
	if err != nil {
		t.Fatal(err)
	}
	if rc.Confidence <= 0 || rc.Confidence > 1 || len(rc.Evidence) == 0 {
		t.Fatalf("root cause without confidence or evidence: %+v", rc)
	}
	return rc
}

func withContext(r *triage.Report, c map[string]any) *triage.Report { r.Data.Context = c; return r }

func TestAnalyzeScope(t *testing.T) {
	heavyRange := withContext(report("query_engine", triage.QueryError, "DB_TIMEOUT", "timed out"),
		map[string]any{"date_range": map[string]any{"start": "2015-01-01", "end": "2025-08-01"}})
	rc := cause(t, heavyRange, nil, 1)
	if rc.Cause != triage.CauseScope || !slices.ContainsFunc(rc.Evidence, func(e string) bool { return strings.Contains(e, "days") }) {
		t.Errorf("a ten-year range: %+v", rc)
	}
	manyRows := withContext(report("query_engine", triage.QueryError, "QUERY_TIMEOUT", "timed out"), map[string]any{"row_count": 48_000_000})
	if rc := cause(t, manyRows, nil, 1); rc.Cause != triage.CauseScope || !slices.ContainsFunc(rc.Evidence, func(e string) bool { return strings.Contains(e, "48,000,000") }) {
		t.Errorf("48M rows: %+v", rc)
	}
	// The evidence in full: the row count with its thousands separated,
	// the range's days and bounds.
	both := withContext(report("query_engine", triage.QueryError, "DB_TIMEOUT", "timed out"),
		map[string]any{"row_count": "1,234,567.6", "date_range": "2015-01-01T00:00:00Z..2025-08-01"})
	want := []string{"the query timed out", "1,234,568 rows", "a date range of 3865 days (2015-01-01 to 2025-08-01)"}
	if rc := cause(t, both, nil, 1); rc.Cause != triage.CauseScope || !slices.Equal(rc.Evidence, want) {
		t.Errorf("a large query and range: %+v; want the evidence %q", rc, want)
	}
	// A timeout over a small query is not a scope problem: it is transient
	// the first time, persistent after repeated failures.
	small := withContext(report("query_engine", triage.QueryError, "DB_TIMEOUT", "timed out"), map[string]any{"row_count": 1200})
	if rc := cause(t, small, nil, 1); rc.Cause != triage.CauseTransient {
		t.Errorf("a small query's first timeout: %+v", rc)
	}
	if rc := cause(t, small, nil, persistentFailures); rc.Cause != triage.CausePersistent {
		t.Errorf("a small query's third timeout in the window: %+v", rc)
	}
}

func TestAnalyzeSchema(t *testing.T) {
	syn := &memory.Synonyms{}
	syn.Set("sales", triage.SchemaInfo{Fields: []string{"sku_id", "region"}, Synonyms: map[string]string{"product_id": "sku_id"}})
	drift := withContext(report("query_engine", triage.SchemaError, "FIELD_NOT_FOUND", "m"), map[string]any{"field": "product_id", "source": "sales"})
	if rc := cause(t, drift, syn, 1); rc.Cause != triage.CauseSchemaDrift {
		t.Errorf("a renamed field: %+v", rc)
	}
	missing := withContext(report("query_engine", triage.SchemaError, "FIELD_NOT_FOUND", "m"), map[string]any{"field": "discount", "source": "sales"})
	if rc := cause(t, missing, syn, 1); rc.Cause != triage.CauseMissingField {
		t.Errorf("a missing field: %+v", rc)
	}
	if rc := cause(t, missing, nil, 1); rc.Cause != triage.CauseMissingField {
		t.Errorf("no inventory: %+v", rc)
	}
	// A failing inventory fails the analysis: the handler reports it, it
	// does not guess.
	_, err := analyze(context.Background(), analysis{report: drift, class: classify.Result{Type: triage.SchemaError}, fault: reportFault(drift), synonyms: failingSynonyms{}})
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
		r    *triage.Report
		want string
	}{
		{report("viz", triage.ChartError, "INCOMPATIBLE_CHART_TYPE", "m"), triage.CauseChartDataMismatch},
		{report("parser", triage.InputError, "AMBIGUOUS_INPUT", "m"), triage.CauseAmbiguousInput},
		{report("resolver", triage.ValidationError, "INVALID_DATE_RANGE", "m"), triage.CauseInvalidValue},
		{report("any", triage.SystemError, "SERVICE_DOWN", "m"), triage.CauseOutage},
		{report("any", "", "", "upstream answered 503 Service Unavailable"), triage.CauseOutage},
		{report("any", triage.SystemError, "OUT_OF_MEMORY", "m"), triage.CauseUnknown},
	}
	for _, c := range cases {
		if rc := cause(t, c.r, nil, 1); rc.Cause != c.want {
			t.Errorf("%s %s: %+v, want %s", c.r.Data.ErrorCode, c.r.Data.Message, rc, c.want)
		}
	}
	// A provider outage reported with a fault.
	r := report("llm_agent", triage.Unknown, "", "LLM call failed")
	r.Data.Fault = fault.New(fault.ServiceUnavailable, "")
	if rc := cause(t, r, nil, 4); rc.Cause != triage.CauseOutage || len(rc.Evidence) != 2 {
		t.Errorf("a provider outage, fourth in the window: %+v", rc)
	}
}
