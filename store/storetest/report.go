package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// reportRequest is the StartRequest of report key of query: its attempt
// key is the query's, its failure the agent's.
func reportRequest(key, query string, at time.Time) triage.StartRequest {
	return triage.StartRequest{Key: key, AttemptKey: query + "/E", Agent: "agent", Code: "E", At: at, Window: time.Hour, QueryID: query}
}

// reportOccurrence is the occurrence of report key of query, error
// errorID, at attempt.
func reportOccurrence(key, errorID string, attempt int, at time.Time) store.Occurrence {
	o := newOccurrence(key, errorID, at)
	o.Attempt = attempt
	o.Feedback = json.RawMessage(fmt.Sprintf(`{"error_id":%q,"attempt":%d}`, errorID, attempt))
	return o
}

// report runs the report path as the service does: peek, decide (here:
// the occurrence of the peeked attempt), write; again while the write
// finds its counts moved. It returns the peek the write went with (a
// repeat's: First false) and what the write saved.
func report(ctx context.Context, tn store.Tenant, req triage.StartRequest, errorID string) (store.Peeked, store.Saved, error) {
	for range 100 {
		p, err := tn.PeekReport(ctx, req)
		if err != nil || !p.First {
			return p, store.Saved{}, err
		}
		saved, err := tn.Report(ctx, req, p.StartResult, reportOccurrence(req.Key, errorID, p.Attempt, req.At))
		if errors.Is(err, store.ErrReportMoved) {
			continue
		}
		return p, saved, err
	}
	return store.Peeked{}, store.Saved{}, errors.New("the report's counts moved 100 times")
}

