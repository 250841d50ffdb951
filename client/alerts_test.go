package client_test

import (
	"testing"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/fault"
)

// TestAlertsAgainstTheService: the alert methods against the real
// service: a target and a rule written, listed (the credential not read
// back), refused with field errors, deleted.
func TestAlertsAgainstTheService(t *testing.T) {
	hs, _ := startService(t)
	c, err := client.New(hs.URL, client.Config{APIKey: serviceKey})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	v, err := c.PutAlertTarget(ctx, triage.AlertTarget{Name: "hook", Kind: triage.TargetWebhook, URL: "https://hooks.example.com/t", Secret: "s3cret"})
	if err != nil || !v.Signed || v.URL != "https://hooks.example.com/t" {
		t.Fatalf("PutAlertTarget: %+v %v", v, err)
	}
	r, err := c.PutAlertRule(ctx, triage.AlertRule{ID: "new", When: triage.TriggerNew, Targets: []string{"hook"}})
	if err != nil || r.ID != "new" {
		t.Fatalf("PutAlertRule: %+v %v", r, err)
	}
	_, err = c.PutAlertRule(ctx, triage.AlertRule{ID: "bad", When: triage.TriggerFrequency, Targets: []string{"nobody"}})
	f, ok := fault.As(err)
	if !ok || f.HTTPStatus() != 422 || len(f.FieldErrors) < 2 {
		t.Errorf("an invalid rule: %v", err)
	}
	rules, err := c.AlertRules(ctx)
	if err != nil || rules.Source != "api" || len(rules.Rules) != 1 {
		t.Errorf("AlertRules: %+v %v", rules, err)
	}
	targets, err := c.AlertTargets(ctx)
	if err != nil || len(targets.Targets) != 1 || targets.Targets[0].Name != "hook" {
		t.Errorf("AlertTargets: %+v %v", targets, err)
	}
	if err := c.DeleteAlertRule(ctx, "new"); err != nil {
		t.Errorf("DeleteAlertRule: %v", err)
	}
	if err := c.DeleteAlertTarget(ctx, "hook"); err != nil {
		t.Errorf("DeleteAlertTarget: %v", err)
	}
	if f, ok := fault.As(c.DeleteAlertTarget(ctx, "hook")); !ok || f.Code != fault.NotFound {
		t.Errorf("deleting it again: %v", f)
	}
}
