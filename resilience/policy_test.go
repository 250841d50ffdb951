package resilience_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/resilience"
)

// fast is a config whose backoff does not slow the tests down.
func fast() resilience.Config {
	return resilience.Config{BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}
}

// flaky fails with errs in turn, then succeeds; it counts its calls.
type flaky struct {
	errs  []error
	calls atomic.Int32
	times []time.Time
	mu    sync.Mutex
}

func (f *flaky) call(ctx context.Context) (string, error) {
	n := int(f.calls.Add(1))
	f.mu.Lock()
	f.times = append(f.times, time.Now())
	f.mu.Unlock()
	if n <= len(f.errs) {
		return "", f.errs[n-1]
	}
	return "ok", nil
}

var idempotent = resilience.Operation{Source: "upstream", Name: "read", Idempotent: true}

func TestNotRetryableReturnedUnchanged(t *testing.T) {
	t.Parallel()
	p := resilience.New(fast())
	bad := fmt.Errorf("validate: %w", fault.New(fault.InvalidRequest, "bad field"))
	plain := errors.New("boom")
	for _, err := range []error{bad, plain, context.Canceled} {
		f := &flaky{errs: []error{err, err}}
		_, got := resilience.Do(context.Background(), p, idempotent, f.call)
		if got != err {
			t.Errorf("got %v (%T), want the error unchanged", got, got)
		}
		if n := f.calls.Load(); n != 1 {
			t.Errorf("%v: %d calls, want 1", err, n)
		}
	}
}

func TestRetriesThenSucceeds(t *testing.T) {
	t.Parallel()
	p := resilience.New(fast())
	f := &flaky{errs: []error{fault.New(fault.TransportError, ""), fault.New(fault.Timeout, "")}}
	v, err := resilience.Do(context.Background(), p, idempotent, f.call)
	if err != nil || v != "ok" || f.calls.Load() != 3 {
		t.Fatalf("got %q, %v after %d calls", v, err, f.calls.Load())
	}
}

func TestExhaustedReturnsLastFaultWithAttempts(t *testing.T) {
	t.Parallel()
	p := resilience.New(fast())
	cause := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}
	f := &flaky{errs: []error{cause, cause, cause, cause}}
	_, err := resilience.Do(context.Background(), p, idempotent, f.call)
	var got *fault.Error
	if !errors.As(err, &got) {
		t.Fatalf("got %T %v, want a fault", err, err)
	}
	if got.Code != fault.TransportError || got.Details["attempts"] != 3 || f.calls.Load() != 3 {
		t.Errorf("fault %s attempts %v after %d calls", got.Code, got.Details["attempts"], f.calls.Load())
	}
	if !errors.Is(err, cause) {
		t.Error("errors.Is does not find the cause")
	}
	if _, gave := got.Details["gave_up"]; gave {
		t.Error("exhaustion reported as giving up")
	}
}

// The policy never waits less than the fault's RetryAfter, whatever the
// backoff or its jitter say.
func TestRetryAfterFloorsJitteredBackoff(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var delays []time.Duration
	cfg := fast()
	cfg.JitterFactor = 1 // the largest jitter there is
	cfg.MaxAttempts = 4
	cfg.OnRetry = func(_ context.Context, e resilience.RetryEvent) {
		mu.Lock()
		delays = append(delays, e.Delay)
		mu.Unlock()
	}
	p := resilience.New(cfg)
	const after = 150 * time.Millisecond
	limited := fault.New(fault.RateLimited, "", fault.WithRetryAfter(after))
	f := &flaky{errs: []error{limited, limited, limited}}
	if _, err := resilience.Do(context.Background(), p, idempotent, f.call); err != nil {
		t.Fatal(err)
	}
	if len(delays) != 3 {
		t.Fatalf("%d retries, want 3", len(delays))
	}
	for i, d := range delays {
		if d < after {
			t.Errorf("retry %d scheduled after %v, before RetryAfter %v", i+1, d, after)
		}
	}
	for i := 1; i < len(f.times); i++ {
		if gap := f.times[i].Sub(f.times[i-1]); gap < after {
			t.Errorf("attempt %d came %v after the last, before RetryAfter %v", i+1, gap, after)
		}
	}
}

