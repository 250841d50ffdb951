package resilience_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/resilience"
)

// An attempt's outcome is not lost to a context that ends as it returns.
func TestOutcomeWinsOverContext(t *testing.T) {
	t.Parallel()
	p := resilience.New(fast())
	op := resilience.Operation{Source: "bridge", Name: "sessions_create"}

	// A success that finishes just as the deadline passes is a success:
	// reporting the deadline would make the caller create it twice.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	v, err := resilience.Do(ctx, p, op, func(ctx context.Context) (string, error) {
		<-ctx.Done()
		return "session-7", nil
	})
	if err != nil || v != "session-7" {
		t.Errorf("success after the deadline: %q %v", v, err)
	}

	// A failure not to retry comes back unchanged, not as the context's.
	ctx2, cancel2 := context.WithCancel(context.Background())
	auth := fault.New(fault.ProviderAuthFailed, "")
	_, err = resilience.Do(ctx2, p, op, func(context.Context) (string, error) {
		cancel2()
		return "", auth
	})
	if err != auth {
		t.Errorf("got %v, want the auth fault unchanged", err)
	}

	// A context already done: fn is not called.
	called := false
	_, err = resilience.Do(ctx2, p, op, func(context.Context) (string, error) { called = true; return "", nil })
	if called || !errors.Is(err, context.Canceled) {
		t.Errorf("called %v, err %v", called, err)
	}
}

// A panic in fn goes up to the caller, and the breaker's permit is
// accounted for, so a half-open breaker does not stay half-open.
func TestPanicReleasesBreaker(t *testing.T) {
	t.Parallel()
	// The breaker's delay passes on synctest's clock, not the machine's.
	synctest.Test(t, func(t *testing.T) {
		cfg := fast()
		cfg.BreakerFailures = 1
		cfg.BreakerDelay = time.Minute
		p := resilience.New(cfg)
		op := resilience.Operation{Source: "panicky", Idempotent: true}
		func() {
			defer func() {
				if recover() == nil {
					t.Error("the panic did not reach the caller")
				}
			}()
			resilience.Do(context.Background(), p, op, func(context.Context) (int, error) { panic("boom") })
		}()
		if !p.Breaker("panicky").IsOpen() {
			t.Fatal("a panicking call did not count as a failure")
		}
		time.Sleep(time.Minute - time.Second)
		if _, err := resilience.Do(context.Background(), p, op, func(context.Context) (int, error) { return 7, nil }); err == nil {
			t.Fatal("the breaker let a call through before its delay")
		}
		time.Sleep(2 * time.Second) // the breaker half-opens
		v, err := resilience.Do(context.Background(), p, op, func(context.Context) (int, error) { return 7, nil })
		if err != nil || v != 7 || !p.Breaker("panicky").IsClosed() {
			t.Fatalf("after the delay: %v %v, breaker %v", v, err, p.Breaker("panicky").State())
		}
	})
}

// A half-open breaker lets one probe through at a time; a probe the caller
// cancels keeps the circuit open.
func TestHalfOpenOneProbe(t *testing.T) {
	t.Parallel()
	// The breaker's delay passes on synctest's clock, not the machine's.
	synctest.Test(t, func(t *testing.T) {
		cfg := fast()
		cfg.BreakerFailures = 1
		cfg.BreakerDelay = time.Minute
		cfg.MaxAttempts = 1
		p := resilience.New(cfg)
		op := resilience.Operation{Source: "flappy", Idempotent: true}
		resilience.Do(context.Background(), p, op, func(context.Context) (int, error) { return 0, fault.New(fault.TransportError, "") })
		time.Sleep(time.Minute + time.Second)

		release := make(chan struct{})
		probing := make(chan struct{})
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() {
			resilience.Do(ctx, p, op, func(ctx context.Context) (int, error) {
				close(probing)
				<-release
				return 0, ctx.Err()
			})
		})
		<-probing
		_, err := resilience.Do(context.Background(), p, op, func(context.Context) (int, error) { return 1, nil })
		if f, _ := fault.As(err); f == nil || f.Classification.Rule != resilience.RuleCircuitOpen || f.RetryAfter <= 0 {
			t.Errorf("a second call while the probe runs: %v", err)
		}
		cancel()
		close(release)
		wg.Wait()
		if p.Breaker("flappy").IsClosed() {
			t.Error("a cancelled probe closed the breaker")
		}
	})
}

