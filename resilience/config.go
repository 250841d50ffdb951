package resilience

import (
	"context"
	"log/slog"
	"time"

	"github.com/triage-go/triage/fault"
)

// Config configures a Policy. Every field's zero value is its documented
// default, so Config{} is a sensible policy: three attempts, exponential
// backoff from 500ms to 30s with 20% jitter, a circuit breaker per source
// that opens after five consecutive failures for 30s, no bulkhead, no
// per-attempt timeout and no limit on total duration but the context's
// deadline.
type Config struct {
	// MaxAttempts is the number of attempts, the first included. Defaults
	// to 3 (two retries, as the OpenAI and Anthropic SDKs do by default).
	// Set 1 to disable retries.
	MaxAttempts int

	// MaxDuration bounds the time all attempts and waits may take: the
	// attempts' context ends when it passes, and a retry whose wait would
	// pass it is not made. Defaults to 0: only the context's deadline
	// bounds the call.
	MaxDuration time.Duration

	// MaxRetryAfter is the longest wait for one retry that Do accepts: a
	// fault whose RetryAfter asks for more ends the call at once with that
	// fault, so that a call without a deadline is not parked for hours.
	// Defaults to 2 minutes.
	MaxRetryAfter time.Duration

	// BaseDelay is the wait before the first retry; each later one doubles
	// it. Defaults to 500ms.
	BaseDelay time.Duration

	// MaxDelay caps the backoff (not a fault's RetryAfter, which always
	// wins). Defaults to 30s.
	MaxDelay time.Duration

	// JitterFactor is the fraction of each backoff that is randomised
	// downwards, spreading clients that failed together. Defaults to 0.2;
	// DisableJitter turns it off. Jitter never shortens a wait below the
	// fault's RetryAfter.
	JitterFactor  float64
	DisableJitter bool

	// AttemptTimeout bounds each attempt through its context. Defaults to
	// 0: no per-attempt timeout.
	AttemptTimeout time.Duration

	// BreakerFailures is how many consecutive failures of a source open its
	// circuit breaker. Only failures that say the source is unhealthy count:
	// transport errors, timeouts, retryable upstream errors and
	// unavailability; a bad request or a rate limit does not. Defaults to 5.
	BreakerFailures uint

	// BreakerDelay is how long an open breaker rejects calls before it lets
	// one call through to test the source (half-open); that call's success
	// closes it, its failure opens it again. Defaults to 30s.
	BreakerDelay time.Duration

	// DisableBreaker turns the circuit breakers off.
	DisableBreaker bool

	// MaxConcurrent bounds the calls in flight to one source (a bulkhead).
	// Defaults to 0: no bound.
	MaxConcurrent uint

	// MaxWait is how long an attempt waits for a bulkhead permit before it
	// is rejected. A rejection is retried like any request that was never
	// sent, so one call may wait up to MaxAttempts×MaxWait plus backoff.
	// Defaults to 0: an attempt is rejected at once.
	MaxWait time.Duration

	// OnRetry, when set, is called before each wait for a retry, with the
	// call's context.
	OnRetry func(ctx context.Context, e RetryEvent)

	// Logger, when set, logs each retry at Warn level with the attributes
	// source, operation, code, attempt and delay. Defaults to nil: no log.
	Logger *slog.Logger
}

// RetryEvent describes a retry about to happen: the attempt that failed, the
// fault it failed with, and the wait before the next attempt.
type RetryEvent struct {
	Source    string
	Operation string
	Attempt   int // the attempt that failed, from 1
	Delay     time.Duration
	Fault     *fault.Error
}

// LogAttrs returns the event as slog attributes: source, operation, code,
// attempt and delay.
func (e RetryEvent) LogAttrs() []slog.Attr {
	return []slog.Attr{
		slog.String("source", e.Source),
		slog.String("operation", e.Operation),
		slog.String("code", string(e.Fault.Code)),
		slog.Int("attempt", e.Attempt),
		slog.Duration("delay", e.Delay),
	}
}

// Operation describes a call: where it goes and whether it may be repeated.
type Operation struct {
	// Source is the provider or upstream host the call goes to ("openai",
	// "api.example.com"). Each source has its own circuit breaker and
	// bulkhead. Empty is a source of its own.
	Source string

	// Name names the operation in events and logs ("chat.completions",
	// "sessions_prompt").
	Name string

	// Idempotent says that repeating the call is harmless: a read, a status
	// check, a stateless completion. A non-idempotent call (creating a
	// session, sending a prompt into one) is retried only when the fault
	// proves the request was not processed; see ShouldRetry.
	Idempotent bool

	// Once makes a single attempt: the breaker, bulkhead and timeouts apply,
	// but nothing is retried (Transport uses it for a request whose body
	// cannot be sent twice).
	Once bool
}

func (c Config) withDefaults() Config {
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 3
	}
	if c.BaseDelay <= 0 {
		c.BaseDelay = 500 * time.Millisecond
	}
	if c.MaxDelay <= 0 {
		c.MaxDelay = 30 * time.Second
	}
	c.MaxDelay = max(c.MaxDelay, c.BaseDelay)
	if c.JitterFactor <= 0 {
		c.JitterFactor = 0.2
	}
	c.JitterFactor = min(c.JitterFactor, 1)
	if c.DisableJitter {
		c.JitterFactor = 0
	}
	if c.BreakerFailures == 0 {
		c.BreakerFailures = 5
	}
	if c.BreakerDelay <= 0 {
		c.BreakerDelay = 30 * time.Second
	}
	if c.MaxRetryAfter <= 0 {
		c.MaxRetryAfter = 2 * time.Minute
	}
	return c
}
