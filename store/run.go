package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/triage-go/triage"
)

// The outcomes of a run.
const (
	// RunRunning is a run started and not finished: its stream is going
	// on, or the instance running it stopped before it could record the
	// outcome (the record stays so until it expires).
	RunRunning = "running"
	// RunFinished is a run that ended with RUN_FINISHED.
	RunFinished = "finished"
	// RunFailed is a run that ended with RUN_ERROR: Fault is its fault.
	RunFailed = "failed"
	// RunDisconnected is a run stopped because its stream failed: the
	// client went away, or stopped reading.
	RunDisconnected = "disconnected"
	// RunShutdown is a run the service stopped because it was shutting
	// down: its client was told so (a RUN_ERROR SERVICE_UNAVAILABLE, with
	// a retry delay), and may run it again.
	RunShutdown = "shutdown"
)

// RunEnd is how a run ended, as FinishRun records it.
type RunEnd struct {
	// Outcome is RunFinished, RunFailed, RunDisconnected or RunShutdown.
	Outcome string
	// Fault is required for RunFailed, and refused for the others: a JSON
	// object of at most MaxRunFaultBytes.
	Fault json.RawMessage
	// AnswerBytes is the answer text's length (0 or more).
	AnswerBytes int64
	// Jobs are enqueued in the transaction that records the end, and
	// only when it does (not for a run that ended already): a failed
	// run's recording as an occurrence (JobRecordFailure), durable as
	// soon as its end is.
	Jobs []NewJob
	// Events outline the run's stream, oldest first: at most
	// MaxRunEvents, each with a Type, a Count of 1 or more, and ids and
	// names of at most MaxRunIDBytes of UTF-8 text without NULs.
	// EventsOmitted (0 or more) is how many of the stream's events were
	// left out between Events' first half and its second. They are
	// written with the end, in the same statement, and only GetRun reads
	// them back (Run.Events, Run.EventsOmitted).
	Events        []RunEvent
	EventsOmitted int
}

// The bounds of a run record.
const (
	// MaxRunIDBytes bounds a run's run id, thread id and agent id, each
	// (AG-UI's ids, as wire/agui parses them, are at most 128 bytes).
	MaxRunIDBytes = 256
	// MaxRunFaultBytes bounds a failed run's fault document (16 KiB):
	// the caller drops what does not fit (the details, say) before.
	MaxRunFaultBytes = 16 << 10
	// MaxRunEvents bounds a run's outline of events (RunEnd.Events): a
	// longer stream keeps its first and last MaxRunEvents/2.
	MaxRunEvents = 200
)

// The errors of the run records. Each method wraps them with what it was
// doing; test them with errors.Is.
var (
	// ErrRunExists is StartRun's answer when the tenant has a run with
	// that id already, running or ended (until it expires).
	ErrRunExists = errors.New("store: run id already used")
	// ErrRunEnded is FinishRun's answer for a run that ended already: its
	// first outcome stays.
	ErrRunEnded = errors.New("store: run already ended")
	// ErrNoRun is FinishRun's answer when the tenant has no run with that
	// id (never started, expired, or another tenant's).
	ErrNoRun = errors.New("store: no such run")
	// ErrInvalidRun is wrapped for a run or an end the store refuses: an
	// empty run id; an id that is not UTF-8 text without NULs (which
	// PostgreSQL's TEXT cannot hold) or is over MaxRunIDBytes; an unknown
	// outcome; a fault that is not a JSON object, is over
	// MaxRunFaultBytes, or comes with an outcome other than RunFailed (or
	// is missing for RunFailed); a negative AnswerBytes; more than
	// MaxRunEvents events, one without a type or with a Count under 1, an
	// id or name over MaxRunIDBytes or not text, a negative
	// EventsOmitted.
	ErrInvalidRun = errors.New("store: invalid run record")
)

