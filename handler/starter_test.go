package handler

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/triage-go/triage"
	"github.com/triage-go/triage/memory"
)

// starterStore is a triage.State on the in-memory stores that counts how it is
// called.
type starterStore struct {
	mu                          sync.Mutex
	d                           memory.Deliveries
	a                           memory.Attempts
	h                           memory.History
	starts, claims, nexts, recs int
}

func (s *starterStore) count(n *int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	*n++
}

func (s *starterStore) Claim(ctx context.Context, key string) (*triage.Feedback, bool, error) {
	s.count(&s.claims)
	return s.d.Claim(ctx, key)
}
func (s *starterStore) Complete(ctx context.Context, key string, fb *triage.Feedback) error {
	return s.d.Complete(ctx, key, fb)
}
func (s *starterStore) Release(ctx context.Context, key string) error { return s.d.Release(ctx, key) }
func (s *starterStore) Next(ctx context.Context, key string) (int, error) {
	s.count(&s.nexts)
	return s.a.Next(ctx, key)
}
func (s *starterStore) Record(ctx context.Context, agent, code string, at time.Time, w time.Duration) (int, error) {
	s.count(&s.recs)
	return s.h.Record(ctx, agent, code, at, w)
}

func (s *starterStore) Start(ctx context.Context, req triage.StartRequest) (triage.StartResult, error) {
	s.count(&s.starts)
	var res triage.StartResult
	var err error
	if res.Prior, res.First, err = s.d.Claim(ctx, req.Key); err != nil || !res.First {
		return res, err
	}
	if res.Attempt, err = s.a.Next(ctx, req.AttemptKey); err != nil {
		return res, err
	}
	res.Recent, err = s.h.Record(ctx, req.Agent, req.Code, req.At, req.Window)
	return res, err
}

func TestHandleStartsInOneWrite(t *testing.T) {
	st := &starterStore{}
	notes := &memory.Notifier{}
	h := newHandler(t, Config{State: st, Notifier: notes})
	var fb *triage.Feedback
	for i := range h.MaxAttempts() + 1 {
		var err error
		if fb, err = h.Handle(context.Background(), timeoutReport(i)); err != nil {
			t.Fatal(err)
		}
		if fb.Attempt != i+1 {
			t.Fatalf("report %d: attempt %d", i+1, fb.Attempt)
		}
	}
	// As with the separate stores (TestHandleEscalatesAfterMaxAttempts).
	if fb.NextAction != triage.Escalate || len(notes.Escalations()) != 1 {
		t.Errorf("fourth attempt: next_action %s, %d escalations", fb.NextAction, len(notes.Escalations()))
	}
	dup, err := h.Handle(context.Background(), timeoutReport(0))
	if err != nil || !dup.Duplicate || dup.Attempt != 1 {
		t.Fatalf("a duplicate of the first report: %+v, %v", dup, err)
	}
	n := h.MaxAttempts() + 2
	if st.starts != n || st.claims != 0 || st.nexts != 0 || st.recs != 0 {
		t.Errorf("%d reports: %d starts, %d claims, %d nexts, %d records; want each report started, nothing else",
			n, st.starts, st.claims, st.nexts, st.recs)
	}
	// Start counted the attempts and the failures of the first deliveries
	// only, in the stores the handler would have used.
	r := mustDecode(t, string(timeoutReport(0)))
	if got, _ := st.a.Next(context.Background(), h.Prepare(r).Start.AttemptKey); got != n {
		t.Errorf("attempts counted: %d, want %d", got-1, n-1)
	}
	code := r.Data.ErrorCode
	if got, _ := st.h.Record(context.Background(), r.AgentID, code, r.Timestamp.Add(10*time.Minute), persistentWindow); got != n {
		t.Errorf("failures recorded: %d, want %d", got-1, n-1)
	}
}

// A tentative Decide (one its caller may make again) counts nothing; the
// caller's Observe of the Result it commits counts it, once.
func TestDecideTentativeObservedOnce(t *testing.T) {
	h := newHandler(t, Config{Registerer: prometheus.NewRegistry()})
	rep, err := triage.DecodeReport([]byte(validReport))
	if err != nil {
		t.Fatal(err)
	}
	reports := func() float64 {
		return testutil.ToFloat64(h.metrics.reports.WithLabelValues("query_error", "medium", "query_engine", "resume"))
	}
	in := Input{Report: rep, Started: triage.StartResult{First: true, Attempt: 1, Recent: 1}, Tentative: true}
	var last *Result
	for range 3 {
		if last, err = h.Decide(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	if v := reports(); v != 0 {
		t.Fatalf("tentative decisions counted: %v", v)
	}
	h.Observe(context.Background(), last)
	if v := reports(); v != 1 {
		t.Errorf("after Observe: %v, want 1", v)
	}
	in.Tentative = false
	res, err := h.Decide(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	h.Observe(context.Background(), res) // counted by Decide already
	if v := reports(); v != 2 {
		t.Errorf("a decision observed twice: %v, want 2", v)
	}
}
