package fault

import (
	"context"
	"fmt"
	"testing"
)

// From's allocation budget: none for a fault already in the chain, one (the
// fault) for the stdlib errors. Counts are deterministic, unlike times, so
// this guards the budget in every test run, with or without -race.
//
// The budget is From's own: a classifier another test registered (they
// stay registered for the test process, so the second run of -count=2
// met them) allocates on its own account, and is set aside meanwhile.
// The test is not parallel, so no parallel test registers one while it
// runs.
func TestFromAllocations(t *testing.T) {
	saved := classifiers.Swap(nil)
	defer classifiers.Store(saved)
	existing := fmt.Errorf("call: %w", New(RateLimited, ""))
	deadline := fmt.Errorf("agent: %w", context.DeadlineExceeded)
	if n := testing.AllocsPerRun(100, func() { From(existing) }); n != 0 {
		t.Errorf("From(existing fault) allocates %v times, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { From(deadline) }); n != 1 {
		t.Errorf("From(DeadlineExceeded) allocates %v times, want 1", n)
	}
}
