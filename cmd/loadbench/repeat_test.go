package main

import (
	"math"
	"testing"

	"github.com/triage-go/triage"
)

// TestRepeatShare checks -repeat's sequence: P % of a load's requests
// (within a point over 20,000) send an earlier request's report, one
// that is a new error and at least repeatLag before; its body is that
// request's with its own time, so the same fingerprint (the same record)
// under another delivery key (not a duplicate); the other requests are
// each a new error.
func TestRepeatShare(t *testing.T) {
	const n = 20000
	for _, p := range []int{0, 1, 10, 50, 90, 100} {
		repeats := 0
		seen := map[int64]bool{}
		for i := int64(1); i <= n; i++ {
			s := source(i, p)
			if s == i {
				if isRepeat(i, p) {
					t.Fatalf("p %d: request %d is a repeat of itself", p, i)
				}
				seen[i] = true
				continue
			}
			repeats++
			if s > i-repeatLag || !seen[s] || isRepeat(s, p) {
				t.Fatalf("p %d: request %d repeats %d, not a new error at least %d before", p, i, s, repeatLag)
			}
		}
		want := float64(p) / 100 * (n - repeatLag) // the first repeatLag have nothing to repeat
		if math.Abs(float64(repeats)-want) > n/100 {
			t.Errorf("p %d: %d repeats of %d requests, want %.0f ± %d", p, repeats, n, want, n/100)
		}
		if p > 0 && p < 100 && len(seen) < n*(100-p)/100-n/100 {
			t.Errorf("p %d: %d new errors of %d requests", p, len(seen), n)
		}
	}

	// A repeat's report against its source's: one record, two deliveries.
	var i int64 = repeatLag + 1
	for !isRepeat(i, 50) {
		i++
	}
	first, err := triage.DecodeReport([]byte(reportBody("q", source(i, 50))))
	if err != nil {
		t.Fatal(err)
	}
	again, err := triage.DecodeReport([]byte(reportBody("q", source(i, 50))))
	if err != nil {
		t.Fatal(err)
	}
	other, err := triage.DecodeReport([]byte(reportBody("q", i)))
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case triage.Fingerprint(first) != triage.Fingerprint(again):
		t.Errorf("a repeat's fingerprint %s differs from its source's %s", triage.Fingerprint(again), triage.Fingerprint(first))
	case triage.DeliveryKey(first) == triage.DeliveryKey(again):
		t.Errorf("a repeat has its source's delivery key %s: a duplicate, not an occurrence", triage.DeliveryKey(first))
	case triage.Fingerprint(other) == triage.Fingerprint(first):
		t.Errorf("request %d's own report has its source's fingerprint", i)
	}
}
