package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/triage-go/triage"
)

// Store is the service's durable storage. Implementations are safe for
// concurrent use, and apply their embedded migrations when opened.
type Store interface {
	// Tenant is the view of one tenant's data.
	Tenant(id string) Tenant
	// Jobs is the durable job queue, shared by every tenant.
	Jobs() Jobs
	// Ping reports whether the storage is reachable.
	Ping(ctx context.Context) error
	// Ready reports whether a write can be committed now (readiness):
	// nil, or a *NotReadyError saying why not. It answers from the
	// outcome of the store's latest writes: after a write failed for a
	// reason of the storage (a full disk, a read-only database, an I/O
	// error) it is not ready until a write commits again. When no write
	// committed lately (ReadyFresh), or the latest failed, or none was
	// proved since the store opened, it probes with a write of its own
	// (a heartbeat row, updated in place), at most once per
	// ReadyProbeEvery.
	Ready(ctx context.Context) error
	// Expire deletes the bookkeeping, the graph checkpoints and the run
	// records older than r keeps, for every tenant, and, when r.Records
	// is set, the error records older than that with their occurrences
	// and jobs. It returns how many rows it deleted (a job's attempts go
	// with it, uncounted).
	Expire(ctx context.Context, r Retention) (int64, error)
	// Close releases the storage.
	Close() error
}

// ClaimLease is how long a delivery claim or an idempotency key in flight
// holds: past it, the handling is taken for lost (the instance that had it
// crashed) and the next delivery handles the report anew.
const ClaimLease = time.Minute

// Tenant is one tenant's data. Every method reads and writes that tenant's
// rows only. It is the composition of small interfaces, one idea each: a
// store implements it whole, and each user of a tenant's data takes the
// smallest of them it needs (Records for the record reads, Feed for an
// event stream, Agents for the callbacks, …).
type Tenant interface {
	// The handler's state: attempts, history and deliveries, with Start
	// to claim, count and record at once. Claim and Start honour
	// ClaimLease: a claim without feedback older than that is taken over
	// (first = true).
	triage.State
	Knowledge
	Agents
	OccurrenceSaver
	Reporter
	Records
	Feed
	Requests
	Enqueuer
	Checkpoints
	Runs
	MCPSessions
	Throttles
	Workflows
	AlertRules
	RunCounts
	Trends
}

// Knowledge is what the handler knows of a tenant's data sources: the
// schema inventory (triage.Synonyms, for map_synonym) and the queries'
// last good results (triage.Cache, for use_cache), with the writes that
// keep them (the admin API's).
type Knowledge interface {
	triage.Synonyms
	triage.Cache
	// PutSchema replaces the schema inventory of source (fields, and the
	// synonyms of missing fields), for map_synonym.
	PutSchema(ctx context.Context, source string, info triage.SchemaInfo) error
	// PutCache stores a query's last good result, for use_cache.
	PutCache(ctx context.Context, queryID string, r triage.CachedResult) error
}

// Agents are a tenant's pipeline agents, with the callback URLs their
// queries' retries are posted to.
type Agents interface {
	// PutAgent registers an agent (its retry callback URL).
	PutAgent(ctx context.Context, a Agent) error
	// Agent returns a registered agent.
	Agent(ctx context.Context, id string) (Agent, bool, error)
}

// OccurrenceSaver commits the handling of a report: the write at the end
// of the report path.
type OccurrenceSaver interface {
	// SaveOccurrence records one handled delivery of a report and updates
	// its error's record; completes the delivery (DeliveryKey's feedback
	// is then Feedback, as Deliveries.Complete would leave it); and
	// enqueues the occurrence's Jobs: all in one transaction. It returns
	// the occurrence's ID. It is idempotent on DeliveryKey: saving the
	// same delivery again adds no occurrence and returns 0, and changes
	// nothing, but for a delivery handled anew once its claim expired (its
	// claim has no feedback): it is completed with o.Feedback and o.Jobs
	// are enqueued, since the client was promised them.
	SaveOccurrence(ctx context.Context, o Occurrence) (Saved, error)
}