var reportTests = []test{
	{"OneWriteCountsAndSaves", func(t *testing.T, e *env) {
		ctx := t.Context()
		tn := e.s.Tenant("a")
		req := reportRequest("d1", "q1", e.clock.Now())
		p, err := tn.PeekReport(ctx, req)
		must(t, err)
		if !p.First || p.Prior != nil || p.Attempt != 1 || p.Recent != 1 || p.Saved {
			t.Fatalf("PeekReport(d1) = %+v; want first, attempt 1, recent 1", p)
		}
		// A peek writes nothing: another peek finds the same.
		if again, err := tn.PeekReport(ctx, req); err != nil || again != p {
			t.Fatalf("PeekReport(d1) again = %+v, %v; want %+v", again, err, p)
		}
		o := reportOccurrence("d1", "e1", 1, e.clock.Now())
		o.Jobs = []store.NewJob{{Kind: store.JobEscalation, ErrorID: "e1", Payload: json.RawMessage(`{"error_id":"e1"}`)}}
		saved, err := tn.Report(ctx, req, p.StartResult, o)
		must(t, err)
		if saved.ID == 0 || !saved.NewRecord {
			t.Fatalf("Report(d1) = %+v; want a new occurrence and record", saved)
		}
		// The repeat finds the feedback, saved: nothing to write.
		p, err = tn.PeekReport(ctx, req)
		must(t, err)
		if p.First || p.Prior == nil || p.Prior.ErrorID != "e1" || !p.Saved {
			t.Fatalf("PeekReport(d1) after its Report = %+v; want its feedback, saved", p)
		}
		// Start agrees: the delivery is claimed, the attempt counted,
		// the failure recorded.
		if res, err := tn.Start(ctx, req); err != nil || res.First || res.Prior == nil || res.Prior.ErrorID != "e1" {
			t.Fatalf("Start(d1) after its Report = %+v, %v; want a duplicate", res, err)
		}
		if res, err := tn.Start(ctx, reportRequest("d2", "q1", e.clock.Now())); err != nil || !res.First || res.Attempt != 2 || res.Recent != 2 {
			t.Fatalf("Start(d2) after Report(d1) = %+v, %v; want first, attempt 2, recent 2", res, err)
		}
		p, saved, err = report(ctx, tn, reportRequest("d3", "q1", e.clock.Now()), "e1")
		must(t, err)
		if !p.First || p.Attempt != 3 || p.Recent != 3 || saved.ID == 0 || saved.NewRecord {
			t.Fatalf("report(d3) = %+v, %+v; want attempt 3, recent 3, a new occurrence of e1", p, saved)
		}
		if r := record(t, tn, "e1"); r.Count != 2 {
			t.Errorf("e1's count = %d, want 2 (d1 and d3; d2 was only started)", r.Count)
		}
		jobs, ok, err := tn.ErrorJobs(ctx, "e1", store.JobFilter{})
		must(t, err)
		if !ok || len(jobs.Jobs) != 1 || jobs.Jobs[0].Kind != store.JobEscalation {
			t.Errorf("e1's jobs = %+v, %v; want the escalation Report enqueued", jobs, ok)
		}
		// The other tenants see none of it.
		if p, err := e.s.Tenant("b").PeekReport(ctx, req); err != nil || !p.First || p.Attempt != 1 || p.Recent != 1 {
			t.Errorf("tenant b's PeekReport(d1) = %+v, %v; want first, attempt 1, recent 1", p, err)
		}
	}},
	{"PeekReadsCallbackAndAlertRules", func(t *testing.T, e *env) {
		ctx := t.Context()
		tn := e.s.Tenant("a")
		req := reportRequest("d1", "q1", e.clock.Now())
		p, err := tn.PeekReport(ctx, req)
		must(t, err)
		if !p.Read.Valid {
			t.Skip("this store's PeekReport reads the delivery alone")
		}
		if p.Read.Callback || p.Read.AlertRules != 0 {
			t.Fatalf("PeekReport's reads before any agent or rule = %+v; want no callback, version 0", p.Read)
		}
		must(t, tn.PutAgent(ctx, store.Agent{ID: "other", CallbackURL: "https://other.example"}))
		must(t, tn.PutAgent(ctx, store.Agent{ID: req.Agent}))
		if p, err := tn.PeekReport(ctx, req); err != nil || p.Read.Callback {
			t.Fatalf("PeekReport's reads, the agent registered without a URL = %+v, %v; want no callback", p.Read, err)
		}
		must(t, tn.PutAgent(ctx, store.Agent{ID: req.Agent, CallbackURL: "https://agent.example"}))
		// The clock does not move: each change's version is greater all
		// the same.
		var versions []int64
		for i := range 3 {
			must(t, tn.ChangeAlertRules(ctx, func(r []triage.AlertRule, tg []triage.AlertTarget) ([]triage.AlertRule, []triage.AlertTarget, error) {
				return append(r, triage.AlertRule{ID: fmt.Sprint("r", i), When: triage.TriggerNew}), tg, nil
			}))
			p, err := tn.PeekReport(ctx, req)
			must(t, err)
			if !p.Read.Callback {
				t.Fatalf("PeekReport's reads, the agent's URL set = %+v; want its callback", p.Read)
			}
			if len(versions) > 0 && p.Read.AlertRules <= versions[len(versions)-1] {
				t.Fatalf("the alert rules' versions after each change: %v then %d; want each greater", versions, p.Read.AlertRules)
			}
			versions = append(versions, p.Read.AlertRules)
		}
		// A refused change leaves the version.
		_ = tn.ChangeAlertRules(ctx, func([]triage.AlertRule, []triage.AlertTarget) ([]triage.AlertRule, []triage.AlertTarget, error) {
			return nil, nil, errors.New("no")
		})
		// A repeat's peek reads them too.
		_, _, err = report(ctx, tn, req, "e1")
		must(t, err)
		p, err = tn.PeekReport(ctx, req)
		must(t, err)
		if p.First || !p.Read.Valid || !p.Read.Callback || p.Read.AlertRules != versions[len(versions)-1] {
			t.Fatalf("a repeat's PeekReport = %+v; want its reads, version %d", p, versions[len(versions)-1])
		}
		// Another tenant's are its own.
		if p, err := e.s.Tenant("b").PeekReport(ctx, req); err != nil || p.Read.Callback || p.Read.AlertRules != 0 {
			t.Errorf("tenant b's PeekReport reads = %+v, %v; want none", p.Read, err)
		}
	}},
	{"PeekReadsCache", func(t *testing.T, e *env) {
		ctx := t.Context()
		tn := e.s.Tenant("a")
		req := reportRequest("d1", "q1", e.clock.Now())
		cached := func(what string, tn store.Tenant, req triage.StartRequest, want bool) {
			t.Helper()
			p, err := tn.PeekReport(ctx, req)
			must(t, err)
			if !p.Read.Valid {
				t.Skip("this store's PeekReport reads the delivery alone")
			}
			if p.Read.Cached != want {
				t.Fatalf("PeekReport's reads, %s = %+v; want Cached %v", what, p.Read, want)
			}
		}
		cached("an empty cache", tn, req, false)
		must(t, tn.PutCache(ctx, "q2", triage.CachedResult{StoredAt: Epoch, Summary: "another query's"}))
		cached("another query's result cached", tn, req, false)
		must(t, tn.PutCache(ctx, "q1", triage.CachedResult{StoredAt: Epoch, Summary: "4 rows"}))
		cached("the query's result cached", tn, req, true)
		// What the peek found is what Get finds.
		if _, ok, err := tn.Get(ctx, "q1"); err != nil || !ok {
			t.Fatalf("Get(q1) after PutCache = %v, %v; want the result", ok, err)
		}
		// Another tenant's cache is its own.
		cached("another tenant's result cached", e.s.Tenant("b"), req, false)
		// A repeat's peek reads it too.
		_, _, err := report(ctx, tn, req, "e1")
		must(t, err)
		p, err := tn.PeekReport(ctx, req)
		must(t, err)
		if p.First || !p.Read.Cached {
			t.Fatalf("a repeat's PeekReport = %+v; want a repeat, Cached", p)
		}
	}},
	{"StaleAttemptIsMoved", func(t *testing.T, e *env) {
		ctx := t.Context()
		tn := e.s.Tenant("a")
		for _, counted := range []int{0, 1} { // the attempt row absent, then there
			key := fmt.Sprint("stale", counted)
			req := reportRequest(key, "q1", e.clock.Now())
			p, err := tn.PeekReport(ctx, req)
			must(t, err)
			if !p.First || p.Attempt != 2*counted+1 {
				t.Fatalf("PeekReport(%s) = %+v; want first, attempt %d", key, p, 2*counted+1)
			}
			// Another report of the query counts its attempt in between.
			if _, _, err := report(ctx, tn, reportRequest(key+"-other", "q1", e.clock.Now()), "e-other"); err != nil {
				t.Fatal(err)
			}
			_, err = tn.Report(ctx, req, p.StartResult, reportOccurrence(key, "e-stale", p.Attempt, e.clock.Now()))
			if !errors.Is(err, store.ErrReportMoved) {
				t.Fatalf("Report(%s) on a stale attempt = %v; want ErrReportMoved", key, err)
			}
			// Nothing was written: the delivery is still first, and
			// the next peek counts the attempt after the other's.
			p, err = tn.PeekReport(ctx, req)
			must(t, err)
			if !p.First || p.Attempt != 2*counted+2 {
				t.Fatalf("PeekReport(%s) after ErrReportMoved = %+v; want first, attempt %d", key, p, 2*counted+2)
			}
			if _, err := tn.Report(ctx, req, p.StartResult, reportOccurrence(key, "e-stale", p.Attempt, e.clock.Now())); err != nil {
				t.Fatal(err)
			}
		}
		if _, ok, err := tn.ErrorRecord(ctx, "e-stale"); err != nil || !ok {
			t.Fatalf("e-stale's record: %v, %v", ok, err)
		}
		if r := record(t, tn, "e-stale"); r.Count != 2 {
			t.Errorf("e-stale's count = %d, want 2 (each stale write added nothing)", r.Count)
		}
	}},
	{"DeliverySavedMeanwhileIsMoved", func(t *testing.T, e *env) {
		ctx := t.Context()
		tn := e.s.Tenant("a")
		req := reportRequest("d1", "q1", e.clock.Now())
		a, err := tn.PeekReport(ctx, req)
		must(t, err)
		b, err := tn.PeekReport(ctx, req)
		must(t, err)
		if _, err := tn.Report(ctx, req, a.StartResult, reportOccurrence("d1", "e1", a.Attempt, e.clock.Now())); err != nil {
			t.Fatal(err)
		}
		_, err = tn.Report(ctx, req, b.StartResult, reportOccurrence("d1", "e1", b.Attempt, e.clock.Now()))
		if !errors.Is(err, store.ErrReportMoved) {
			t.Fatalf("the second Report of d1 = %v; want ErrReportMoved", err)
		}
		if p, err := tn.PeekReport(ctx, req); err != nil || p.First || p.Prior == nil || p.Prior.ErrorID != "e1" || p.Prior.Attempt != 1 || !p.Saved {
			t.Fatalf("PeekReport(d1) = %+v, %v; want the first's feedback, saved", p, err)
		}
		if r := record(t, tn, "e1"); r.Count != 1 {
			t.Errorf("e1's count = %d, want 1", r.Count)
		}
	}},
	{"ClaimsOfStart", func(t *testing.T, e *env) {
		ctx := t.Context()
		tn := e.s.Tenant("a")
		req := reportRequest("d1", "q1", e.clock.Now())
		if res, err := tn.Start(ctx, req); err != nil || !res.First {
			t.Fatalf("Start(d1) = %+v, %v", res, err)
		}
		// In flight: a repeat without feedback, which Report refuses.
		p, err := tn.PeekReport(ctx, req)
		must(t, err)
		if p.First || p.Prior != nil || p.Saved {
			t.Fatalf("PeekReport of a claim in flight = %+v; want a repeat without feedback", p)
		}
		seen := triage.StartResult{First: true, Attempt: 2, Recent: 2}
		if _, err := tn.Report(ctx, req, seen, reportOccurrence("d1", "e1", 2, e.clock.Now())); !errors.Is(err, store.ErrReportMoved) {
			t.Fatalf("Report over a claim in flight = %v; want ErrReportMoved", err)
		}
		// Past the lease the claim is lost: handled anew.
		e.clock.Advance(store.ClaimLease + time.Second)
		p, err = tn.PeekReport(ctx, req)
		must(t, err)
		if !p.First || p.Attempt != 2 {
			t.Fatalf("PeekReport of a lost claim = %+v; want first, attempt 2", p)
		}
		saved, err := tn.Report(ctx, req, p.StartResult, reportOccurrence("d1", "e1", p.Attempt, e.clock.Now()))
		if err != nil || saved.ID == 0 {
			t.Fatalf("Report over a lost claim = %+v, %v; want it saved", saved, err)
		}
		if p, err := tn.PeekReport(ctx, req); err != nil || p.Prior == nil || p.Prior.Attempt != 2 || !p.Saved {
			t.Fatalf("PeekReport(d1) = %+v, %v; want the feedback of attempt 2, saved", p, err)
		}
		// A delivery completed without an occurrence: a repeat, not
		// saved (the service saves it, as it did).
		must(t, tn.Complete(ctx, "d2", &triage.Feedback{ErrorID: "e2"}))
		if p, err := tn.PeekReport(ctx, reportRequest("d2", "q2", e.clock.Now())); err != nil || p.First || p.Prior == nil || p.Prior.ErrorID != "e2" || p.Saved {
			t.Fatalf("PeekReport of a completed delivery = %+v, %v; want its feedback, not saved", p, err)
		}
	}},
	{"ConcurrentReportsCountInOrder", func(t *testing.T, e *env) {
		concurrentReports(t, []store.Store{e.s})
	}},
}

