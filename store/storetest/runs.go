package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// failedEnd is a failed run's end, with a fault as the service records it.
func failedEnd() store.RunEnd {
	return store.RunEnd{Outcome: store.RunFailed, Fault: json.RawMessage(
		`{"code":"RATE_LIMITED","message":"Request rate limit exceeded.","http_status":429,"category":"upstream","domain":"provider",` +
			`"retryable":true,"retry_after":7,"session_valid":true,"details":{"node":"echo","note":"ü \u0000 \"q\""}}`)}
}

// getRun returns tenant's run, which must exist.
func getRun(t *testing.T, tn store.Runs, runID string) store.Run {
	t.Helper()
	r, found, err := tn.GetRun(t.Context(), runID)
	if err != nil || !found {
		t.Fatalf("GetRun(%q) = %+v, %v, %v; want the run", runID, r, found, err)
	}
	return r
}

// noRun checks that tenant has no run runID.
func noRun(t *testing.T, tn store.Runs, runID string) {
	t.Helper()
	if r, found, err := tn.GetRun(t.Context(), runID); err != nil || found {
		t.Errorf("GetRun(%q) = %+v, %v, %v; want none", runID, r, found, err)
	}
}

// sameRun checks that got is want, the fault compared as JSON.
func sameRun(t *testing.T, what string, got, want store.Run) {
	t.Helper()
	gf, wf := got.Fault, want.Fault
	got.Fault, want.Fault = nil, nil
	if !reflect.DeepEqual(got, want) || !sameJSON(gf, wf) {
		t.Errorf("%s =\n%+v %s\nwant\n%+v %s", what, got, gf, want, wf)
	}
}