// Runs keeps one tenant's run records: every Tenant has them.
type Runs interface {
	// StartRun records that run r.RunID of agent r.AgentID started now,
	// running (r's Outcome, StartedAt, FinishedAt, Fault and AnswerBytes
	// are ignored), and returns the record. It returns ErrRunExists when
	// the tenant has a run with that id, whatever its outcome, and changes
	// nothing; of concurrent starts of one id, one succeeds.
	StartRun(ctx context.Context, r Run) (Run, error)
	// StartRunEarly is StartRun in two steps, for a caller with work to
	// do while the start commits (a stream's first event): it returns,
	// with commit, once the start is decided, and commit returns once it
	// is committed (durable), with nil, or with StartRun's error. On
	// SQLite, where a commit is an fsync in the writer's batch,
	// StartRunEarly returns when the insert ran and its batch is about to
	// commit, and commit waits for that commit: a start of the same id
	// meanwhile, here or in another process, waits for it and gets
	// ErrRunExists. If the commit fails, the start is undone and commit
	// returns the error: the caller must not run the run then. Elsewhere
	// (PostgreSQL's one statement) StartRunEarly returns once committed
	// and commit returns nil. Errors found before the commit
	// (ErrRunExists, ErrInvalidRun, a failed statement) are StartRunEarly's,
	// with a nil commit; ErrRunExists only once the transaction that found
	// the id taken committed. The caller must call commit.
	StartRunEarly(ctx context.Context, r Run) (Run, func() error, error)
	// FinishRun records how a running run ended, finished now, and
	// returns the record. A run ends once: for a run that ended already
	// it returns ErrRunEnded and changes nothing; ErrNoRun when the
	// tenant has no such run.
	FinishRun(ctx context.Context, runID string, end RunEnd) (Run, error)
	// LinkRun sets the ErrorID of a run that ended: the record its
	// failure became an occurrence of. Linking it again overwrites it
	// (a recording retried links the same record). A run that ended is
	// among RunsEndedAfter's again (its end position moves on), now with
	// its ErrorID, so that a reader of ended runs is told of the link.
	// It returns ErrNoRun
	// when the tenant has no such run (expired meanwhile, or never
	// started), and ErrInvalidRun for an empty error id or one the
	// store cannot hold.
	LinkRun(ctx context.Context, runID, errorID string) error
	// GetRun returns a run's record, and false when the tenant has none
	// with that id (never started, expired, or another tenant's).
	GetRun(ctx context.Context, runID string) (Run, bool, error)
	// RunsEndedAfter returns the tenant's runs whose end FinishRun
	// recorded after the position after, in the order the ends were
	// committed, at most limit: what an event stream that read up to
	// after has not seen, whichever instance ended them. Positions are
	// read as Feed.FeedbackAfter reads the occurrences' (on SQLite a
	// number the ends take in turn; on PostgreSQL the ID of the
	// transaction that recorded the end, read once every older
	// transaction has ended), so a reader that goes on from the last
	// position it read misses none.
	RunsEndedAfter(ctx context.Context, after int64, limit int) ([]EndedRun, error)
	// ListRuns returns a page of the tenant's runs that f selects, the
	// latest started first (of runs started at the same instant, the
	// greatest run id first). It returns ErrBadCursor for a cursor it did
	// not make.
	ListRuns(ctx context.Context, f RunFilter) (RunPage, error)
	// RunTotals counts the tenant's runs started in f's range by agent
	// and outcome, and the failed ones by code: at most f.AtMost runs,
	// the latest started (RunTotals.Capped says the range held more), so
	// that its cost is bounded whatever the range holds. It returns
	// ErrRunTotalsRange for a range that is empty.
	RunTotals(ctx context.Context, f RunTotalsFilter) (RunTotals, error)
	// LatestRunEnd returns the position a reader of ended runs starting
	// now goes on from: the ends of every tenant at or before it are
	// committed, and those committed later come after it (on PostgreSQL
	// a reader may also get ends committed just before it began).
	LatestRunEnd(ctx context.Context) (int64, error)
}

// RunFilter selects runs: each field set narrows the list.
type RunFilter struct {
	AgentID string
	// Outcome is one of the outcomes (RunRunning, RunFinished, …).
	Outcome string
	// Code keeps the failed runs whose fault has this code.
	Code string
	// Since keeps the runs started at or after it.
	Since time.Time
	// Limit bounds the page: 1 to MaxLimit, default DefaultLimit.
	Limit int
	// Cursor continues from a RunPage's Next.
	Cursor string
}

// RunTotals are the root package's: store keeps its name for them.
type (
	RunTotals = triage.RunTotals
	AgentRuns = triage.AgentRuns
	CodeRuns  = triage.CodeRuns
)

// RunTotalsFilter is the range of a RunTotals.
type RunTotalsFilter struct {
	// Since and Until bound the range: the runs started at or after
	// Since and at or before Until. Defaults: Until now, Since a day
	// before Until.
	Since, Until time.Time
	// Limit bounds the agents and the codes, each: 1 to MaxCountSeries,
	// default DefaultCountSeries.
	Limit int
	// AtMost bounds the runs read: 1 to MaxRunsTotalled, default (and
	// above it) MaxRunsTotalled.
	AtMost int
}

// MaxRunsTotalled bounds the runs a RunTotals reads: the latest started of
// its range.
const MaxRunsTotalled = 20_000

// ErrRunTotalsRange is the error of a RunTotalsFilter whose Until is not
// after its Since.
var ErrRunTotalsRange = errors.New("store: a range of runs ends after it starts")

// Range returns f's range for now: its defaults applied.
func (f RunTotalsFilter) Range(now time.Time) (since, until time.Time, err error) {
	since, until = f.Since, f.Until
	if until.IsZero() {
		until = now
	}
	if since.IsZero() {
		since = until.Add(-24 * time.Hour)
	}
	if !since.Before(until) {
		return time.Time{}, time.Time{}, ErrRunTotalsRange
	}
	return since, until, nil
}

// EndedRun is a run's record at the position of its end (see
// Runs.RunsEndedAfter).
type EndedRun struct {
	Pos int64
	Run Run
}
