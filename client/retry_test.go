package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/resilience"
	"github.com/triage-go/triage/wire/problem"
)

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// sameKey checks that every request carried the same, well-formed
// Idempotency-Key, and returns it.
func sameKey(t *testing.T, reqs []request) string {
	t.Helper()
	key := reqs[0].header.Get("Idempotency-Key")
	if key == "" {
		t.Fatal("no Idempotency-Key sent")
	}
	for i, r := range reqs {
		if got := r.header.Get("Idempotency-Key"); got != key {
			t.Errorf("request %d: Idempotency-Key = %q, want %q (the first request's)", i+1, got, key)
		}
	}
	return key
}

func TestReportRateLimitedHonoursRetryAfter(t *testing.T) {
	s := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			writeProblem(w, r, fault.New(fault.RateLimited, "", fault.WithRetryAfter(time.Second)))
			return
		}
		writeFeedback(w, http.StatusCreated, testFeedback(false))
	})
	fb, err := newClient(t, s.URL, client.Config{}).Report(context.Background(), testReport(), nil)
	if err != nil {
		t.Fatalf("Report: %v", err)
	}
	if fb.ErrorID != "err_7f3a" {
		t.Errorf("ErrorID = %q", fb.ErrorID)
	}
	reqs := s.requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	sameKey(t, reqs)
	// A lower bound only: the retry may not come before the Retry-After,
	// however the backoff is configured.
	if gap := reqs[1].at.Sub(reqs[0].at); gap < time.Second {
		t.Errorf("the retry came %v after the 429, before its Retry-After: 1", gap)
	}
}

func TestReportRetried(t *testing.T) {
	for _, tc := range []struct {
		name    string
		respond func(w http.ResponseWriter, r *http.Request)
	}{
		{"503 problem", func(w http.ResponseWriter, r *http.Request) {
			writeProblem(w, r, fault.New(fault.ServiceUnavailable, ""))
		}},
		{"503 from a proxy", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "<html>upstream unavailable</html>", http.StatusServiceUnavailable)
		}},
		{"502 from a proxy", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "bad gateway", http.StatusBadGateway)
		}},
		{"409 SESSION_BUSY", func(w http.ResponseWriter, r *http.Request) {
			writeProblem(w, r, fault.New(fault.SessionBusy, "A request with this Idempotency-Key is in flight."))
		}},
		{"409 SESSION_BUSY marked not retryable", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", problem.ContentType)
			w.WriteHeader(http.StatusConflict)
			io.WriteString(w, `{"type":"/errors/session-busy","title":"Session Busy","status":409,"code":"SESSION_BUSY","retryable":false}`)
		}},
		{"409 without a problem", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusConflict)
		}},
		{"connection closed", func(w http.ResponseWriter, _ *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					tc.respond(w, r)
					return
				}
				writeFeedback(w, http.StatusOK, testFeedback(true))
			})
			fb, err := newClient(t, s.URL, client.Config{}).Report(context.Background(), testReport(), nil)
			if err != nil {
				t.Fatalf("Report: %v", err)
			}
			if fb.ErrorID != "err_7f3a" {
				t.Errorf("ErrorID = %q", fb.ErrorID)
			}
			reqs := s.requests()
			if len(reqs) != 2 {
				t.Fatalf("server saw %d requests, want 2", len(reqs))
			}
			sameKey(t, reqs)
			if !bytes.Equal(reqs[0].body, reqs[1].body) {
				t.Errorf("the retry's body differs:\n%s\n%s", reqs[0].body, reqs[1].body)
			}
		})
	}
}

func TestReportNotRetried(t *testing.T) {
	for _, tc := range []struct {
		name    string
		respond func(w http.ResponseWriter, r *http.Request)
		code    fault.Code
		status  int
	}{
		{"400", func(w http.ResponseWriter, r *http.Request) {
			writeProblem(w, r, fault.New(fault.InvalidRequest, "The request body is not valid JSON."))
		}, fault.InvalidRequest, 400},
		{"401", func(w http.ResponseWriter, r *http.Request) {
			writeProblem(w, r, fault.New(fault.TenantRequired, ""))
		}, fault.TenantRequired, 401},
		{"403", func(w http.ResponseWriter, r *http.Request) {
			writeProblem(w, r, fault.New(fault.TenantUnauthorized, ""))
		}, fault.TenantUnauthorized, 403},
		{"500", func(w http.ResponseWriter, r *http.Request) {
			writeProblem(w, r, fault.New(fault.InternalError, ""))
		}, fault.InternalError, 500},
		{"401 without a problem", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		}, fault.TenantRequired, 401},
		{"403 without a problem", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "forbidden", http.StatusForbidden)
		}, fault.TenantUnauthorized, 403},
		{"404 without a problem", func(w http.ResponseWriter, _ *http.Request) {
			http.NotFound(w, nil)
		}, fault.NotFound, 404},
		{"413 without a problem", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "too large", http.StatusRequestEntityTooLarge)
		}, fault.PayloadTooLarge, 413},
		{"unknown code", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", problem.ContentType)
			w.WriteHeader(http.StatusTeapot)
			io.WriteString(w, `{"status":418,"code":"FUTURE_CODE","detail":"something new","retryable":false}`)
		}, "FUTURE_CODE", 418},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, func(_ int, w http.ResponseWriter, r *http.Request) { tc.respond(w, r) })
			fb, err := newClient(t, s.URL, client.Config{}).Report(context.Background(), testReport(), nil)
			if fb != nil {
				t.Errorf("feedback = %+v, want nil", fb)
			}
			f := asFault(t, err)
			if f.Code != tc.code || f.HTTPStatus() != tc.status || f.Retryable {
				t.Errorf("fault = %v (status %d, retryable %v), want %s, %d, not retryable", f, f.HTTPStatus(), f.Retryable, tc.code, tc.status)
			}
			if n := len(s.requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
		})
	}
}

