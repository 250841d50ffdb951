package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// The job queue runs on the real clock (River's), not the suite's: the
// tests work with short WorkOptions and wait for what they expect with a
// deadline.

// jobWait bounds a wait for a job to reach a state. A job due later than
// now waits for River's scheduler, which runs every 5 s; a rescued job for
// its rescuer.
const jobWait = 20 * time.Second

// workOptions are o with the suite's short defaults.
func workOptions(o store.WorkOptions) store.WorkOptions {
	if o.Poll == 0 {
		o.Poll = 20 * time.Millisecond
	}
	if o.BackoffBase == 0 {
		o.BackoffBase = 50 * time.Millisecond
	}
	if o.BackoffMax == 0 {
		o.BackoffMax = max(time.Second, o.BackoffBase)
	}
	if o.StopTimeout == 0 {
		o.StopTimeout = time.Second
	}
	return o
}

// work runs the jobs of s with w in a Work loop until stop is called or
// the test ends; stop waits for Work to return.
func work(t *testing.T, s store.Store, w store.JobWorker, o store.WorkOptions) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Jobs().Work(ctx, w, workOptions(o)) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Work: %v", err)
				}
			case <-time.After(time.Minute):
				t.Errorf("Work did not return within a minute of its ctx's end")
			}
		})
	}
	t.Cleanup(stop) // before the store closes
	return stop
}

// call is an attempt a JobWorker was given.
type call struct {
	job        store.Job
	start, end time.Time
}

// recorder is a JobWorker that records its calls; answer, when not nil,
// makes the attempt.
type recorder struct {
	answer func(ctx context.Context, j store.Job) error

	mu    sync.Mutex
	calls []call
}

func (r *recorder) work(ctx context.Context, j store.Job) error {
	start := time.Now()
	var err error
	if r.answer != nil {
		err = r.answer(ctx, j)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, call{job: j, start: start, end: time.Now()})
	return err
}

// of returns the calls of job id.
func (r *recorder) of(id int64) []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	var list []call
	for _, c := range r.calls {
		if c.job.ID == id {
			list = append(list, c)
		}
	}
	return list
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// failing answers attempt n with errs[n-1], and succeeds past them.
func failing(errs ...error) func(context.Context, store.Job) error {
	return func(_ context.Context, j store.Job) error {
		if j.Attempt <= len(errs) {
			return errs[j.Attempt-1]
		}
		return nil
	}
}

func enqueue(t *testing.T, tn store.Enqueuer, j store.NewJob) int64 {
	t.Helper()
	id, err := tn.Enqueue(t.Context(), j)
	must(t, err)
	return id
}

// savedRecords saves occurrences and reads their records back.
type savedRecords interface {
	store.OccurrenceSaver
	store.Records
}

// saveWithJobs saves a delivery of errorID with jobs and returns the
// jobs of its record.
func saveWithJobs(t *testing.T, tn savedRecords, key, errorID string, jobs ...store.NewJob) []store.Job {
	t.Helper()
	o := newOccurrence(key, errorID, Epoch)
	o.Jobs = jobs
	save(t, tn, o)
	return record(t, tn, errorID).Jobs
}

// findJob returns job id of a record, read anew.
func findJob(t *testing.T, tn store.Records, errorID string, id int64) (store.Job, bool) {
	t.Helper()
	jobs := record(t, tn, errorID).Jobs
	i := slices.IndexFunc(jobs, func(j store.Job) bool { return j.ID == id })
	if i < 0 {
		return store.Job{}, false
	}
	return jobs[i], true
}

