package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// The store floor: the store calls the service makes of each report,
// through the same store, without HTTP and without the handler. A
// report's handling reads once, PeekReport (the delivery, the attempt and
// the window's failures), and writes once, Report (the claim, the
// attempt, the failure, the occurrence, its record, the delivery's
// completion and its jobs, in one transaction; issue 28: it was Start,
// then SaveOccurrence, two writes). What the service can reach is bounded
// by how fast its store takes these, so the service's share of this floor
// says how much of the gap to floor 2 is the store's and how much the
// rest of the request's.

// sampling is a store that keeps a copy of the first Start request and
// occurrence the service makes, as the shapes the store floor repeats.
type sampling struct {
	store.Store
	mu    sync.Mutex
	start *triage.StartRequest
	occ   *store.Occurrence
	// byAttempt are the first occurrences of each attempt (-repeat: a
	// repeat is a later attempt at its query, and the handler's jobs
	// follow the attempt: escalations past the retries).
	byAttempt map[int]*store.Occurrence
}

func (s *sampling) Tenant(id string) store.Tenant { return samplingTenant{s.Store.Tenant(id), s} }

// sample returns the shapes kept, false before the service saved one.
func (s *sampling) sample() (triage.StartRequest, store.Occurrence, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.start == nil || s.occ == nil {
		return triage.StartRequest{}, store.Occurrence{}, false
	}
	return *s.start, *s.occ, true
}

// ofAttempt returns the occurrence kept of the latest attempt at most
// attempt, for a repeat (attempt > 1), and false when there is none.
func (s *sampling) ofAttempt(attempt int) (store.Occurrence, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for a := attempt; a > 1; a-- {
		if o, ok := s.byAttempt[a]; ok {
			return *o, true
		}
	}
	return store.Occurrence{}, false
}

type samplingTenant struct {
	store.Tenant
	s *sampling
}

func (t samplingTenant) PeekReport(ctx context.Context, req triage.StartRequest) (store.Peeked, error) {
	t.s.mu.Lock()
	if t.s.start == nil {
		r := req
		t.s.start = &r
	}
	t.s.mu.Unlock()
	return t.Tenant.PeekReport(ctx, req)
}

func (t samplingTenant) Report(ctx context.Context, req triage.StartRequest, seen triage.StartResult, o store.Occurrence) (store.Saved, error) {
	t.s.keep(o)
	return t.Tenant.Report(ctx, req, seen, o)
}

// keep keeps o as the occurrence the floor repeats: the first, or the
// first with jobs.
func (s *sampling) keep(o store.Occurrence) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := o
	c.Jobs = append([]store.NewJob(nil), o.Jobs...)
	if o.Attempt > 1 {
		if s.byAttempt == nil {
			s.byAttempt = map[int]*store.Occurrence{}
		}
		if s.byAttempt[o.Attempt] == nil {
			s.byAttempt[o.Attempt] = &c
		}
		return
	}
	// The first occurrence of a first attempt, or the first with jobs: a
	// report enqueues none unless something can run it (a callback URL,
	// a webhook).
	if s.occ == nil || (len(s.occ.Jobs) == 0 && len(o.Jobs) > 0) {
		s.occ = &c
	}
}

// storeFloor makes n reports' writes from c goroutines, for at most
// bound: each the sampled Start and occurrence with its own delivery key,
// error and query (so each is new, as in the service's load; a repeat,
// -repeat, its source's error and query), jobs and documents as the
// service made them.
func storeFloor(name string, s *sampling, prefix string, n, c int, bound time.Duration) (result, error) {
	req0, occ0, ok := s.sample()
	if !ok {
		return result{}, fmt.Errorf("%s: the service saved no occurrence to repeat", name)
	}
	tn := s.Store.Tenant("default")
	ctx := context.Background()
	return drive(name, n, c, bound, func(_ int, i int64) error {
		// A repeat (-repeat) is its source's error and query, with a
		// delivery of its own.
		id := fmt.Sprintf("%s_%d", prefix, source(i, repeatShare))
		req := req0
		req.Key, req.AttemptKey, req.At = fmt.Sprintf("d_%s_%d", prefix, i), "a_"+id, time.Now()
		occ := occ0
		occ.DeliveryKey, occ.ErrorID, occ.QueryID, occ.ReceivedAt = req.Key, "err_"+id, id, time.Now()
		occ.Jobs = make([]store.NewJob, len(occ0.Jobs))
		for k, j := range occ0.Jobs {
			j.ErrorID = occ.ErrorID
			if !j.RunAt.IsZero() {
				j.RunAt = time.Now().Add(time.Minute)
			}
			occ.Jobs[k] = j
		}
		for range 100 {
			p, err := tn.PeekReport(ctx, req)
			if err == nil && !p.First {
				err = fmt.Errorf("delivery %s not new", req.Key)
			}
			if err != nil {
				return err
			}
			occ := occ
			if r, ok := s.ofAttempt(p.Attempt); ok {
				// A repeat: the service's occurrence of this attempt (its
				// jobs), under this report's keys.
				r.DeliveryKey, r.ErrorID, r.QueryID, r.ReceivedAt = occ.DeliveryKey, occ.ErrorID, occ.QueryID, occ.ReceivedAt
				jobs := r.Jobs
				r.Jobs = make([]store.NewJob, len(jobs))
				for k, j := range jobs {
					j.ErrorID = occ.ErrorID
					if !j.RunAt.IsZero() {
						j.RunAt = time.Now().Add(time.Minute)
					}
					r.Jobs[k] = j
				}
				occ = r
			}
			occ.Attempt = p.Attempt
			if _, err = tn.Report(ctx, req, p.StartResult, occ); !errors.Is(err, store.ErrReportMoved) {
				return err
			}
			// Two repeats of one error at once: the attempt counted
			// meanwhile, peeked again, as the service does (and
			// storetest's report, 100 times at most).
		}
		return fmt.Errorf("delivery %s: %w 100 times", req.Key, store.ErrReportMoved)
	}), nil
}