func TestReportAttemptsRunOut(t *testing.T) {
	s := newServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		writeProblem(w, r, fault.New(fault.ServiceUnavailable, "The Error Handler is overloaded."))
	})
	cfg := fast
	cfg.MaxAttempts = 4
	c, err := client.New(s.URL, client.Config{Resilience: cfg})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Report(context.Background(), testReport(), nil)
	f := asFault(t, err)
	if f.Code != fault.ServiceUnavailable || f.Details["attempts"] != 4 || f.Message != "The Error Handler is overloaded." {
		t.Errorf("fault = %v, details %v; want SERVICE_UNAVAILABLE after 4 attempts", f, f.Details)
	}
	reqs := s.requests()
	if len(reqs) != 4 {
		t.Fatalf("server saw %d requests, want 4", len(reqs))
	}
	sameKey(t, reqs)
}

func TestReportEachCallHasItsOwnKey(t *testing.T) {
	s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		writeFeedback(w, http.StatusCreated, testFeedback(false))
	})
	c := newClient(t, s.URL, client.Config{})
	for range 2 {
		if _, err := c.Report(context.Background(), testReport(), nil); err != nil {
			t.Fatal(err)
		}
	}
	reqs := s.requests()
	if a, b := reqs[0].header.Get("Idempotency-Key"), reqs[1].header.Get("Idempotency-Key"); a == b {
		t.Errorf("two Report calls sent the same key %q", a)
	}
}

func TestReportCallerIdempotencyKey(t *testing.T) {
	s := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			writeProblem(w, r, fault.New(fault.SessionBusy, ""))
			return
		}
		writeFeedback(w, http.StatusCreated, testFeedback(false))
	})
	c := newClient(t, s.URL, client.Config{})
	if _, err := c.Report(context.Background(), testReport(), &client.ReportOptions{IdempotencyKey: "report:q_456:1"}); err != nil {
		t.Fatalf("Report: %v", err)
	}
	if key := sameKey(t, s.requests()); key != "report:q_456:1" {
		t.Errorf("Idempotency-Key = %q, want the caller's", key)
	}

	for _, bad := range []string{"has space", "line\nbreak", `"quoted"`, `back\slash`, strings.Repeat("k", 256)} {
		_, err := c.Report(context.Background(), testReport(), &client.ReportOptions{IdempotencyKey: bad})
		if f := asFault(t, err); f.Code != fault.InvalidRequest {
			t.Errorf("key %q: fault = %v, want INVALID_REQUEST", bad, f)
		}
	}
	if n := len(s.requests()); n != 2 {
		t.Errorf("server saw %d requests, want 2: an invalid key is not sent", n)
	}
}

func TestReportContextCancelledWhileWaiting(t *testing.T) {
	s := newServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		writeProblem(w, r, fault.New(fault.ServiceUnavailable, "", fault.WithRetryAfter(30*time.Second)))
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := fast
	cfg.OnRetry = func(context.Context, resilience.RetryEvent) { cancel() } // cancel during the wait
	c, err := client.New(s.URL, client.Config{Resilience: cfg})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Report(ctx, testReport(), nil)
	f := asFault(t, err)
	if f.Code != fault.Cancelled || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want CANCELLED wrapping context.Canceled", err)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestReportContextAlreadyCancelled(t *testing.T) {
	s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		writeFeedback(w, http.StatusCreated, testFeedback(false))
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newClient(t, s.URL, client.Config{}).Report(ctx, testReport(), nil)
	if f := asFault(t, err); f.Code != fault.Cancelled || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want CANCELLED", err)
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("server saw %d requests, want 0", n)
	}
}

func TestReportRetryAfterPastDeadline(t *testing.T) {
	s := newServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		writeProblem(w, r, fault.New(fault.RateLimited, "", fault.WithRetryAfter(time.Minute)))
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := newClient(t, s.URL, client.Config{}).Report(ctx, testReport(), nil)
	f := asFault(t, err)
	if f.Code != fault.RateLimited || f.RetryAfter != time.Minute || f.Details["gave_up"] != "deadline" {
		t.Errorf("fault = %v (retry after %v, details %v), want RATE_LIMITED given up at the deadline", f, f.RetryAfter, f.Details)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestMaxAttemptsOne(t *testing.T) {
	s := newServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		writeProblem(w, r, fault.New(fault.ServiceUnavailable, ""))
	})
	c, err := client.New(s.URL, client.Config{Resilience: resilience.Config{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Report(context.Background(), testReport(), nil)
	if f := asFault(t, err); f.Code != fault.ServiceUnavailable {
		t.Errorf("fault = %v, want SERVICE_UNAVAILABLE", f)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestNewIdempotencyKey(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		k := client.NewIdempotencyKey()
		if !uuidV4.MatchString(k) {
			t.Fatalf("NewIdempotencyKey() = %q, want a version 4 UUID", k)
		}
		if seen[k] {
			t.Fatalf("NewIdempotencyKey() repeated %q", k)
		}
		seen[k] = true
	}
}
