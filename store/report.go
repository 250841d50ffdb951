package store

import (
	"context"
	"errors"

	"github.com/triage-go/triage"
)

// Reporter is the report path in one write. PeekReport reads what Start
// would find, writing nothing; the handler decides on it; Report then
// claims the delivery, counts the attempt, records the failure and saves
// the occurrence (its record, the delivery's completion and its jobs), in
// one transaction, provided that what the decision was made on still
// holds. Start then SaveOccurrence did the same in two writes, with a
// claim in flight between them.
//
// A report goes:
//
//	p, err := t.PeekReport(ctx, req) // ErrTwoStep: Start, then SaveOccurrence
//	// decide on p.StartResult
//	saved, err := t.Report(ctx, req, p.StartResult, o) // ErrReportMoved: peek and decide again
//
// and a repeat (p.First false) writes nothing when p.Saved.
type Reporter interface {
	// PeekReport reads, writing nothing, what Start would answer for req
	// now: for a first delivery (no claim, or one in flight past
	// ClaimLease), First with the Attempt and Recent Start would count
	// (one more than the attempts counted under req.AttemptKey, one more
	// than the failures of the window, at most triage.MaxKept); for a
	// repeat, Prior, the feedback given before (nil while the first
	// delivery is in flight). ErrTwoStep: req.Key must go Start's way (a
	// claim the store failed to release, or one whose occurrence is gone,
	// which Start releases and takes over).
	PeekReport(ctx context.Context, req triage.StartRequest) (Peeked, error)
	// Report does what Start(req) then SaveOccurrence(o) would, in one
	// transaction, when what seen (a PeekReport's First result) counted
	// still holds: the delivery is still first (not claimed, or its claim
	// in flight past ClaimLease), and the attempts counted under
	// req.AttemptKey are still seen.Attempt-1; the failure is recorded
	// and counted in seen.Recent. Else it writes nothing and returns
	// ErrReportMoved: the caller peeks and decides again (a repeat then
	// finds the first delivery's feedback). o.DeliveryKey is req.Key and
	// o.Attempt seen.Attempt. Its Saved is SaveOccurrence's.
	//
	// Concurrent Reports of one AttemptKey count distinct, consecutive
	// attempts (the second finds the count moved, and decides again);
	// those of one agent and code may count the same Recent (each counts
	// the failures committed when it peeked), as Start does on
	// PostgreSQL.
	Report(ctx context.Context, req triage.StartRequest, seen triage.StartResult, o Occurrence) (Saved, error)
}

// Peeked is what PeekReport found.
type Peeked struct {
	// StartResult is what Start would answer (see Reporter.PeekReport).
	triage.StartResult
	// Saved tells, for a repeat with Prior, that the delivery is saved as
	// an occurrence (its record is committed): the repeat's answer needs
	// no write. A repeat with Prior and not Saved (its feedback was given
	// by Deliveries.Complete alone) is saved with SaveOccurrence, so that
	// its answer means a committed record.
	Saved bool
	// Read is what the rest of the report's handling would otherwise read
	// in reads of its own, read in the peek's snapshot.
	Read PeekedReads
}

// PeekedReads is what a PeekReport read besides the delivery, for the
// rest of the report's handling: each a round trip less on a store over a
// network (PostgreSQL).
type PeekedReads struct {
	// Valid tells that the fields were read (false: the store does not
	// read them; read them as before).
	Valid bool
	// Callback tells whether the request's agent has a callback URL
	// (Agents.Agent's CallbackURL is not empty): triage.Callbacks's
	// answer for it.
	Callback bool
	// AlertRules is the version of the tenant's alert rules: 0 for none
	// ever set, else a number each change makes greater
	// (ChangeAlertRules). Rules read by AlertRules after a peek answered
	// v are v's or newer; a cache of them kept under v is current while
	// the peeks answer v.
	AlertRules int64
	// Cached tells whether the tenant's cache (triage.Cache) holds a
	// result for the request's QueryID. A false spares the handler's
	// use_cache its read: the cache is then answered as of the peek, a
	// moment of the report's handling as its own read would be (a result
	// put after it is the next report's, as one put after that read was).
	// A true is read again (the result itself: Cache.Get), which may find
	// it gone.
	Cached bool
}

// ErrReportMoved is Report's error when what its decision was made on
// moved: the delivery was claimed or saved, or the attempt counted,
// by another report meanwhile. Nothing was written: peek and decide
// again.
var ErrReportMoved = errors.New("store: the report's delivery or attempt changed since it was read")

// ErrTwoStep is PeekReport's error for a delivery that must go Start's
// way: Start, then SaveOccurrence (or Release), as before Reporter.
var ErrTwoStep = errors.New("store: the delivery needs Start's claim")