// Saved is what SaveOccurrence did.
type Saved struct {
	// ID is the occurrence's ID; 0 when the delivery was saved already
	// (nothing was added).
	ID int64
	// NewRecord tells that the occurrence created its error's record:
	// the error's first occurrence.
	NewRecord bool
	// Workflow is the record's workflow after the occurrence (zero when
	// nothing was added).
	Workflow triage.Workflow
	// Transition is the service's change of the record's status that the
	// occurrence made (a regression, an ignore that lapsed), kept in the
	// record's history; nil when the status stayed.
	Transition *triage.Transition
	// WorkflowErr, when not nil, tells that the occurrence is saved but
	// its record's workflow step failed (on PostgreSQL, where the step of
	// a resolved or ignored record is a second transaction after the
	// save's one statement): the record's next occurrence takes it. The
	// save itself succeeded: log it, do not retry.
	WorkflowErr error
	// Held is how many of the occurrence's escalations Report counted
	// into their throttle as held back, instead of enqueueing their jobs
	// (NewJob.Throttle).
	Held int
}

// Regressed tells that the occurrence regressed its resolved record:
// what an alert rule on regressions fires on.
func (s Saved) Regressed() bool {
	return s.Transition != nil && s.Transition.To.Status == triage.StatusRegressed
}

// Workflows change a tenant's records' workflows (triage.Workflow.Apply,
// in the transaction that writes the change, with the record's row
// locked) and read their histories.
type Workflows interface {
	// ChangeRecord applies c to an error's record, by by (the API key's
	// name, or "operator"), and keeps the transition in its history. It
	// returns the record's summary after the change and the transition
	// (nil when c changed nothing), false when the tenant has no such
	// error, and the *fault.Error of an invalid change (422, or 409 for
	// a next release when none was reported) as Apply returns it.
	ChangeRecord(ctx context.Context, errorID string, c triage.Change, by string) (Changed, bool, error)
	// ChangeRecords applies c to every record f selects (Filter's fields
	// but Limit and Cursor, with ErrorIDs and Status), in batches of a
	// write each, and returns the IDs of the records it changed (the
	// batches done, with the error of one that failed). An invalid change
	// is refused before any record is changed, as ChangeRecord refuses it.
	ChangeRecords(ctx context.Context, f Filter, c triage.Change, by string) ([]string, error)
	// RecordHistory returns a page of an error's transitions, the latest
	// first; false when the tenant has no such error, and ErrBadCursor
	// for a cursor it did not make.
	RecordHistory(ctx context.Context, errorID string, f HistoryFilter) (triage.TransitionPage, bool, error)
}

// JobFilter selects a page of an error's jobs.
type JobFilter struct {
	// Limit bounds the page: 1 to MaxJobLimit, default RecordJobs.
	Limit int
	// Cursor continues from a JobPage's Next (or a Record's JobsNext).
	Cursor string
}

// MaxJobLimit bounds JobFilter.Limit.
const MaxJobLimit = 100

// Changed is what ChangeRecord did: the record after the change, and the
// transition (nil when the change changed nothing).
type Changed struct {
	Record     RecordSummary
	Transition *triage.Transition
}

// HistoryFilter selects a page of a record's history.
type HistoryFilter struct {
	// Limit bounds the page: 1 to MaxLimit, default DefaultLimit.
	Limit int
	// Cursor continues from a TransitionPage's Next.
	Cursor string
}

// Records reads a tenant's error records and their occurrences, as
// OccurrenceSaver wrote them.
type Records interface {
	// ErrorRecord returns an error's record: its latest report and
	// feedback, the first page of its occurrences (as Occurrences returns
	// it for OccurrenceFilter{}, but that the record's own report and
	// feedback count in the page's PageBytes) and its latest RecordJobs
	// jobs, all read at one instant.
	ErrorRecord(ctx context.Context, errorID string) (Record, bool, error)
	// Occurrences returns a page of an error's occurrences, the latest
	// received first: at most f's Limit, and no more than fit in f's
	// MaxBytes of documents, but always one (see OccurrenceFilter).
	// It returns false when the tenant has no such error, and
	// ErrBadCursor for a cursor it did not make.
	Occurrences(ctx context.Context, errorID string, f OccurrenceFilter) (OccurrencePage, bool, error)
	// ErrorJobs returns a page of an error's jobs, the latest (the
	// highest ID) first, with their attempts: the record's latest
	// RecordJobs, and the older ones its JobsNext continues with. It
	// returns false when the tenant has no such error, and ErrBadCursor
	// for a cursor it did not make.
	ErrorJobs(ctx context.Context, errorID string, f JobFilter) (JobPage, bool, error)
	// ErrorRecords lists the summaries of records in f's Sort (the most
	// recently seen first by default), with the Total f selects. It reads
	// no document: its cost does not grow with the size of the reports.
	// It returns ErrBadCursor for a cursor it did not make (or made for
	// another sort or window), and ErrBadSearch for a Search ParseSearch
	// refuses.
	ErrorRecords(ctx context.Context, f Filter) (Page, error)
	// CountOccurrences counts an error's occurrences received at or after
	// since, up to atMost (it stops there: the answer "at least atMost"
	// costs atMost index entries, whatever the error's total). It is
	// what an ignore condition or an alert rule asks: "N times within a
	// window?".
	CountOccurrences(ctx context.Context, errorID string, since time.Time, atMost int) (int, error)
}

