package fault_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/triage-go/triage/fault"
)

// From's allocation budget: none for a fault already in the chain, one (the
// fault) for the stdlib errors. Counts are deterministic, unlike times, so
// this guards the budget in every test run, with or without -race.
func TestFromAllocations(t *testing.T) {
	existing := fmt.Errorf("call: %w", fault.New(fault.RateLimited, ""))
	deadline := fmt.Errorf("agent: %w", context.DeadlineExceeded)
	if n := testing.AllocsPerRun(100, func() { fault.From(existing) }); n != 0 {
		t.Errorf("From(existing fault) allocates %v times, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { fault.From(deadline) }); n != 1 {
		t.Errorf("From(DeadlineExceeded) allocates %v times, want 1", n)
	}
}
