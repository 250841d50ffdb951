package policy

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cel.dev/cel-go/common/types"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/classify"
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
		Classification: classify.Result{Type: typ, Confidence: 0.92, Method: "reported"},
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
		t.Error("Default parses the embedded policy more than once")
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
	if _, err := Load("default_policy.yaml", nil); err != nil {
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
			Message:     "Something went wrong and I couldn't fix it automatically, and sending the same request again would fail the same way.",
			Suggestions: []string{"Rephrase the request"}}},
		{"FallbackRetryable", testInput(triage.Unknown, "E_WEIRD", triage.CauseUnknown, fault.New(fault.ServiceUnavailable, ""), nil),
			Decision{Rule: "fallback", Actions: []string{"escalate"}, NextAction: triage.Escalate, Severity: triage.SeverityMedium,
				Message:     "Something went wrong and I couldn't fix it automatically; please try again in a little while.",
				Suggestions: []string{"Try again later", "Rephrase the request"}}},
		{"ServiceOutageNotRetryable", testInput(triage.SystemError, "PAYLOAD_TOO_LARGE", triage.CauseUnknown, fault.New(fault.PayloadTooLarge, ""), nil),
			Decision{Rule: "service_outage", Actions: []string{"escalate"}, NextAction: triage.Escalate, Severity: triage.SeverityHigh,
				Message:     "This request couldn't be completed, and sending it again as it is would fail the same way.",
				Suggestions: []string{"Change the request"}}},
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
			p, err := Parse("order.yaml", []byte(c.src), nil)
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

// invitesRetry matches a message or suggestion that tells the user to send
// the same request again later ("try again in a few minutes", "temporarily
// unavailable"), as opposed to changing it first ("correct it and try
// again").
var invitesRetry = regexp.MustCompile(`(?i)temporarily|try again (later|shortly|in\b)|in a (few|little) (minutes?|while)|try again$`)

// TestDefaultMessagesAgreeWithRetryable: a fault that is not retryable
// (PAYLOAD_TOO_LARGE, a refused request) never gets a message inviting the
// user to send the same request again, whatever rule decides it; a
// retryable one with a Retry-After that the message names is named by it.
func TestDefaultMessagesAgreeWithRetryable(t *testing.T) {
	t.Parallel()
	for _, r := range representative {
		t.Run(r.rule, func(t *testing.T) {
			t.Parallel()
			in := r.in()
			in.Fault = fault.New(fault.PayloadTooLarge, "")
			if in.Fault.Retryable {
				t.Fatal("PAYLOAD_TOO_LARGE is retryable: pick another code for this test")
			}
			d, err := Default().Decide(in)
			if err != nil {
				t.Fatal(err)
			}
			for _, text := range append([]string{d.Message}, d.Suggestions...) {
				if invitesRetry.MatchString(text) {
					t.Errorf("rule %s, fault not retryable: %q invites a retry", d.Rule, text)
				}
			}
		})
	}
	// The message that contradicted PAYLOAD_TOO_LARGE's retryable "no" on
	// the dashboard: a door's own failure, classified a system error.
	d, err := Default().Decide(testInput(triage.SystemError, "PAYLOAD_TOO_LARGE", triage.CauseUnknown,
		fault.New(fault.PayloadTooLarge, ""), nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := "This request couldn't be completed, and sending it again as it is would fail the same way."; d.Rule != "service_outage" || d.Message != want {
		t.Errorf("PAYLOAD_TOO_LARGE: rule %s, %q; want service_outage, %q", d.Rule, d.Message, want)
	}
	// A retryable fault keeps its invitation, with its Retry-After.
	d, err = Default().Decide(testInput(triage.SystemError, "", triage.CauseOutage,
		fault.New(fault.ServiceUnavailable, "", fault.WithRetryAfter(30*time.Second)), nil))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Message, "try again in 30 seconds") {
		t.Errorf("SERVICE_UNAVAILABLE, retry after 30s: %q", d.Message)
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
`), nil)
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
		"    message: |-\n      two\n      lines\n    suggestions: [ok, 'from {{.context.range.start}}']\n"), nil)
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
