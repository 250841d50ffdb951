package storetest

import (
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

func enqueue(t *testing.T, tn store.Tenant, j store.NewJob) int64 {
	t.Helper()
	id, err := tn.Enqueue(t.Context(), j)
	must(t, err)
	return id
}

func claimJobs(t *testing.T, s store.Store, n int, lease time.Duration) []store.Job {
	t.Helper()
	jobs, err := s.Jobs().Claim(t.Context(), n, lease)
	must(t, err)
	return jobs
}

// claimOne claims and expects exactly job id, at attempt.
func claimOne(t *testing.T, s store.Store, id int64, attempt int, lease time.Duration) store.Job {
	t.Helper()
	jobs := claimJobs(t, s, 10, lease)
	if len(jobs) != 1 || jobs[0].ID != id || jobs[0].Attempt != attempt || jobs[0].State != store.JobRunning {
		t.Fatalf("Claim = %+v; want job %d running at attempt %d", jobs, id, attempt)
	}
	return jobs[0]
}

func claimNone(t *testing.T, s store.Store) {
	t.Helper()
	if jobs := claimJobs(t, s, 10, time.Minute); len(jobs) != 0 {
		t.Fatalf("Claim = %+v; want none", jobs)
	}
}

// checkJob compares a job's fields, its attempts but for Error when the
// wanted one is "*" (any message).
func checkJob(t *testing.T, got, want store.Job) {
	t.Helper()
	if got.ID != want.ID || got.Tenant != want.Tenant || got.Kind != want.Kind || got.ErrorID != want.ErrorID ||
		!sameJSON(got.Payload, want.Payload) || got.State != want.State || !got.RunAt.Equal(want.RunAt) ||
		got.Attempt != want.Attempt || got.MaxAttempts != want.MaxAttempts {
		t.Errorf("job =\n%+v\nwant\n%+v", got, want)
	}
	if len(got.Attempts) != len(want.Attempts) {
		t.Errorf("job %d attempts =\n%+v\nwant\n%+v", got.ID, got.Attempts, want.Attempts)
		return
	}
	for i, a := range got.Attempts {
		w := want.Attempts[i]
		if a.Attempt != w.Attempt || !a.At.Equal(w.At) || a.Duration != w.Duration ||
			(w.Error == "*" && a.Error == "") || (w.Error != "*" && a.Error != w.Error) {
			t.Errorf("job %d attempt %d = %+v, want %+v", got.ID, i, a, w)
		}
	}
}

// job returns job id of tenant a's error e1, with its attempts.
func job(t *testing.T, e *env, id int64) store.Job {
	t.Helper()
	save(t, e.s.Tenant("a"), newOccurrence("d-job", "e1", Epoch))
	for _, j := range record(t, e.s.Tenant("a"), "e1").Jobs {
		if j.ID == id {
			return j
		}
	}
	t.Fatalf("no job %d in e1's record", id)
	return store.Job{}
}

var jobsTests = []test{
	{"ClaimsOnlyDueJobs", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		later := enqueue(t, tn, store.NewJob{Kind: store.JobRetry, ErrorID: "e1", RunAt: Epoch.Add(time.Minute)})
		now := enqueue(t, tn, store.NewJob{Kind: store.JobRetry, ErrorID: "e1"})
		claimOne(t, e.s, now, 1, time.Hour)
		e.clock.Advance(time.Minute - 1)
		claimNone(t, e.s)
		e.clock.Advance(1)
		claimOne(t, e.s, later, 1, time.Hour)
	}},
	{"ClaimedJobHasItsFields", func(t *testing.T, e *env) {
		id := enqueue(t, e.s.Tenant("a"), store.NewJob{Kind: store.JobEscalation, ErrorID: "e1",
			Payload: json.RawMessage(`{"url": "https://ops.example", "n": [1, 2]}`), MaxAttempts: 7})
		got := claimOne(t, e.s, id, 1, time.Minute)
		checkJob(t, got, store.Job{ID: id, Tenant: "a", Kind: store.JobEscalation, ErrorID: "e1",
			Payload: json.RawMessage(`{"url": "https://ops.example", "n": [1, 2]}`),
			State:   store.JobRunning, RunAt: Epoch, Attempt: 1, MaxAttempts: 7})
	}},
	{"ClaimTakesUpToN", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		var all []int64
		for range 5 {
			all = append(all, enqueue(t, tn, store.NewJob{Kind: store.JobRetry}))
		}
		first := claimJobs(t, e.s, 2, time.Hour)
		rest := claimJobs(t, e.s, 10, time.Hour)
		if len(first) != 2 || len(rest) != 3 {
			t.Fatalf("claimed %d then %d, want 2 then 3", len(first), len(rest))
		}
		var got []int64
		for _, j := range append(first, rest...) {
			got = append(got, j.ID)
		}
		slices.Sort(got)
		if !slices.Equal(got, all) {
			t.Errorf("claimed %v, want %v", got, all)
		}
		claimNone(t, e.s)
	}},
	{"LeasedJobIsNotClaimedAgain", func(t *testing.T, e *env) {
		id := enqueue(t, e.s.Tenant("a"), store.NewJob{Kind: store.JobRetry})
		claimOne(t, e.s, id, 1, time.Minute)
		claimNone(t, e.s)
		e.clock.Advance(time.Minute - time.Second)
		claimNone(t, e.s)
	}},
	{"ExpiredLeaseIsClaimedAgain", func(t *testing.T, e *env) {
		id := enqueue(t, e.s.Tenant("a"), store.NewJob{Kind: store.JobRetry, ErrorID: "e1"})
		claimOne(t, e.s, id, 1, 30*time.Second)
		e.clock.Advance(30 * time.Second)
		claimOne(t, e.s, id, 2, 30*time.Second)
		checkJob(t, job(t, e, id), store.Job{ID: id, Tenant: "a", Kind: store.JobRetry, ErrorID: "e1",
			State: store.JobRunning, RunAt: Epoch, Attempt: 2, MaxAttempts: store.DefaultMaxAttempts,
			Attempts: []store.JobAttempt{{Attempt: 1, At: Epoch, Duration: 30 * time.Second, Error: "*"}}})
	}},
	{"CompleteSucceeds", func(t *testing.T, e *env) {
		id := enqueue(t, e.s.Tenant("a"), store.NewJob{Kind: store.JobRetry, ErrorID: "e1"})
		claimOne(t, e.s, id, 1, time.Minute)
		a := store.JobAttempt{Attempt: 1, At: e.clock.Advance(time.Second), Duration: 150 * time.Millisecond}
		must(t, e.s.Jobs().Complete(t.Context(), id, a))
		e.clock.Advance(time.Hour)
		claimNone(t, e.s)
		checkJob(t, job(t, e, id), store.Job{ID: id, Tenant: "a", Kind: store.JobRetry, ErrorID: "e1",
			State: store.JobSucceeded, RunAt: Epoch, Attempt: 1, MaxAttempts: store.DefaultMaxAttempts,
			Attempts: []store.JobAttempt{a}})
	}},
	{"FailRunsAgainAtRetryAt", func(t *testing.T, e *env) {
		id := enqueue(t, e.s.Tenant("a"), store.NewJob{Kind: store.JobRetry, ErrorID: "e1"})
		claimOne(t, e.s, id, 1, time.Hour)
		retryAt := Epoch.Add(time.Minute)
		a := store.JobAttempt{Attempt: 1, At: Epoch, Duration: time.Second, Error: "callback: 503"}
		must(t, e.s.Jobs().Fail(t.Context(), id, a, retryAt))
		checkJob(t, job(t, e, id), store.Job{ID: id, Tenant: "a", Kind: store.JobRetry, ErrorID: "e1",
			State: store.JobAvailable, RunAt: retryAt, Attempt: 1, MaxAttempts: store.DefaultMaxAttempts,
			Attempts: []store.JobAttempt{a}})
		e.clock.Advance(time.Minute - 1)
		claimNone(t, e.s)
		e.clock.Advance(1)
		claimOne(t, e.s, id, 2, time.Hour)
	}},
	{"FailWithoutRetryAtFails", func(t *testing.T, e *env) {
		id := enqueue(t, e.s.Tenant("a"), store.NewJob{Kind: store.JobRetry, ErrorID: "e1"})
		claimOne(t, e.s, id, 1, time.Hour)
		a := store.JobAttempt{Attempt: 1, At: Epoch, Duration: time.Second, Error: "callback: 400"}
		must(t, e.s.Jobs().Fail(t.Context(), id, a, time.Time{}))
		e.clock.Advance(2 * time.Hour)
		claimNone(t, e.s)
		if j := job(t, e, id); j.State != store.JobFailed {
			t.Errorf("state = %s, want failed", j.State)
		}
	}},
	{"FailAfterMaxAttemptsFails", func(t *testing.T, e *env) {
		id := enqueue(t, e.s.Tenant("a"), store.NewJob{Kind: store.JobRetry, ErrorID: "e1", MaxAttempts: 2})
		for attempt := 1; attempt <= 2; attempt++ {
			claimOne(t, e.s, id, attempt, time.Hour)
			a := store.JobAttempt{Attempt: attempt, At: e.clock.Now(), Error: "callback: 503"}
			must(t, e.s.Jobs().Fail(t.Context(), id, a, e.clock.Now().Add(time.Minute)))
			e.clock.Advance(time.Minute)
		}
		claimNone(t, e.s)
		j := job(t, e, id)
		if j.State != store.JobFailed || j.Attempt != 2 || len(j.Attempts) != 2 {
			t.Errorf("job = %+v; want failed after 2 attempts", j)
		}
	}},
	{"ExpiredLastAttemptFails", func(t *testing.T, e *env) {
		id := enqueue(t, e.s.Tenant("a"), store.NewJob{Kind: store.JobRetry, ErrorID: "e1", MaxAttempts: 1})
		claimOne(t, e.s, id, 1, 10*time.Second)
		e.clock.Advance(11 * time.Second)
		claimNone(t, e.s)
		checkJob(t, job(t, e, id), store.Job{ID: id, Tenant: "a", Kind: store.JobRetry, ErrorID: "e1",
			State: store.JobFailed, RunAt: Epoch, Attempt: 1, MaxAttempts: 1,
			Attempts: []store.JobAttempt{{Attempt: 1, At: Epoch, Duration: 10 * time.Second, Error: "*"}}})
	}},
	{"EveryAttemptIsRecorded", func(t *testing.T, e *env) {
		id := enqueue(t, e.s.Tenant("a"), store.NewJob{Kind: store.JobRetry, ErrorID: "e1"})
		claimOne(t, e.s, id, 1, time.Minute)
		a1 := store.JobAttempt{Attempt: 1, At: e.clock.Now(), Duration: 2 * time.Second, Error: "timeout"}
		must(t, e.s.Jobs().Fail(t.Context(), id, a1, e.clock.Now()))
		claimOne(t, e.s, id, 2, time.Minute)
		a2 := store.JobAttempt{Attempt: 2, At: e.clock.Now(), Duration: time.Minute, Error: "*"} // lost
		e.clock.Advance(time.Minute)
		claimOne(t, e.s, id, 3, time.Minute)
		a3 := store.JobAttempt{Attempt: 3, At: e.clock.Now(), Duration: time.Millisecond}
		must(t, e.s.Jobs().Complete(t.Context(), id, a3))
		checkJob(t, job(t, e, id), store.Job{ID: id, Tenant: "a", Kind: store.JobRetry, ErrorID: "e1",
			State: store.JobSucceeded, RunAt: Epoch, Attempt: 3, MaxAttempts: store.DefaultMaxAttempts,
			Attempts: []store.JobAttempt{a1, a2, a3}})
	}},
}

