package handler

import (
	"context"
	"strings"
	"testing"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/policy"
)

// A policy's codes: entry changes how a report with that code is
// classified, end to end: its type, its fault, and so the rule that
// decides and the next action.
func TestDecidePolicyCodes(t *testing.T) {
	const rules = `
rules:
  - name: outage
    when: error_type == "system_error" && fault.code == "SERVICE_UNAVAILABLE"
    next_action: escalate
    severity: high
    message: The warehouse is busy.
  - name: fallback
    default: true
    next_action: await_user
    severity: low
    message: Something went wrong.
`
	decide := func(t *testing.T, yaml string) *triage.Feedback {
		t.Helper()
		p, err := policy.Parse("codes.yaml", []byte(yaml), nil)
		if err != nil {
			t.Fatal(err)
		}
		h := newHandler(t, Config{Policy: p})
		r := report("warehouse", "", "warehouse_busy", "please try later")
		res, err := h.Decide(context.Background(), Input{Report: r, Started: triage.StartResult{First: true, Attempt: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Feedback
	}
	// Unknown to Triage, the code says nothing: no rule decides the type,
	// nor the fault.
	fb := decide(t, "version: 1\n"+rules)
	if fb.ErrorType == triage.SystemError && fb.Fault.Code == fault.ServiceUnavailable {
		t.Fatalf("an unknown code was classified as the policy will say: %+v", fb)
	}
	if fb.NextAction != triage.AwaitUser {
		t.Errorf("without codes: next action %s, want await_user", fb.NextAction)
	}
	// The policy teaches it.
	fb = decide(t, "version: 1\ncodes:\n  WAREHOUSE_BUSY: {type: system_error, fault: SERVICE_UNAVAILABLE}\n"+rules)
	if fb.ErrorType != triage.SystemError || fb.Confidence != 0.97 || fb.Fault.Code != fault.ServiceUnavailable ||
		fb.Fault.HTTPStatus != 503 || !fb.Fault.Retryable || fb.NextAction != triage.Escalate ||
		!strings.Contains(fb.UserMessage, "warehouse is busy") {
		t.Errorf("with codes: %+v", fb)
	}
}
