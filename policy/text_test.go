package policy

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

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
`), nil)
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
			p, err := Parse("parts.yaml", []byte(tt.yaml), nil)
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
			p, err := Parse("vars.yaml", []byte(src), nil)
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
`), nil)
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