// runsEndedAfter reads tn's runs ended after after until it has want of
// them, for up to 5 s: on PostgreSQL an end is read once every older
// transaction, of any client of the database, has ended.
func runsEndedAfter(t *testing.T, tn store.Runs, after int64, limit, want int) []store.EndedRun {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := tn.RunsEndedAfter(t.Context(), after, limit)
		must(t, err)
		if len(got) >= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var runTests = []test{
	{"RoundTrip", func(t *testing.T, e *env) {
		ctx := t.Context()
		tn := e.s.Tenant("a")
		started := e.clock.Now()
		got, err := tn.StartRun(ctx, store.Run{RunID: "run-1", ThreadID: "thread-1", AgentID: "echo",
			Outcome: store.RunFinished, FinishedAt: started, AnswerBytes: 99}) // ignored
		must(t, err)
		running := store.Run{RunID: "run-1", ThreadID: "thread-1", AgentID: "echo", Outcome: store.RunRunning, StartedAt: started}
		sameRun(t, "StartRun", got, running)
		sameRun(t, "GetRun of a running run", getRun(t, tn, "run-1"), running)

		finished := e.clock.Advance(1500 * time.Millisecond)
		end := failedEnd()
		got, err = tn.FinishRun(ctx, "run-1", end)
		must(t, err)
		failed := running
		failed.Outcome, failed.FinishedAt, failed.Fault = store.RunFailed, finished, end.Fault
		sameRun(t, "FinishRun", got, failed)
		sameRun(t, "GetRun of a failed run", getRun(t, tn, "run-1"), failed)

		// The other outcomes; an empty thread id.
		for i, c := range []store.RunEnd{{Outcome: store.RunFinished, AnswerBytes: 21}, {Outcome: store.RunDisconnected}, {Outcome: store.RunShutdown}} {
			id := fmt.Sprint("run-", i+2)
			_, err := tn.StartRun(ctx, store.Run{RunID: id, AgentID: "echo"})
			must(t, err)
			got, err := tn.FinishRun(ctx, id, c)
			must(t, err)
			want := store.Run{RunID: id, AgentID: "echo", Outcome: c.Outcome, StartedAt: finished, FinishedAt: finished, AnswerBytes: c.AnswerBytes}
			sameRun(t, "FinishRun", got, want)
			sameRun(t, "GetRun", getRun(t, tn, id), want)
		}
	}},
	{"LinkRun", func(t *testing.T, e *env) {
		ctx := t.Context()
		tn := e.s.Tenant("a")
		_, err := tn.StartRun(ctx, store.Run{RunID: "run-1", ThreadID: "thread-1", AgentID: "echo"})
		must(t, err)
		failed, err := tn.FinishRun(ctx, "run-1", failedEnd())
		must(t, err)
		ends := runsEndedAfter(t, tn, 0, 10, 1)
		if len(ends) != 1 || ends[0].Run.ErrorID != "" {
			t.Fatalf("RunsEndedAfter before the link = %+v, want the run, with no record", ends)
		}
		must(t, tn.LinkRun(ctx, "run-1", "err_0123456789abcdef"))
		failed.ErrorID = "err_0123456789abcdef"
		// A reader past the run's end is told of it again, with its record.
		if again := runsEndedAfter(t, tn, ends[0].Pos, 10, 1); len(again) != 1 || again[0].Pos <= ends[0].Pos {
			t.Errorf("RunsEndedAfter(the end's position) after the link = %+v, want the run again, further on", again)
		} else {
			sameRun(t, "RunsEndedAfter's linked run, past its end", again[0].Run, failed)
		}
		sameRun(t, "GetRun of a linked run", getRun(t, tn, "run-1"), failed)
		page, err := tn.ListRuns(ctx, store.RunFilter{})
		must(t, err)
		if len(page.Runs) != 1 {
			t.Fatalf("ListRuns = %+v, want the run", page)
		}
		sameRun(t, "ListRuns' linked run", page.Runs[0], failed)
		if ended := runsEndedAfter(t, tn, 0, 10, 1); len(ended) != 1 {
			t.Errorf("RunsEndedAfter = %+v, want the run", ended)
		} else {
			sameRun(t, "RunsEndedAfter's linked run", ended[0].Run, failed)
		}
		// A recording retried links again; another tenant's run, or none,
		// is no run; an error id that is not one is refused.
		must(t, tn.LinkRun(ctx, "run-1", "err_0123456789abcdef"))
		for _, id := range []string{"never-started", "bad\x00id"} {
			if err := tn.LinkRun(ctx, id, "err_1"); !errors.Is(err, store.ErrNoRun) {
				t.Errorf("LinkRun(%q) = %v, want ErrNoRun", id, err)
			}
		}
		if err := e.s.Tenant("b").LinkRun(ctx, "run-1", "err_2"); !errors.Is(err, store.ErrNoRun) {
			t.Errorf("LinkRun of another tenant's run = %v, want ErrNoRun", err)
		}
		for _, id := range []string{"", "bad\x00id", strings.Repeat("e", store.MaxRunIDBytes+1)} {
			if err := tn.LinkRun(ctx, "run-1", id); !errors.Is(err, store.ErrInvalidRun) {
				t.Errorf("LinkRun(error id %q) = %v, want ErrInvalidRun", id, err)
			}
		}
		sameRun(t, "GetRun after refused links", getRun(t, tn, "run-1"), failed)
		// A run not linked has no error id.
		_, err = tn.StartRun(ctx, store.Run{RunID: "run-2", AgentID: "echo"})
		must(t, err)
		if r := getRun(t, tn, "run-2"); r.ErrorID != "" {
			t.Errorf("a new run's ErrorID = %q, want none", r.ErrorID)
		}
	}},
	{"FinishRunEnqueues", func(t *testing.T, e *env) {
		// A run's end commits its jobs with it, once: a second end, refused,
		// enqueues nothing.
		ctx := t.Context()
		tn := e.s.Tenant("a")
		_, err := tn.StartRun(ctx, store.Run{RunID: "run-1", AgentID: "echo"})
		must(t, err)
		end := failedEnd()
		end.Jobs = []store.NewJob{{Kind: store.JobRecordFailure, Payload: json.RawMessage(`{"run_id":"run-1"}`)}}
		_, err = tn.FinishRun(ctx, "run-1", end)
		must(t, err)
		end.Jobs[0].Payload = json.RawMessage(`{"run_id":"run-1","again":true}`)
		if _, err := tn.FinishRun(ctx, "run-1", end); !errors.Is(err, store.ErrRunEnded) {
			t.Fatalf("FinishRun of an ended run: %v, want ErrRunEnded", err)
		}
		// A refused end (an invalid one) enqueues nothing either.
		_, err = tn.StartRun(ctx, store.Run{RunID: "run-2", AgentID: "echo"})
		must(t, err)
		bad := store.RunEnd{Outcome: store.RunFailed, Jobs: end.Jobs}
		if _, err := tn.FinishRun(ctx, "run-2", bad); !errors.Is(err, store.ErrInvalidRun) {
			t.Fatalf("FinishRun without a fault: %v, want ErrInvalidRun", err)
		}
		r := &recorder{}
		stop := work(t, e.s, r.work, store.WorkOptions{})
		deadline := time.Now().Add(jobWait)
		for r.count() < 1 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		// Nothing else is due: the queue's next polls find no other job.
		stop()
		r.mu.Lock()
		defer r.mu.Unlock()
		if len(r.calls) != 1 {
			t.Fatalf("the worker got %d jobs, want the first end's one", len(r.calls))
		}
		j := r.calls[0].job
		if j.Kind != store.JobRecordFailure || j.Tenant != "a" || !sameJSON(j.Payload, json.RawMessage(`{"run_id":"run-1"}`)) {
			t.Errorf("the job = %+v (payload %s), want tenant a's record_failure of run-1", j, j.Payload)
		}
	}},
	{"UnknownRun", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		noRun(t, tn, "never-started")
		noRun(t, tn, "")
		noRun(t, tn, "bad\x00id")
		for _, id := range []string{"never-started", "", "bad\x00id", "\xff"} {
			if _, err := tn.FinishRun(t.Context(), id, store.RunEnd{Outcome: store.RunFinished}); !errors.Is(err, store.ErrNoRun) {
				t.Errorf("FinishRun(%q) of no run: %v, want ErrNoRun", id, err)
			}
		}
	}},
	{"DuplicateID", func(t *testing.T, e *env) {
		ctx := t.Context()
		tn := e.s.Tenant("a")
		first, err := tn.StartRun(ctx, store.Run{RunID: "run", ThreadID: "t1", AgentID: "echo"})
		must(t, err)
		e.clock.Advance(time.Second)
		// While it runs, and once it ended: the first record stays.
		if _, err := tn.StartRun(ctx, store.Run{RunID: "run", ThreadID: "t2", AgentID: "other"}); !errors.Is(err, store.ErrRunExists) {
			t.Errorf("StartRun of a running run's id: %v, want ErrRunExists", err)
		}
		sameRun(t, "GetRun after a refused start", getRun(t, tn, "run"), first)
		ended, err := tn.FinishRun(ctx, "run", store.RunEnd{Outcome: store.RunFinished, AnswerBytes: 3})
		must(t, err)
		if _, err := tn.StartRun(ctx, store.Run{RunID: "run", ThreadID: "t1", AgentID: "echo"}); !errors.Is(err, store.ErrRunExists) {
			t.Errorf("StartRun of a finished run's id: %v, want ErrRunExists", err)
		}
		sameRun(t, "GetRun after a refused start", getRun(t, tn, "run"), ended)
	}},
	{"ConcurrentStarts", func(t *testing.T, e *env) {
		const n = 16
		tn := e.s.Tenant("a")
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			started  int
			refused  int
			failures []error
		)
		for i := range n {
			wg.Go(func() {
				_, err := tn.StartRun(t.Context(), store.Run{RunID: "run", ThreadID: fmt.Sprint("t", i), AgentID: "echo"})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					started++
				case errors.Is(err, store.ErrRunExists):
					refused++
				default:
					failures = append(failures, err)
				}
			})
		}
		wg.Wait()
		if started != 1 || refused != n-1 || len(failures) > 0 {
			t.Errorf("%d concurrent starts of one run id: %d started, %d refused, errors %v; want 1 and %d", n, started, refused, failures, n-1)
		}
	}},
	{"StartEarly", func(t *testing.T, e *env) {
		// Concurrent early starts of one id: one is decided and commits,
		// the others are refused before any commit of theirs.
		const n = 16
		tn := e.s.Tenant("a")
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			winner   string
			started  int
			refused  int
			failures []error
		)
		for i := range n {
			wg.Go(func() {
				thread := fmt.Sprint("t", i)
				_, commit, err := tn.StartRunEarly(t.Context(), store.Run{RunID: "run", ThreadID: thread, AgentID: "echo"})
				if err == nil {
					if commit == nil {
						err = errors.New("no commit")
					} else {
						err = commit()
					}
				} else if commit != nil {
					err = errors.Join(err, errors.New("a commit with an error"))
				}
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					started++
					winner = thread
				case errors.Is(err, store.ErrRunExists):
					refused++
				default:
					failures = append(failures, err)
				}
			})
		}
		wg.Wait()
		if started != 1 || refused != n-1 || len(failures) > 0 {
			t.Fatalf("%d concurrent early starts of one run id: %d started, %d refused, errors %v; want 1 and %d", n, started, refused, failures, n-1)
		}
		if r := getRun(t, tn, "run"); r.ThreadID != winner || r.Outcome != store.RunRunning {
			t.Errorf("the run %+v, want thread %s running", r, winner)
		}
		if _, err := tn.StartRun(t.Context(), store.Run{RunID: "run", AgentID: "echo"}); !errors.Is(err, store.ErrRunExists) {
			t.Errorf("StartRun after an early start: %v, want ErrRunExists", err)
		}
		if _, commit, err := tn.StartRunEarly(t.Context(), store.Run{RunID: "", AgentID: "echo"}); !errors.Is(err, store.ErrInvalidRun) || commit != nil {
			t.Errorf("an early start without a run id: %v (commit %v), want ErrInvalidRun and no commit", err, commit != nil)
		}
	}},
	{"FinishTwice", func(t *testing.T, e *env) {
		ctx := t.Context()
		tn := e.s.Tenant("a")
		_, err := tn.StartRun(ctx, store.Run{RunID: "run", AgentID: "echo"})
		must(t, err)
		first, err := tn.FinishRun(ctx, "run", failedEnd())
		must(t, err)
		e.clock.Advance(time.Minute)
		for _, end := range []store.RunEnd{{Outcome: store.RunFinished, AnswerBytes: 5}, {Outcome: store.RunDisconnected}, failedEnd()} {
			if _, err := tn.FinishRun(ctx, "run", end); !errors.Is(err, store.ErrRunEnded) {
				t.Errorf("FinishRun(%s) of an ended run: %v, want ErrRunEnded", end.Outcome, err)
			}
		}
		sameRun(t, "GetRun after a second finish", getRun(t, tn, "run"), first)

		// Concurrent finishes: one wins, and its outcome is the record's.
		_, err = tn.StartRun(ctx, store.Run{RunID: "raced", AgentID: "echo"})
		must(t, err)
		var wg sync.WaitGroup
		results := make([]error, 8)
		for i := range results {
			wg.Go(func() {
				_, results[i] = tn.FinishRun(ctx, "raced", store.RunEnd{Outcome: store.RunFinished, AnswerBytes: int64(i)})
			})
		}
		wg.Wait()
		winner := -1
		for i, err := range results {
			switch {
			case err == nil && winner < 0:
				winner = i
			case err == nil || !errors.Is(err, store.ErrRunEnded):
				t.Errorf("concurrent FinishRun %d: %v", i, err)
			}
		}
		if r := getRun(t, tn, "raced"); winner < 0 || r.AnswerBytes != int64(winner) {
			t.Errorf("after concurrent finishes: %+v, winner %d", r, winner)
		}
	}},
	{"TenantIsolation", func(t *testing.T, e *env) {
		ctx := t.Context()
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		_, err := a.StartRun(ctx, store.Run{RunID: "run", ThreadID: "of-a", AgentID: "echo"})
		must(t, err)
		noRun(t, b, "run")
		if _, err := b.FinishRun(ctx, "run", store.RunEnd{Outcome: store.RunFinished}); !errors.Is(err, store.ErrNoRun) {
			t.Errorf("another tenant's FinishRun: %v, want ErrNoRun", err)
		}
		// The id is each tenant's own.
		_, err = b.StartRun(ctx, store.Run{RunID: "run", ThreadID: "of-b", AgentID: "other"})
		must(t, err)
		_, err = b.FinishRun(ctx, "run", failedEnd())
		must(t, err)
		if r := getRun(t, a, "run"); r.ThreadID != "of-a" || r.Outcome != store.RunRunning {
			t.Errorf("a's run after b's: %+v", r)
		}
		if r := getRun(t, b, "run"); r.ThreadID != "of-b" || r.Outcome != store.RunFailed {
			t.Errorf("b's run: %+v", r)
		}
	}},
	{"EndedInOrder", func(t *testing.T, e *env) {
		ctx := t.Context()
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		start := func(tn store.Runs, id string) {
			_, err := tn.StartRun(ctx, store.Run{RunID: id, AgentID: "echo"})
			must(t, err)
		}
		from, err := a.LatestRunEnd(ctx)
		must(t, err)
		for _, id := range []string{"r1", "r2", "r3", "r4", "running"} {
			start(a, id)
		}
		start(b, "rb")
		// Ended in another order than started, the tenants interleaved.
		var want []store.Run
		for _, c := range []struct {
			tn   store.Runs
			id   string
			end  store.RunEnd
			mine bool
		}{
			{a, "r2", store.RunEnd{Outcome: store.RunFinished, AnswerBytes: 5}, true},
			{b, "rb", store.RunEnd{Outcome: store.RunFinished}, false},
			{a, "r1", failedEnd(), true},
			{a, "r3", store.RunEnd{Outcome: store.RunDisconnected}, true},
			{a, "r4", store.RunEnd{Outcome: store.RunShutdown}, true},
		} {
			r, err := c.tn.FinishRun(ctx, c.id, c.end)
			must(t, err)
			if c.mine {
				want = append(want, r)
			}
		}
		ended := runsEndedAfter(t, a, from, 10, len(want))
		if len(ended) != len(want) {
			t.Fatalf("RunsEndedAfter(%d) = %d runs %+v, want %d (a's, in the order they ended; not b's, not the running one)", from, len(ended), ended, len(want))
		}
		for i, e := range ended {
			sameRun(t, fmt.Sprint("ended run ", i), e.Run, want[i])
			if e.Pos <= from || (i > 0 && e.Pos <= ended[i-1].Pos) {
				t.Errorf("positions %d after %d: not growing", e.Pos, from)
			}
		}
		// Paged; from the last position, nothing; the latest is past it.
		if page := runsEndedAfter(t, a, ended[0].Pos, 1, 1); len(page) != 1 || page[0].Run.RunID != "r1" {
			t.Errorf("the page after r2: %+v; want r1", page)
		}
		last := ended[len(ended)-1].Pos
		if more, err := a.RunsEndedAfter(ctx, last, 10); err != nil || len(more) != 0 {
			t.Errorf("after the last: %+v, %v", more, err)
		}
		latestFrom(t, a.LatestRunEnd, last)
		if other := runsEndedAfter(t, b, from, 10, 1); len(other) != 1 || other[0].Run.RunID != "rb" {
			t.Errorf("b's ended runs: %+v", other)
		}
	}},
	{"Refused", func(t *testing.T, e *env) {
		ctx := t.Context()
		tn := e.s.Tenant("a")
		long := strings.Repeat("x", store.MaxRunIDBytes+1)
		for _, r := range []store.Run{
			{AgentID: "echo"}, // no run id
			{RunID: "run"},    // no agent
			{RunID: long, AgentID: "echo"},
			{RunID: "run", ThreadID: long, AgentID: "echo"},
			{RunID: "run", AgentID: long},
			{RunID: "run\x00", AgentID: "echo"},
			{RunID: "run", ThreadID: "t\xff", AgentID: "echo"},
			{RunID: "run", AgentID: "echo\x00"},
		} {
			if _, err := tn.StartRun(ctx, r); !errors.Is(err, store.ErrInvalidRun) {
				t.Errorf("StartRun(%.40q, %.40q, %.40q): %v, want ErrInvalidRun", r.RunID, r.ThreadID, r.AgentID, err)
			}
		}
		noRun(t, tn, "run")
		// At the bound, accepted.
		at := strings.Repeat("é", store.MaxRunIDBytes/2)
		_, err := tn.StartRun(ctx, store.Run{RunID: at, ThreadID: at, AgentID: at})
		must(t, err)
		getRun(t, tn, at)

		_, err = tn.StartRun(ctx, store.Run{RunID: "run", AgentID: "echo"})
		must(t, err)
		big := json.RawMessage(`{"code":"INTERNAL_ERROR","message":"` + strings.Repeat("m", store.MaxRunFaultBytes) + `"}`)
		for what, end := range map[string]store.RunEnd{
			"an unknown outcome":        {Outcome: "exploded"},
			"a running outcome":         {Outcome: store.RunRunning},
			"a failure without a fault": {Outcome: store.RunFailed},
			"a fault that is not JSON":  {Outcome: store.RunFailed, Fault: json.RawMessage(`{"code":`)},
			"a fault that is an array":  {Outcome: store.RunFailed, Fault: json.RawMessage(`["code"]`)},
			"a fault not in UTF-8":      {Outcome: store.RunFailed, Fault: json.RawMessage("{\"code\":\"\xff\"}")},
			"a fault over the bound":    {Outcome: store.RunFailed, Fault: big},
			"a finished run's fault":    {Outcome: store.RunFinished, Fault: failedEnd().Fault},
			"a shutdown run's fault":    {Outcome: store.RunShutdown, Fault: failedEnd().Fault},
			"a negative answer length":  {Outcome: store.RunFinished, AnswerBytes: -1},
		} {
			if _, err := tn.FinishRun(ctx, "run", end); !errors.Is(err, store.ErrInvalidRun) {
				t.Errorf("FinishRun with %s: %v, want ErrInvalidRun", what, err)
			}
		}
		if r := getRun(t, tn, "run"); r.Outcome != store.RunRunning {
			t.Errorf("a refused FinishRun changed the run: %+v", r)
		}
	}},
	{"Expire", func(t *testing.T, e *env) {
		ctx := t.Context()
		const day = 24 * time.Hour
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		start := func(tn store.Runs, id string) {
			t.Helper()
			_, err := tn.StartRun(ctx, store.Run{RunID: id, AgentID: "echo"})
			must(t, err)
		}
		start(a, "old-running") // its instance stopped: it never ends
		start(a, "old-finished")
		start(b, "old-finished")
		e.clock.Advance(6 * day)
		_, err := a.FinishRun(ctx, "old-finished", store.RunEnd{Outcome: store.RunFinished}) // ended lately: its start counts
		must(t, err)
		start(a, "recent")
		e.clock.Advance(2 * day)

		// Eight days: the runs started more than a week ago, whatever
		// their outcome.
		n, err := e.s.Expire(ctx, store.Retention{})
		must(t, err)
		if n != 3 {
			t.Errorf("Expire after eight days deleted %d rows, want 3 (the runs started a week ago)", n)
		}
		noRun(t, a, "old-running")
		noRun(t, a, "old-finished")
		noRun(t, b, "old-finished")
		getRun(t, a, "recent")
		// An expired run's id may be used again.
		start(a, "old-running")

		// A shorter retention.
		e.clock.Advance(2 * time.Hour)
		n, err = e.s.Expire(ctx, store.Retention{Runs: time.Hour})
		must(t, err)
		if n != 2 {
			t.Errorf("Expire with an hour's retention deleted %d rows, want 2", n)
		}
		noRun(t, a, "recent")
		noRun(t, a, "old-running")
	}},
	{"List", func(t *testing.T, e *env) {
		ctx := t.Context()
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		// Seven runs of a, a second apart, two agents and every outcome;
		// "r3" and "r3b" start at the same instant. One run of b.
		type spec struct{ id, agent, outcome string }
		specs := []spec{{"r1", "echo", store.RunFinished}, {"r2", "planner", store.RunFailed}, {"r3", "echo", store.RunFailed},
			{"r3b", "echo", store.RunDisconnected}, {"r4", "planner", store.RunRunning}, {"r5", "echo", store.RunShutdown}, {"r6", "echo", store.RunFailed}}
		var since time.Time
		for i, sp := range specs {
			if sp.id != "r3b" {
				e.clock.Advance(time.Second)
			}
			if i == 2 {
				since = e.clock.Now()
			}
			_, err := a.StartRun(ctx, store.Run{RunID: sp.id, AgentID: sp.agent})
			must(t, err)
			switch end := (store.RunEnd{Outcome: sp.outcome}); sp.outcome {
			case store.RunRunning:
			case store.RunFailed:
				end = failedEnd()
				if sp.id == "r6" {
					end.Fault = json.RawMessage(`{"code":"TIMEOUT","message":"m"}`)
				}
				_, err = a.FinishRun(ctx, sp.id, end)
				must(t, err)
			default:
				_, err = a.FinishRun(ctx, sp.id, end)
				must(t, err)
			}
		}
		_, err := b.StartRun(ctx, store.Run{RunID: "theirs", AgentID: "echo"})
		must(t, err)

		ids := func(p store.RunPage) string {
			var out []string
			for _, r := range p.Runs {
				out = append(out, r.RunID)
			}
			return strings.Join(out, " ")
		}
		list := func(f store.RunFilter) store.RunPage {
			t.Helper()
			p, err := a.ListRuns(ctx, f)
			must(t, err)
			return p
		}
		for _, c := range []struct {
			name string
			f    store.RunFilter
			want string
		}{
			{"all, the latest first", store.RunFilter{}, "r6 r5 r4 r3b r3 r2 r1"},
			{"an agent", store.RunFilter{AgentID: "planner"}, "r4 r2"},
			{"an outcome", store.RunFilter{Outcome: store.RunFailed}, "r6 r3 r2"},
			{"a code", store.RunFilter{Code: "RATE_LIMITED"}, "r3 r2"},
			{"a code and an agent", store.RunFilter{Code: "RATE_LIMITED", AgentID: "echo"}, "r3"},
			{"since", store.RunFilter{Since: since}, "r6 r5 r4 r3b r3"},
			{"nothing", store.RunFilter{AgentID: "nobody"}, ""},
			{"not text", store.RunFilter{AgentID: "\x00"}, ""},
		} {
			if got := list(c.f); ids(got) != c.want || got.Next != "" {
				t.Errorf("%s: %q (next %q), want %q", c.name, ids(got), got.Next, c.want)
			}
		}
		// A failed run's record is whole in the list.
		sameRun(t, "listed r2", list(store.RunFilter{AgentID: "planner", Outcome: store.RunFailed}).Runs[0], getRun(t, a, "r2"))

		// Pages of two, through the tie of r3 and r3b, end to end.
		var pages []string
		f := store.RunFilter{Limit: 2}
		for {
			p := list(f)
			pages = append(pages, ids(p))
			if p.Next == "" {
				break
			}
			f.Cursor = p.Next
		}
		if got := strings.Join(pages, " | "); got != "r6 r5 | r4 r3b | r3 r2 | r1" {
			t.Errorf("pages: %s", got)
		}
		// A run started after a page was read is not on the next one.
		first := list(store.RunFilter{Limit: 3})
		e.clock.Advance(time.Second)
		_, err = a.StartRun(ctx, store.Run{RunID: "r7", AgentID: "echo"})
		must(t, err)
		if got := ids(list(store.RunFilter{Limit: 3, Cursor: first.Next})); got != "r3b r3 r2" {
			t.Errorf("the page after a new run: %q", got)
		}
		for _, bad := range []string{"x", "cnVuMTo", "cnVuMTp4Onk", "bm90LWEtY3Vyc29y"} {
			if _, err := a.ListRuns(ctx, store.RunFilter{Cursor: bad}); !errors.Is(err, store.ErrBadCursor) {
				t.Errorf("cursor %q: %v, want ErrBadCursor", bad, err)
			}
		}
		if p, err := b.ListRuns(ctx, store.RunFilter{}); err != nil || ids(p) != "theirs" {
			t.Errorf("b's runs: %q %v", ids(p), err)
		}
	}},
	{"Totals", func(t *testing.T, e *env) {
		ctx := t.Context()
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		// A run before the range; then, a second apart, runs of three
		// agents and every outcome; one of b's.
		start := func(tn store.Runs, id, agent, outcome, code string) {
			t.Helper()
			e.clock.Advance(time.Second)
			_, err := tn.StartRun(ctx, store.Run{RunID: id, AgentID: agent})
			must(t, err)
			end := store.RunEnd{Outcome: outcome}
			switch outcome {
			case store.RunRunning:
				return
			case store.RunFailed:
				end.Fault = json.RawMessage(`{"code":"` + code + `","message":"m"}`)
			}
			_, err = tn.FinishRun(ctx, id, end)
			must(t, err)
		}
		start(a, "before", "planner", store.RunFailed, "TIMEOUT")
		since := e.clock.Now().Add(time.Millisecond)
		start(a, "r1", "echo", store.RunFinished, "")
		start(a, "r2", "planner", store.RunFailed, "RATE_LIMITED")
		start(a, "r3", "echo", store.RunFailed, "TIMEOUT")
		start(a, "r4", "planner", store.RunFailed, "RATE_LIMITED")
		start(a, "r5", "echo", store.RunDisconnected, "")
		start(a, "r6", "echo", store.RunShutdown, "")
		start(a, "r7", "writer", store.RunRunning, "")
		start(a, "r8", "writer", store.RunFinished, "")
		start(b, "theirs", "planner", store.RunFailed, "TIMEOUT")
		until := e.clock.Now().Add(time.Millisecond)

		got, err := a.RunTotals(ctx, store.RunTotalsFilter{Since: since, Until: until})
		must(t, err)
		want := store.RunTotals{Since: since, Until: until, Runs: 8,
			Agents: []store.AgentRuns{
				{AgentID: "planner", Runs: 2, Failed: 2},
				{AgentID: "echo", Runs: 4, Finished: 1, Failed: 1, Disconnected: 1, Shutdown: 1},
				{AgentID: "writer", Runs: 2, Running: 1, Finished: 1},
			},
			Codes: []store.CodeRuns{{Code: "RATE_LIMITED", Failed: 2}, {Code: "TIMEOUT", Failed: 1}},
		}
		if !got.Since.Equal(want.Since) || !got.Until.Equal(want.Until) {
			t.Errorf("range %v to %v, want %v to %v", got.Since, got.Until, want.Since, want.Until)
		}
		got.Since, got.Until = want.Since, want.Until
		if !reflect.DeepEqual(got, want) {
			t.Errorf("RunTotals =\n%+v\nwant\n%+v", got, want)
		}

		// The default range is the day before now; a limit cuts both lists.
		got, err = a.RunTotals(ctx, store.RunTotalsFilter{Limit: 1})
		must(t, err)
		if got.Runs != 10-1 || len(got.Agents) != 1 || got.Agents[0].AgentID != "planner" || got.Agents[0].Failed != 3 ||
			len(got.Codes) != 1 || got.Codes[0] != (store.CodeRuns{Code: "RATE_LIMITED", Failed: 2}) ||
			!got.Until.Equal(e.clock.Now()) || !got.Since.Equal(e.clock.Now().Add(-24*time.Hour)) {
			t.Errorf("RunTotals of the last day, limit 1 = %+v", got)
		}

		// Capped: the latest three of the range, from the first of them.
		got, err = a.RunTotals(ctx, store.RunTotalsFilter{Since: since, Until: until, AtMost: 3})
		must(t, err)
		r6 := getRun(t, a, "r6")
		if !got.Capped || got.Runs != 3 || !got.Since.Equal(r6.StartedAt) || len(got.Agents) != 2 || len(got.Codes) != 0 {
			t.Errorf("RunTotals of at most 3 = %+v, want r6 to r8, capped, since r6's start %v", got, r6.StartedAt)
		}
		// Both ends are in the range: from r1's start to r8's.
		got, err = a.RunTotals(ctx, store.RunTotalsFilter{Since: getRun(t, a, "r1").StartedAt, Until: getRun(t, a, "r8").StartedAt})
		must(t, err)
		if got.Runs != 8 {
			t.Errorf("RunTotals from r1's start to r8's = %+v, want the 8 runs", got)
		}
		// Exactly as many as it reads is not capped.
		got, err = a.RunTotals(ctx, store.RunTotalsFilter{Since: since, Until: until, AtMost: 8})
		must(t, err)
		if got.Capped || got.Runs != 8 {
			t.Errorf("RunTotals of at most 8 of 8 = %+v, want not capped", got)
		}

		// An empty range: none; one that ends before it starts: refused.
		got, err = a.RunTotals(ctx, store.RunTotalsFilter{Since: until, Until: until.Add(time.Hour)})
		must(t, err)
		if got.Runs != 0 || got.Agents == nil || len(got.Agents) != 0 || got.Codes == nil || len(got.Codes) != 0 {
			t.Errorf("RunTotals of a range without runs = %+v, want none (empty lists)", got)
		}
		if _, err := a.RunTotals(ctx, store.RunTotalsFilter{Since: until, Until: since}); !errors.Is(err, store.ErrRunTotalsRange) {
			t.Errorf("RunTotals of a backward range: %v, want ErrRunTotalsRange", err)
		}
	}},
}
