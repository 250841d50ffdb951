package resilience_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/resilience"
)

// script answers requests with the given statuses and headers in turn, then
// 200; it records when each request came and its body.
type script struct {
	mu      sync.Mutex
	replies []reply
	times   []time.Time
	bodies  []string
}

type reply struct {
	status int
	header map[string]string
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.times)
	s.times = append(s.times, time.Now())
	s.bodies = append(s.bodies, string(body))
	s.mu.Unlock()
	if n < len(s.replies) {
		for k, v := range s.replies[n].header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(s.replies[n].status)
		io.WriteString(w, `{"error":"attempt failed"}`)
		return
	}
	io.WriteString(w, "done")
}

func (s *script) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.times)
}

func client(cfg resilience.Config) *http.Client {
	return &http.Client{Transport: &resilience.Transport{Policy: resilience.New(cfg)}}
}

// A 429 with Retry-After: 1, twice, then success: exactly three requests,
// each at least a second after the last, whatever the backoff says.
func TestTransportHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	s := &script{replies: []reply{
		{429, map[string]string{"Retry-After": "1"}},
		{429, map[string]string{"Retry-After": "1"}},
	}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	resp, err := client(fast()).Post(srv.URL+"/v1/chat", "application/json", strings.NewReader(`{"prompt":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "done" || s.count() != 3 {
		t.Fatalf("status %d body %q after %d requests", resp.StatusCode, body, s.count())
	}
	for i := 1; i < 3; i++ {
		if gap := s.times[i].Sub(s.times[i-1]); gap < time.Second {
			t.Errorf("request %d came %v after the last, before Retry-After: 1", i+1, gap)
		}
		if s.bodies[i] != `{"prompt":"hi"}` {
			t.Errorf("request %d body %q: not replayed", i+1, s.bodies[i])
		}
	}
}

func TestTransportStatuses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		method   string
		replies  []reply
		requests int
		status   int
	}{
		{"GET 500 retried until attempts run out", "GET", []reply{{500, nil}, {502, nil}, {500, nil}, {500, nil}}, 3, 500},
		{"GET 503 then success", "GET", []reply{{503, nil}}, 2, 200},
		{"POST 500 not retried", "POST", []reply{{500, nil}}, 1, 500},
		{"POST 503 without Retry-After not retried", "POST", []reply{{503, nil}}, 1, 503},
		{"POST 503 with Retry-After-Ms retried", "POST", []reply{{503, map[string]string{"Retry-After-Ms": "5"}}}, 2, 200},
		{"POST 429 with RateLimit retried", "POST", []reply{{429, map[string]string{"RateLimit": `"default";r=0;t=0`}}}, 2, 200},
		{"GET 404 not retried", "GET", []reply{{404, nil}}, 1, 404},
		{"GET 401 not retried", "GET", []reply{{401, nil}}, 1, 401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := &script{replies: c.replies}
			srv := httptest.NewServer(s)
			defer srv.Close()
			req, _ := http.NewRequest(c.method, srv.URL+"/x", strings.NewReader("payload"))
			resp, err := client(fast()).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body) // the last response's body is intact
			resp.Body.Close()
			if resp.StatusCode != c.status || s.count() != c.requests {
				t.Errorf("status %d after %d requests, want %d after %d", resp.StatusCode, s.count(), c.status, c.requests)
			}
			if c.status >= 400 && string(body) != `{"error":"attempt failed"}` {
				t.Errorf("error body %q", body)
			}
		})
	}
}

func TestTransportGivesUpBeforeDeadline(t *testing.T) {
	t.Parallel()
	s := &script{replies: []reply{{429, map[string]string{"Retry-After": "30"}}}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	start := time.Now()
	resp, err := client(fast()).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "30" || s.count() != 1 || time.Since(start) > 2*time.Second {
		t.Errorf("status %d after %d requests in %v", resp.StatusCode, s.count(), time.Since(start))
	}
}

func TestTransportErrors(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var attempts atomic.Int32
	cfg := fast()
	cfg.OnRetry = func(context.Context, resilience.RetryEvent) { attempts.Add(1) }
	c := client(cfg)
	// A refused connection is retried, even for a POST: nothing was sent.
	_, err = c.Post("http://"+addr+"/x", "text/plain", strings.NewReader("x"))
	if err == nil {
		t.Fatal("no error from a closed port")
	}
	if attempts.Load() != 2 {
		t.Errorf("%d retries, want 2", attempts.Load())
	}
	f := fault.From(err)
	if f.Code != fault.TransportError || f.Details["attempts"] != 3 {
		t.Errorf("fault %s %v", f.Code, f.Details)
	}
}

// A body that cannot be replayed is sent once.
func TestTransportUnreplayableBody(t *testing.T) {
	t.Parallel()
	s := &script{replies: []reply{{503, map[string]string{"Retry-After": "0"}}}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	req, _ := http.NewRequest("PUT", srv.URL, io.NopCloser(strings.NewReader("once")))
	req.GetBody = nil
	resp, err := client(fast()).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || s.count() != 1 {
		t.Errorf("status %d after %d requests", resp.StatusCode, s.count())
	}
}

func TestTransportCancelledWhileWaiting(t *testing.T) {
	t.Parallel()
	s := &script{replies: []reply{{503, map[string]string{"Retry-After": "2"}}}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	start := time.Now()
	_, err := client(fast()).Do(req)
	if !errors.Is(err, context.Canceled) || time.Since(start) > time.Second || s.count() != 1 {
		t.Errorf("got %v after %v and %d requests, want the cancellation, at once", err, time.Since(start), s.count())
	}
}

func TestIdempotentRequest(t *testing.T) {
	t.Parallel()
	for method, want := range map[string]bool{"GET": true, "HEAD": true, "PUT": true, "DELETE": true, "OPTIONS": true, "POST": false, "PATCH": false} {
		r, _ := http.NewRequest(method, "http://x/", nil)
		if got := resilience.IdempotentRequest(r); got != want {
			t.Errorf("%s: %v", method, got)
		}
	}
	r, _ := http.NewRequest("POST", "http://x/", nil)
	r.Header.Set("Idempotency-Key", "k1")
	if !resilience.IdempotentRequest(r) {
		t.Error("POST with an Idempotency-Key")
	}
}
