package memory_test

import (
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/memory"
	"github.com/triage-go/triage/store/storetest"
)

// TestStateConformance runs the state suite, which every store's tenants
// pass too, on memory.State: one State per tenant.
func TestStateConformance(t *testing.T) {
	storetest.RunState(t, func(t *testing.T, _ func() time.Time) func(string) triage.State {
		states := map[string]*memory.State{}
		return func(tenant string) triage.State {
			if states[tenant] == nil {
				states[tenant] = &memory.State{}
			}
			return states[tenant]
		}
	})
}
