package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cel.dev/cel-go/common/types"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// The internal text every representative report carries: none of it may
// reach a user message.
const (
	testInternalMessage = "pq: canceling statement due to statement timeout (SQLSTATE 57014) at /srv/query/db.go:212 goroutine 7"
	testAgent           = "query_engine"
)

// testInput builds an Input as the handler would: the report,
// its classification and cause, the attempt and the fault.
func testInput(typ triage.ErrorType, code, rc string, f *fault.Error, ctx map[string]any) *Input {
	if f == nil {
		f = fault.New(fault.AgentExecutionError, "")
	}
	return &Input{
		Report: &triage.Report{
			AgentID:   testAgent,
			Timestamp: time.Date(2025, 8, 8, 12, 20, 5, 0, time.UTC),
			Status:    "error",
			Data: triage.Data{ErrorType: typ, ErrorCode: code, Message: testInternalMessage, Context: ctx,
				QueryID: "q_456"},
		},
		Classification: triage.Classification{Type: typ, Confidence: 0.92, Method: "reported"},
		Cause:          triage.RootCause{Cause: rc, Confidence: 0.8, Evidence: []string{"the query timed out"}},
		Attempt:        1,
		Fault:          f,
	}
}

func withAttempt(in *Input, n int) *Input { in.Attempt = n; return in }

// representative is one report per default rule, in the policy's
// order: each is decided by its own rule.
var representative = []struct {
	rule string
	in   func() *Input
}{
	{"repeated_failure", func() *Input {
		return withAttempt(testInput(triage.QueryError, "DB_TIMEOUT", triage.CauseScope, fault.New(fault.Timeout, ""),
			map[string]any{"table": "sales"}), 4)
	}},
	{"ambiguous_input", func() *Input {
		return testInput(triage.InputError, "AMBIGUOUS_INPUT", triage.CauseAmbiguousInput, nil, map[string]any{
			"input": "Show revenue", "candidates": []any{"revenue by month", "revenue by product", "revenue by region"}})
	}},
	{"schema_synonym", func() *Input {
		return testInput(triage.SchemaError, "FIELD_NOT_FOUND", triage.CauseSchemaDrift, nil, map[string]any{
			"field": "product_id", "source": "sales", "synonym": "sku_id"})
	}},
	{"schema_missing_field", func() *Input {
		return testInput(triage.SchemaError, "FIELD_NOT_FOUND", triage.CauseMissingField, nil, map[string]any{
			"field": "product_id", "source": "sales", "available_fields": []any{"sku_id", "region", "revenue"}})
	}},
	{"query_too_large", func() *Input {
		return testInput(triage.QueryError, "DB_TIMEOUT", triage.CauseScope, fault.New(fault.Timeout, ""), map[string]any{
			"table": "sales", "group_by": "month", "row_count": 48_000_000.0, "cached_range": "last 30 days",
			"date_range": map[string]any{"start": "2019-01-01", "end": "2025-08-01"}})
	}},
	{"query_retry", func() *Input {
		return testInput(triage.QueryError, "DB_CONNECTION_RESET", triage.CauseTransient,
			fault.New(fault.ServiceUnavailable, "", fault.WithRetryAfter(30*time.Second)), map[string]any{"table": "sales"})
	}},
	{"query_failed", func() *Input {
		return testInput(triage.QueryError, "SQL_SYNTAX", triage.CauseUnknown, nil, map[string]any{"table": "sales"})
	}},
	{"chart_incompatible", func() *Input {
		return testInput(triage.ChartError, "INCOMPATIBLE_CHART_TYPE", triage.CauseChartDataMismatch, nil, map[string]any{
			"chart": "pie", "dimension": "date", "metric": "revenue", "granularity": "month",
			"categorical_dimensions": []any{"product"}})
	}},
	{"transient_failure", func() *Input {
		return testInput(triage.SystemError, "", triage.CauseTransient,
			fault.New(fault.RateLimited, "", fault.WithRetryAfter(20*time.Second)), nil)
	}},
	{"service_outage", func() *Input {
		return testInput(triage.SystemError, "SERVICE_DOWN", triage.CauseOutage, fault.New(fault.ServiceUnavailable, ""),
			map[string]any{"service": "warehouse-replica-3"})
	}},
	{"invalid_value", func() *Input {
		return testInput(triage.ValidationError, "INVALID_DATE_RANGE", triage.CauseInvalidValue, nil, map[string]any{
			"field": "date_range", "value": "2025-13-01..2025-14-01", "expected": "dates as YYYY-MM-DD"})
	}},
	{"fallback", func() *Input {
		return testInput(triage.Unknown, "E_WEIRD", triage.CauseUnknown, nil, nil)
	}},
}

func TestDefaultParses(t *testing.T) {
	t.Parallel()
	p := Default()
	if p != Default() {
		t.Error("DefaultPolicy parses the embedded policy more than once")
	}
	if p.Name() != "default_policy.yaml" || p.MaxAttempts() != 3 {
		t.Errorf("Name, MaxAttempts = %q, %d; want default_policy.yaml, 3", p.Name(), p.MaxAttempts())
	}
	var names []string
	for _, r := range p.rules {
		names = append(names, r.name)
	}
	var want []string
	for _, r := range representative {
		want = append(want, r.rule)
	}
	if !slices.Equal(names, want) {
		t.Errorf("rules = %v\nwant    %v", names, want)
	}
	if got := p.Actions(); !slices.Equal(got, []string{"clarify", "escalate", "map_synonym", "reduce_scope", "retry", "suggest_chart", "use_cache"}) {
		t.Errorf("Actions() = %v", got)
	}
	// The file on disk is the embedded one.
	if _, err := Load("default_policy.yaml"); err != nil {
		t.Fatal(err)
	}
}