// Feed is the feedback of a tenant's occurrences in the order it was
// committed, at its stream positions: what the event streams send.
type Feed interface {
	// FeedbackAfter returns the feedback of the occurrences after the
	// stream position after, in the order of their positions, at most
	// limit of them: what a client that saw the event at after missed.
	// Positions grow in the order occurrences are committed, and an
	// occurrence is read only once every one before it is: a reader that
	// goes on from the last position it read misses none. On SQLite the
	// position is the occurrence's ID; on PostgreSQL the ID of the
	// transaction that saved it, read once every older transaction has
	// ended.
	FeedbackAfter(ctx context.Context, after int64, limit int) ([]SavedFeedback, error)
	// LatestOccurrence returns the stream position that a reader starting
	// now goes on from: the occurrences of every tenant at or before it
	// are committed, and those committed later come after it. A new
	// stream may begin with occurrences committed just before it (on
	// PostgreSQL, those of transactions that ended while an older one
	// ran).
	LatestOccurrence(ctx context.Context) (int64, error)
	// StreamStart returns where a stream that begins now starts: the
	// position LatestOccurrence returns, and the positions after it of
	// the tenant's occurrences committed already (the oldest first, at
	// most limit), which FeedbackAfter returns later though they were
	// saved before the stream began: on PostgreSQL, those of
	// transactions that ended while an older one still ran; on SQLite,
	// none. Both are read at one instant.
	StreamStart(ctx context.Context, limit int) (pos int64, before []int64, err error)
}

// Requests are a tenant's requests under an Idempotency-Key: each key's
// payload hash and, once it completed, its response.
type Requests interface {
	// BeginRequest starts the request of an Idempotency-Key. It returns
	// IdemNew when the key is new (or its earlier request was lost past
	// ClaimLease), IdemInFlight when a request with the key is being
	// handled, IdemDone with the stored response when one completed with
	// the same payload hash, and IdemMismatch when the key was used with
	// another payload.
	BeginRequest(ctx context.Context, key, payloadHash string) (IdemState, StoredResponse, error)
	// FinishRequest stores the response of a begun key.
	FinishRequest(ctx context.Context, key string, resp StoredResponse) error
	// AbandonRequest forgets a begun key whose request failed, so that
	// the client may retry it.
	AbandonRequest(ctx context.Context, key string) error
}

// Enqueuer adds a tenant's jobs to the durable queue (Jobs) on their
// own, outside an occurrence.
type Enqueuer interface {
	// Enqueue adds a durable job for this tenant; it runs at or after
	// RunAt. It returns the job's ID.
	Enqueue(ctx context.Context, j NewJob) (int64, error)
}

// The records of the API are the root package's: store keeps its names
// for them.
type (
	Occurrence     = triage.Occurrence
	RecordSummary  = triage.RecordSummary
	Record         = triage.Record
	OccurrencePage = triage.OccurrencePage
	Page           = triage.Page
	JobPage        = triage.JobPage
	NewJob         = triage.NewJob
	Job            = triage.JobRecord
	JobAttempt     = triage.JobAttempt
	Run            = triage.Run
	RunEvent       = triage.RunEvent
	RunPage        = triage.RunPage
)

