package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// jobTarpit: tenant A's agent has a callback that answers after 120 s
// (a tarpit); A posts 40 reports whose handling enqueues a retry each,
// which the job workers post to that callback. Tenant B's agent has a
// callback that answers at once; B posts a report a second, alone first,
// then beside A's tarpit. How late B's retries reach its callback (from
// the time each was due, the retry's "at") is the figure.
func jobTarpit(ctx context.Context, c config) (r row) {
	var held, most atomic.Int64
	release := make(chan struct{})
	tarpit := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		// The body read, net/http notices the client going away.
		_, _ = io.Copy(io.Discard, req.Body)
		n := held.Add(1)
		defer held.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		select {
		case <-time.After(120 * time.Second):
		case <-release:
		case <-req.Context().Done():
		}
	}))
	defer tarpit.Close()
	defer close(release)
	quick := newLateness()
	fast := httptest.NewServer(quick)
	defer fast.Close()

	p, err := start(ctx, c, filepath.Join(c.dir, "jobtarpit.db"), filepath.Join(c.dir, "jobtarpit.log"), "--private-callbacks")
	if err != nil {
		r.fail("%v", err)
		return r
	}
	defer p.stop()
	for key, cb := range map[string]string{keyA: tarpit.URL, keyB: fast.URL} {
		if a := do(ctx, "PUT", p.base+"/v1/agents/query_engine", key, []byte(`{"callback_url":"`+cb+`"}`), nil); a.status != http.StatusOK {
			r.fail("registering a callback: %d %v %.200s", a.status, a.err, a.body)
			return r
		}
	}
	post := func(key, query string) bool {
		a := do(ctx, "POST", p.base+"/v1/errors", key, report(query, ""), nil)
		return a.err == nil && a.status == http.StatusCreated
	}
	bPosts := func(d time.Duration, prefix string) (posted int) {
		end := time.Now().Add(d)
		for i := 0; time.Now().Before(end) && ctx.Err() == nil; i++ {
			if post(keyB, fmt.Sprintf("q_tarpit_%s_%d_%d", prefix, runID, i)) {
				posted++
			}
			time.Sleep(time.Second)
		}
		return posted
	}

	// B alone.
	alonePosted := bPosts(c.dur(10*time.Second), "alone")
	waitFor(ctx, 30*time.Second, func() bool { return quick.count() >= alonePosted })
	alone := quick.take()

	// A's tarpit, then B beside it.
	tarpitted := c.n(40, 16)
	for i := range tarpitted {
		if !post(keyA, fmt.Sprintf("q_tarpit_a_%d_%d", runID, i)) {
			r.fail("A's report %d refused", i)
			return r
		}
	}
	waitFor(ctx, 20*time.Second, func() bool { return held.Load() > 0 })
	besidePosted := bPosts(c.dur(30*time.Second), "beside")
	waitFor(ctx, 120*time.Second, func() bool { return quick.count() >= besidePosted })
	beside := quick.take()

	r.load = fmt.Sprintf("B's retries late by %s alone; %s beside A's tarpit", alone.summary(), beside.summary())
	r.note("A: %d reports whose retries' callback answers after 120 s; at most %d of them held at once (8 workers); B: a report a second, %d alone then %d beside, each retry's lateness from its run_at to its callback",
		tarpitted, most.Load(), alonePosted, besidePosted)
	if alone.n < alonePosted || beside.n < besidePosted {
		r.fail("B's retries arrived: %d of %d alone, %d of %d beside A's tarpit (within 120 s)", alone.n, alonePosted, beside.n, besidePosted)
	}
	return r
}

// lateness is a callback that records how late each retry came: from
// its "at" (when it was due) to when it arrived.
type lateness struct {
	mu   sync.Mutex
	late []time.Duration
}

func newLateness() *lateness { return &lateness{} }

func (l *lateness) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	var job struct {
		At time.Time `json:"at"`
	}
	if json.Unmarshal(body, &job) == nil && !job.At.IsZero() {
		l.mu.Lock()
		l.late = append(l.late, max(time.Since(job.At), 0))
		l.mu.Unlock()
	}
}

func (l *lateness) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.late)
}

// take returns the lateness recorded so far, and forgets it.
func (l *lateness) take() spread {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := spread{n: len(l.late), all: slices.Sorted(slices.Values(l.late))}
	l.late = nil
	return s
}

// spread is a set of durations.
type spread struct {
	n   int
	all []time.Duration
}

// summary: "p50 1.2s, max 3.4s (n 10)".
func (s spread) summary() string {
	if s.n == 0 {
		return "(none arrived)"
	}
	return fmt.Sprintf("p50 %v, max %v (%d)", s.all[s.n/2].Round(100*time.Millisecond), s.all[s.n-1].Round(100*time.Millisecond), s.n)
}
