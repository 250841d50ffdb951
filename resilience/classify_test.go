package resilience_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/bulkhead"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/timeout"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/resilience"
)

// Importing the package teaches fault.From what failsafe-go's own errors
// mean, for callers who compose failsafe-go policies themselves.
func TestFailsafeErrorsClassified(t *testing.T) {
	t.Parallel()
	cb := circuitbreaker.NewWithDefaults[any]()
	cb.Open()
	_, openErr := failsafe.With[any](cb).Get(func() (any, error) { return nil, nil })
	_, timeoutErr := failsafe.With[any](timeout.New[any](time.Millisecond)).GetWithExecution(func(e failsafe.Execution[any]) (any, error) {
		<-e.Canceled()
		return nil, context.Canceled
	})
	cases := []struct {
		err  error
		code fault.Code
		rule string
	}{
		{openErr, fault.ServiceUnavailable, resilience.RuleCircuitOpen},
		{fmt.Errorf("x: %w", bulkhead.ErrFull), fault.ServiceUnavailable, resilience.RuleBulkheadFull},
		{timeoutErr, fault.Timeout, "failsafe_timeout"},
	}
	for _, c := range cases {
		f := fault.From(c.err)
		if f.Code != c.code || f.Classification.Rule != c.rule || !f.Retryable {
			t.Errorf("%v: %s %q retryable=%v", c.err, f.Code, f.Classification.Rule, f.Retryable)
		}
	}
}