func TestBulkheadMaxWait(t *testing.T) {
	t.Parallel()
	// The first call holds its permit for most of MaxWait on synctest's
	// clock, not the machine's.
	synctest.Test(t, func(t *testing.T) {
		cfg := fast()
		cfg.MaxConcurrent = 1
		cfg.MaxWait = time.Second
		cfg.MaxAttempts = 1
		p := resilience.New(cfg)
		op := resilience.Operation{Source: "narrow", Idempotent: true}
		started, first := make(chan struct{}), make(chan struct{})
		var firstDone atomic.Bool
		go func() {
			defer close(first)
			p.Run(context.Background(), op, func(context.Context) error {
				close(started)
				time.Sleep(cfg.MaxWait - 100*time.Millisecond)
				firstDone.Store(true)
				return nil
			})
		}()
		<-started
		// The second call waits for the first one's permit instead of failing.
		err := p.Run(context.Background(), op, func(context.Context) error {
			if !firstDone.Load() {
				t.Error("the second call ran beside the first")
			}
			return nil
		})
		<-first
		if err != nil {
			t.Fatalf("waited call: %v", err)
		}
	})
}

// MaxDuration bounds the attempts too, not only the waits between them.
func TestMaxDurationBoundsAttempts(t *testing.T) {
	t.Parallel()
	cfg := fast()
	cfg.MaxDuration = 50 * time.Millisecond
	p := resilience.New(cfg)
	start := time.Now()
	_, err := resilience.Do(context.Background(), p, idempotent, func(ctx context.Context) (int, error) {
		<-ctx.Done()
		return 0, ctx.Err()
	})
	if fault.CodeOf(err) != fault.Timeout || time.Since(start) > 2*time.Second {
		t.Fatalf("got %v after %v", err, time.Since(start))
	}
}

// A fault that asks for a longer wait than MaxRetryAfter ends the call.
func TestMaxRetryAfter(t *testing.T) {
	t.Parallel()
	p := resilience.New(fast()) // MaxRetryAfter defaults to 2 minutes
	start := time.Now()
	_, err := resilience.Do(context.Background(), p, idempotent, func(context.Context) (int, error) {
		return 0, fault.New(fault.RateLimited, "", fault.WithRetryAfter(24*time.Hour))
	})
	f, _ := fault.As(err)
	if f == nil || f.Details["gave_up"] != "retry_after" || f.RetryAfter != 24*time.Hour || time.Since(start) > time.Second {
		t.Fatalf("got %v", err)
	}
}

// The attempt's timeout still bounds reading a response after it, but does
// not cut it off the moment the attempt returns.
func TestTransportAttemptTimeoutKeepsBody(t *testing.T) {
	t.Parallel()
	returned := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush()
		<-returned // the body is written only after the attempt has returned
		io.WriteString(w, "late but whole")
	}))
	defer srv.Close()
	cfg := fast()
	cfg.AttemptTimeout = 2 * time.Second
	resp, err := client(cfg).Get(srv.URL)
	close(returned)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(body) != "late but whole" {
		t.Fatalf("body %q, %v", body, err)
	}
}

// A body that cannot be replayed goes through the breaker too; when the
// breaker rejects it, it is not sent, and it is closed.
func TestTransportUnreplayableBodyMeetsBreaker(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	cfg := fast()
	cfg.BreakerDelay = time.Minute
	p := resilience.New(cfg)
	host := strings.TrimPrefix(srv.URL, "http://")
	p.Breaker(host).Open()
	body := &closeTracker{Reader: strings.NewReader("once")}
	req, _ := http.NewRequest("POST", srv.URL, body)
	req.GetBody = nil
	_, err := (&http.Client{Transport: &resilience.Transport{Policy: p}}).Do(req)
	if f := fault.From(err); f.Classification.Rule != resilience.RuleCircuitOpen || hits.Load() != 0 || !body.closed.Load() {
		t.Errorf("err %v, %d hits, body closed %v", err, hits.Load(), body.closed.Load())
	}
}

type closeTracker struct {
	io.Reader
	closed atomic.Bool
}

func (c *closeTracker) Close() error { c.closed.Store(true); return nil }