// Seed 004's scenario table, and the worked examples' messages, exactly.
func TestDefaultDecide(t *testing.T) {
	t.Parallel()
	in := func(rule string) *Input {
		for _, r := range representative {
			if r.rule == rule {
				return r.in()
			}
		}
		panic(rule)
	}
	tests := []struct {
		name string
		in   *Input
		want Decision
	}{
		{"RepeatedFailure", in("repeated_failure"), Decision{Rule: "repeated_failure", Actions: []string{"escalate"},
			NextAction: triage.Escalate, Severity: triage.SeverityHigh,
			Message:     "This request has failed 4 times, so I've stopped retrying; please try again later.",
			Suggestions: []string{"Try again later", "Rephrase the request"}}},
		{"AmbiguousInput", in("ambiguous_input"), Decision{Rule: "ambiguous_input", Actions: []string{"clarify"},
			NextAction: triage.AwaitUser, Severity: triage.SeverityLow,
			Message:     "“Show revenue” can mean several things. Do you want revenue by month, by product or by region?",
			Suggestions: []string{"Revenue by month", "Revenue by product", "Revenue by region"}}},
		{"AmbiguousInputNoContext", testInput(triage.InputError, "AMBIGUOUS_INPUT", triage.CauseAmbiguousInput, nil, nil),
			Decision{Rule: "ambiguous_input", Actions: []string{"clarify"}, NextAction: triage.AwaitUser, Severity: triage.SeverityLow,
				Message:     "Your request can mean several things. Which measure, breakdown or time period do you mean?",
				Suggestions: []string{}}},
		{"AmbiguousByCause", testInput(triage.ValidationError, "", triage.CauseAmbiguousInput, nil, map[string]any{"input": "sales"}),
			Decision{Rule: "ambiguous_input", Actions: []string{"clarify"}, NextAction: triage.AwaitUser, Severity: triage.SeverityLow,
				Message:     "“sales” can mean several things. Which measure, breakdown or time period do you mean?",
				Suggestions: []string{}}},
		{"SchemaSynonym", in("schema_synonym"), Decision{Rule: "schema_synonym", Actions: []string{"map_synonym"},
			NextAction: triage.Resume, Severity: triage.SeverityLow,
			Message:     "The field “product_id” isn't in sales any more; it was renamed to “sku_id”, so I'm using that instead.",
			Suggestions: []string{"Keep using “sku_id”", "Choose a different field"}}},
		{"SchemaSynonymFromInventory", testInput(triage.SchemaError, "FIELD_NOT_FOUND", triage.CauseSchemaDrift, nil,
			map[string]any{"missing_field": "product_id", "table": "sales"}),
			Decision{Rule: "schema_synonym", Actions: []string{"map_synonym"}, NextAction: triage.Resume, Severity: triage.SeverityLow,
				Message:     "The field “product_id” isn't in sales any more; it looks like it was renamed.",
				Suggestions: []string{"Choose a different field"}}},
		{"SchemaMissingField", in("schema_missing_field"), Decision{Rule: "schema_missing_field", Actions: []string{"map_synonym"},
			NextAction: triage.AwaitUser, Severity: triage.SeverityMedium,
			Message:     "I couldn't find the field “product_id” in sales. Which of the available fields should I use instead?",
			Suggestions: []string{"Use “sku_id”", "Use “region”", "Use “revenue”"}}},
		{"SchemaMissingNothingKnown", testInput(triage.SchemaError, "", triage.CauseMissingField, nil, nil),
			Decision{Rule: "schema_missing_field", Actions: []string{"map_synonym"}, NextAction: triage.AwaitUser, Severity: triage.SeverityMedium,
				Message:     "I couldn't find a field this query needs. Which field should I use instead?",
				Suggestions: []string{}}},
		{"QueryTooLarge", in("query_too_large"), Decision{Rule: "query_too_large",
			Actions: []string{"retry", "use_cache", "reduce_scope"}, NextAction: triage.Resume, Severity: triage.SeverityMedium,
			Message:     "I couldn't retrieve the full sales data right now (database timeout). Try: 'show sales by month for last 12 months'.",
			Suggestions: []string{"Retry now", "Narrow the date range"}}},
		{"QueryTooLargeNoSubject", testInput(triage.QueryError, "QUERY_TIMEOUT", triage.CauseScope, fault.New(fault.Timeout, ""), nil),
			Decision{Rule: "query_too_large", Actions: []string{"retry", "use_cache", "reduce_scope"}, NextAction: triage.Resume,
				Severity:    triage.SeverityMedium,
				Message:     "I couldn't retrieve the full data right now (database timeout). Try a shorter date range.",
				Suggestions: []string{"Retry now", "Narrow the date range"}}},
		{"QueryRetry", in("query_retry"), Decision{Rule: "query_retry", Actions: []string{"retry"}, NextAction: triage.Resume,
			Severity:    triage.SeverityMedium,
			Message:     "I couldn't get the data just now, so I'm trying again in 30 seconds. If it keeps failing, try a shorter date range.",
			Suggestions: []string{"Retry now", "Narrow the date range"}}},
		{"QueryRetryTimeoutCode", testInput(triage.QueryError, "db_timeout", triage.CauseTransient, nil, nil),
			Decision{Rule: "query_retry", Actions: []string{"retry"}, NextAction: triage.Resume, Severity: triage.SeverityMedium,
				Message:     "I couldn't get the data just now, so I'm trying again. If it keeps failing, try a shorter date range.",
				Suggestions: []string{"Retry now", "Narrow the date range"}}},
		{"QueryFailed", in("query_failed"), Decision{Rule: "query_failed", Actions: []string{}, NextAction: triage.AwaitUser,
			Severity:    triage.SeverityMedium,
			Message:     "I couldn't run the query for this request. Try rephrasing it, or ask for fewer fields or a shorter date range.",
			Suggestions: []string{"Rephrase the request", "Narrow the date range"}}},
		{"ChartIncompatible", in("chart_incompatible"), Decision{Rule: "chart_incompatible", Actions: []string{"suggest_chart"},
			NextAction: triage.AwaitUser, Severity: triage.SeverityLow,
			Message:     "Pie charts work best for categorical data. For monthly revenue, try: 'line chart of revenue by month'. Should I convert it to a line chart?",
			Suggestions: []string{"Convert to line chart", "Choose a categorical dimension (product)"}}},
		{"ChartSeedContextOnly", testInput(triage.ChartError, "INCOMPATIBLE_CHART_TYPE", triage.CauseChartDataMismatch, nil,
			map[string]any{"chart": "pie", "dimension": "date"}),
			Decision{Rule: "chart_incompatible", Actions: []string{"suggest_chart"}, NextAction: triage.AwaitUser, Severity: triage.SeverityLow,
				Message:     "Pie charts work best for categorical data. Should I convert it to a line chart?",
				Suggestions: []string{"Convert to line chart", "Choose a categorical dimension"}}},
		{"ChartCategorical", testInput(triage.ChartError, "INCOMPATIBLE_CHART_TYPE", triage.CauseChartDataMismatch, nil,
			map[string]any{"chart": "line", "dimension": "product", "metric": "revenue"}),
			Decision{Rule: "chart_incompatible", Actions: []string{"suggest_chart"}, NextAction: triage.AwaitUser, Severity: triage.SeverityLow,
				Message:     "Line charts don't suit this data. For revenue, try: 'bar chart of revenue by product'. Should I convert it to a bar chart?",
				Suggestions: []string{"Convert to bar chart"}}},
		{"TransientFailure", in("transient_failure"), Decision{Rule: "transient_failure", Actions: []string{"retry"},
			NextAction: triage.Resume, Severity: triage.SeverityLow,
			Message:     "The service is busy right now, so I'll try again in 20 seconds.",
			Suggestions: []string{"Try again in 20 seconds"}}},
		{"ServiceOutage", in("service_outage"), Decision{Rule: "service_outage", Actions: []string{"escalate"},
			NextAction: triage.Escalate, Severity: triage.SeverityHigh,
			Message:     "This service is temporarily unavailable; please try again in a few minutes.",
			Suggestions: []string{"Try again in a few minutes"}}},
		{"OutageByCauseWithRetryAfter", testInput(triage.Unknown, "", triage.CauseOutage,
			fault.New(fault.ServiceUnavailable, "", fault.WithRetryAfter(90*time.Second)), nil),
			Decision{Rule: "service_outage", Actions: []string{"escalate"}, NextAction: triage.Escalate, Severity: triage.SeverityHigh,
				Message:     "This service is temporarily unavailable; please try again in 2 minutes.",
				Suggestions: []string{"Try again in 2 minutes"}}},
		{"InvalidValue", in("invalid_value"), Decision{Rule: "invalid_value", Actions: []string{}, NextAction: triage.AwaitUser,
			Severity:    triage.SeverityLow,
			Message:     "“2025-13-01..2025-14-01” isn't a valid date range (expected dates as YYYY-MM-DD). Please correct it and try again.",
			Suggestions: []string{"Correct the date range"}}},
		{"InvalidValueNoContext", testInput(triage.ValidationError, "", triage.CauseInvalidValue, nil, nil),
			Decision{Rule: "invalid_value", Actions: []string{}, NextAction: triage.AwaitUser, Severity: triage.SeverityLow,
				Message:     "A value in this request isn't valid. Please correct it and try again.",
				Suggestions: []string{"Correct the value"}}},
		{"Fallback", in("fallback"), Decision{Rule: "fallback", Actions: []string{"escalate"}, NextAction: triage.Escalate,
			Severity:    triage.SeverityMedium,
			Message:     "Something went wrong and I couldn't fix it automatically; please try again in a little while.",
			Suggestions: []string{"Try again later", "Rephrase the request"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Default().Decide(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Decide:\n got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

// ruleMatches evaluates one rule's condition alone.
func ruleMatches(t *testing.T, p *Policy, rule string, in *Input) bool {
	t.Helper()
	for _, r := range p.rules {
		if r.name != rule {
			continue
		}
		if r.always {
			return true
		}
		out, _, err := r.program.Eval(&newVars(in, p.maxAttempts).act)
		if err != nil {
			t.Fatalf("rule %s: %v", rule, err)
		}
		return out == types.True
	}
	t.Fatalf("no rule %s", rule)
	return false
}

// Each representative report matches its own rule and neither neighbour
// that comes before it; where a later neighbour matches too (its condition
// is broader), the order is what decides, and the test says so.
func TestDefaultRuleNeighbours(t *testing.T) {
	t.Parallel()
	p := Default()
	// Later rules that also match a rule's representative report: the
	// broader rule after the specific one.
	alsoMatches := map[string]string{
		"schema_synonym":    "schema_missing_field", // schema_error, whatever the cause
		"query_too_large":   "query_retry",          // a timeout is retryable too
		"query_retry":       "query_failed",         // every query_error
		"transient_failure": "service_outage",       // every system_error
	}
	for i, r := range representative {
		t.Run(r.rule, func(t *testing.T) {
			t.Parallel()
			in := r.in()
			if !ruleMatches(t, p, r.rule, in) {
				t.Fatalf("%s does not match its own representative report", r.rule)
			}
			if i > 0 {
				if prev := representative[i-1].rule; ruleMatches(t, p, prev, in) {
					t.Errorf("the rule before, %s, matches %s's report", prev, r.rule)
				}
			}
			if i+1 < len(representative) {
				next := representative[i+1].rule
				if got, want := ruleMatches(t, p, next, in), alsoMatches[r.rule] == next || next == "fallback"; got != want {
					t.Errorf("the rule after, %s, matches %s's report: %v, want %v", next, r.rule, got, want)
				}
			}
			d, err := p.Decide(in)
			if err != nil {
				t.Fatal(err)
			}
			if d.Rule != r.rule {
				t.Errorf("Decide chose %s, want %s", d.Rule, r.rule)
			}
		})
	}
}

// Order decides between rules that both match.
func TestRuleOrder(t *testing.T) {
	t.Parallel()
	t.Run("DefaultEscalatesRepeatedFailuresOfAnyKind", func(t *testing.T) {
		t.Parallel()
		for _, r := range representative {
			in := withAttempt(r.in(), 4)
			if d, err := Default().Decide(in); err != nil || d.Rule != "repeated_failure" {
				t.Errorf("%s at attempt 4: rule %q, %v; want repeated_failure", r.rule, d.Rule, err)
			}
			if r.rule == "repeated_failure" {
				continue
			}
			in = withAttempt(r.in(), 3) // the last attempt allowed
			if d, err := Default().Decide(in); err != nil || d.Rule != r.rule {
				t.Errorf("%s at attempt 3: rule %q, %v; want %s", r.rule, d.Rule, err, r.rule)
			}
		}
	})
	t.Run("FirstMatchWins", func(t *testing.T) {
		t.Parallel()
		const rule = "  - {name: %s, when: '%s', next_action: resume, severity: low, message: %s}\n"
		src := "version: 1\nrules:\n" + fmt.Sprintf(rule, "specific", `error_type == "schema_error" && cause.cause == "schema_drift"`, "a") +
			fmt.Sprintf(rule, "broad", `error_type == "schema_error"`, "b") + fmt.Sprintf(rule, "last", "true", "c")
		swapped := "version: 1\nrules:\n" + fmt.Sprintf(rule, "broad", `error_type == "schema_error"`, "b") +
			fmt.Sprintf(rule, "specific", `error_type == "schema_error" && cause.cause == "schema_drift"`, "a") +
			fmt.Sprintf(rule, "last", "true", "c")
		in := testInput(triage.SchemaError, "", triage.CauseSchemaDrift, nil, nil)
		for _, c := range []struct{ src, want string }{{src, "specific"}, {swapped, "broad"}} {
			p, err := Parse("order.yaml", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			if d, err := p.Decide(in); err != nil || d.Rule != c.want {
				t.Errorf("rule %q, %v; want %s", d.Rule, err, c.want)
			}
		}
	})
}

// No default message or suggestion shows internal text: the agent's
// message, its error code, the fault's code, a stack, a Go value.
func TestDefaultMessagesAreSafe(t *testing.T) {
	t.Parallel()
	forbidden := []string{"<no value>", "<nil>", "map[", "%!", "{{", "}}", "goroutine", ".go:", "SQLSTATE", "pq:",
		"canceling statement", "\n", "  "}
	for _, r := range representative {
		for _, variant := range []struct {
			name string
			ctx  func(map[string]any) map[string]any
		}{
			{"Context", func(c map[string]any) map[string]any { return c }},
			{"NoContext", func(map[string]any) map[string]any { return nil }},
			{"HostileContext", func(map[string]any) map[string]any { return hostileContext() }},
		} {
			t.Run(r.rule+"/"+variant.name, func(t *testing.T) {
				t.Parallel()
				in := r.in()
				in.Report.Data.Context = variant.ctx(in.Report.Data.Context)
				d, err := Default().Decide(in)
				if err != nil {
					t.Fatal(err)
				}
				if d.Message == "" || len(d.Message) > 300 {
					t.Errorf("message of %d bytes: %q", len(d.Message), d.Message)
				}
				internal := append(slices.Clone(forbidden), in.Report.Data.Message, string(in.Fault.Code))
				if in.Report.Data.ErrorCode != "" {
					internal = append(internal, in.Report.Data.ErrorCode)
				}
				for _, text := range append([]string{d.Message}, d.Suggestions...) {
					if text != strings.TrimSpace(text) || text == "" {
						t.Errorf("untrimmed or empty text %q", text)
					}
					for _, bad := range internal {
						if strings.Contains(text, bad) {
							t.Errorf("%q contains %q", text, bad)
						}
					}
				}
			})
		}
	}
}

// hostileContext holds, under every key the default policy reads,
// values of the wrong shape: the templates print nothing odd and never
// fail.
func hostileContext() map[string]any {
	keys := []string{"input", "query", "question", "candidates", "interpretations", "options", "field", "missing_field",
		"column", "metric", "source", "table", "dataset", "synonym", "mapped_field", "renamed_to", "available_fields",
		"fields", "subject", "group_by", "granularity", "cached_range", "cache_range", "chart", "chart_type", "measure",
		"time_grain", "interval", "dimension_type", "x_type", "dimension", "x", "x_axis", "categorical_dimensions",
		"categories", "parameter", "param", "value", "invalid_value", "got", "expected", "allowed", "expected_format"}
	odd := []any{nil, map[string]any{"a": 1.0}, []any{map[string]any{}, nil, []any{"x"}}, 3.5, true, "", []any{}, 1e21}
	c := map[string]any{}
	for i, k := range keys {
		c[k] = odd[i%len(odd)]
	}
	return c
}

// A template never prints "<no value>", "<nil>" or a Go map, whatever the
// key it asks for and whatever the value holds.
func TestTemplateMissingKeys(t *testing.T) {
	t.Parallel()
	p, err := Parse("missing.yaml", []byte(`version: 1
rules:
  - name: all
    default: true
    next_action: await_user
    severity: low
    message: >-
      [{{.context.nope}}] [{{.context.deep.nope}}] [{{.cause.nope}}] [{{index .context "nope"}}]
      [{{printf "%v" .context.nope}}] [{{print .context.nope}}] [{{.context.obj}}] [{{.context.list}}]
      [{{.context.num}}] [{{.context.null}}] [{{.nope}}] [{{.context.nope | default "x"}}]
    suggestions:
      - '{{.context.nope}}'
      - 'x {{.report.nope}}'
`))
	if err != nil {
		t.Fatal(err)
	}
	in := testInput(triage.Unknown, "", "", nil, map[string]any{
		"obj": map[string]any{"a": 1.0}, "list": []any{"a", 2.5, map[string]any{}, nil}, "num": 1e6, "null": nil})
	d, err := p.Decide(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[] [] [] [] [] [] [] [a, 2.5] [1000000] [] [] [x]"; d.Message != want {
		t.Errorf("message %q\n   want %q", d.Message, want)
	}
	if !slices.Equal(d.Suggestions, []string{"x"}) {
		t.Errorf("suggestions %q; want [x] (an empty suggestion is dropped)", d.Suggestions)
	}
}

// A rule's message and suggestions render as one template: the
// suggestions see the message's variables; a suggestion may give several
// lines or none; comments and trim markers work in plain text too.
func TestTemplateParts(t *testing.T) {
	t.Parallel()
	const head = "version: 1\nrules:\n  - name: all\n    default: true\n    next_action: resume\n    severity: low\n"
	tests := []struct {
		name, yaml string
		want       Decision
	}{
		{"SharedVariables", head + `    message: '{{$to := pick .context "a|b"}}Use {{$to}}?'
    suggestions: ['Switch to {{$to}}', '{{with $to}}Keep {{.}}{{end}}']
`, Decision{Message: "Use x?", Suggestions: []string{"Switch to x", "Keep x"}}},
		{"LinesEmptiesAndRepeats", head + `    message: m
    suggestions: ["{{range pickList .context \"l\"}}{{.}}\n{{end}}", '', 'p', '{{if false}}never{{end}}']
`, Decision{Message: "m", Suggestions: []string{"p", "q"}}},
		{"PlainText", head + `    message: 'Hello {{/* a note */}}world {{- " " -}}  again'
    suggestions: ['a  {{- /* x */ -}}  b']
`, Decision{Message: "Hello world again", Suggestions: []string{"ab"}}},
		{"StaticOnly", head + `    message: "  Several\n  lines\t here  "
    suggestions: [one, two]
`, Decision{Message: "Several lines here", Suggestions: []string{"one", "two"}}},
	}
	in := testInput(triage.Unknown, "", "", nil, map[string]any{"a": "x", "l": []any{"p", "q", "p"}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Parse("parts.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			d, err := p.Decide(in)
			if err != nil {
				t.Fatal(err)
			}
			if d.Message != tt.want.Message || !slices.Equal(d.Suggestions, tt.want.Suggestions) {
				t.Errorf("message %q, suggestions %q\nwant    %q, %q", d.Message, d.Suggestions, tt.want.Message, tt.want.Suggestions)
			}
		})
	}
}

// Every variable is there for conditions and templates, under the names
// docs/policy.md gives.
func TestVariables(t *testing.T) {
	t.Parallel()
	in := testInput(triage.QueryError, "DB_TIMEOUT", triage.CauseScope,
		fault.New(fault.Timeout, "", fault.WithRetryAfter(1500*time.Millisecond)),
		map[string]any{"date_range": "2019-01-01..2025-01-01", "row_count": 2e6, "tags": []any{"a"}})
	in.Report.Data.ErrorType = triage.Unknown
	in.Classification.Method, in.Classification.Rule = "error_code", "DB_TIMEOUT"
	in.Attempt = 2
	conditions := []string{
		`error_type == "query_error" && cause.cause == "scope"`,
		`attempt == 2 && max_attempts == 3 && attempt <= max_attempts`,
		`"date_range" in context && !("nope" in context)`,
		`has(context.row_count) && context.row_count > 1000000`,
		`context.?nope.orValue(0) == 0`,
		`report.agent_id == "query_engine" && report.query_id == "q_456" && report.error_code == "DB_TIMEOUT"`,
		`report.error_type == "unknown" && report.message.contains("SQLSTATE") && "row_count" in report.context`,
		`error_code == "DB_TIMEOUT" && message.startsWith("pq:")`,
		`classification.type == "query_error" && classification.confidence > 0.9 && classification.method == "error_code" && classification.rule == "DB_TIMEOUT"`,
		`cause.confidence >= 0.8 && cause.evidence.exists(e, e.contains("timed out")) && size(cause.evidence) == 1`,
		`fault.code == "TIMEOUT" && fault.retryable && fault.retry_after == 2 && fault.http_status == 504`,
		`fault.category == "TIMEOUT" && fault.domain == "system"`,
		`error_code.lowerAscii() == "db_timeout" && context.tags[0] == "a"`,
	}
	for _, cond := range conditions {
		t.Run(cond, func(t *testing.T) {
			t.Parallel()
			src := fmt.Sprintf("version: 1\nrules:\n  - name: yes\n    when: %q\n    next_action: resume\n    severity: low\n    message: ok\n"+
				"  - name: no\n    default: true\n    next_action: resume\n    severity: low\n    message: ok\n", cond)
			p, err := Parse("vars.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if d, err := p.Decide(in); err != nil || d.Rule != "yes" {
				t.Errorf("rule %q, %v; want the condition to hold", d.Rule, err)
			}
		})
	}
	t.Run("Templates", func(t *testing.T) {
		t.Parallel()
		p, err := Parse("vars.yaml", []byte(`version: 1
rules:
  - name: all
    default: true
    next_action: resume
    severity: low
    message: >-
      {{.error_type}} {{.error_code}} {{.report.agent_id}} {{.report.query_id}} {{.report.error_type}}
      {{.context.date_range}} {{.classification.type}} {{.classification.confidence}} {{.classification.method}}
      {{.cause.cause}} {{.cause.confidence}} {{range .cause.evidence}}{{.}}{{end}} {{.attempt}}/{{.max_attempts}}
      {{.fault.code}} {{.fault.retryable}} {{.fault.retry_after}} {{.fault.http_status}} {{len .message}}
`))
		if err != nil {
			t.Fatal(err)
		}
		d, err := p.Decide(in)
		if err != nil {
			t.Fatal(err)
		}
		want := "query_error DB_TIMEOUT query_engine q_456 unknown 2019-01-01..2025-01-01 query_error 0.92 error_code " +
			"scope 0.8 the query timed out 2/3 TIMEOUT true 2 504 " + fmt.Sprint(len(testInternalMessage))
		if d.Message != want {
			t.Errorf("message %q\n   want %q", d.Message, want)
		}
	})
}

// Each way a policy file can be wrong fails at load with the file, the
// line, the rule and the reason.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file   string
		want   Error  // File is filled in
		reason string // a part of Reason
		count  int    // how many errors; 0 means 1
	}{
		{"yaml_syntax.yaml", Error{Line: 5}, "invalid YAML: did not find expected ',' or ']'", 0},
		{"empty.yaml", Error{}, "the policy is empty", 0},
		{"two_documents.yaml", Error{Line: 8}, "more than one YAML document", 0},
		{"unknown_field.yaml", Error{Line: 9, Rule: 2, RuleName: "typo"}, `unknown field "whn"`, 0},
		{"unknown_top_field.yaml", Error{Line: 2}, `unknown field "max_attempt"`, 0},
		{"wrong_type.yaml", Error{Line: 5, Rule: 1, RuleName: "fallback", Field: "actions"}, "into a list of strings", 0},
		{"rules_not_list.yaml", Error{Line: 2}, "into a list of rules", 0},
		{"rule_not_mapping.yaml", Error{Line: 3, Rule: 1}, "into a rule (a mapping)", 0},
		{"missing_version.yaml", Error{Field: "version"}, "missing", 0},
		{"bad_version.yaml", Error{Line: 1, Field: "version"}, "version 2 is not supported", 0},
		{"max_attempts_zero.yaml", Error{Line: 2, Field: "max_attempts"}, "must be at least 1, not 0", 0},
		{"no_rules.yaml", Error{Line: 3, Field: "rules"}, "no rules", 0},
		{"missing_name.yaml", Error{Line: 3, Rule: 1, Field: "name"}, "missing", 0},
		{"duplicate_names.yaml", Error{Line: 8, Rule: 2, RuleName: "charts", Field: "name"}, `"charts" is already the name of rule 1`, 0},
		{"missing_when.yaml", Error{Line: 3, Rule: 1, RuleName: "charts", Field: "when"}, "missing", 0},
		{"when_and_default.yaml", Error{Line: 4, Rule: 1, RuleName: "fallback", Field: "when"}, "not both", 0},
		{"cel_syntax.yaml", Error{Line: 4, Rule: 1, RuleName: "broken", Field: "when"}, "Syntax error", 0},
		{"cel_field.yaml", Error{Line: 4, Rule: 1, RuleName: "drift", Field: "when"}, "undefined field 'cuase'", 0},
		{"cel_type.yaml", Error{Line: 4, Rule: 1, RuleName: "mixed", Field: "when"}, "no matching overload for '_==_' applied to '(int, string)'", 0},
		{"when_not_bool.yaml", Error{Line: 4, Rule: 1, RuleName: "counting", Field: "when"}, "must be a bool expression, not int", 0},
		{"unknown_action.yaml", Error{Line: 5, Rule: 1, RuleName: "fallback", Field: "actions[1]"}, `unknown action "page_oncall"`, 0},
		{"duplicate_action.yaml", Error{Line: 5, Rule: 1, RuleName: "fallback", Field: "actions[1]"}, `"retry" is listed twice`, 0},
		{"bad_next_action.yaml", Error{Line: 5, Rule: 1, RuleName: "fallback", Field: "next_action"}, `"continue" is not one of resume, await_user, escalate`, 0},
		{"bad_severity.yaml", Error{Line: 6, Rule: 1, RuleName: "fallback", Field: "severity"}, `"urgent" is not one of low, medium, high, critical`, 0},
		{"missing_message.yaml", Error{Line: 3, Rule: 1, RuleName: "fallback", Field: "message"}, "missing", 0},
		{"bad_template.yaml", Error{Line: 7, Rule: 1, RuleName: "a", Field: "message"}, "unclosed action", 0},
		{"bad_suggestion_template.yaml", Error{Line: 10, Rule: 1, RuleName: "fallback", Field: "suggestions[1]"}, `function "shout" not defined`, 0},
		{"template_fails.yaml", Error{Line: 7, Rule: 1, RuleName: "fallback", Field: "message"}, "fails on a report with an empty context", 0},
		{"no_catch_all.yaml", Error{Line: 10, Rule: 2, RuleName: "charts", Field: "when"}, "the last rule must always match", 0},
		{"catch_all_not_last.yaml", Error{Line: 4, Rule: 1, RuleName: "everything", Field: "when"}, "always matches, so the 2 rule(s) after it would never run", 0},
		{"several_errors.yaml", Error{Line: 2, Field: "max_attempts"}, "not -1", 5},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".yaml"), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("testdata", "policies", tt.file)
			p, err := Load(path)
			if err == nil {
				t.Fatalf("loaded %s", path)
			}
			if p != nil {
				t.Error("a Policy with the error")
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("%T %v; want an *Error", err, err)
			}
			want := tt.want
			want.File, want.Reason = path, pe.Reason
			if *pe != want || !strings.Contains(pe.Reason, tt.reason) {
				t.Errorf("got  %#v\nwant %#v with %q in Reason", *pe, want, tt.reason)
			}
			if !strings.HasPrefix(err.Error(), path+":") {
				t.Errorf("%q does not start with the file", err)
			}
			n := 1
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				n = len(j.Unwrap())
				for _, e := range j.Unwrap() {
					if !strings.HasPrefix(e.Error(), path+":") {
						t.Errorf("%q does not start with the file", e)
					}
				}
			}
			if want := max(tt.count, 1); n != want {
				t.Errorf("%d errors, want %d:\n%v", n, want, err)
			}
		})
	}
}

// docs/policy.md shows the default policy in full and every load error as
// the tests see it.
func TestDocs(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "policy.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```yaml\n"+string(defaultYAML)+"```") {
		t.Error("docs/policy.md does not show default_policy.yaml as it is")
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "policies", "*.yaml"))
	for _, file := range files {
		_, err := Load(file)
		if err == nil || strings.HasPrefix(filepath.Base(file), "several_") {
			continue
		}
		line := strings.TrimPrefix(err.Error(), filepath.Join("testdata", "policies")+string(filepath.Separator))
		if i := strings.Index(line, " expecting "); i >= 0 { // the doc shortens CEL's list of tokens
			line = line[:i]
		}
		if !strings.Contains(string(doc), line) {
			t.Errorf("docs/policy.md does not show %q", line)
		}
	}
}

