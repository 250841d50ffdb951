package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// holdTests check the escalation a report's write counts as held back by
// its throttle instead of enqueueing its job (NewJob.Throttle): only when
// the throttle holds firings back already, within its interval; counted
// exactly as the job's FireAlert would have counted it.
var holdTests = []test{
	{"ReportHoldsThrottledEscalation", func(t *testing.T, e *env) {
		ctx := t.Context()
		tn := e.s.Tenant("a")
		const every = time.Hour
		n := 0
		// escalate reports one more failure of query q (error e1) with an
		// escalation of throttle th, and returns what was saved and the
		// number of e1's jobs after it.
		escalate := func(th time.Duration) (store.Saved, int) {
			t.Helper()
			n++
			req := reportRequest(fmt.Sprint("d", n), "q", e.clock.Now())
			var saved store.Saved
			for range 100 {
				p, err := tn.PeekReport(ctx, req)
				must(t, err)
				o := reportOccurrence(req.Key, "e1", p.Attempt, req.At)
				o.Jobs = []store.NewJob{{Kind: store.JobRetry, ErrorID: "e1", Payload: json.RawMessage(`{}`)},
					{Kind: store.JobEscalation, ErrorID: "e1", Payload: json.RawMessage(`{"error_id":"e1"}`), Throttle: th}}
				if saved, err = tn.Report(ctx, req, p.StartResult, o); !errors.Is(err, store.ErrReportMoved) {
					must(t, err)
					break
				}
			}
			jobs, _, err := tn.ErrorJobs(ctx, "e1", store.JobFilter{Limit: store.MaxJobLimit})
			must(t, err)
			return saved, len(jobs.Jobs)
		}
		fire := func(job int64) store.Firing {
			t.Helper()
			f, err := tn.FireAlert(ctx, triage.EscalationRule, "e1", every, job, nil)
			must(t, err)
			return f
		}
		// No throttle row yet: enqueued (its run makes the first firing).
		if saved, jobs := escalate(every); saved.Held != 0 || jobs != 2 {
			t.Fatalf("the first escalation: held %d, %d jobs; want its jobs enqueued", saved.Held, jobs)
		}
		if f := fire(1); !f.Send {
			t.Fatalf("the first firing: %+v, want a notification", f)
		}
		// Sent, nothing held yet: enqueued (the first held one enqueues
		// the digest, in FireAlert).
		e.clock.Advance(time.Minute)
		if saved, jobs := escalate(every); saved.Held != 0 || jobs != 4 {
			t.Fatalf("after a notification: held %d, %d jobs; want its jobs enqueued", saved.Held, jobs)
		}
		heldSince := e.clock.Now()
		if f := fire(2); f.Send {
			t.Fatalf("the second firing within the hour notified: %+v", f)
		}
		// Holding one: the next two are counted in the write, their
		// escalations not enqueued (the retries are); one without a
		// throttle is enqueued still.
		for i := range 2 {
			e.clock.Advance(time.Minute)
			if saved, jobs := escalate(every); saved.Held != 1 || jobs != 5+i {
				t.Fatalf("escalation %d while holding: held %d, %d jobs; want it held, its retry enqueued", i, saved.Held, jobs)
			}
		}
		if saved, jobs := escalate(0); saved.Held != 0 || jobs != 8 {
			t.Fatalf("an escalation without a throttle: held %d, %d jobs; want both jobs enqueued", saved.Held, jobs)
		}
		// Another tenant's throttle holds nothing: its error's
		// escalation is enqueued.
		p, err := e.s.Tenant("b").PeekReport(ctx, reportRequest("b1", "q", e.clock.Now()))
		must(t, err)
		o := reportOccurrence("b1", "e1", p.Attempt, e.clock.Now())
		o.Jobs = []store.NewJob{{Kind: store.JobEscalation, ErrorID: "e1", Payload: json.RawMessage(`{}`), Throttle: every}}
		if saved, err := e.s.Tenant("b").Report(ctx, reportRequest("b1", "q", e.clock.Now()), p.StartResult, o); err != nil || saved.Held != 0 {
			t.Fatalf("tenant b's escalation: %+v, %v; want it enqueued", saved, err)
		}
		// Past the interval: not held in the write (its firing notifies),
		// and the notification counts the three held: one by FireAlert,
		// two by the writes, since the first.
		e.clock.Advance(every)
		if saved, _ := escalate(every); saved.Held != 0 {
			t.Fatalf("an escalation past the interval was held in the write")
		}
		if f := fire(3); !f.Send || f.Held != 3 || !f.HeldSince.Equal(heldSince) {
			t.Fatalf("the firing past the interval: %+v; want a notification for 3 held since %v", f, heldSince)
		}
	}},
}
