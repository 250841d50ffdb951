package resilience_test

import (
	"context"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/retrypolicy"

	"github.com/triage-go/triage/resilience"
)

type completion struct{ text string }

var answer = &completion{"hello"}

// call stands for an SDK call that succeeds: the cost measured is the
// wrapper's.
func call(context.Context) (*completion, error) { return answer, nil }

// A successful call, plain, through bare failsafe-go policies, and through
// Triage's Policy: the figures in docs/performance.md.
func BenchmarkSuccess(b *testing.B) {
	ctx := context.Background()
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := call(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	retry := func() retrypolicy.RetryPolicy[any] {
		return retrypolicy.NewBuilder[any]().WithMaxAttempts(3).WithBackoff(500*time.Millisecond, 30*time.Second).Build()
	}
	bare := func(b *testing.B, exec failsafe.Executor[any]) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := exec.WithContext(ctx).Get(func() (any, error) { return call(ctx) }); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("failsafe/retry", func(b *testing.B) { bare(b, failsafe.With[any](retry())) })
	b.Run("failsafe/retry+breaker", func(b *testing.B) {
		bare(b, failsafe.With[any](retry(), circuitbreaker.NewWithDefaults[any]()))
	})
	triage := func(b *testing.B, p *resilience.Policy) {
		op := resilience.Operation{Source: "openai", Idempotent: true}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := resilience.Do(ctx, p, op, call); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("triage/retry", func(b *testing.B) { triage(b, resilience.New(resilience.Config{DisableBreaker: true})) })
	b.Run("triage/retry+breaker", func(b *testing.B) { triage(b, resilience.New(resilience.Config{})) })
}
