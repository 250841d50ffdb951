package resilience

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/bulkhead"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/retrypolicy"

	"github.com/triage-go/triage/fault"
)

// Policy runs calls with retries steered by each failure's fault, a circuit
// breaker and an optional bulkhead per source, and an optional timeout per
// attempt. Build one with New and share it: it is safe for concurrent use,
// and its breakers only work when every call to a source goes through the
// same Policy.
type Policy struct {
	cfg  Config
	exec failsafe.Executor[any]
	now  func() time.Time // the clock for deadline arithmetic; time.Now

	noSrc   *source  // shared when neither breakers nor bulkheads are on
	sources sync.Map // source name → *source
}

// source holds what a Policy keeps per source.
type source struct {
	breaker  circuitbreaker.CircuitBreaker[any] // nil when disabled
	bulkhead bulkhead.Bulkhead[any]             // nil when unbounded
}

// New returns a Policy configured by cfg (see Config for the defaults).
func New(cfg Config) *Policy {
	cfg = cfg.withDefaults()
	p := &Policy{cfg: cfg, now: time.Now}
	if cfg.DisableBreaker && cfg.MaxConcurrent == 0 {
		p.noSrc = &source{} // nothing per source: skip the lookup
	}
	// failsafe-go owns the retry loop, the count of attempts and the waits.
	// Triage owns the decisions: only an *attemptError (a failure the
	// fault says to retry) is handled, and its delay is the one Triage
	// computed, floored at the fault's RetryAfter. failsafe-go's own jitter
	// and max duration are deliberately not configured, because both act
	// after the delay function and could shorten a wait below RetryAfter.
	rp := retrypolicy.NewBuilder[any]().
		HandleIf(func(_ any, err error) bool {
			_, ok := err.(*attemptError)
			return ok
		}).
		WithMaxAttempts(cfg.MaxAttempts).
		WithDelayFunc(func(exec failsafe.ExecutionAttempt[any]) time.Duration {
			if ae, ok := exec.LastError().(*attemptError); ok {
				return ae.delay
			}
			return cfg.BaseDelay
		}).
		ReturnLastFailure().
		OnRetryScheduled(p.onRetryScheduled).
		Build()
	p.exec = failsafe.With[any](rp)
	return p
}

// attemptError is a failure the policy will retry: the error the call
// returned, its fault, and the wait before the next attempt.
type attemptError struct {
	err     error
	fault   *fault.Error
	delay   time.Duration
	op      *Operation
	attempt int
}

func (e *attemptError) Error() string { return e.err.Error() }
func (e *attemptError) Unwrap() error { return e.err }

// stopError is a retryable failure the policy gives up on before its wait:
// the wait would pass the context's deadline or MaxDuration.
type stopError struct {
	fault  *fault.Error
	reason string
}

func (e *stopError) Error() string { return e.fault.Error() }
func (e *stopError) Unwrap() error { return e.fault }

func (p *Policy) onRetryScheduled(ev failsafe.ExecutionScheduledEvent[any]) {
	ae, ok := ev.LastError().(*attemptError)
	if !ok {
		return
	}
	e := RetryEvent{Source: ae.op.Source, Operation: ae.op.Name, Attempt: ae.attempt, Delay: ev.Delay, Fault: ae.fault}
	ctx := ev.Context()
	if p.cfg.OnRetry != nil {
		p.cfg.OnRetry(ctx, e)
	}
	if p.cfg.Logger != nil {
		p.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "retrying", e.LogAttrs()...)
	}
}

// source returns the breaker and bulkhead of a source, creating them on
// first use.
func (p *Policy) source(name string) *source {
	if p.noSrc != nil {
		return p.noSrc
	}
	if s, ok := p.sources.Load(name); ok {
		return s.(*source)
	}
	s := &source{}
	if !p.cfg.DisableBreaker {
		s.breaker = circuitbreaker.NewBuilder[any]().
			WithFailureThreshold(p.cfg.BreakerFailures).
			WithSuccessThreshold(1). // half-open: one probe at a time
			WithDelay(p.cfg.BreakerDelay).
			Build()
	}
	if p.cfg.MaxConcurrent > 0 {
		s.bulkhead = bulkhead.New[any](p.cfg.MaxConcurrent)
	}
	actual, _ := p.sources.LoadOrStore(name, s)
	return actual.(*source)
}

// Breaker returns the circuit breaker of a source, for inspection (its
// state, its metrics) and for tests; nil when breakers are disabled.
func (p *Policy) Breaker(source string) circuitbreaker.CircuitBreaker[any] {
	return p.source(source).breaker
}

