package store

import (
	"context"
	"time"

	"github.com/triage-go/triage"
)

// Throttles keeps a tenant's alert throttles (triage.Throttle), one per
// rule and subject, so that every instance sharing the store holds a rule
// to one notification per interval between them.
type Throttles interface {
	// FireAlert records one firing of rule for subject, by the job jobID
	// that would notify, throttled to one notification per every: it
	// returns whether that job notifies, and the firings held back that
	// its notification stands for. A job that won its firing wins it
	// again, with the same Firing, when it runs again (an attempt after
	// a failed post), whatever fired meanwhile. When digest is not nil
	// and the firing is the first held back since the last notification,
	// digest is enqueued in the same transaction, due when the interval
	// ends (its RunAt is set so): the one job that posts what was held
	// if nothing carries it (DigestAlert).
	FireAlert(ctx context.Context, rule, subject string, every time.Duration, jobID int64, digest *NewJob) (Firing, error)
	// DigestAlert is the digest's decision, by the job jobID: when the
	// throttle holds firings back and its interval has passed
	// (triage.Throttle.DigestDue), the job notifies for them (Send, with
	// Held and HeldSince) and the throttle restarts from now. When it
	// holds firings whose interval has not passed yet, Firing.DigestAt
	// says when it will. Like FireAlert, a job that won wins again.
	DigestAlert(ctx context.Context, rule, subject string, every time.Duration, jobID int64) (Firing, error)
}

// Firing is FireAlert's answer.
type Firing struct {
	// Send says the job notifies.
	Send bool
	// Held counts the firings held back since HeldSince, which the
	// notification stands for too.
	Held      int
	HeldSince time.Time
	// DigestAt, from DigestAlert, is when the firings held back are due
	// to go out, when they are not yet.
	DigestAt time.Time
}

// AlertRules keeps a tenant's alert rules (triage.AlertRule) and the
// targets they notify (triage.AlertTarget), the targets' credentials
// included: the API's writes, read as reports are saved.
type AlertRules interface {
	// AlertRules returns the tenant's rules and targets, in the order
	// they were written (none: nil, nil).
	AlertRules(ctx context.Context) ([]triage.AlertRule, []triage.AlertTarget, error)
	// ChangeAlertRules changes them in one transaction: change gets the
	// current ones and returns the new ones, or an error that
	// ChangeAlertRules returns as it is, changing nothing. Concurrent
	// changes run one after the other, each seeing the one before.
	ChangeAlertRules(ctx context.Context, change func([]triage.AlertRule, []triage.AlertTarget) ([]triage.AlertRule, []triage.AlertTarget, error)) error
}

// RunCounts counts a tenant's agent runs, for the failure-rate alert
// rules.
type RunCounts interface {
	// CountRuns counts the ended runs of agent started at or after since,
	// and how many of them failed: of the latest atMost of them (it
	// stops there, so that the answer costs at most atMost index entries
	// and rows, whatever the agent's traffic).
	CountRuns(ctx context.Context, agent string, since time.Time, atMost int) (failed, total int, err error)
}