// Agent is a pipeline agent known to the service.
type Agent struct {
	ID string `json:"agent_id"`
	// CallbackURL receives the retries the handler schedules for the
	// agent's queries (a POST of the retry job's JSON).
	CallbackURL string    `json:"callback_url"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// SavedFeedback is the feedback of an occurrence, at its stream position.
type SavedFeedback struct {
	// ID is the occurrence's position in the event streams (see
	// Feed.FeedbackAfter), the event's id.
	ID       int64
	Feedback json.RawMessage
}

// OccurrenceFilter selects a page of an error's occurrences.
type OccurrenceFilter struct {
	// Limit bounds the page: 1 to MaxOccurrenceLimit, default
	// DefaultOccurrenceLimit.
	Limit int
	// MaxBytes bounds the documents of the page (the sum of the lengths
	// of the occurrences' reports, feedback and actions): the page ends
	// before the occurrence that would pass it, but for the first, which
	// is in the page whatever its size. Default PageBytes.
	MaxBytes int64
	// Cursor continues from an OccurrencePage's Next (or a Record's
	// OccurrencesNext).
	Cursor string
}

// The bounds of a record and of its pages.
const (
	DefaultOccurrenceLimit = 20
	MaxOccurrenceLimit     = 100
	// PageBytes bounds the documents of a page of occurrences, and of a
	// record with its first page (its own report and feedback count):
	// 4 MiB, four times the service's default largest report.
	PageBytes = 4 << 20
	// RecordJobs bounds the jobs a record carries: the latest ones.
	RecordJobs = 20
)

// Filter selects records. Zero fields select everything.
type Filter struct {
	QueryID, AgentID, ErrorType, Severity string
	// Since keeps records last seen at or after it.
	Since time.Time
	// Environment keeps the records whose latest occurrence to name an
	// environment named this one (RecordSummary.LastEnvironment).
	Environment string
	// Release keeps the records whose first or latest occurrence to name
	// a release named this one (RecordSummary.FirstRelease, LastRelease):
	// a record keeps those two, not every release in between.
	Release string
	// Status keeps the records of this status as it reads now
	// (triage.Workflow.StatusAt: an ignored record whose time passed is
	// unresolved).
	Status triage.Status
	// ErrorIDs, when not empty, keeps these records only.
	ErrorIDs []string
	// SessionID keeps the records with an occurrence whose report names
	// this session (data.context.session_id: an MCP session's failed
	// calls, a framework adapter's session), among MaxSessionScan of the
	// tenant's occurrences: for a session the tenant has a record of
	// (MCPSessions), the first received from its opening to its end
	// (SessionRecordsEarly, SessionRecordsLate); for another id, the
	// tenant's latest.
	SessionID string
	// Search keeps the records whose title, code, agent or query have a
	// word beginning with each of its terms (ParseSearch).
	Search string
	// Sort is SortLastSeen (default), SortFirstSeen or SortCount.
	Sort string
	// Window, with SortCount, counts the occurrences of the hours that
	// begin within it (the current one and those before it, whole hours,
	// up to MaxWindow), from the hourly counts (Trends): only the records
	// seen in it are listed.
	Window time.Duration
	// Limit bounds the page: 1 to MaxLimit, default DefaultLimit.
	Limit int
	// Cursor continues from a Page's Next.
	Cursor string
}

// Page sizes.
const (
	DefaultLimit = 50
	MaxLimit     = 500
	// TotalCap bounds the count of a Page's Total: past it, the count
	// stops and the page says TotalCapped.
	TotalCap = 100_000
)

// ErrBadCursor is returned by ErrorRecords and Occurrences for a cursor
// they did not make.
var ErrBadCursor = errors.New("store: invalid cursor")

// ErrNewerSchema is the error of opening a database that a later build of
// Triage migrated: what that build writes, this one's code may misread
// (roll back by restoring a backup taken before the upgrade).
var ErrNewerSchema = errors.New("store: the database's schema is newer than this build of Triage: run that build or a later one")

// IdemState is where an Idempotency-Key stands.
type IdemState int

const (
	IdemNew IdemState = iota
	IdemInFlight
	IdemDone
	IdemMismatch
)

// StoredResponse is a response kept for an Idempotency-Key.
type StoredResponse struct {
	Status      int    `json:"status"`
	ContentType string `json:"content_type"`
	Body        []byte `json:"body"`
}

// Job kinds.
const (
	// JobRetry posts a retry to the agent's callback URL.
	JobRetry = "retry"
	// JobEscalation posts an escalation to the ops webhook.
	JobEscalation = "escalation"
	// JobAlert posts an alert rule's notification (or the digest of what
	// its throttle held back) to one of the tenant's targets.
	JobAlert = "alert"
	// JobRecordFailure submits the report of a door's own failure (a
	// failed AG-UI run, a failed MCP tool call) through the report path,
	// and links the run to the record it became an occurrence of.
	JobRecordFailure = "record_failure"
)

// DefaultMaxAttempts bounds a job's attempts when NewJob does not.
const DefaultMaxAttempts = 5

// Job states: River's (rivertype.JobState), which the stores run the
// jobs on.
const (
	JobAvailable = "available" // waiting for a worker from RunAt (a retry due soon waits so too)
	JobScheduled = "scheduled" // waiting for RunAt
	JobPending   = "pending"
	JobRunning   = "running"   // a worker has it
	JobRetryable = "retryable" // an attempt failed; it runs again at RunAt
	JobCompleted = "completed" // an attempt succeeded
	JobCancelled = "cancelled" // an attempt failed for good (ErrPermanent)
	JobDiscarded = "discarded" // its attempts are exhausted
)

// JobFinished tells whether a job in state will not run again.
func JobFinished(state string) bool {
	return state == JobCompleted || state == JobCancelled || state == JobDiscarded
}

// ErrPermanent, in a JobWorker's error chain, tells that no attempt can
// succeed: the job is cancelled and runs no more.
var ErrPermanent = errors.New("permanent")

// DeferError, returned by a JobWorker (Defer), puts a job off: it runs
// again After from now, and the attempt is not counted (River's snooze).
type DeferError struct{ After time.Duration }

func (e *DeferError) Error() string { return fmt.Sprintf("put off for %v", e.After) }

// Defer returns the error that puts a job off for d without counting an
// attempt: for a worker that will not make the attempt now (its tenant's
// share of the workers is taken), rather than holding a worker waiting.
func Defer(d time.Duration) error { return &DeferError{After: max(d, 0)} }

// JobWorker makes one attempt at a job. A nil error completes the job. An
// error wrapping ErrPermanent cancels it; a *DeferError (Defer) puts it
// off, the attempt not counted; any other error fails the attempt, and
// the job runs again after the backoff (never sooner than the error's
// fault.From(err).RetryAfter), until its MaxAttempts are spent and it is
// discarded. The error's message is recorded with the
// attempt, as the job's reader sees it: it must hold no secret.
type JobWorker func(ctx context.Context, j Job) error

// WorkOptions tune Jobs.Work. Zero fields mean the defaults.
type WorkOptions struct {
	// Workers is how many jobs run at once. Default 8.
	Workers int
	// Poll is how often the queue is looked at for due jobs. Default 1s.
	Poll time.Duration
	// Timeout bounds an attempt: its ctx ends then. Default 1 minute.
	Timeout time.Duration
	// RescueAfter is how long a job may be running before it is taken
	// for lost (its instance died) and runs again: at least once. It
	// must be longer than Timeout. Default 1 hour.
	RescueAfter time.Duration
	// BackoffBase and BackoffMax shape the wait after a failed attempt:
	// BackoffBase doubled for each earlier attempt, at most BackoffMax.
	// Defaults 5s and 10 minutes.
	BackoffBase, BackoffMax time.Duration
	// StopTimeout is how long the attempts running when ctx ends may go
	// on before their ctx is cancelled. Default 10s.
	StopTimeout time.Duration
	// Logger receives the queue's own logs. Default: none.
	Logger *slog.Logger
}

// The WorkOptions defaults.
const (
	DefaultJobWorkers     = 8
	DefaultJobPoll        = time.Second
	DefaultJobTimeout     = time.Minute
	DefaultJobRescueAfter = time.Hour
	DefaultJobBackoffBase = 5 * time.Second
	DefaultJobBackoffMax  = 10 * time.Minute
	DefaultJobStopTimeout = 10 * time.Second
)

// WithDefaults returns o with its zero fields set to the defaults.
func (o WorkOptions) WithDefaults() WorkOptions {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if o.Workers <= 0 {
		o.Workers = DefaultJobWorkers
	}
	set(&o.Poll, DefaultJobPoll)
	set(&o.Timeout, DefaultJobTimeout)
	set(&o.RescueAfter, DefaultJobRescueAfter)
	set(&o.BackoffBase, DefaultJobBackoffBase)
	set(&o.BackoffMax, DefaultJobBackoffMax)
	set(&o.StopTimeout, DefaultJobStopTimeout)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Backoff is the wait before the attempt after attempt: BackoffBase
// doubled attempt-1 times, at most BackoffMax, at least retryAfter.
func (o WorkOptions) Backoff(attempt int, retryAfter time.Duration) time.Duration {
	d := o.BackoffBase
	for i := 1; i < attempt && d < o.BackoffMax; i++ {
		d *= 2
	}
	return max(min(d, o.BackoffMax), retryAfter)
}

// Jobs is the durable job queue, on River (github.com/riverqueue/river):
// jobs enqueued with an occurrence commit with it, and run at least once
// (a job whose instance died while it ran is rescued after
// WorkOptions.RescueAfter and runs again). A job repeated in one
// Occurrence.Jobs goes in once; jobs enqueued twice through
// Enqueuer.Enqueue with the same kind, error and payload run once (River's
// unique jobs).
type Jobs interface {
	// Work runs due jobs with w until ctx ends, then waits for the
	// attempts running (see WorkOptions.StopTimeout). Any number of
	// instances may Work one database: each job runs on one of them.
	Work(ctx context.Context, w JobWorker, o WorkOptions) error
}

// Config configures a store implementation: each store's Open takes one.
type Config struct {
	// Now tells the time (claims, leases, jobs, received_at). Defaults to
	// time.Now.
	Now func() time.Time
	// TenantConns bounds the transactions one tenant has open at once
	// (PostgreSQL: reads and writes, which share the pool; SQLite: reads,
	// its writes queuing for one writer): past it, the tenant's next
	// waits for one of its own to end before it takes a connection, so
	// that one tenant's many large reads cannot hold every connection
	// while the other tenants (and the job queue, and the readiness
	// probe) wait. Default: a quarter of the connections, at least one (8
	// of PostgreSQL's 32; 1 of SQLite's 2 readers on two cores). Negative:
	// no bound.
	TenantConns int
}

// Clock returns o.Now, or time.Now.
func (o Config) Clock() func() time.Time {
	if o.Now != nil {
		return o.Now
	}
	return time.Now
}

// Retention says how long the service's bookkeeping is kept. Zero fields
// mean the defaults.
type Retention struct {
	// Deliveries: a delivery's claim and feedback, by when it was
	// claimed. A repeat of a report later than this is handled as a new
	// report. Default 7 days.
	Deliveries time.Duration
	// Idempotency: an Idempotency-Key and its stored response, by when its
	// request began. Default 24 hours.
	Idempotency time.Duration
	// Attempts: an attempt count not incremented for this long starts
	// again from 1. Default 7 days.
	Attempts time.Duration
	// Records: an error record last seen longer ago than this is deleted
	// with its occurrences, its jobs and their attempts, unless a job of
	// it is still to run (it goes once the job ends). Default 0: records
	// are kept for ever.
	Records time.Duration
	// Checkpoints: the checkpoint of a graph run not finished, by when it
	// was last saved: past it, the run can no longer be resumed. Default
	// 7 days.
	Checkpoints time.Duration
	// FinishedCheckpoints: the checkpoint of a finished run (Done), by
	// when it was saved: until then, Resume returns the run's result.
	// Default 24 hours.
	FinishedCheckpoints time.Duration
	// Runs: the record of an agent run, by when it started, whatever its
	// outcome (a run still recorded as running, whose instance stopped,
	// goes too). Until then its run id cannot be used again. Default 7
	// days.
	Runs time.Duration
	// Sessions: the record of an MCP session, by when it opened, whatever
	// its outcome (a session still recorded as open, whose instance
	// stopped, goes too). Default 7 days.
	Sessions time.Duration
	// Counts: the hourly counts of occurrences (Trends), by their hour.
	// Default DefaultCountRetention (30 days).
	Counts time.Duration
}

// The default retention.
const (
	DefaultDeliveryRetention    = 7 * 24 * time.Hour
	DefaultIdempotencyRetention = 24 * time.Hour
	DefaultAttemptRetention     = 7 * 24 * time.Hour

	DefaultCheckpointRetention         = 7 * 24 * time.Hour
	DefaultFinishedCheckpointRetention = 24 * time.Hour

	DefaultRunRetention     = 7 * 24 * time.Hour
	DefaultSessionRetention = 7 * 24 * time.Hour
)

// WithDefaults returns r with its zero fields set to the defaults.
func (r Retention) WithDefaults() Retention {
	if r.Deliveries <= 0 {
		r.Deliveries = DefaultDeliveryRetention
	}
	if r.Idempotency <= 0 {
		r.Idempotency = DefaultIdempotencyRetention
	}
	if r.Attempts <= 0 {
		r.Attempts = DefaultAttemptRetention
	}
	if r.Checkpoints <= 0 {
		r.Checkpoints = DefaultCheckpointRetention
	}
	if r.FinishedCheckpoints <= 0 {
		r.FinishedCheckpoints = DefaultFinishedCheckpointRetention
	}
	if r.Runs <= 0 {
		r.Runs = DefaultRunRetention
	}
	if r.Sessions <= 0 {
		r.Sessions = DefaultSessionRetention
	}
	if r.Counts <= 0 {
		r.Counts = DefaultCountRetention
	}
	return r
}
