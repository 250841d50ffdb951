package service_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/triage-go/triage/service"
)

// An operator's alerts file: each tenant it names gets these rules and
// targets, read-only through the API.
func ExampleParseAlerts() {
	file := `tenants:
  acme:
    targets:
      - {name: oncall, kind: pagerduty, routing_key: R0UTINGKEY}
    rules:
      - {id: bursts, when: frequency, count: 100, window_seconds: 60, targets: [oncall]}
      - {id: escalation, when: escalation, throttle_seconds: 600, targets: [oncall]}
`
	alerts, err := service.ParseAlerts([]byte(file), "alerts.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range alerts["acme"].Rules {
		fmt.Println(r.ID, r.When, r.Throttle(), r.Targets)
	}
	// Output:
	// bursts frequency 1h0m0s [oncall]
	// escalation escalation 10m0s [oncall]
}

// A file that is not valid names the member at fault.
func TestParseAlertsRefuses(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"tenants:\n  acme:\n    rules: []\n    colour: red\n", "colour"},
		{"tenants:\n  acme:\n    rules:\n      - {id: r, when: new, targets: [nobody]}\n", "rules[0].targets[0]"},
		{"tenants:\n  acme:\n    targets:\n      - {name: t, kind: webhook}\n", "targets[0].url"},
		{"tenants:\n  'a b':\n    rules: []\n", "not a tenant"},
		{"rules: []\n", "tenants"},
		{"", "no tenants"},
		{"tenants: [\n", "alerts.yaml"},
	} {
		_, err := service.ParseAlerts([]byte(c.file), "alerts.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error naming %s", c.file, err, c.want)
		}
	}
	if _, err := service.ParseAlerts([]byte(strings.Repeat(" ", service.MaxAlertsFile+1)), "big"); err == nil {
		t.Error("a file over the bound was read")
	}
}