// Why the policy computes jitter itself: failsafe-go applies its jitter
// after the delay function, so a delay function that returns RetryAfter
// alone is not enough; some waits come out shorter.
func TestFailsafeJitterUndercutsDelayFunc(t *testing.T) {
	t.Parallel()
	const floor = 4 * time.Millisecond
	var mu sync.Mutex
	short := 0
	rp := retrypolicy.NewBuilder[any]().
		WithMaxAttempts(30).
		WithDelayFunc(func(failsafe.ExecutionAttempt[any]) time.Duration { return floor }).
		WithJitterFactor(0.5).
		OnRetryScheduled(func(e failsafe.ExecutionScheduledEvent[any]) {
			mu.Lock()
			if e.Delay < floor {
				short++
			}
			mu.Unlock()
		}).
		Build()
	failsafe.With[any](rp).Get(func() (any, error) { return nil, errors.New("fail") })
	// 29 waits, each below the floor with probability 1/2.
	if short == 0 {
		t.Fatal("failsafe-go's jitter never shortened a wait; the guard may no longer be needed")
	}
}

// If the wait would pass the context's deadline, give up at once with the
// fault, its RetryAfter intact.
func TestGivesUpBeforeTheDeadline(t *testing.T) {
	t.Parallel()
	p := resilience.New(fast())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	limited := fault.New(fault.RateLimited, "", fault.WithRetryAfter(30*time.Second))
	f := &flaky{errs: []error{limited, limited}}
	start := time.Now()
	_, err := resilience.Do(ctx, p, idempotent, f.call)
	if time.Since(start) >= 2*time.Second {
		t.Errorf("slept towards the deadline (%v)", time.Since(start))
	}
	got, ok := fault.As(err)
	if !ok || got.Code != fault.RateLimited || got.RetryAfter != 30*time.Second || got.Source != "upstream" {
		t.Fatalf("got %v (source %q)", err, got.Source)
	}
	if got.Details["gave_up"] != "deadline" || got.Details["attempts"] != 1 || f.calls.Load() != 1 {
		t.Errorf("details %v after %d calls", got.Details, f.calls.Load())
	}
	if limited.Details != nil {
		t.Error("the original fault was changed")
	}
}

func TestGivesUpBeforeMaxDuration(t *testing.T) {
	t.Parallel()
	cfg := fast()
	cfg.MaxDuration = 50 * time.Millisecond
	p := resilience.New(cfg)
	busy := fault.New(fault.ServiceUnavailable, "", fault.WithRetryAfter(time.Second))
	f := &flaky{errs: []error{busy}}
	_, err := resilience.Do(context.Background(), p, idempotent, f.call)
	got, _ := fault.As(err)
	if got == nil || got.Details["gave_up"] != "max_duration" || f.calls.Load() != 1 {
		t.Fatalf("got %v, %d calls", err, f.calls.Load())
	}
}

