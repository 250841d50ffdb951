package service

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

func TestFirings(t *testing.T) {
	t.Parallel()
	rules := []triage.AlertRule{
		{ID: "new", When: triage.TriggerNew, Targets: []string{"ops"}},
		{ID: "back", When: triage.TriggerRegressed, Targets: []string{"ops"}},
		{ID: "hot", When: triage.TriggerFrequency, Count: 100, WindowSeconds: 3600, Targets: []string{"ops"}},
		{ID: "prod-only", When: triage.TriggerNew, Environment: "prod", Targets: []string{"ops"}},
		{ID: "planner-rate", When: triage.TriggerFailureRate, Agent: "planner", Rate: 0.5, MinRuns: 10, WindowSeconds: 600, Targets: []string{"ops"}},
		{ID: triage.EscalationRule, When: triage.TriggerEscalation, Targets: []string{"ops"}},
	}
	count := func(n int) func(time.Duration) int { return func(time.Duration) int { return n } }
	runs := func(failed, total int) func(string, time.Duration) (int, int) {
		return func(string, time.Duration) (int, int) { return failed, total }
	}
	for _, tc := range []struct {
		name string
		ev   alertEvent
		want []string
	}{
		{"a new record in staging", alertEvent{New: true, ErrorID: "e", Environment: "staging", InWindow: count(1)}, []string{"new"}},
		{"a new record in prod", alertEvent{New: true, ErrorID: "e", Environment: "prod", InWindow: count(1)}, []string{"new", "prod-only"}},
		{"99 in the hour", alertEvent{ErrorID: "e", InWindow: count(99)}, nil},
		{"100 in the hour", alertEvent{ErrorID: "e", InWindow: count(100)}, []string{"hot"}},
		{"a regression, escalated", alertEvent{Regressed: true, Escalated: true, ErrorID: "e", InWindow: count(3)}, []string{"back", triage.EscalationRule}},
		{"ignored: nothing", alertEvent{New: true, Escalated: true, Status: triage.StatusIgnored, ErrorID: "e", InWindow: count(500)}, nil},
		{"planner, 5 of 9 runs", alertEvent{AgentID: "planner", Runs: runs(5, 9)}, nil},
		{"planner, 5 of 10 runs", alertEvent{AgentID: "planner", Runs: runs(5, 10)}, []string{"planner-rate"}},
		{"planner, 4 of 10 runs", alertEvent{AgentID: "planner", Runs: runs(4, 10)}, nil},
		{"another agent, 10 of 10", alertEvent{AgentID: "coder", Runs: runs(10, 10)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range firings(rules, tc.ev) {
				got = append(got, f.Rule.ID)
				if f.Rule.When == triage.TriggerFailureRate {
					if f.Subject != "agent:planner" || f.RunCount != 10 || f.Rate != 0.5 {
						t.Errorf("firing %+v", f)
					}
				} else if f.Subject != "e" {
					t.Errorf("subject %q", f.Subject)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("fired %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAlertConfigCheck(t *testing.T) {
	t.Parallel()
	good := AlertConfig{
		Targets: []triage.AlertTarget{
			{Name: "ops", Kind: triage.TargetWebhook, URL: "https://hooks.example/triage", Secret: "whsec_abc"},
			{Name: "chat", Kind: triage.TargetSlack, URL: "https://hooks.slack.com/services/T/B/x"},
			{Name: "pager", Kind: triage.TargetPagerDuty, RoutingKey: "R0UTING"},
		},
		Rules: []triage.AlertRule{
			{ID: "new", When: triage.TriggerNew, Targets: []string{"ops", "chat"}},
			{ID: "hot", When: triage.TriggerFrequency, Count: 100, WindowSeconds: 3600, ThrottleSeconds: 600, Targets: []string{"pager"}},
			{ID: "rate", When: triage.TriggerFailureRate, Rate: 0.25, MinRuns: 20, WindowSeconds: 900, Targets: []string{"pager"}},
		},
	}
	if err := good.Check(); err != nil {
		t.Fatalf("a valid configuration: %v", err)
	}
	bad := AlertConfig{
		Targets: []triage.AlertTarget{
			{Name: "Ops!", Kind: triage.TargetWebhook},
			{Name: "x", Kind: "email"},
			{Name: "x", Kind: triage.TargetPagerDuty, URL: "ftp://pd.example", Secret: "s"},
		},
		Rules: []triage.AlertRule{
			{ID: "a", When: triage.TriggerFrequency, Targets: []string{"x"}},
			{ID: "a", When: triage.TriggerNew, Count: 3},
			{ID: "r", When: triage.TriggerFailureRate, Rate: 1.5, WindowSeconds: 10, ThrottleSeconds: -1, Targets: []string{"nowhere"}},
			{ID: "w", When: "sometimes", Targets: []string{"x"}},
		},
	}
	err := bad.Check()
	var f *fault.Error
	if !errors.As(err, &f) || f.Code != fault.InvalidRequest || f.Status != 422 {
		t.Fatalf("err = %v", err)
	}
	var got []string
	for _, fe := range f.FieldErrors {
		got = append(got, fe.Field)
	}
	want := []string{
		"targets[0].name", "targets[0].url", "targets[1].kind", "targets[2].name", "targets[2].routing_key", "targets[2].url", "targets[2].secret",
		"rules[0].count", "rules[0].window_seconds",
		"rules[1].id", "rules[1]", "rules[1].targets",
		"rules[2].rate", "rules[2].window_seconds", "rules[2].throttle_seconds", "rules[2].targets[0]",
		"rules[3].when",
	}
	if !slices.Equal(got, want) {
		t.Errorf("fields\n got %v\nwant %v", got, want)
	}
}

// An alert's title is the error's code and message, cut at a
// character's start within its bound.
func TestAlertTitle(t *testing.T) {
	if got := alertTitle("DB_TIMEOUT", "Query timed out"); got != "DB_TIMEOUT: Query timed out" {
		t.Errorf("title %q", got)
	}
	if got := alertTitle("", "no code"); got != "no code" {
		t.Errorf("without a code: %q", got)
	}
	long := alertTitle("C", strings.Repeat("é", maxAlertTitle))
	if len(long) > maxAlertTitle || !utf8.ValidString(long) || !strings.HasSuffix(long, "…") {
		t.Errorf("a long title: %d bytes, valid %v", len(long), utf8.ValidString(long))
	}
}