// Do runs fn under p for the operation op and returns its result.
//
// A failure is retried only when ShouldRetry says so for its fault
// (fault.From classifies it), and never before the fault's RetryAfter. Any
// other failure is returned at once, unchanged. When attempts run out, the
// result is the last failure's fault, with the number of attempts in its
// details ("attempts"); errors.Is still finds the original error. Do gives
// up at once, returning that fault (its RetryAfter intact) with details
// "attempts" and "gave_up", when a retry's wait would pass the context's
// deadline ("deadline"), MaxDuration ("max_duration"), or MaxRetryAfter
// ("retry_after"). A call its source's open circuit breaker rejects fails
// fast, without calling fn: a SERVICE_UNAVAILABLE fault (rule
// RuleCircuitOpen) whose RetryAfter is the breaker's remaining delay. The
// faults Do builds name op.Source when their own source is unknown.
//
// An attempt's outcome is never lost to the context: if fn succeeded, or
// failed in a way not to retry, just as the context ended, that outcome is
// returned. A context already done when Do is called returns its error
// without calling fn.
//
// fn receives the context of its attempt: ctx, bounded by AttemptTimeout
// and MaxDuration when they are configured. After a successful attempt that
// context stays live until its deadline, so a result read afterwards (a
// response body, a stream) may still be read within the attempt's time.
func Do[T any](ctx context.Context, p *Policy, op Operation, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	c := &call[T]{p: p, op: op, src: p.source(op.Source), ctx: ctx, fn: fn}
	if p.cfg.MaxDuration > 0 {
		c.start = p.now()
		var cancel context.CancelFunc
		c.ctx, cancel = context.WithDeadline(ctx, c.start.Add(p.cfg.MaxDuration))
		// On success the context must outlive Do (see above); its timer
		// releases it at the deadline.
		defer func() {
			if c.lastErr != nil {
				cancel()
			}
		}()
	}
	res, err := p.exec.WithContext(c.ctx).Get(c.get)
	if err != nil {
		if c.endedDone && !isPolicyError(err) {
			// failsafe-go reports the context's error once it is done,
			// whatever the attempt returned: when the context ended
			// during the attempt, the attempt's own outcome wins. (When
			// it ended during a wait, the context's error is the answer.)
			if c.lastErr == nil {
				v, _ := c.lastV.(T)
				return v, nil
			}
			if !isPolicyError(c.lastErr) {
				return zero, c.lastErr
			}
			err = c.lastErr
		}
		return zero, c.final(err)
	}
	v, _ := res.(T)
	return v, nil
}

// isPolicyError reports whether err is one the policy made to steer the
// retry loop.
func isPolicyError(err error) bool {
	switch err.(type) {
	case *attemptError, *stopError:
		return true
	}
	return false
}

// Run is Do for a function without a result.
func (p *Policy) Run(ctx context.Context, op Operation, fn func(context.Context) error) error {
	_, err := Do(ctx, p, op, func(ctx context.Context) (struct{}, error) { return struct{}{}, fn(ctx) })
	return err
}

// call is the state of one Do: one allocation, whatever the attempts.
type call[T any] struct {
	p        *Policy
	op       Operation
	src      *source
	ctx      context.Context
	fn       func(context.Context) (T, error)
	start    time.Time // set only when MaxDuration needs it
	attempts int

	// The last attempt's outcome, as get returned it, and whether the
	// context was already done when it ended.
	lastV     any
	lastErr   error
	endedDone bool
}

// get makes one attempt and decides what its failure means; failsafe-go
// calls it for each attempt.
func (c *call[T]) get() (any, error) {
	v, err := c.decide()
	c.lastV, c.lastErr = v, err
	c.endedDone = c.ctx.Err() != nil
	return v, err
}

func (c *call[T]) decide() (any, error) {
	c.attempts++
	ctx := c.ctx
	v, err := c.try(ctx)
	if err == nil {
		return v, nil
	}
	f := fault.From(err)
	if !ShouldRetry(f, c.op.Idempotent) || f.Classification.Rule == RuleCircuitOpen || c.op.Once {
		// An open breaker fails fast: waiting out its delay inside one
		// call would hold the caller for up to BreakerDelay. The fault's
		// RetryAfter tells the caller when the source may be tried again.
		// A Once operation is never retried.
		return v, err
	}
	if c.attempts >= c.p.cfg.MaxAttempts {
		return v, &attemptError{err: err, fault: f, op: &c.op, attempt: c.attempts}
	}
	delay := c.p.delay(c.attempts, f)
	if f.RetryAfter > c.p.cfg.MaxRetryAfter {
		return v, &stopError{fault: f, reason: "retry_after"}
	}
	now := c.p.now()
	if max := c.p.cfg.MaxDuration; max > 0 && now.Add(delay).Sub(c.start) >= max {
		return v, &stopError{fault: f, reason: "max_duration"}
	}
	if deadline, ok := ctx.Deadline(); ok && !now.Add(delay).Before(deadline) {
		return v, &stopError{fault: f, reason: "deadline"}
	}
	return v, &attemptError{err: err, fault: f, delay: delay, op: &c.op, attempt: c.attempts}
}