// The idempotency rule, row by row.
func TestNonIdempotentRetriesOnlyUnprocessed(t *testing.T) {
	t.Parallel()
	refused := func() error {
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := l.Addr().String()
		l.Close()
		_, err := net.Dial("tcp", addr)
		return err
	}()
	cases := []struct {
		name  string
		err   error
		retry bool
	}{
		{"connection refused", refused, true},
		{"429", fault.FromStatus(429, nil, time.Now()), true},
		{"503 with Retry-After", fault.New(fault.ServiceUnavailable, "", fault.WithRetryAfter(time.Millisecond)), true},
		{"session busy (409)", fault.New(fault.SessionBusy, ""), true},
		{"503 without", fault.New(fault.ServiceUnavailable, ""), false},
		{"500", fault.FromStatus(500, nil, time.Now()), false},
		{"timeout", context.DeadlineExceeded, false},
		{"connection reset", fault.New(fault.TransportError, ""), false},
		{"bad request", fault.New(fault.InvalidRequest, ""), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := resilience.New(fast())
			f := &flaky{errs: []error{c.err}}
			op := resilience.Operation{Source: "bridge", Name: "sessions_prompt", Idempotent: false}
			_, err := resilience.Do(context.Background(), p, op, f.call)
			if retried := f.calls.Load() == 2; retried != c.retry {
				t.Errorf("retried %v, want %v (err %v)", retried, c.retry, err)
			}
			if got := resilience.ShouldRetry(fault.From(c.err), false); got != c.retry {
				t.Errorf("ShouldRetry = %v, want %v", got, c.retry)
			}
			if !resilience.ShouldRetry(fault.From(c.err), true) && fault.From(c.err).Retryable {
				t.Error("an idempotent operation would not retry a retryable fault")
			}
		})
	}
}

func TestCircuitBreakerPerSource(t *testing.T) {
	t.Parallel()
	cfg := fast()
	cfg.BreakerFailures = 3
	cfg.BreakerDelay = time.Minute
	p := resilience.New(cfg)
	down := resilience.Operation{Source: "down.example", Idempotent: true}
	up := resilience.Operation{Source: "up.example", Idempotent: true}
	// A bad request says nothing of the source's health.
	for range 5 {
		resilience.Do(context.Background(), p, down, (&flaky{errs: []error{fault.New(fault.InvalidRequest, "")}}).call)
	}
	if !p.Breaker("down.example").IsClosed() {
		t.Fatal("bad requests opened the breaker")
	}
	// One call, three attempts, three transport failures: the breaker opens.
	failing := fault.New(fault.TransportError, "")
	resilience.Do(context.Background(), p, down, (&flaky{errs: []error{failing, failing, failing}}).call)
	if !p.Breaker("down.example").IsOpen() {
		t.Fatal("three transport failures did not open the breaker")
	}
	// An open breaker fails fast, without calling fn, although the policy
	// has attempts to spare.
	f := &flaky{}
	start := time.Now()
	_, err := resilience.Do(context.Background(), p, down, f.call)
	if time.Since(start) > time.Second {
		t.Errorf("waited %v on an open breaker", time.Since(start))
	}
	got, _ := fault.As(err)
	if f.calls.Load() != 0 || got == nil || got.Code != fault.ServiceUnavailable ||
		got.Classification.Rule != resilience.RuleCircuitOpen || got.RetryAfter < 59*time.Second {
		t.Fatalf("open breaker: %d calls, %+v", f.calls.Load(), got)
	}
	// Another source is not affected.
	if v, err := resilience.Do(context.Background(), p, up, (&flaky{}).call); err != nil || v != "ok" {
		t.Errorf("other source: %q %v", v, err)
	}
}

func TestBulkhead(t *testing.T) {
	t.Parallel()
	cfg := fast()
	cfg.MaxConcurrent = 1
	cfg.MaxAttempts = 1
	p := resilience.New(cfg)
	op := resilience.Operation{Source: "narrow", Idempotent: true}
	release := make(chan struct{})
	started := make(chan struct{})
	go p.Run(context.Background(), op, func(context.Context) error {
		close(started)
		<-release
		return nil
	})
	<-started
	err := p.Run(context.Background(), op, func(context.Context) error { return nil })
	close(release)
	got, _ := fault.As(err)
	if got == nil || got.Code != fault.ServiceUnavailable || got.Classification.Rule != resilience.RuleBulkheadFull {
		t.Fatalf("second call: %v", err)
	}
}

