package resilience

import (
	"errors"

	"github.com/failsafe-go/failsafe-go/bulkhead"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/timeout"

	"github.com/triage-go/triage/fault"
)

// The errors failsafe-go's own policies return, for callers who compose
// failsafe-go policies themselves: importing this package teaches fault.From
// what they mean. (A Policy raises its own faults and never returns them.)
func init() {
	fault.Register(classify)
}

// classify runs on every fault.From of an error that is not already a
// fault, so it compares the chain's errors with the sentinels directly
// instead of calling errors.Is three times.
func classify(err error) (*fault.Error, bool) {
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch e {
		case circuitbreaker.ErrOpen:
			return rejected(RuleCircuitOpen, "", 0, err), true
		case bulkhead.ErrFull:
			return rejected(RuleBulkheadFull, "", 0, err), true
		case timeout.ErrExceeded:
			f := fault.Wrap(err, fault.Timeout, "", fault.WithCategory(fault.CategoryTransport))
			f.Classification.Rule = "failsafe_timeout"
			return f, true
		}
	}
	return nil, false
}
