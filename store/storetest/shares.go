package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// shareTests hold what lets one tenant's work not take what the others
// need: a job put off without an attempt counted.
var shareTests = []test{
	{"DeferPutsAJobOffWithoutAnAttempt", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		jobs := saveWithJobs(t, a, "d1", "e1", store.NewJob{Kind: store.JobRetry, ErrorID: "e1", Payload: json.RawMessage(`{"n": 1}`)})
		const after = 300 * time.Millisecond
		r := &recorder{answer: func(_ context.Context, j store.Job) error {
			if j.Deferred < 2 {
				return store.Defer(after)
			}
			return nil
		}}
		work(t, e.s, r.work, store.WorkOptions{})
		j := waitState(t, a, "e1", jobs[0].ID, store.JobCompleted)
		calls := r.of(j.ID)
		if len(calls) != 3 {
			t.Fatalf("calls %+v; want 3: put off twice, then done", calls)
		}
		for i, c := range calls {
			if c.job.Attempt != 1 || c.job.Deferred != i {
				t.Errorf("call %d: attempt %d, put off %d times before; want attempt 1, %d", i+1, c.job.Attempt, c.job.Deferred, i)
			}
			if i > 0 && c.start.Sub(calls[i-1].end) < after-50*time.Millisecond {
				t.Errorf("call %d came %v after the one that put it off for %v", i+1, c.start.Sub(calls[i-1].end), after)
			}
		}
		// No attempt failed: the job completed at its first.
		checkJob(t, j, store.Job{ID: j.ID, Tenant: "a", Kind: store.JobRetry, ErrorID: "e1", Payload: jobs[0].Payload,
			State: store.JobCompleted, Attempt: 1, MaxAttempts: store.DefaultMaxAttempts})
		checkAttempts(t, j, true)
	}},
}