// waitJob reads job id in its record until ok holds, failing the test
// after within.
func waitJob(t *testing.T, tn store.Records, errorID string, id int64, within time.Duration, want string, ok func(store.Job) bool) store.Job {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		j, found := findJob(t, tn, errorID, id)
		if found && ok(j) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d after %v: %+v (listed: %v); want it %s", id, within, j, found, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitState waits for job id to be in state.
func waitState(t *testing.T, tn store.Records, errorID string, id int64, state string) store.Job {
	t.Helper()
	return waitJob(t, tn, errorID, id, jobWait, state, func(j store.Job) bool { return j.State == state })
}

// near tells whether two times are within a millisecond: River keeps a
// job's times to the millisecond on SQLite, the microsecond on PostgreSQL.
func near(a, b time.Time) bool { return a.Sub(b).Abs() <= time.Millisecond }

// checkJob compares a job's fields but for its attempts; a zero RunAt in
// want is not compared.
func checkJob(t *testing.T, got, want store.Job) {
	t.Helper()
	if got.ID != want.ID || got.Tenant != want.Tenant || got.Kind != want.Kind || got.ErrorID != want.ErrorID ||
		!sameJSON(got.Payload, want.Payload) || got.State != want.State || (!want.RunAt.IsZero() && !near(got.RunAt, want.RunAt)) ||
		got.Attempt != want.Attempt || got.MaxAttempts != want.MaxAttempts {
		t.Errorf("job =\n%+v\nwant\n%+v", got, want)
	}
}

// checkAttempts compares a job's attempts with the messages of the failed
// ones, then, when succeeded, one successful attempt.
func checkAttempts(t *testing.T, j store.Job, succeeded bool, errs ...string) {
	t.Helper()
	n := len(errs)
	if succeeded {
		n++
	}
	if len(j.Attempts) != n {
		t.Errorf("job %d: attempts %+v, want %d", j.ID, j.Attempts, n)
		return
	}
	for i, a := range j.Attempts {
		switch {
		case a.Attempt != i+1 || a.At.IsZero():
			t.Errorf("job %d: attempt %d is %+v", j.ID, i+1, a)
		case i < len(errs) && (a.Error != errs[i] || a.Duration != 0):
			t.Errorf("job %d: attempt %d is %+v, want it failed with %q", j.ID, i+1, a, errs[i])
		case i == len(errs) && (a.Error != "" || a.Duration <= 0 || a.Duration > time.Minute):
			t.Errorf("job %d: attempt %d is %+v, want it succeeded, with a duration", j.ID, i+1, a)
		}
	}
}

// ranOnce checks that the worker had job id once, at attempt, and returns
// the call.
func ranOnce(t *testing.T, r *recorder, id int64, attempt int) call {
	t.Helper()
	calls := r.of(id)
	if len(calls) != 1 || calls[0].job.Attempt != attempt {
		t.Fatalf("job %d: calls %+v; want one, at attempt %d", id, calls, attempt)
	}
	return calls[0]
}

// settle lets a Work loop poll a few times more before it stops, for what
// it should not do.
func settle() { time.Sleep(150 * time.Millisecond) }

var jobsTests = []test{
	{"SavedWithTheOccurrence", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		payload := json.RawMessage(`{"agent_id": "sql_agent", "delay": "2s", "n": [1, 2.5]}`)
		later := time.Now().Add(time.Hour)
		before := time.Now()
		jobs := saveWithJobs(t, a, "d1", "e1",
			store.NewJob{Kind: store.JobRetry, ErrorID: "e1", Payload: payload, RunAt: later},
			store.NewJob{Kind: store.JobEscalation, ErrorID: "e1", MaxAttempts: 3})
		after := time.Now()
		if len(jobs) != 2 || jobs[0].ID >= jobs[1].ID {
			t.Fatalf("the record's jobs: %+v; want the two saved, by ID", jobs)
		}
		checkJob(t, jobs[0], store.Job{ID: jobs[0].ID, Tenant: "a", Kind: store.JobRetry, ErrorID: "e1", Payload: payload,
			State: store.JobScheduled, RunAt: later, MaxAttempts: store.DefaultMaxAttempts})
		checkJob(t, jobs[1], store.Job{ID: jobs[1].ID, Tenant: "a", Kind: store.JobEscalation, ErrorID: "e1",
			State: store.JobAvailable, MaxAttempts: 3})
		if at := jobs[1].RunAt; at.Before(before.Add(-time.Second)) || at.After(after.Add(time.Second)) {
			t.Errorf("a job without RunAt is due at %v, want now (%v)", at, before)
		}
		for _, j := range jobs {
			if len(j.Attempts) != 0 || store.JobFinished(j.State) {
				t.Errorf("a new job: %+v", j)
			}
		}
		// A duplicate delivery enqueues nothing, whatever its jobs.
		o := newOccurrence("d1", "e1", Epoch)
		o.Jobs = []store.NewJob{{Kind: store.JobRetry, ErrorID: "e1", Payload: json.RawMessage(`{"other": 1}`)}}
		save(t, a, o)
		if r := record(t, a, "e1"); len(r.Jobs) != 2 || r.Count != 1 {
			t.Errorf("after a duplicate: count %d, jobs %+v; want 1 and the two jobs", r.Count, r.Jobs)
		}
		// A save that fails, once its occurrence is written (here the
		// queue refuses a job of an unknown kind), saves neither the
		// occurrence nor its jobs.
		o = newOccurrence("d2", "e1", Epoch)
		o.Jobs = []store.NewJob{{Kind: store.JobRetry, ErrorID: "e1", Payload: json.RawMessage(`{"n": 3}`)}, {Kind: "no such kind", ErrorID: "e1"}}
		if _, err := a.SaveOccurrence(t.Context(), o); err == nil {
			t.Error("a save with a job of an unknown kind succeeded")
		}
		if r := record(t, a, "e1"); len(r.Jobs) != 2 || r.Count != 1 {
			t.Errorf("after a failed save: count %d, jobs %+v; want 1 and the two jobs", r.Count, r.Jobs)
		}
		if _, ok, err := e.s.Tenant("b").ErrorRecord(t.Context(), "e1"); err != nil || ok {
			t.Errorf("tenant b: ErrorRecord = %v, %v; want not found", ok, err)
		}
	}},
	{"TraceContextReachesTheWorker", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		tc := map[string]string{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
			"tracestate": "vendor=1", "baggage": "user=secret"}
		want := map[string]string{"traceparent": tc["traceparent"], "tracestate": tc["tracestate"]}
		jobs := saveWithJobs(t, a, "d1", "e1",
			store.NewJob{Kind: store.JobEscalation, ErrorID: "e1", Trace: tc},
			store.NewJob{Kind: store.JobRetry, ErrorID: "e1"})
		queued := enqueue(t, a, store.NewJob{Kind: store.JobRetry, ErrorID: "e1", Payload: json.RawMessage(`{"n": 1}`), Trace: tc})
		r := &recorder{}
		work(t, e.s, r.work, store.WorkOptions{})
		for _, id := range []int64{jobs[0].ID, jobs[1].ID, queued} {
			waitState(t, a, "e1", id, store.JobCompleted)
		}
		for id, w := range map[int64]map[string]string{jobs[0].ID: want, jobs[1].ID: nil, queued: want} {
			if got := ranOnce(t, r, id, 1).job.Trace; !maps.Equal(got, w) {
				t.Errorf("job %d ran with trace context %v, want %v (no baggage)", id, got, w)
			}
		}
	}},
	{"WorkRunsEachJobOnce", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		payload := json.RawMessage(`{"url": "https://ops.example", "n": [1, 2]}`)
		jobs := saveWithJobs(t, a, "d1", "e1",
			store.NewJob{Kind: store.JobEscalation, ErrorID: "e1", Payload: payload, MaxAttempts: 7},
			store.NewJob{Kind: store.JobRetry, ErrorID: "e1"})
		r := &recorder{answer: func(context.Context, store.Job) error {
			time.Sleep(5 * time.Millisecond) // a duration River can tell
			return nil
		}}
		stop := work(t, e.s, r.work, store.WorkOptions{})
		done := []store.Job{waitState(t, a, "e1", jobs[0].ID, store.JobCompleted), waitState(t, a, "e1", jobs[1].ID, store.JobCompleted)}
		settle()
		stop()
		c := ranOnce(t, r, jobs[0].ID, 1)
		checkJob(t, c.job, store.Job{ID: jobs[0].ID, Tenant: "a", Kind: store.JobEscalation, ErrorID: "e1", Payload: payload,
			State: store.JobRunning, Attempt: 1, MaxAttempts: 7})
		c = ranOnce(t, r, jobs[1].ID, 1)
		checkJob(t, c.job, store.Job{ID: jobs[1].ID, Tenant: "a", Kind: store.JobRetry, ErrorID: "e1",
			State: store.JobRunning, Attempt: 1, MaxAttempts: store.DefaultMaxAttempts})
		if r.count() != 2 {
			t.Errorf("%d calls, want 2", r.count())
		}
		for i, j := range done {
			want := jobs[i]
			want.State, want.Attempt = store.JobCompleted, 1
			checkJob(t, j, want)
			checkAttempts(t, j, true)
			c := r.of(j.ID)[0]
			if a := j.Attempts[0]; a.At.After(c.start.Add(time.Millisecond)) || a.Duration < 4*time.Millisecond {
				t.Errorf("job %d: attempt %+v; want it begun by %v, for 5ms or more", j.ID, a, c.start)
			}
		}
	}},
	{"FailedAttemptIsRetryable", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		id := saveWithJobs(t, a, "d1", "e1", store.NewJob{Kind: store.JobRetry, ErrorID: "e1"})[0].ID
		r := &recorder{answer: failing(errors.New("callback: 503 Service Unavailable"))}
		stop := work(t, e.s, r.work, store.WorkOptions{BackoffBase: time.Minute})
		j := waitJob(t, a, "e1", id, jobWait, "failed once", func(j store.Job) bool { return len(j.Attempts) == 1 })
		settle()
		stop()
		c := ranOnce(t, r, id, 1)
		checkJob(t, j, store.Job{ID: id, Tenant: "a", Kind: store.JobRetry, ErrorID: "e1",
			State: store.JobRetryable, Attempt: 1, MaxAttempts: store.DefaultMaxAttempts})
		checkAttempts(t, j, false, "callback: 503 Service Unavailable")
		if next := c.end.Add(time.Minute); j.RunAt.Before(next.Add(-time.Millisecond)) || j.RunAt.After(next.Add(5*time.Second)) {
			t.Errorf("the failed job runs again at %v, want after the backoff, at %v", j.RunAt, next)
		}
	}},
	{"RunsAgainAfterTheBackoff", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		id := saveWithJobs(t, a, "d1", "e1", store.NewJob{Kind: store.JobRetry, ErrorID: "e1"})[0].ID
		r := &recorder{answer: failing(errors.New("boom 1"), errors.New("boom 2"))}
		o := store.WorkOptions{BackoffBase: 200 * time.Millisecond}
		stop := work(t, e.s, r.work, o)
		j := waitState(t, a, "e1", id, store.JobCompleted)
		stop()
		checkJob(t, j, store.Job{ID: id, Tenant: "a", Kind: store.JobRetry, ErrorID: "e1",
			State: store.JobCompleted, Attempt: 3, MaxAttempts: store.DefaultMaxAttempts})
		checkAttempts(t, j, true, "boom 1", "boom 2")
		calls := r.of(id)
		if len(calls) != 3 {
			t.Fatalf("%d calls, want 3", len(calls))
		}
		for i := 1; i < 3; i++ {
			if calls[i].job.Attempt != i+1 {
				t.Errorf("call %d at attempt %d", i+1, calls[i].job.Attempt)
			}
			backoff := workOptions(o).WithDefaults().Backoff(i, 0)
			if gap := calls[i].start.Sub(calls[i-1].end); gap < backoff-time.Millisecond {
				t.Errorf("attempt %d began %v after attempt %d failed, before the backoff (%v)", i+1, gap, i, backoff)
			}
		}
	}},
	{"RetryAfterHoldsTheRetryBack", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		id := saveWithJobs(t, a, "d1", "e1", store.NewJob{Kind: store.JobRetry, ErrorID: "e1"})[0].ID
		const retryAfter = 300 * time.Millisecond
		slow := fmt.Errorf("callback: %w", fault.New(fault.RateLimited, "slow down", fault.WithRetryAfter(retryAfter)))
		r := &recorder{answer: failing(slow)}
		stop := work(t, e.s, r.work, store.WorkOptions{BackoffBase: 50 * time.Millisecond})
		j := waitState(t, a, "e1", id, store.JobCompleted)
		stop()
		checkAttempts(t, j, true, slow.Error())
		calls := r.of(id)
		if len(calls) != 2 {
			t.Fatalf("%d calls, want 2", len(calls))
		}
		if gap := calls[1].start.Sub(calls[0].end); gap < retryAfter-time.Millisecond {
			t.Errorf("attempt 2 began %v after attempt 1 failed, before its Retry-After (%v)", gap, retryAfter)
		}
	}},
	{"PermanentFailureCancels", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		id := saveWithJobs(t, a, "d1", "e1", store.NewJob{Kind: store.JobRetry, ErrorID: "e1"})[0].ID
		permanent := fmt.Errorf("%w: agent %q has no callback URL", store.ErrPermanent, "sql_agent")
		r := &recorder{answer: failing(permanent, permanent)}
		stop := work(t, e.s, r.work, store.WorkOptions{})
		j := waitState(t, a, "e1", id, store.JobCancelled)
		settle()
		stop()
		ranOnce(t, r, id, 1)
		checkJob(t, j, store.Job{ID: id, Tenant: "a", Kind: store.JobRetry, ErrorID: "e1",
			State: store.JobCancelled, Attempt: 1, MaxAttempts: store.DefaultMaxAttempts})
		checkAttempts(t, j, false, permanent.Error())
		if !store.JobFinished(j.State) {
			t.Errorf("a cancelled job is not finished")
		}
	}},
	{"ExhaustedAttemptsDiscard", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		id := saveWithJobs(t, a, "d1", "e1", store.NewJob{Kind: store.JobRetry, ErrorID: "e1", MaxAttempts: 2})[0].ID
		slow := fault.New(fault.RateLimited, "slow down", fault.WithRetryAfter(time.Hour)) // no attempt is left for it
		r := &recorder{answer: failing(errors.New("down"), slow, errors.New("never"))}
		stop := work(t, e.s, r.work, store.WorkOptions{})
		j := waitState(t, a, "e1", id, store.JobDiscarded)
		settle()
		stop()
		checkJob(t, j, store.Job{ID: id, Tenant: "a", Kind: store.JobRetry, ErrorID: "e1",
			State: store.JobDiscarded, Attempt: 2, MaxAttempts: 2})
		checkAttempts(t, j, false, "down", slow.Error())
		if calls := r.of(id); len(calls) != 2 {
			t.Errorf("%d calls, want 2", len(calls))
		}
	}},
	{"NotRunBeforeRunAt", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		runAt := time.Now().Add(1500 * time.Millisecond)
		id := saveWithJobs(t, a, "d1", "e1", store.NewJob{Kind: store.JobRetry, ErrorID: "e1", RunAt: runAt})[0].ID
		r := &recorder{}
		stop := work(t, e.s, r.work, store.WorkOptions{})
		waitState(t, a, "e1", id, store.JobCompleted)
		stop()
		if c := ranOnce(t, r, id, 1); c.start.Before(runAt.Add(-time.Millisecond)) {
			t.Errorf("a job due at %v ran at %v", runAt, c.start)
		}
	}},
	{"EnqueuedTwiceRunsOnce", func(t *testing.T, e *env) {
		// Tenant.Enqueue uses River's unique jobs; jobs saved with an
		// occurrence go in once per save (a delivery saves once: its
		// idempotency), a job repeated in one save once.
		a := e.s.Tenant("a")
		save(t, a, newOccurrence("d1", "e1", Epoch))
		j := store.NewJob{Kind: store.JobRetry, ErrorID: "e1", Payload: json.RawMessage(`{"attempt": 2}`)}
		id := enqueue(t, a, j)
		if again := enqueue(t, a, j); again != id {
			t.Errorf("the same job enqueued again: ID %d, want %d", again, id)
		}
		saved := j
		saved.Payload = json.RawMessage(`{"attempt": 3}`)
		jobs := saveWithJobs(t, a, "d3", "e1", saved, saved, saved) // three times in one
		if len(jobs) != 2 || jobs[0].ID != id {
			t.Fatalf("jobs %+v; want %d and the saved one", jobs, id)
		}
		savedID := jobs[1].ID
		save(t, a, func() store.Occurrence { // the delivery again: nothing more
			o := newOccurrence("d3", "e1", Epoch)
			o.Jobs = []store.NewJob{saved}
			return o
		}())
		if jobs := record(t, a, "e1").Jobs; len(jobs) != 2 {
			t.Fatalf("after the delivery again, jobs %+v", jobs)
		}
		r := &recorder{}
		stop := work(t, e.s, r.work, store.WorkOptions{})
		waitState(t, a, "e1", id, store.JobCompleted)
		waitState(t, a, "e1", savedID, store.JobCompleted)
		settle()
		stop()
		ranOnce(t, r, id, 1)
		ranOnce(t, r, savedID, 1)
		if r.count() != 2 {
			t.Errorf("%d calls, want 2", r.count())
		}
	}},
	{"TwoWorkLoopsRunEachJobOnce", func(t *testing.T, e *env) {
		runOnTwo(t, e.s, e.s)
	}},
	{"RescuedAfterItsInstanceStopped", func(t *testing.T, e *env) {
		// At least once: an attempt that never returns, whose Work loop
		// stopped (its instance died), runs again on a later loop once
		// it has been running longer than RescueAfter.
		a := e.s.Tenant("a")
		id := saveWithJobs(t, a, "d1", "e1", store.NewJob{Kind: store.JobRetry, ErrorID: "e1"})[0].ID
		started, release := make(chan time.Time, 1), make(chan struct{})
		defer close(release)
		crash := work(t, e.s, func(context.Context, store.Job) error {
			started <- time.Now()
			<-release // deaf to its ctx
			return errors.New("too late")
		}, store.WorkOptions{StopTimeout: 50 * time.Millisecond})
		var at time.Time
		select {
		case at = <-started:
		case <-time.After(jobWait):
			t.Fatal("the job did not start")
		}
		crash()
		if j, _ := findJob(t, a, "e1", id); j.State != store.JobRunning || j.Attempt != 1 {
			t.Fatalf("the job of a stopped loop whose attempt never returned: %+v; want it running", j)
		}
		// River's rescuer runs when its client becomes the leader, then
		// every 30 s: the loop starts once the job is stuck, for that
		// first run to rescue it.
		o := store.WorkOptions{Timeout: 200 * time.Millisecond, RescueAfter: 1500 * time.Millisecond}
		time.Sleep(time.Until(at.Add(o.RescueAfter + 200*time.Millisecond)))
		r := &recorder{}
		stop := work(t, e.s, r.work, o)
		j := waitState(t, a, "e1", id, store.JobCompleted)
		stop()
		c := ranOnce(t, r, id, 2)
		if c.start.Sub(at) < o.RescueAfter {
			t.Errorf("rescued %v after it started, before RescueAfter (%v)", c.start.Sub(at), o.RescueAfter)
		}
		checkJob(t, j, store.Job{ID: id, Tenant: "a", Kind: store.JobRetry, ErrorID: "e1",
			State: store.JobCompleted, Attempt: 2, MaxAttempts: store.DefaultMaxAttempts})
		if len(j.Attempts) != 2 || j.Attempts[0].Error == "" || j.Attempts[1].Error != "" || j.Attempts[1].Attempt != 2 {
			t.Errorf("attempts %+v; want the lost one, with an error, then the one that succeeded", j.Attempts)
		}
	}},
	{"EachRunsWithItsTenant", func(t *testing.T, e *env) {
		ta, tb := e.s.Tenant("a"), e.s.Tenant("b")
		ja := saveWithJobs(t, ta, "d1", "e1", store.NewJob{Kind: store.JobRetry, ErrorID: "e1"})[0].ID
		jb := saveWithJobs(t, tb, "d1", "e1", store.NewJob{Kind: store.JobRetry, ErrorID: "e1"})[0].ID
		if ja == jb {
			t.Fatalf("the same job of two tenants has one ID, %d", ja)
		}
		r := &recorder{}
		stop := work(t, e.s, r.work, store.WorkOptions{})
		waitState(t, ta, "e1", ja, store.JobCompleted)
		waitState(t, tb, "e1", jb, store.JobCompleted)
		stop()
		if c := ranOnce(t, r, ja, 1); c.job.Tenant != "a" {
			t.Errorf("tenant a's job ran as tenant %q's", c.job.Tenant)
		}
		if c := ranOnce(t, r, jb, 1); c.job.Tenant != "b" {
			t.Errorf("tenant b's job ran as tenant %q's", c.job.Tenant)
		}
		for tenant, id := range map[string]int64{"a": ja, "b": jb} {
			if jobs := record(t, e.s.Tenant(tenant), "e1").Jobs; len(jobs) != 1 || jobs[0].ID != id {
				t.Errorf("tenant %s: jobs %+v, want only %d", tenant, jobs, id)
			}
		}
	}},
}