// try passes the bulkhead and the breaker, then calls fn.
func (c *call[T]) try(ctx context.Context) (v any, err error) {
	if b := c.src.bulkhead; b != nil {
		if err := b.AcquirePermitWithMaxWait(ctx, c.p.cfg.MaxWait); err != nil {
			if errors.Is(err, bulkhead.ErrFull) {
				return nil, rejected(RuleBulkheadFull, c.op.Source, 0, err)
			}
			return nil, err
		}
		defer b.ReleasePermit()
	}
	cb := c.src.breaker
	if cb != nil && !cb.TryAcquirePermit() {
		// A half-open breaker's probe is out: no remaining delay, but no
		// reason to come back at once either.
		after := max(cb.RemainingDelay(), c.p.cfg.BaseDelay)
		return nil, rejected(RuleCircuitOpen, c.op.Source, after, circuitbreaker.ErrOpen)
	}
	if t := c.p.cfg.AttemptTimeout; t > 0 {
		actx, cancel := context.WithTimeout(ctx, t)
		ctx = actx
		// A successful attempt's context outlives it (see Do); a failed
		// one's is released at once.
		defer func() {
			if err != nil {
				cancel()
			}
		}()
	}
	if cb != nil {
		// A panic in fn must not leave the breaker's permit taken (a
		// half-open breaker would stay half-open for good).
		defer func() {
			if p := recover(); p != nil {
				cb.RecordFailure()
				panic(p)
			}
		}()
	}
	var r T
	r, err = c.fn(ctx)
	if cb != nil {
		c.record(cb, ctx, err)
	}
	return r, err
}

// record tells the breaker how an attempt went.
func (c *call[T]) record(cb circuitbreaker.CircuitBreaker[any], ctx context.Context, err error) {
	switch {
	case err == nil:
		cb.RecordSuccess()
	case c.ctx.Err() != nil && errors.Is(err, c.ctx.Err()):
		// The caller gave up: that says nothing of the source's health. A
		// half-open breaker's probe still has to be accounted for, and an
		// inconclusive probe keeps the circuit open.
		if cb.IsHalfOpen() {
			cb.RecordFailure()
		}
	case unhealthy(fault.From(err)):
		cb.RecordFailure()
	default:
		cb.RecordSuccess()
	}
}

// rejected is the fault of a call this process refused to send.
func rejected(rule, src string, after time.Duration, cause error) *fault.Error {
	msg := "Too many concurrent requests to a required service. Please try again."
	if rule == RuleCircuitOpen {
		msg = "A required service is failing and calls to it are paused. Please try again later."
	}
	f := fault.Wrap(cause, fault.ServiceUnavailable, msg, fault.WithSource(src), fault.WithRetryAfter(after))
	f.Classification = fault.Classification{Method: fault.MethodExplicit, Rule: rule, Confidence: 1}
	return f
}

// delay is the wait after a failed attempt (1 for the first): exponential
// backoff with jitter, never shorter than the fault's RetryAfter.
func (p *Policy) delay(attempt int, f *fault.Error) time.Duration {
	backoff := p.cfg.MaxDelay
	if shift := attempt - 1; shift < 30 {
		backoff = min(p.cfg.BaseDelay<<shift, p.cfg.MaxDelay)
	}
	if j := p.cfg.JitterFactor; j > 0 {
		backoff -= time.Duration(rand.Float64() * j * float64(backoff))
	}
	return max(backoff, f.RetryAfter)
}

// final turns what the retry loop returned into what Do returns.
func (c *call[T]) final(err error) error {
	switch e := err.(type) {
	case *attemptError:
		// Attempts ran out.
		return withAttempts(e.fault, c.op.Source, c.attempts, "")
	case *stopError:
		return withAttempts(e.fault, c.op.Source, c.attempts, e.reason)
	}
	return err
}

func withAttempts(f *fault.Error, source string, attempts int, gaveUp string) *fault.Error {
	f = f.Clone()
	if f.Source == "" {
		f.Source = source
	}
	if f.Details == nil {
		f.Details = make(map[string]any, 2)
	}
	f.Details["attempts"] = attempts
	if gaveUp != "" {
		f.Details["gave_up"] = gaveUp
	}
	return f
}
