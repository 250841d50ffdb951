package resilience_test

import (
	"context"
	"errors"
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

// openCircuit is an error of someone else's that says, through its Is
// method, that it is failsafe-go's open circuit.
type openCircuit struct{}

func (openCircuit) Error() string        { return "upstream pool: breaker tripped" }
func (openCircuit) Is(target error) bool { return target == circuitbreaker.ErrOpen }

// failsafe-go's sentinels are found wherever the chain holds them: behind
// errors.Join and a multi-%w fmt.Errorf (Unwrap() []error), nested, and
// through an error's own Is method.
func TestFailsafeErrorsInChains(t *testing.T) {
	t.Parallel()
	other := errors.New("tool call failed")
	sentinels := []struct {
		name string
		err  error
		code fault.Code
		rule string
	}{
		{"CircuitOpen", circuitbreaker.ErrOpen, fault.ServiceUnavailable, resilience.RuleCircuitOpen},
		{"BulkheadFull", bulkhead.ErrFull, fault.ServiceUnavailable, resilience.RuleBulkheadFull},
		{"TimeoutExceeded", timeout.ErrExceeded, fault.Timeout, "failsafe_timeout"},
	}
	for _, s := range sentinels {
		for name, err := range map[string]error{
			"Joined":        errors.Join(other, s.err),
			"JoinedFirst":   errors.Join(s.err, other),
			"MultiWrap":     fmt.Errorf("%w; %w", other, s.err),
			"NestedJoin":    fmt.Errorf("agent step: %w", errors.Join(other, fmt.Errorf("calling: %w", s.err))),
			"WrappedInJoin": errors.Join(fmt.Errorf("a: %w", other), fmt.Errorf("b: %w", fmt.Errorf("c: %w", s.err))),
		} {
			t.Run(s.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				f := fault.From(err)
				if f.Code != s.code || f.Classification.Rule != s.rule || !f.Retryable {
					t.Errorf("fault.From(%q) = %s rule %q retryable=%v; want %s rule %q retryable", err, f.Code, f.Classification.Rule, f.Retryable, s.code, s.rule)
				}
				if !errors.Is(f, s.err) || !errors.Is(f, other) {
					t.Errorf("the fault lost part of its chain: %v", f)
				}
			})
		}
	}
	t.Run("IsMethod", func(t *testing.T) {
		t.Parallel()
		f := fault.From(fmt.Errorf("dialing: %w", openCircuit{}))
		if f.Code != fault.ServiceUnavailable || f.Classification.Rule != resilience.RuleCircuitOpen {
			t.Errorf("an error that Is circuitbreaker.ErrOpen: %s rule %q", f.Code, f.Classification.Rule)
		}
	})
}

// A chain holding two of failsafe-go's sentinels is classified by the one
// that promises least, whatever their order: a timeout (the call may have
// run) beats an open circuit and a full bulkhead (never sent), and an open
// circuit beats a full bulkhead.
func TestFailsafeErrorsPrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		a, b   error
		code   fault.Code
		rule   string
		unsent bool // resilience.NotProcessed
	}{
		{"TimeoutOverCircuitOpen", timeout.ErrExceeded, circuitbreaker.ErrOpen, fault.Timeout, "failsafe_timeout", false},
		{"TimeoutOverBulkheadFull", timeout.ErrExceeded, bulkhead.ErrFull, fault.Timeout, "failsafe_timeout", false},
		{"CircuitOpenOverBulkheadFull", circuitbreaker.ErrOpen, bulkhead.ErrFull, fault.ServiceUnavailable, resilience.RuleCircuitOpen, true},
	}
	for _, tt := range tests {
		for name, err := range map[string]error{
			"Joined":         errors.Join(tt.a, tt.b),
			"JoinedReversed": errors.Join(tt.b, tt.a),
			"MultiWrap":      fmt.Errorf("%w; %w", tt.b, tt.a),
		} {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				f := fault.From(err)
				if f.Code != tt.code || f.Classification.Rule != tt.rule {
					t.Errorf("fault.From(%q) = %s rule %q; want %s rule %q", err, f.Code, f.Classification.Rule, tt.code, tt.rule)
				}
				if got := resilience.NotProcessed(f); got != tt.unsent {
					t.Errorf("NotProcessed = %v, want %v", got, tt.unsent)
				}
			})
		}
	}
}