// WorkOnTwoInstances checks that two instances of the service sharing one
// database, each running a Work loop, run each job once: open opens a
// store on one database, the same at every call (it may register the
// database's removal with t.Cleanup, which runs after the stores are
// closed); WorkOnTwoInstances closes the stores.
func WorkOnTwoInstances(t *testing.T, open func(t *testing.T) store.Store) {
	var stores []store.Store
	t.Cleanup(func() {
		for _, s := range stores {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}
	})
	stores = append(stores, open(t))
	stores = append(stores, open(t))
	runOnTwo(t, stores[0], stores[1])
}

// runOnTwo enqueues jobs through one and two, runs Work loops on both, and
// checks that each job ran once.
func runOnTwo(t *testing.T, one, two store.Store) {
	const n, errorIDs = 40, 4
	var ids []int64
	for i := range n {
		s := one
		if i%2 == 1 {
			s = two
		}
		tn, errorID := s.Tenant("a"), fmt.Sprint("e", i%errorIDs)
		if i < errorIDs {
			save(t, tn, newOccurrence("d"+errorID, errorID, Epoch))
		}
		ids = append(ids, enqueue(t, tn, store.NewJob{Kind: store.JobRetry, ErrorID: errorID, Payload: json.RawMessage(fmt.Sprintf(`{"n": %d}`, i))}))
	}
	slow := func(context.Context, store.Job) error {
		time.Sleep(5 * time.Millisecond)
		return nil
	}
	r1, r2 := &recorder{answer: slow}, &recorder{answer: slow}
	stop1 := work(t, one, r1.work, store.WorkOptions{Workers: 3})
	stop2 := work(t, two, r2.work, store.WorkOptions{Workers: 3})
	for i, id := range ids {
		waitState(t, one.Tenant("a"), fmt.Sprint("e", i%errorIDs), id, store.JobCompleted)
	}
	settle()
	stop1()
	stop2()
	for _, id := range ids {
		if c1, c2 := r1.of(id), r2.of(id); len(c1)+len(c2) != 1 {
			t.Errorf("job %d ran %d times on one, %d on two; want once", id, len(c1), len(c2))
		}
	}
	if c := r1.count() + r2.count(); c != n {
		t.Errorf("%d calls, want %d", c, n)
	}
	t.Logf("the first loop ran %d jobs, the second %d", r1.count(), r2.count())
}

