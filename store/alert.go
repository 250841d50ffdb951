package store

import (
	"context"
	"time"
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
	// a failed post), whatever fired meanwhile.
	FireAlert(ctx context.Context, rule, subject string, every time.Duration, jobID int64) (Firing, error)
}

// Firing is FireAlert's answer.
type Firing struct {
	// Send says the job notifies.
	Send bool
	// Held counts the firings held back since HeldSince, which the
	// notification stands for too.
	Held      int
	HeldSince time.Time
}