func TestParseErrorText(t *testing.T) {
	t.Parallel()
	_, err := Load(filepath.Join("testdata", "policies", "cel_field.yaml"))
	want := filepath.Join("testdata", "policies", "cel_field.yaml") + ":4: rule 1 (drift): when: 1:6: undefined field 'cuase'"
	if err == nil || err.Error() != want {
		t.Errorf("error %q\n want %q", err, want)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	p, err := Load(filepath.Join("testdata", "policies", "valid.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxAttempts() != 5 || !slices.Equal(p.Actions(), []string{"escalate", "reduce_scope", "retry"}) {
		t.Errorf("MaxAttempts, Actions = %d, %v", p.MaxAttempts(), p.Actions())
	}
	in := testInput(triage.QueryError, "DB_TIMEOUT", triage.CauseScope, fault.New(fault.Timeout, ""), map[string]any{"date_range": "x", "input": "sales"})
	for attempt, want := range map[int]Decision{
		1: {Rule: "big_range", Actions: []string{"reduce_scope", "retry"}, NextAction: triage.Resume, Severity: triage.SeverityMedium,
			Message: "That range is large; I'm retrying with a shorter one.", Suggestions: []string{"Narrow the date range"}},
		6: {Rule: "give_up", Actions: []string{"escalate"}, NextAction: triage.Escalate, Severity: triage.SeverityCritical,
			Message: "Still failing after 5 attempts; the team has been told.", Suggestions: []string{}},
	} {
		if d, err := p.Decide(withAttempt(in, attempt)); err != nil || !reflect.DeepEqual(d, want) {
			t.Errorf("attempt %d: %#v, %v\nwant %#v", attempt, d, err, want)
		}
	}
	in.Attempt, in.Fault = 1, fault.New(fault.InvalidRequest, "")
	if d, err := p.Decide(in); err != nil || d.Message != "About “sales”: could you rephrase that?" {
		t.Errorf("%#v, %v", d, err)
	}
	if _, err := Load(filepath.Join("testdata", "policies", "nope.yaml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if p.MaxAttempts() != 5 {
		t.Fatal("Decide changed the policy")
	}
	if p, err := Parse("no_max.yaml", []byte("version: 1\nrules:\n  - {name: f, default: true, next_action: resume, severity: low, message: x}\n")); err != nil || p.MaxAttempts() != 3 {
		t.Errorf("max_attempts by default: %v, %v", p, err)
	}
}

// A condition or a template that fails on one report is an error naming
// the rule, not a wrong decision.
func TestDecideRuntimeErrors(t *testing.T) {
	t.Parallel()
	p, err := Parse("runtime.yaml", []byte(`version: 1
rules:
  - name: big
    when: context.row_count > 1000
    next_action: resume
    severity: low
    message: big
  - name: ranged
    when: '"range" in context'
    next_action: resume
    severity: low
    message: 'from {{.context.range.start}}'
  - name: fallback
    default: true
    next_action: resume
    severity: low
    message: fallback
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Decide(testInput(triage.QueryError, "", "", nil, map[string]any{"input": "x"}))
	if err == nil || !strings.Contains(err.Error(), "policy runtime.yaml: rule 1 (big): when:") || !strings.Contains(err.Error(), "row_count") {
		t.Errorf("missing key: %v", err)
	}
	_, err = p.Decide(testInput(triage.QueryError, "", "", nil, map[string]any{"row_count": 5.0, "range": "2024"}))
	if err == nil || !strings.Contains(err.Error(), "policy runtime.yaml: rule 2 (ranged): message: line 1:") {
		t.Errorf("template: %v", err)
	}
	p2, err := Parse("runtime2.yaml", []byte("version: 1\nrules:\n  - name: r\n    default: true\n    next_action: resume\n    severity: low\n"+
		"    message: |-\n      two\n      lines\n    suggestions: [ok, 'from {{.context.range.start}}']\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p2.Decide(testInput(triage.QueryError, "", "", nil, map[string]any{"range": "2024"}))
	if err == nil || !strings.Contains(err.Error(), "policy runtime2.yaml: rule 1 (r): suggestions[1]: line 1:") {
		t.Errorf("template in a suggestion: %v", err)
	}
	if d, err := p.Decide(testInput(triage.QueryError, "", "", nil, map[string]any{"row_count": 5000.0})); err != nil || d.Rule != "big" {
		t.Errorf("%v, %v", d, err)
	}
	if _, err := p.Decide(nil); err == nil {
		t.Error("Decide(nil) succeeded")
	}
	// A report-less input is an empty report.
	if d, err := Default().Decide(&Input{Attempt: 1}); err != nil || d.Rule != "fallback" {
		t.Errorf("empty input: %v, %v", d, err)
	}
}

func TestDecideConcurrent(t *testing.T) {
	t.Parallel()
	p := Default()
	want := make([]Decision, len(representative))
	for i, r := range representative {
		d, err := p.Decide(r.in())
		if err != nil {
			t.Fatal(err)
		}
		want[i] = d
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for n := range 50 {
				i := (g + n) % len(representative)
				d, err := p.Decide(representative[i].in())
				if err != nil || !reflect.DeepEqual(d, want[i]) {
					t.Errorf("%s: %v, %v", representative[i].rule, d, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// The decision's slices are the caller's.
func TestDecideReturnsACopy(t *testing.T) {
	t.Parallel()
	in := representative[4].in()
	d, _ := Default().Decide(in)
	d.Actions[0], d.Suggestions[0] = "x", "x"
	if d2, _ := Default().Decide(in); d2.Actions[0] != "retry" || d2.Suggestions[0] != "Retry now" {
		t.Errorf("changing a decision changed the policy: %v", d2)
	}
}

func TestFuncs(t *testing.T) {
	t.Parallel()
	choices := []struct {
		in   any
		want string
	}{
		{[]any{"revenue by month", "revenue by product", "revenue by region"}, "revenue by month, by product or by region"},
		{[]string{"show revenue by month", "show revenue by region"}, "show revenue by month or by region"},
		{[]any{"by month", "by product"}, "by month or by product"},
		{[]any{"monthly revenue", "monthly costs"}, "monthly revenue or monthly costs"},
		{[]any{"revenue by", "revenue by month"}, "revenue by or revenue by month"},
		{[]any{"line", "Line", "bar"}, "line or bar"},
		{[]any{"only"}, "only"},
		{"just one", "just one"},
		{[]any{nil, "", 3.0, map[string]any{}}, "3"},
		{nil, ""},
	}
	for _, c := range choices {
		if got := choicesOf(c.in, "or"); got != c.want {
			t.Errorf("choices %v = %q, want %q", c.in, got, c.want)
		}
	}
	durations := map[any]string{int64(0): "", int64(1): "1 second", int64(45): "45 seconds", int64(60): "1 minute",
		int64(90): "2 minutes", int64(3600): "1 hour", 7200.0: "2 hours", int64(3 * 86400): "3 days", "x": "",
		-5: "", 2 * time.Minute: "2 minutes"}
	for in, want := range durations {
		if got := duration(in); got != want {
			t.Errorf("duration %v = %q, want %q", in, got, want)
		}
	}
	strs := map[string]struct {
		in   any
		want string
	}{
		"Nil": {nil, ""}, "Float": {1e6, "1000000"}, "Fraction": {2.5, "2.5"}, "Bool": {true, "true"},
		"List": {[]any{"a", 1.0, nil, []any{"nested"}}, "a, 1"}, "Map": {map[string]any{"a": 1}, ""},
		"Error": {errors.New("internal"), ""}, "Named": {triage.Resume, "resume"}, "Struct": {time.Time{}, ""},
		"Bytes": {[]byte("raw"), ""}, "Ints": {[]int{1, 2}, "1, 2"},
	}
	for name, c := range strs {
		if got := str(c.in); got != c.want {
			t.Errorf("str %s = %q, want %q", name, got, c.want)
		}
	}
	if got := quote(`"product_id"`); got != "“product_id”" {
		t.Errorf("quote = %q", got)
	}
	if got := human("date_range"); got != "date range" {
		t.Errorf("human = %q", got)
	}
	if !timeLike(nil, "order_month") || timeLike("product", nil) {
		t.Error("timeLike")
	}
	if altChart("line", true) != "area" || altChart("pie", true) != "line" || altChart("bar", false) != "pie" {
		t.Error("altChart")
	}
	if got := take(2, []any{"a", "b", "c"}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("take = %v", got)
	}
	if got := collapse("  a \n\t b  <no value> c <nil>\n"); got != "a b c" {
		t.Errorf("collapse = %q", got)
	}
}

// FuzzParse: no policy file makes ParsePolicy panic; one it accepts
// decides every report without panicking, and one it refuses names the
// file in every error.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "policies", "*.yaml"))
	for _, file := range append(files, "default_policy.yaml") {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	inputs := []*Input{{}}
	for _, r := range representative {
		inputs = append(inputs, r.in())
	}
	inputs = append(inputs, testInput(triage.ChartError, "", "", nil, hostileContext()))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz.yaml", data)
		if err != nil {
			if p != nil {
				t.Fatal("a Policy with an error")
			}
			errs := []error{err}
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				errs = j.Unwrap()
			}
			for _, e := range errs {
				if !strings.HasPrefix(e.Error(), "fuzz.yaml") {
					t.Fatalf("error without the file: %q", e)
				}
			}
			return
		}
		if p.MaxAttempts() < 1 || len(p.rules) == 0 || !p.rules[len(p.rules)-1].always {
			t.Fatalf("accepted a policy without a catch-all or with max_attempts %d", p.MaxAttempts())
		}
		for _, in := range inputs {
			d, err := p.Decide(in)
			if err != nil {
				continue // a condition or template that fails on this input
			}
			if d.Rule == "" || !d.NextAction.Valid() || !d.Severity.Valid() || strings.Contains(d.Message, "<no value>") {
				t.Fatalf("decision %#v", d)
			}
		}
	})
}

// Decide on the default policy: the first rule evaluated matches
// (repeated failure), a rule half-way (chart), and the catch-all after
// every condition. The whole pipeline's budget is 50 µs.
func BenchmarkDecide(b *testing.B) {
	p := Default()
	for _, c := range []struct{ name, rule string }{
		{"RepeatedFailure", "repeated_failure"},
		{"AmbiguousInput", "ambiguous_input"},
		{"QueryTooLarge", "query_too_large"},
		{"Chart", "chart_incompatible"},
		{"Fallback", "fallback"},
	} {
		var in *Input
		for _, r := range representative {
			if r.rule == c.rule {
				in = r.in()
			}
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if d, err := p.Decide(in); err != nil || d.Rule != c.rule {
					b.Fatal(d.Rule, err)
				}
			}
		})
	}
}