var concurrencyTests = []test{
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

// FillOldJobs writes, with exec, the rows of the job table migration 0010
// moves to River (the database is at 0009): tenant a's retry of e1
// available at its first attempt due at runAt (one failed attempt
// recorded), the escalation of e2 running at its second, e3's retry
// succeeded. CheckMigratedJobs checks what became of them.
func FillOldJobs(runAt time.Time, exec func(query string, args ...any) error) error {
	for _, j := range []struct {
		kind, errorID, state string
		payload              any
		attempt, max         int
	}{
		{"retry", "e1", "available", `{"agent_id": "sql_agent", "n": [1, 2]}`, 1, 5},
		{"escalation", "e2", "running", nil, 2, 3},
		{"retry", "e3", "succeeded", `{}`, 1, 5},
	} {
		if err := exec(`INSERT INTO jobs (tenant, kind, error_id, payload, state, run_at, attempt, max_attempts, created_at)
			VALUES ('a', $1, $2, $3, $4, $5, $6, $7, $5)`, j.kind, j.errorID, j.payload, j.state, runAt.UnixNano(), j.attempt, j.max); err != nil {
			return err
		}
	}
	return exec(`INSERT INTO job_attempts (tenant, job_id, attempt, at, duration_ns, error)
		SELECT tenant, id, 1, run_at, 1000, 'callback: 503' FROM jobs WHERE error_id = 'e1'`)
}

// CheckMigratedJobs checks, on s, a store opened on a database that
// migration 0010 moved to River from the old job table filled by
// FillOldJobs, that the two jobs still to run are River's, listed in
// their records, and run at their next attempt; e3's is gone.
func CheckMigratedJobs(t *testing.T, s store.Store, runAt time.Time) {
	t.Helper()
	ctx := t.Context()
	tn := s.Tenant("a")
	jobs := map[string]store.Job{}
	for _, errorID := range []string{"e1", "e2", "e3"} {
		if _, err := tn.SaveOccurrence(ctx, store.Occurrence{ErrorID: errorID, QueryID: "q", AgentID: "sql_agent",
			ErrorType: "query_error", Severity: "low", NextAction: "resume"}); err != nil {
			t.Fatal(err)
		}
		r, _, err := tn.ErrorRecord(ctx, errorID)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range r.Jobs {
			jobs[errorID] = j
		}
		if len(r.Jobs) > 1 {
			t.Errorf("%s: %d jobs", errorID, len(r.Jobs))
		}
	}
	e1, e2 := jobs["e1"], jobs["e2"]
	if len(jobs) != 2 || e1.Kind != store.JobRetry || e1.Tenant != "a" || e1.State != store.JobAvailable || e1.Attempt != 1 ||
		e1.MaxAttempts != 5 || !sameJSON(e1.Payload, json.RawMessage(`{"n": [1, 2], "agent_id": "sql_agent"}`)) || e1.RunAt.Sub(runAt).Abs() > time.Millisecond ||
		e2.Kind != store.JobEscalation || e2.State != store.JobAvailable || e2.Attempt != 2 || e2.MaxAttempts != 3 || e2.Payload != nil {
		t.Fatalf("the jobs moved to River: %+v", jobs)
	}
	// They run, their attempts counted on.
	ran := make(chan store.Job, 10)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- s.Jobs().Work(ctx, func(_ context.Context, j store.Job) error {
			ran <- j
			return nil
		}, store.WorkOptions{Poll: 20 * time.Millisecond})
	}()
	for range 2 {
		select {
		case j := <-ran:
			if want := jobs[j.ErrorID]; j.ID != want.ID || j.Attempt != want.Attempt+1 {
				t.Errorf("ran %+v, want job %d at attempt %d", j, want.ID, want.Attempt+1)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the migrated jobs did not run")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
