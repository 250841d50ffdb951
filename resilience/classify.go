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

// classify finds failsafe-go's sentinels anywhere in err's chain, as
// errors.Is does: behind %w, errors.Join and a multi-%w fmt.Errorf, and
// through an error's own Is method.
//
// A chain holding more than one of them is classified by the one that
// promises least, whatever their order in the chain:
//
//  1. timeout.ErrExceeded: TIMEOUT. An attempt ran and may have been
//     processed, so the fault must not say the request never left, as the
//     other two do (see NotProcessed): that would let a non-idempotent
//     call be repeated.
//  2. circuitbreaker.ErrOpen: SERVICE_UNAVAILABLE, rule circuit_open. The
//     source is failing; Do does not retry it within the call.
//  3. bulkhead.ErrFull: SERVICE_UNAVAILABLE, rule bulkhead_full. The source
//     is only busy.
func classify(err error) (*fault.Error, bool) {
	switch {
	case errors.Is(err, timeout.ErrExceeded):
		f := fault.Wrap(err, fault.Timeout, "", fault.WithCategory(fault.CategoryTransport))
		f.Classification.Rule = "failsafe_timeout"
		return f, true
	case errors.Is(err, circuitbreaker.ErrOpen):
		return rejected(RuleCircuitOpen, "", 0, err), true
	case errors.Is(err, bulkhead.ErrFull):
		return rejected(RuleBulkheadFull, "", 0, err), true
	}
	return nil, false
}
