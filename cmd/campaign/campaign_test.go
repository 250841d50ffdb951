package main

import (
	"os"
	"testing"
)

// TestCampaignTiny runs every scenario at -scale 0.1 (about a minute):
// nothing acknowledged is lost, no canary leaks, every check holds.
func TestCampaignTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("the campaign builds triage and runs it for ~30 s: not under -short")
	}
	rows, err := campaign(t.Context(), 0.1, "", "", os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", table(rows))
	if len(rows) != len(scenarios) {
		t.Errorf("%d rows, want %d", len(rows), len(scenarios))
	}
	for _, r := range rows {
		if r.lost > 0 || r.leaked > 0 || r.failed {
			t.Errorf("%s: lost %d, leaked %d, notes: %v", r.scenario, r.lost, r.leaked, r.notes)
		}
	}
}