// concurrentReports makes reports of one query at once, through stores
// (instances on one database, taken in turn): each counts a distinct
// attempt, 1 to n, and is saved with it; and reports of one delivery at
// once save it once, the others answering its feedback.
func concurrentReports(t *testing.T, stores []store.Store) {
	ctx := t.Context()
	const n = 12
	at := Epoch
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		attempts []int
	)
	for i := range n {
		tn := stores[i%len(stores)].Tenant("a")
		wg.Go(func() {
			p, saved, err := report(ctx, tn, reportRequest(fmt.Sprint("q-", i), "q", at), fmt.Sprint("e", i))
			if err != nil || !p.First || saved.ID == 0 {
				t.Errorf("report %d = %+v, %+v, %v; want it saved", i, p, saved, err)
				return
			}
			mu.Lock()
			attempts = append(attempts, p.Attempt)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(attempts)
	for i, a := range attempts {
		if a != i+1 {
			t.Fatalf("the attempts of %d reports of one query at once = %v; want 1 to %d, each once", n, attempts, n)
		}
	}
	if len(attempts) != n {
		t.Fatalf("%d of %d reports saved", len(attempts), n)
	}

	// One delivery, reported at once: one saves it, the others answer
	// its feedback (the one error_id), nothing saved twice.
	var (
		firsts int
		ids    = map[string]int{}
	)
	for i := range n {
		tn := stores[i%len(stores)].Tenant("a")
		wg.Go(func() {
			p, saved, err := report(ctx, tn, reportRequest("dup", "qdup", at), "edup")
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case p.First && saved.ID != 0:
				firsts++
			case !p.First && p.Prior != nil && p.Saved:
				ids[p.Prior.ErrorID]++
			default:
				// In flight: only a claim of Start's shows one, and
				// Report leaves none.
				t.Errorf("a duplicate report = %+v, %+v; want the first's feedback", p, saved)
			}
		})
	}
	wg.Wait()
	if firsts != 1 || ids["edup"] != n-1 || len(ids) != 1 {
		t.Fatalf("%d reports of one delivery at once: %d saved it, the others answered %v; want 1, and %d answering edup", n, firsts, ids, n-1)
	}
	if r := record(t, stores[0].Tenant("a"), "edup"); r.Count != 1 {
		t.Errorf("edup's count = %d, want 1", r.Count)
	}
}

// ReportOnInstances checks the one-write report path across instances of
// the service on one database: reports of one query count distinct,
// consecutive attempts, and the reports of one delivery at once answer
// one error_id, saved once. open opens a store on one database, the same
// at every call; ReportOnInstances closes the stores.
func ReportOnInstances(t *testing.T, open func(t *testing.T) store.Store) {
	a, b := open(t), open(t)
	defer func() {
		for _, s := range []store.Store{a, b} {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}
	}()
	concurrentReports(t, []store.Store{a, b})
}
