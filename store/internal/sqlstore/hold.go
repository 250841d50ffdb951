package sqlstore

import (
	"context"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// An escalation held in the report's write (issue 28, a repeat's cost).
// A query that keeps failing escalates at every report past its retries,
// and each escalation was a job: enqueued with the occurrence, fetched,
// run (FireAlert, a write of its own) and completed by River, three
// writes more for a report whose firing the throttle holds back as a
// rule (one notification per error and throttle interval). When the
// throttle holds firings back already (a notification sent less than the
// interval ago, and firings held since, so that the digest is enqueued),
// what the job would do is count one more: the report's write counts it
// (holdSQL) and enqueues no job. The first firing of an interval, and the
// first held (which enqueues the digest), still go through the job and
// FireAlert, as before.

// holdSQL counts one more firing held back by the throttle of rule $2 for
// subject $3, when it holds some already within its interval: sent at
// $4 or later (now less the interval) and not never. triage.Throttle.Fire
// moves it so for a firing at now (HeldSince stays: held is not 0).
const holdSQL = `UPDATE alert_throttles SET held = held + 1
	WHERE tenant = $1 AND rule = $2 AND subject = $3 AND held > 0 AND sent_at <> 0 AND sent_at > $4`

// heldEscalation is the position (0-based) in jobs of the escalation a
// report's write may hold (one with a Throttle), or -1: the first such.
func heldEscalation(jobs []store.NewJob) int {
	for i, j := range jobs {
		if j.Kind == store.JobEscalation && j.Throttle > 0 && j.ErrorID != "" {
			return i
		}
	}
	return -1
}

// holdEscalation counts, in q's transaction, the escalation of jobs the
// throttle holds back (heldEscalation) and returns the jobs left to
// enqueue and how many it held (0 or 1).
func (t *tenant) holdEscalation(ctx context.Context, q Querier, jobs []store.NewJob) ([]store.NewJob, int, error) {
	i := heldEscalation(jobs)
	if i < 0 {
		return jobs, 0, nil
	}
	j := jobs[i]
	n, err := q.Exec(ctx, holdSQL, t.id, triage.EscalationRule, j.ErrorID, nanos(t.s.now().Add(-j.Throttle)))
	if err != nil || n == 0 {
		return jobs, 0, err
	}
	left := make([]store.NewJob, 0, len(jobs)-1)
	return append(append(left, jobs[:i]...), jobs[i+1:]...), 1, nil
}
