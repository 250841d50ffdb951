package policy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

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
		{"code_unknown_fault.yaml", Error{Line: 5, Field: "codes.WAREHOUSE_BUSY.fault"}, `"WAREHOUSE_DOWN" is not a code of the taxonomy`, 0},
		{"code_unknown_type.yaml", Error{Line: 4, Field: "codes.WAREHOUSE_BUSY.type"}, `"warehouse_error" is not one of input_error,`, 0},
		{"code_missing_fault.yaml", Error{Line: 3, Field: "codes.WAREHOUSE_BUSY.fault"}, "missing", 0},
		{"code_unknown_field.yaml", Error{Line: 5, Field: "codes.WAREHOUSE_BUSY"}, `unknown field "falt"; a code has type and fault`, 0},
		{"code_twice.yaml", Error{Line: 3, Field: "codes.warehouse_busy"}, `"warehouse_busy" repeats "WAREHOUSE_BUSY"`, 0},
		{"codes_not_mapping.yaml", Error{Line: 2, Field: "codes"}, "into a mapping of codes", 0},
		{"several_errors.yaml", Error{Line: 2, Field: "max_attempts"}, "not -1", 5},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".yaml"), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("testdata", "policies", tt.file)
			p, err := Load(path, nil)
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
		_, err := Load(file, nil)
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
	_, err := Load(filepath.Join("testdata", "policies", "cel_field.yaml"), nil)
	want := filepath.Join("testdata", "policies", "cel_field.yaml") + ":4: rule 1 (drift): when: 1:6: undefined field 'cuase'"
	if err == nil || err.Error() != want {
		t.Errorf("error %q\n want %q", err, want)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	p, err := Load(filepath.Join("testdata", "policies", "valid.yaml"), nil)
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
	if _, err := Load(filepath.Join("testdata", "policies", "nope.yaml"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if p.MaxAttempts() != 5 {
		t.Fatal("Decide changed the policy")
	}
	if p, err := Parse("no_max.yaml", []byte("version: 1\nrules:\n  - {name: f, default: true, next_action: resume, severity: low, message: x}\n"), nil); err != nil || p.MaxAttempts() != 3 {
		t.Errorf("max_attempts by default: %v, %v", p, err)
	}
}

// FuzzParse: no policy file makes Parse panic; one it accepts
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
		p, err := Parse("fuzz.yaml", data, nil)
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

// codes: may come anywhere in the file; its entries merge over the
// defaults, and an error in one names its line wherever the section is.
func TestParseCodes(t *testing.T) {
	t.Parallel()
	const rules = "rules:\n  - name: fallback\n    default: true\n    next_action: escalate\n    severity: low\n    message: m\n"
	p, err := Parse("after.yaml", []byte("version: 1\n"+rules+"codes:\n  WAREHOUSE_BUSY: {type: system_error, fault: SERVICE_UNAVAILABLE}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := p.Codes().Lookup("warehouse_busy"); !ok || s.Type != triage.SystemError || s.Fault != fault.ServiceUnavailable {
		t.Errorf("WAREHOUSE_BUSY: %+v, %v", s, ok)
	}
	if got, want := len(p.Codes()), len(Default().Codes())+1; got != want {
		t.Errorf("%d codes, want the %d defaults and one", got, want)
	}
	_, err = Parse("after.yaml", []byte("version: 1\n"+rules+"codes:\n  A: {type: system_error, fault: TIMEOUT}\n  B:\n    type: system_error\n    faults: TIMEOUT\n"), nil)
	var pe *Error
	if !errors.As(err, &pe) || pe.Line != 12 || pe.Rule != 0 || pe.Field != "codes.B" || !strings.Contains(pe.Reason, `unknown field "faults"`) {
		t.Errorf("an unknown field after the rules: %#v", err)
	}
	_, err = Parse("before.yaml", []byte("version: 1\ncodes:\n  A: {type: system_error, fault: TIMEOUT}\n"+strings.Replace(rules, "message: m", "mesage: m", 1)), nil)
	if !errors.As(err, &pe) || pe.Line != 9 || pe.Rule != 1 || pe.Field != "" || !strings.Contains(pe.Reason, `a rule has name`) {
		t.Errorf("an unknown rule field after the codes: %#v", err)
	}
}
