package handler

import (
	"context"
	"reflect"
	"testing"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/memory"
)

// recentReports are reports of every class, with and without what settles
// their cause alone: each of analyze's cases.
func recentReports() []*triage.Report {
	provider := report("llm_agent", triage.Unknown, "", "LLM call failed")
	provider.Data.Fault = fault.New(fault.ServiceUnavailable, "")
	return []*triage.Report{
		withContext(report("query_engine", triage.QueryError, "DB_TIMEOUT", "timed out"), map[string]any{"row_count": 48_000_000}),
		withContext(report("query_engine", triage.QueryError, "QUERY_TIMEOUT", "timed out"),
			map[string]any{"date_range": map[string]any{"start": "2015-01-01", "end": "2025-08-01"}}),
		withContext(report("query_engine", triage.QueryError, "DB_TIMEOUT", "timed out"), map[string]any{"row_count": 1200}),
		report("query_engine", triage.QueryError, "SYNTAX_ERROR", "m"),
		withContext(report("query_engine", triage.SchemaError, "FIELD_NOT_FOUND", "m"), map[string]any{"field": "product_id", "source": "sales"}),
		withContext(report("query_engine", triage.SchemaError, "FIELD_NOT_FOUND", "m"), map[string]any{"field": "discount", "source": "sales"}),
		report("viz", triage.ChartError, "INCOMPATIBLE_CHART_TYPE", "m"),
		report("parser", triage.InputError, "AMBIGUOUS_INPUT", "m"),
		report("resolver", triage.ValidationError, "INVALID_DATE_RANGE", "m"),
		report("any", triage.SystemError, "SERVICE_DOWN", "m"),
		report("any", "", "", "upstream answered 503 Service Unavailable"),
		report("any", triage.SystemError, "OUT_OF_MEMORY", "m"),
		report("any", triage.SystemError, "RATE_LIMITED", "m"),
		report("any", "", "", "something odd happened"),
		provider,
	}
}

// TestReadsRecent: where readsRecent says analyze does not read the
// count, analyze settles the same cause for every count (so that a store
// may leave it uncounted, StartRequest.NoRecent); where it says it does,
// the count changes the cause or its evidence (readsRecent spares every
// count it can).
func TestReadsRecent(t *testing.T) {
	syn := &memory.Synonyms{}
	syn.Set("sales", triage.SchemaInfo{Fields: []string{"sku_id"}, Synonyms: map[string]string{"product_id": "sku_id"}})
	var skipped, read int
	for _, r := range recentReports() {
		f := reportFault(r)
		class := defaultClasses.Classify(r, f)
		causes := make([]triage.RootCause, 0, 5)
		for _, recent := range []int{1, 2, persistentFailures, 17, triage.MaxKept} {
			rc, err := analyze(context.Background(), analysis{report: r, class: class, fault: f, synonyms: syn, recent: recent})
			if err != nil {
				t.Fatal(err)
			}
			causes = append(causes, rc)
		}
		moved := false
		for _, rc := range causes[1:] {
			moved = moved || !reflect.DeepEqual(rc, causes[0])
		}
		switch reads := readsRecent(r, class, f); {
		case !reads && moved:
			t.Errorf("%s %s (%s): readsRecent false, but the count moves the cause: %+v", r.Data.ErrorType, r.Data.ErrorCode, class.Type, causes)
		case reads && !moved:
			t.Errorf("%s %s (%s): readsRecent true, but no count moves the cause %+v", r.Data.ErrorType, r.Data.ErrorCode, class.Type, causes[0])
		case reads:
			read++
		default:
			skipped++
		}
	}
	if skipped == 0 || read == 0 {
		t.Errorf("%d reports spared the count, %d read it: want some of each", skipped, read)
	}
}

// TestClassify: Classify settles the fault and class Decide would, marks
// the start NoRecent exactly when readsRecent is false, and Decide decides
// the same with its Prepared or Prepare's, whatever the count when
// NoRecent.
func TestClassify(t *testing.T) {
	h := newHandler(t, Config{})
	for _, r := range recentReports() {
		p := h.Prepare(r)
		c := h.Classify(r, p)
		f := h.classes.Fault(r)
		if !reflect.DeepEqual(c.fault, f) || !c.classified || c.class != h.classes.Classify(r, f) {
			t.Errorf("%s: Classify's fault %v class %+v, the classifier's %v %+v", r.Data.ErrorCode, c.fault, c.class, f, h.classes.Classify(r, f))
		}
		if c.Start.NoRecent != !readsRecent(r, c.class, c.fault) || p.Start.NoRecent {
			t.Errorf("%s: NoRecent %v after Classify, %v after Prepare", r.Data.ErrorCode, c.Start.NoRecent, p.Start.NoRecent)
		}
		if want := p.Start; c.Start.NoRecent {
			want.NoRecent = true
			if c.Start != want {
				t.Errorf("%s: Classify's start %+v, want Prepare's %+v with NoRecent", r.Data.ErrorCode, c.Start, p.Start)
			}
		}
		for _, recent := range []int{1, triage.MaxKept} {
			started := triage.StartResult{First: true, Attempt: 1, Recent: recent}
			with, err := h.Decide(context.Background(), Input{Report: r, Prepared: c, Started: started})
			if err != nil {
				t.Fatal(err)
			}
			without, err := h.Decide(context.Background(), Input{Report: r, Prepared: p, Started: started})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(with.Feedback, without.Feedback) || !reflect.DeepEqual(with.Jobs, without.Jobs) {
				t.Errorf("%s, recent %d: Decide with Classify's Prepared %+v\nwith Prepare's %+v", r.Data.ErrorCode, recent, with.Feedback, without.Feedback)
			}
			if c.Start.NoRecent && recent > 1 {
				one, err := h.Decide(context.Background(), Input{Report: r, Prepared: c, Started: triage.StartResult{First: true, Attempt: 1, Recent: 1}})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(one.Feedback, with.Feedback) {
					t.Errorf("%s: NoRecent, but recent 1 decides %+v and %d %+v", r.Data.ErrorCode, one.Feedback, recent, with.Feedback)
				}
			}
		}
	}
}