var concurrencyTests = []test{
	{"ClaimHandsEachJobToOneClaimer", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		const n = 40
		for range n {
			enqueue(t, tn, store.NewJob{Kind: store.JobRetry})
		}
		var (
			mu    sync.Mutex
			count = map[int64]int{}
			wg    sync.WaitGroup
		)
		for range 4 {
			wg.Go(func() {
				for {
					jobs, err := e.s.Jobs().Claim(t.Context(), 3, time.Hour)
					if err != nil {
						t.Error(err)
						return
					}
					if len(jobs) == 0 {
						return
					}
					mu.Lock()
					for _, j := range jobs {
						count[j.ID]++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(count) != n {
			t.Errorf("%d jobs claimed, want %d", len(count), n)
		}
		for id, c := range count {
			if c != 1 {
				t.Errorf("job %d claimed %d times within its lease", id, c)
			}
		}
		claimNone(t, e.s)
	}},
	{"AttemptsNextCountsEachOnce", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		const n = 20
		got := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				v, err := tn.Next(t.Context(), "q1|E")
				if err != nil {
					t.Error(err)
				}
				got[i] = v
			})
		}
		wg.Wait()
		slices.Sort(got)
		for i, v := range got {
			if v != i+1 {
				t.Fatalf("Next from %d goroutines gave %v, want 1..%d once each", n, got, n)
			}
		}
	}},
	{"DeliveriesClaimHasOneFirst", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		const n = 20
		var (
			mu     sync.Mutex
			firsts int
			wg     sync.WaitGroup
		)
		for range n {
			wg.Go(func() {
				prior, first, err := tn.Claim(t.Context(), "k")
				if err != nil || prior != nil {
					t.Errorf("Claim = %v, %v, %v", prior, first, err)
				}
				if first {
					mu.Lock()
					firsts++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if firsts != 1 {
			t.Errorf("%d of %d concurrent claims were first, want 1", firsts, n)
		}
	}},
	{"BeginRequestHasOneNew", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		const n = 20
		var (
			mu     sync.Mutex
			states = map[store.IdemState]int{}
			wg     sync.WaitGroup
		)
		for range n {
			wg.Go(func() {
				st, _, err := tn.BeginRequest(t.Context(), "key", "hash")
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				states[st]++
				mu.Unlock()
			})
		}
		wg.Wait()
		if states[store.IdemNew] != 1 || states[store.IdemInFlight] != n-1 {
			t.Errorf("states of %d concurrent begins = %v, want one new and the rest in flight", n, states)
		}
	}},
	{"SaveOccurrenceCountsEachDeliveryOnce", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		var wg sync.WaitGroup
		for i := range 20 {
			key := "same"
			if i%2 == 0 {
				key = string(rune('a' + i))
			}
			wg.Go(func() {
				if _, err := tn.SaveOccurrence(t.Context(), newOccurrence(key, "e1", Epoch.Add(time.Duration(i)))); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if r := record(t, tn, "e1"); r.Count != 11 || len(r.Occurrences) != 11 {
			t.Errorf("count %d, %d occurrences; want 11 (10 deliveries and one delivered 10 times)", r.Count, len(r.Occurrences))
		}
	}},
}
