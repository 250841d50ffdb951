package riverjobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/sqlstore"
)

// How long River keeps a finished job, and so the record's view of it.
// River's defaults are a day for completed and cancelled jobs and a week
// for discarded ones; an operator looking at a record wants its jobs for
// longer.
const (
	CompletedRetention = 7 * 24 * time.Hour
	CancelledRetention = 7 * 24 * time.Hour
	DiscardedRetention = 30 * 24 * time.Hour
)

// fields are a job's River arguments, whatever its kind.
type fields struct {
	Tenant  string          `json:"tenant"`
	ErrorID string          `json:"error_id"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

func (f fields) get() fields { return f }

// The arguments of each kind: River tells the kinds apart by type.
type (
	retryArgs         struct{ fields }
	escalationArgs    struct{ fields }
	alertArgs         struct{ fields }
	recordFailureArgs struct{ fields }
)

func (retryArgs) Kind() string         { return store.JobRetry }
func (escalationArgs) Kind() string    { return store.JobEscalation }
func (alertArgs) Kind() string         { return store.JobAlert }
func (recordFailureArgs) Kind() string { return store.JobRecordFailure }

// jobArgs are the arguments of any kind.
type jobArgs interface {
	river.JobArgs
	get() fields
}

// traceKey is the key of River's job metadata under which a job keeps
// the trace context it was enqueued with (store.NewJob.Trace).
const traceKey = "triage_trace"

// traceFields are the trace context's fields a job keeps: the W3C ones,
// each at most maxTraceField bytes (tracestate's own limit is 512). Other
// fields (baggage) are not kept: they may carry what the job's reader
// must not see.
var traceFields = []string{"traceparent", "tracestate"}

const maxTraceField = 512

// metadataOf is the River metadata of a job with trace context tc.
func metadataOf(tc map[string]string) ([]byte, error) {
	kept := make(map[string]string, len(traceFields))
	for _, k := range traceFields {
		if v := tc[k]; v != "" && len(v) <= maxTraceField {
			kept[k] = v
		}
	}
	if kept["traceparent"] == "" {
		return []byte(`{}`), nil
	}
	return json.Marshal(map[string]map[string]string{traceKey: kept})
}

// traceOf is the trace context kept in River metadata md (nil: none).
func traceOf(md []byte) map[string]string {
	var m struct {
		Trace map[string]string `json:"triage_trace"`
	}
	if len(md) == 0 || json.Unmarshal(md, &m) != nil || len(m.Trace) == 0 {
		return nil
	}
	return m.Trace
}

// snoozesOf is how many times a job was snoozed, as River counts them in
// its metadata ("snoozes").
func snoozesOf(md []byte) int {
	var m struct {
		Snoozes int `json:"snoozes"`
	}
	if len(md) == 0 || json.Unmarshal(md, &m) != nil {
		return 0
	}
	return m.Snoozes
}

// argsOf returns the arguments of a job of kind.
func argsOf(kind string, f fields) (jobArgs, error) {
	switch kind {
	case store.JobRetry:
		return retryArgs{f}, nil
	case store.JobEscalation:
		return escalationArgs{f}, nil
	case store.JobAlert:
		return alertArgs{f}, nil
	case store.JobRecordFailure:
		return recordFailureArgs{f}, nil
	case "":
		return nil, errors.New("job without kind")
	}
	return nil, fmt.Errorf("unknown job kind %q", kind)
}

// Queue is the job queue of a store whose driver's transactions are TTx
// (pgx.Tx, *sql.Tx). It implements sqlstore.Queue.
type Queue[TTx any] struct {
	driver riverdriver.Driver[TTx]
	// txOf returns the driver's transaction a Querier of the store's
	// DB.Write or DB.Read runs on.
	txOf func(sqlstore.Querier) (TTx, error)
	// client inserts and lists; Work starts clients of its own.
	client *river.Client[TTx]
}

var _ sqlstore.Queue = (*Queue[any])(nil)

// New returns the queue on driver. txOf returns the transaction under a
// Querier of the store's DB.
func New[TTx any](driver riverdriver.Driver[TTx], txOf func(sqlstore.Querier) (TTx, error)) (*Queue[TTx], error) {
	client, err := river.NewClient(driver, &river.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, fmt.Errorf("river: %w", err)
	}
	return &Queue[TTx]{driver: driver, txOf: txOf, client: client}, nil
}

// Client returns the River client the queue inserts with.
func (q *Queue[TTx]) Client() *river.Client[TTx] { return q.client }

// MigrateDB applies River's migrations that the database lacks, each in
// a transaction of its own (PostgreSQL's enum changes cannot share one
// with their use). The caller serialises the instances doing so.
func (q *Queue[TTx]) MigrateDB(ctx context.Context) error {
	m, err := rivermigrate.New(q.driver, &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return fmt.Errorf("river: migrate: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river: migrate: %w", err)
	}
	return nil
}

// params are the insert parameters of j for tenant.
func params(tenant string, j store.NewJob) (river.InsertManyParams, error) {
	a, err := argsOf(j.Kind, fields{Tenant: tenant, ErrorID: j.ErrorID, Payload: j.Payload})
	if err != nil {
		return river.InsertManyParams{}, err
	}
	opts := &river.InsertOpts{
		MaxAttempts: j.MaxAttempts,
		// A job enqueued twice (the same kind, tenant, error and payload)
		// runs once, while River keeps the first.
		UniqueOpts: river.UniqueOpts{ByArgs: true},
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = store.DefaultMaxAttempts
	}
	if opts.Metadata, err = metadataOf(j.Trace); err != nil {
		return river.InsertManyParams{}, err
	}
	// River makes any job given a ScheduledAt "scheduled", to be made
	// available by its leader's scheduler (every 5 s), even one due
	// already: only a job due later is given one.
	if j.RunAt.After(time.Now()) {
		opts.ScheduledAt = j.RunAt
	}
	return river.InsertManyParams{Args: a, InsertOpts: opts}, nil
}

// Rows returns the river_job rows of jobs for tenant, which the store
// inserts in its own transaction with statements of its own, as River's
// clients for other languages do: River's insert on SQLite is a
// statement prepared anew each time (half of the writer's time per
// report). A row is unique by nothing (a delivery's jobs are enqueued
// once, by the delivery's idempotency) but a job repeated in jobs goes
// in once.
func (q *Queue[TTx]) Rows(tenant string, jobs []store.NewJob) ([]sqlstore.JobRow, error) {
	rows := make([]sqlstore.JobRow, 0, len(jobs))
	seen := make(map[string]bool, len(jobs))
	now := time.Now()
	for _, j := range jobs {
		a, err := argsOf(j.Kind, fields{Tenant: tenant, ErrorID: j.ErrorID, Payload: j.Payload})
		if err != nil {
			return nil, err
		}
		args, err := json.Marshal(a)
		if err != nil {
			return nil, err
		}
		if key := j.Kind + " " + string(args); seen[key] {
			continue
		} else {
			seen[key] = true
		}
		md, err := metadataOf(j.Trace)
		if err != nil {
			return nil, err
		}
		r := sqlstore.JobRow{Args: args, Kind: j.Kind, MaxAttempts: j.MaxAttempts,
			State: string(rivertype.JobStateAvailable), ScheduledAt: now, Metadata: md, CreatedAt: now}
		if r.MaxAttempts <= 0 {
			r.MaxAttempts = store.DefaultMaxAttempts
		}
		if j.RunAt.After(now) {
			r.State, r.ScheduledAt = string(rivertype.JobStateScheduled), j.RunAt
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// Insert enqueues one job for tenant and returns its ID (the first one's,
// when it was enqueued already).
func (q *Queue[TTx]) Insert(ctx context.Context, tenant string, j store.NewJob) (int64, error) {
	p, err := params(tenant, j)
	if err != nil {
		return 0, err
	}
	res, err := q.client.Insert(ctx, p.Args, p.InsertOpts)
	if err != nil {
		return 0, err
	}
	return res.Job.ID, nil
}

// byError selects one tenant's jobs of one error; the stores' indexes
// river_job_by_error are on these expressions.
const byError = `args->>'tenant' = @tenant AND args->>'error_id' = @error_id`

// ListTx returns the latest n jobs of tenant's error errorID whose ID is
// below before (any when before is 0), the latest first, with their
// attempts, and whether there are older ones, read in the transaction
// under on.
func (q *Queue[TTx]) ListTx(ctx context.Context, on sqlstore.Querier, tenant, errorID string, before int64, n int) ([]store.Job, bool, error) {
	tx, err := q.txOf(on)
	if err != nil {
		return nil, false, err
	}
	where, args := byError, river.NamedArgs{"tenant": tenant, "error_id": errorID}
	if before > 0 {
		where, args["before"] = where+` AND id < @before`, before
	}
	p := river.NewJobListParams().
		Where(where, args).
		OrderBy(river.JobListOrderByID, river.SortOrderDesc).
		First(n + 1)
	res, err := q.client.JobListTx(ctx, tx, p)
	if err != nil {
		return nil, false, err
	}
	more := len(res.Jobs) > n
	rows := res.Jobs[:min(n, len(res.Jobs))]
	list := make([]store.Job, 0, len(rows))
	for _, r := range rows {
		j, err := job(r)
		if err != nil {
			return nil, false, err
		}
		list = append(list, j)
	}
	return list, more, nil
}

// job is the store's view of a River job.
func job(r *rivertype.JobRow) (store.Job, error) {
	var a fields
	if err := json.Unmarshal(r.EncodedArgs, &a); err != nil {
		return store.Job{}, fmt.Errorf("job %d: %w", r.ID, err)
	}
	return view(r, a), nil
}

func view(r *rivertype.JobRow, a fields) store.Job {
	j := store.Job{ID: r.ID, Tenant: a.Tenant, Kind: r.Kind, ErrorID: a.ErrorID, Payload: a.Payload,
		State: string(r.State), RunAt: r.ScheduledAt.UTC(), Attempt: r.Attempt, MaxAttempts: r.MaxAttempts,
		Trace: traceOf(r.Metadata), Deferred: snoozesOf(r.Metadata)}
	for _, e := range r.Errors {
		// River records a cancelled attempt's error with its wrapper's
		// prefix.
		msg := strings.TrimPrefix(e.Error, "JobCancelError: ")
		j.Attempts = append(j.Attempts, store.JobAttempt{Attempt: e.Attempt, At: e.At.UTC(), Error: msg})
	}
	if r.State == rivertype.JobStateCompleted && r.AttemptedAt != nil && r.FinalizedAt != nil {
		j.Attempts = append(j.Attempts, store.JobAttempt{Attempt: r.Attempt, At: r.AttemptedAt.UTC(),
			Duration: r.FinalizedAt.Sub(*r.AttemptedAt)})
	}
	return j
}

// Work runs due jobs with w until ctx ends, on a River client of its own.
func (q *Queue[TTx]) Work(ctx context.Context, w store.JobWorker, o store.WorkOptions) error {
	o = o.WithDefaults()
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &worker[retryArgs]{w: w, o: o}); err != nil {
		return fmt.Errorf("river: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &worker[escalationArgs]{w: w, o: o}); err != nil {
		return fmt.Errorf("river: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &worker[alertArgs]{w: w, o: o}); err != nil {
		return fmt.Errorf("river: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &worker[recordFailureArgs]{w: w, o: o}); err != nil {
		return fmt.Errorf("river: %w", err)
	}
	client, err := river.NewClient(q.driver, &river.Config{
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: o.Workers}},
		Workers:           workers,
		FetchPollInterval: o.Poll,
		FetchCooldown:     min(o.Poll, 100*time.Millisecond),
		// SQLite has no LISTEN: River's listener there reads its
		// notification table every 50 ms (not configurable), half of an
		// idle server's CPU (issue 28). Without it the worker looks for
		// due jobs every o.Poll, the most a job due now then waits (what
		// a notification would have hastened), and a resigned leader is
		// replaced within River's 5 s election poll.
		PollOnly:                    q.driver.DatabaseName() == riverdriver.DatabaseNameSQLite,
		JobTimeout:                  o.Timeout,
		RescueStuckJobsAfter:        max(o.RescueAfter, o.Timeout+time.Second),
		CompletedJobRetentionPeriod: CompletedRetention,
		CancelledJobRetentionPeriod: CancelledRetention,
		DiscardedJobRetentionPeriod: DiscardedRetention,
		Logger:                      o.Logger,
	})
	if err != nil {
		return fmt.Errorf("river: %w", err)
	}
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("river: start: %w", err)
	}
	<-ctx.Done()
	stop, cancel := context.WithTimeout(context.Background(), o.StopTimeout)
	defer cancel()
	if err := client.Stop(stop); err == nil {
		return nil
	}
	// Attempts still running: cancel them, and give them a moment to
	// return (a job whose attempt never returns is rescued later).
	hard, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := client.StopAndCancel(hard); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("river: stop: %w", err)
	}
	return nil
}

// worker runs the jobs of one kind with a JobWorker.
type worker[T jobArgs] struct {
	river.WorkerDefaults[T]
	w store.JobWorker
	o store.WorkOptions
	// retryAfter holds, from a failed attempt to NextRetry, its fault's
	// Retry-After, by job ID.
	retryAfter sync.Map
}

func (k *worker[T]) Work(ctx context.Context, j *river.Job[T]) error {
	err := k.w(ctx, view(j.JobRow, j.Args.get()))
	var deferred *store.DeferError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrPermanent):
		return river.JobCancel(err)
	case errors.As(err, &deferred):
		// River sets a job snoozed for less than its scheduler's interval
		// (5 s) available at once, due after the snooze; a longer one
		// waits for the scheduler.
		return river.JobSnooze(deferred.After)
	}
	if ra := fault.From(err).RetryAfter; ra > 0 && j.Attempt < j.MaxAttempts {
		k.retryAfter.Store(j.ID, ra)
	}
	return err
}

// NextRetry is when a job runs again after a failed attempt (or after it
// was rescued): after the backoff, never sooner than the failure's
// Retry-After.
func (k *worker[T]) NextRetry(j *river.Job[T]) time.Time {
	var ra time.Duration
	if v, ok := k.retryAfter.LoadAndDelete(j.ID); ok {
		ra = v.(time.Duration)
	}
	return time.Now().Add(k.o.Backoff(j.Attempt, ra))
}

func (k *worker[T]) Timeout(*river.Job[T]) time.Duration { return k.o.Timeout }
