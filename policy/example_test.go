package policy_test

import (
	"fmt"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/classify"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/policy"
)

// A custom policy: slow queries are retried while attempts remain, and
// everything else is escalated. Its message templates read the context and
// the attempt.
func ExampleParse() {
	p, err := policy.Parse("ops.yaml", []byte(`version: 1
max_attempts: 2
rules:
  - name: slow_query
    when: error_type == "query_error" && fault.code == "TIMEOUT" && attempt < max_attempts
    actions: [retry]
    next_action: resume
    severity: low
    message: 'The {{ .context.table }} query timed out; retrying (attempt {{ .attempt }}).'
  - name: everything_else
    default: true
    actions: [escalate]
    next_action: escalate
    severity: high
    message: Something went wrong; the on-call engineer has been told.
`), nil)
	if err != nil {
		panic(err)
	}
	in := &policy.Input{
		Report: &triage.Report{AgentID: "query_agent", Data: triage.Data{
			ErrorType: triage.QueryError, Message: "statement timeout", QueryID: "q_1",
			Context: map[string]any{"table": "sales"}}},
		Classification: classify.Result{Type: triage.QueryError, Confidence: 1, Method: "reported"},
		Cause:          triage.RootCause{Cause: triage.CauseTransient},
		Fault:          fault.New(fault.Timeout, "statement timeout"),
	}
	for attempt := 1; attempt <= 2; attempt++ {
		in.Attempt = attempt
		d, err := p.Decide(in)
		if err != nil {
			panic(err)
		}
		fmt.Println(d.Rule, d.Actions, d.NextAction, d.Severity)
		fmt.Println(d.Message)
	}
	// Output:
	// slow_query [retry] resume low
	// The sales query timed out; retrying (attempt 1).
	// everything_else [escalate] escalate high
	// Something went wrong; the on-call engineer has been told.
}

// A policy that does not compile is refused with every problem, each
// naming the file, the line, the rule and the setting.
func ExampleParse_errors() {
	_, err := policy.Parse("ops.yaml", []byte(`version: 1
rules:
  - name: broken
    when: error_type == 3
    actions: [page_oncall]
    next_action: resume
    severity: low
    message: hi
  - name: last
    default: true
    next_action: escalate
    severity: high
    message: bye
`), nil)
	fmt.Println(err)
	// Output:
	// ops.yaml:4: rule 1 (broken): when: 1:12: found no matching overload for '_==_' applied to '(string, int)'
	// ops.yaml:5: rule 1 (broken): actions[0]: unknown action "page_oncall"; the actions are clarify, map_synonym, suggest_chart, use_cache, reduce_scope, retry, escalate
}

// A policy's codes: section teaches Triage its agents' own error codes, and
// may change what one of Triage's means; Codes is the merged table that
// handler.New classifies reports with.
func ExamplePolicy_Codes() {
	p, err := policy.Parse("codes.yaml", []byte(`version: 1
codes:
  WAREHOUSE_BUSY: {type: system_error, fault: SERVICE_UNAVAILABLE}
  deadlock: {type: query_error, fault: TIMEOUT}
rules:
  - name: fallback
    default: true
    next_action: escalate
    severity: medium
    message: Something went wrong.
`), nil)
	if err != nil {
		panic(err)
	}
	codes := p.Codes()
	for _, code := range []string{"warehouse_busy", "DEADLOCK", "DB_TIMEOUT"} {
		s, _ := codes.Lookup(code)
		fmt.Println(code, s.Type, s.Fault)
	}
	_, err = policy.Parse("typo.yaml", []byte("version: 1\ncodes:\n  WAREHOUSE_BUSY: {type: system_error, fault: BUSY}\nrules:\n  - {name: f, default: true, next_action: escalate, severity: low, message: m}\n"), nil)
	fmt.Println(err)
	// Output:
	// warehouse_busy system_error SERVICE_UNAVAILABLE
	// DEADLOCK query_error TIMEOUT
	// DB_TIMEOUT query_error TIMEOUT
	// typo.yaml:3: codes.WAREHOUSE_BUSY.fault: "BUSY" is not a code of the taxonomy (docs/taxonomy.md)
}