func TestAttemptTimeout(t *testing.T) {
	t.Parallel()
	cfg := fast()
	cfg.AttemptTimeout = 20 * time.Millisecond
	p := resilience.New(cfg)
	var calls atomic.Int32
	v, err := resilience.Do(context.Background(), p, idempotent, func(ctx context.Context) (string, error) {
		if calls.Add(1) == 1 {
			<-ctx.Done() // hangs until the attempt times out
			return "", ctx.Err()
		}
		return "second", nil
	})
	if err != nil || v != "second" || calls.Load() != 2 {
		t.Fatalf("got %q %v after %d calls", v, err, calls.Load())
	}
}

func TestCancelDuringWait(t *testing.T) {
	t.Parallel()
	// The hour's backoff is on synctest's clock, and Wait says when the call
	// is in it.
	synctest.Test(t, func(t *testing.T) {
		p := resilience.New(resilience.Config{BaseDelay: time.Hour})
		ctx, cancel := context.WithCancel(context.Background())
		f := &flaky{errs: []error{fault.New(fault.TransportError, "")}}
		start := time.Now()
		done := make(chan error, 1)
		go func() {
			_, err := resilience.Do(ctx, p, idempotent, f.call)
			done <- err
		}()
		synctest.Wait() // the first attempt failed and the call waits out its backoff
		if f.calls.Load() != 1 {
			t.Fatalf("%d calls before the cancellation", f.calls.Load())
		}
		cancel()
		err := <-done
		if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second || f.calls.Load() != 1 {
			t.Fatalf("got %v after %v and %d calls", err, time.Since(start), f.calls.Load())
		}
	})
}

func TestRetryEventsAndLogs(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	var mu sync.Mutex
	cfg := fast()
	cfg.DisableJitter = true
	cfg.Logger = slog.New(slog.NewJSONHandler(&lockedWriter{w: &buf, mu: &mu}, nil))
	var events []resilience.RetryEvent
	cfg.OnRetry = func(_ context.Context, e resilience.RetryEvent) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}
	p := resilience.New(cfg)
	op := resilience.Operation{Source: "openai", Name: "chat.completions", Idempotent: true}
	f := &flaky{errs: []error{fault.New(fault.Timeout, ""), fault.New(fault.TransportError, "")}}
	if _, err := resilience.Do(context.Background(), p, op, f.call); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 2 || events[0].Attempt != 1 || events[1].Attempt != 2 || events[0].Fault.Code != fault.Timeout ||
		events[0].Delay != time.Millisecond || events[1].Delay != 2*time.Millisecond || events[0].Source != "openai" {
		t.Fatalf("events %+v", events)
	}
	dec := json.NewDecoder(&buf)
	for i := range 2 {
		var rec map[string]any
		if err := dec.Decode(&rec); err != nil {
			t.Fatal(err)
		}
		if rec["msg"] != "retrying" || rec["level"] != "WARN" || rec["source"] != "openai" || rec["operation"] != "chat.completions" ||
			rec["attempt"] != float64(i+1) || rec["code"] == nil || rec["delay"] == nil {
			t.Errorf("log record %v", rec)
		}
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestDoKeepsTypeAndRun(t *testing.T) {
	t.Parallel()
	p := resilience.New(fast())
	type result struct{ N int }
	got, err := resilience.Do(context.Background(), p, idempotent, func(context.Context) (result, error) { return result{42}, nil })
	if err != nil || got.N != 42 {
		t.Fatalf("%+v %v", got, err)
	}
	n := 0
	err = p.Run(context.Background(), idempotent, func(context.Context) error {
		n++
		if n < 2 {
			return fault.New(fault.Timeout, "")
		}
		return nil
	})
	if err != nil || n != 2 {
		t.Fatalf("Run: %v after %d", err, n)
	}
}

// Many goroutines share a Policy and its breakers.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	cfg := fast()
	cfg.BreakerFailures = 1000 // this test is about sharing, not breaking
	p := resilience.New(cfg)
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			op := resilience.Operation{Source: fmt.Sprint("s", i%4), Idempotent: true}
			f := &flaky{errs: []error{fault.New(fault.Timeout, "")}}
			if _, err := resilience.Do(context.Background(), p, op, f.call); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}
