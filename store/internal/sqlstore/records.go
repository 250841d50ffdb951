package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/triage-go/triage/store"
)

// upsertRecordSQL counts an occurrence into its error's record: the record
// takes the fields of the occurrence received last, and points at it for
// the report and the feedback ($8, the occurrence's id); $9 and $10 are
// its release and environment, $11 and $12 its code and title. A new
// record takes the seq its occurrence was inserted under (record_seq: see
// insertOccurrenceSQL), read back by the occurrence's id.
// %[1]s and %[2]s are the dialect's least and greatest.
const upsertRecordSQL = `
	INSERT INTO records (tenant, error_id, query_id, agent_id, error_type, severity,
		first_seen, last_seen, occurrence_count, latest_id, first_release, last_release, last_environment, code, title, seq)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $7, 1, $8, $9, $9, $10, $11, $12, (SELECT record_seq FROM occurrences WHERE id = $8))` + recordConflictSQL

// recordConflictSQL is how a record's upsert counts an occurrence into a
// record that is there already (%[1]s and %[2]s: Least and Greatest), and
// returns the record's count (1 when the occurrence created it) and its
// workflow's status and document, which the save's workflow step reads.
// The record keeps the first release it was seen in, and the release and
// environment of the latest occurrence that named one.
const recordConflictSQL = `
	ON CONFLICT (tenant, error_id) DO UPDATE SET
		occurrence_count = records.occurrence_count + 1,
		first_seen = %[1]s(records.first_seen, excluded.first_seen),
		last_seen = %[2]s(records.last_seen, excluded.last_seen),
		query_id = CASE WHEN excluded.last_seen >= records.last_seen THEN excluded.query_id ELSE records.query_id END,
		agent_id = CASE WHEN excluded.last_seen >= records.last_seen THEN excluded.agent_id ELSE records.agent_id END,
		error_type = CASE WHEN excluded.last_seen >= records.last_seen THEN excluded.error_type ELSE records.error_type END,
		severity = CASE WHEN excluded.last_seen >= records.last_seen THEN excluded.severity ELSE records.severity END,
		latest_id = CASE WHEN excluded.last_seen >= records.last_seen THEN excluded.latest_id ELSE records.latest_id END,
		first_release = CASE WHEN records.first_release = '' THEN excluded.first_release ELSE records.first_release END,
		last_release = CASE WHEN excluded.last_release <> '' AND excluded.last_seen >= records.last_seen
			THEN excluded.last_release ELSE records.last_release END,
		last_environment = CASE WHEN excluded.last_environment <> '' AND excluded.last_seen >= records.last_seen
			THEN excluded.last_environment ELSE records.last_environment END,
		code = CASE WHEN excluded.last_seen >= records.last_seen THEN excluded.code ELSE records.code END,
		title = CASE WHEN excluded.last_seen >= records.last_seen THEN excluded.title ELSE records.title END
	RETURNING occurrence_count, status, workflow`

// SaveOccurrence records one delivery and counts it into its error's
// record, unless the delivery was saved already. A zero ReceivedAt is now.
// An occurrence without a DeliveryKey is never taken for a duplicate.
func (t *tenant) SaveOccurrence(ctx context.Context, o store.Occurrence) (store.Saved, error) {
	if o.ErrorID == "" {
		return store.Saved{}, t.s.errorf("save occurrence", errors.New("occurrence without error_id"))
	}
	if o.ReceivedAt.IsZero() {
		o.ReceivedAt = t.s.now()
	}
	var key any
	if o.DeliveryKey != "" {
		key = o.DeliveryKey
	}
	if t.s.d.WritableCTE {
		saved, err := t.saveOneStatement(ctx, o, key)
		if err != nil {
			return store.Saved{}, t.s.errorf("save occurrence", err)
		}
		return saved, nil
	}
	var saved store.Saved
	err := t.write(ctx, func(q Querier) error {
		var err error
		saved, err = t.saveTx(ctx, q, o, key)
		return err
	})
	if err != nil {
		return store.Saved{}, t.s.errorf("save occurrence", err)
	}
	return saved, nil
}

// recordSeqSQL is the seq of the record of error $3 of tenant $1: its
// own, or, for an error without a record, the one its record will take,
// one past the largest ever taken (SQLite's AUTOINCREMENT keeps that in
// sqlite_sequence; saveTx runs only where the dialect has no writable
// CTEs, SQLite, whose writes are serialised).
const recordSeqSQL = `COALESCE((SELECT seq FROM records WHERE tenant = $1 AND error_id = $3),
	max(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'records'), 0), COALESCE((SELECT max(seq) FROM records), 0)) + 1)`

// insertOccurrenceSQL inserts an occurrence under its record's seq
// (recordSeqSQL), unless an occurrence holds its delivery key ($2).
const insertOccurrenceSQL = `
	INSERT INTO occurrences (tenant, delivery_key, error_id, record_seq, query_id, agent_id, error_type, severity,
		next_action, attempt, reported_at, received_at, report, feedback, actions)
	VALUES ($1, $2, $3, ` + recordSeqSQL + `, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
	ON CONFLICT (tenant, delivery_key) DO NOTHING`

// insertOccurrence inserts o under key (nil: none) in q's transaction and
// returns its id, unless an occurrence holds the key already (inserted
// false). The occurrence takes its record's seq (occurrences_by_record)
// before the record is upserted (recordOccurrence): a new record then
// takes that seq. On SQLite the statement has no RETURNING (IDQuerier):
// with one, SQLite writes a statement journal of the pages it changes
// and keeps its row in a temporary table.
func (t *tenant) insertOccurrence(ctx context.Context, q Querier, o store.Occurrence, key any) (id int64, inserted bool, err error) {
	args := []any{t.id, key, o.ErrorID, o.QueryID, o.AgentID, o.ErrorType, o.Severity,
		o.NextAction, o.Attempt, nanos(o.ReportedAt), nanos(o.ReceivedAt), text(o.Report), text(o.Feedback),
		text(o.Actions)}
	if iq, ok := q.(IDQuerier); ok {
		id, n, err := iq.ExecID(ctx, insertOccurrenceSQL, args...)
		return id, n > 0, err
	}
	err = q.QueryRow(ctx, insertOccurrenceSQL+` RETURNING id`, args...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// recordOccurrence counts occurrence id, just inserted (insertOccurrence),
// into its record, adds its release to the tenant's, and takes its
// record's workflow step.
func (t *tenant) recordOccurrence(ctx context.Context, q Querier, o store.Occurrence, id int64) (store.Saved, error) {
	if err := t.upsertRelease(ctx, q, o); err != nil {
		return store.Saved{}, err
	}
	var (
		count  int64
		status string
		doc    *string
	)
	if err := q.QueryRow(ctx, t.s.upsertRecord,
		t.id, o.ErrorID, o.QueryID, o.AgentID, o.ErrorType, o.Severity,
		nanos(o.ReceivedAt), id, o.Release, o.Environment, o.Code, o.Title).Scan(&count, &status, &doc); err != nil {
		return store.Saved{}, err
	}
	saved := store.Saved{ID: id, NewRecord: count == 1}
	w, err := decodeWorkflow(status, doc)
	if err != nil {
		return store.Saved{}, err
	}
	if saved.Workflow, saved.Transition, err = t.occur(ctx, q, o, w); err != nil {
		return store.Saved{}, err
	}
	return saved, nil
}

// saveTx is SaveOccurrence's transaction, in q: key is o.DeliveryKey, nil
// for none.
func (t *tenant) saveTx(ctx context.Context, q Querier, o store.Occurrence, key any) (store.Saved, error) {
	id, inserted, err := t.insertOccurrence(ctx, q, o, key)
	if err != nil {
		return store.Saved{}, err
	}
	if !inserted {
		// Saved already. A delivery handled anew, once its claim had
		// expired, finds its claim without feedback: the feedback the
		// client got is this one, and the jobs it promised run. Else
		// (a duplicate, a save repeated) nothing changes.
		return store.Saved{}, t.completeAnew(ctx, q, o)
	}
	saved, err := t.recordOccurrence(ctx, q, o, id)
	if err != nil {
		return store.Saved{}, err
	}
	if o.DeliveryKey != "" {
		if err := t.saveDelivery(ctx, q, o.DeliveryKey, id); err != nil {
			return store.Saved{}, err
		}
	}
	return saved, t.enqueueAll(ctx, q, o.Jobs)
}

// completeAnew completes, with o's feedback and jobs, the claim of a
// delivery saved already that was handled anew once its claim expired
// (the claim has no feedback): the feedback the client got is o's, and
// the jobs it promised run. Else (a duplicate, a save repeated) nothing
// changes.
func (t *tenant) completeAnew(ctx context.Context, q Querier, o store.Occurrence) error {
	n, err := q.Exec(ctx, `UPDATE deliveries SET feedback = $3
		WHERE tenant = $1 AND delivery_key = $2 AND feedback IS NULL AND occurrence_id IS NULL`,
		t.id, o.DeliveryKey, text(o.Feedback))
	if err != nil || n == 0 {
		return err
	}
	return t.enqueueAll(ctx, q, o.Jobs)
}

// countHourSQL counts, in the one-statement writes (saveCTE, reportCTE),
// the occurrence r counted into its record into the record's hour: the
// hour of the record's last_seen (the occurrence's received_at, but for
// an occurrence that arrives after a later one, counted in the later
// one's). Migration 0028 dropped the trigger that did it
// (record_counts_add, a PL/pgSQL function running its own INSERT through
// SPI after each row of records): a CTE of the statement costs less, and
// counts exactly what the trigger did, since every statement that counts
// an occurrence into a record on PostgreSQL is one of these two.
const countHourSQL = `
	INSERT INTO record_counts (tenant, seq, hour, agent_id, code, n)
	SELECT $1, r.seq, r.last_seen / 3600000000000, r.agent_id, r.code, 1 FROM r
	ON CONFLICT (tenant, seq, hour) DO UPDATE SET n = record_counts.n + 1
	RETURNING 1`

// saveCTE is SaveOccurrence in one statement, where the dialect has
// writable CTEs: unless an occurrence holds the delivery key already
// (prior), it counts the occurrence into its record (which points at the
// occurrence's id, taken from its sequence first, and gives its seq) and
// into the record's hour (countHourSQL),
// inserts the occurrence under the record's seq (occurrences_by_record:
// a new record's go at the end of the index), completes its delivery and
// inserts its jobs into River's river_job (given as arrays, one element
// per job), and adds its release ($22) to the tenant's releases. It
// returns the occurrence's id, whether it created its record, and the
// record's workflow (status and document) after the upsert:
// saveOneStatement goes on to the workflow's step only when the record is
// resolved or ignored. An occurrence saved under the key by a transaction
// that committed after the statement's snapshot leaves o empty after r
// wrote: the final SELECT then fails on purpose (reportSaved, as in
// reportCTE), which rolls the record's count back, and the save is
// taken for one made already.
const saveCTE = `
WITH id AS (
	SELECT nextval(pg_get_serial_sequence('occurrences', 'id')) AS id
	WHERE NOT EXISTS (SELECT 1 FROM occurrences AS s WHERE s.tenant = $1 AND s.delivery_key = $2)
), r AS (
	INSERT INTO records (tenant, error_id, query_id, agent_id, error_type, severity,
		first_seen, last_seen, occurrence_count, latest_id, first_release, last_release, last_environment, code, title)
	SELECT $1, $3, $4, $5, $6, $7, $11, $11, 1, id, $22::text, $22::text, $23::text, $24, $25 FROM id` + recordConflictSQL + `, seq, last_seen, agent_id, code
), hourly AS (` + countHourSQL + `
), o AS (
	INSERT INTO occurrences (id, tenant, delivery_key, error_id, record_seq, query_id, agent_id, error_type, severity,
		next_action, attempt, reported_at, received_at, report, feedback, actions)
	OVERRIDING SYSTEM VALUE
	SELECT id.id, $1, $2, $3, r.seq, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14 FROM id, r
	ON CONFLICT (tenant, delivery_key) DO NOTHING
	RETURNING id
), rel AS (
	INSERT INTO releases (tenant, name, first_seen)
	SELECT $1, $22::text, $11 FROM o WHERE $22::text <> ''
	ON CONFLICT (tenant, name) DO NOTHING
	RETURNING 1
), d AS (
	INSERT INTO deliveries (tenant, delivery_key, claimed_at, occurrence_id)
	SELECT $1, $2, $15, id FROM o WHERE $2::text IS NOT NULL
	ON CONFLICT (tenant, delivery_key) DO UPDATE SET occurrence_id = excluded.occurrence_id, feedback = NULL
	RETURNING 1
), j AS (
	INSERT INTO river_job (args, kind, max_attempts, state, scheduled_at, metadata)
	SELECT u.args::jsonb, u.kind, u.max_attempts, u.state::river_job_state, u.scheduled_at, u.metadata::jsonb
	FROM o, unnest($16::text[], $17::text[], $18::smallint[], $19::text[], $20::timestamptz[], $21::text[])
		AS u(args, kind, max_attempts, state, scheduled_at, metadata)
	RETURNING 1
)
SELECT (CASE WHEN EXISTS (SELECT 1 FROM o) THEN '1' ELSE '` + reportSaved + `' END)::int,
	(SELECT id FROM o), r.occurrence_count = 1, r.status, r.workflow FROM r`

// saveOneStatement is SaveOccurrence with saveCTE: one round trip for a
// new occurrence, where the transaction took one per statement; a
// delivery saved already goes on in a transaction of its own.
func (t *tenant) saveOneStatement(ctx context.Context, o store.Occurrence, key any) (store.Saved, error) {
	now := t.s.now()
	jobs, err := t.jobArrays(o.Jobs)
	if err != nil {
		return store.Saved{}, err
	}
	var (
		state  int
		id     *int64
		saved  store.Saved
		status string
		doc    *string
	)
	err = t.s.db.Writer().QueryRow(ctx, t.s.saveOccurrence,
		t.id, key, o.ErrorID, o.QueryID, o.AgentID, o.ErrorType, o.Severity,
		o.NextAction, o.Attempt, nanos(o.ReportedAt), nanos(o.ReceivedAt), text(o.Report), text(o.Feedback),
		text(o.Actions), nanos(now), jobs.args, jobs.kinds, jobs.maxAttempts, jobs.states, jobs.scheduledAt, jobs.metadata,
		o.Release, o.Environment, o.Code, o.Title).Scan(&state, &id, &saved.NewRecord, &status, &doc)
	if errors.Is(err, sql.ErrNoRows) || err != nil && strings.Contains(err.Error(), reportSaved) {
		// Saved already (seen in the snapshot, or committed since: ON
		// CONFLICT DO NOTHING waits for the other transaction's end).
		return store.Saved{}, t.write(ctx, func(q Querier) error { return t.completeAnew(ctx, q, o) })
	}
	if err != nil {
		return saved, err
	}
	if id == nil {
		return store.Saved{}, fmt.Errorf("the statement saved no occurrence (state %d)", state)
	}
	saved.ID = *id
	return t.afterStatement(ctx, o, saved, status, doc)
}

// jobColumns are a report's jobs as the arrays the one-statement saves
// insert into river_job, one element per job.
type jobColumns struct {
	args, kinds, states, metadata []string
	maxAttempts                   []int16
	scheduledAt                   []time.Time
}

// jobArrays returns the river_job rows of jobs as jobColumns.
func (t *tenant) jobArrays(jobs []store.NewJob) (jobColumns, error) {
	rows, err := t.s.queue.Rows(t.id, jobs)
	if err != nil {
		return jobColumns{}, err
	}
	n := len(rows)
	c := jobColumns{args: make([]string, n), kinds: make([]string, n), states: make([]string, n), metadata: make([]string, n),
		maxAttempts: make([]int16, n), scheduledAt: make([]time.Time, n)}
	for i, r := range rows {
		c.args[i], c.kinds[i], c.states[i], c.metadata[i] = string(r.Args), r.Kind, r.State, string(r.Metadata)
		c.maxAttempts[i], c.scheduledAt[i] = int16(min(r.MaxAttempts, math.MaxInt16)), r.ScheduledAt
	}
	return c, nil
}

// afterStatement ends a save made in one statement, whose record's
// workflow after it is status and doc: the workflow's step, when the
// record is resolved or ignored, in a transaction of its own.
func (t *tenant) afterStatement(ctx context.Context, o store.Occurrence, saved store.Saved, status string, doc *string) (store.Saved, error) {
	var err error
	if saved.Workflow, err = decodeWorkflow(status, doc); err != nil {
		return saved, err
	}
	if !occurs(saved.Workflow) {
		return saved, nil // the common case: nothing to decide
	}
	// Resolved or ignored: the workflow's step, in a transaction that
	// locks the record's row and reads its workflow again (another
	// instance's occurrence or a change may have moved it since).
	err = t.write(ctx, func(q Querier) error {
		w, ok, err := t.lockWorkflow(ctx, q, o.ErrorID)
		if err != nil || !ok {
			return err // !ok: the record expired meanwhile
		}
		saved.Workflow, saved.Transition, err = t.occur(ctx, q, o, w)
		return err
	})
	if err != nil {
		// The occurrence is committed: the save stands, and the caller
		// is told that the step was not taken (the record's next
		// occurrence takes it).
		saved.Transition = nil
		saved.WorkflowErr = t.s.errorf("save occurrence: workflow", err)
	}
	return saved, nil
}

// enqueueAll enqueues jobs in q's transaction.
func (t *tenant) enqueueAll(ctx context.Context, q Querier, jobs []store.NewJob) error {
	rows, err := t.s.queue.Rows(t.id, jobs)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if _, err := q.Exec(ctx, t.s.d.InsertJob, string(r.Args), r.Kind, r.MaxAttempts, r.State,
			t.s.d.RiverTime(r.ScheduledAt), string(r.Metadata), t.s.d.RiverTime(r.CreatedAt)); err != nil {
			return err
		}
	}
	return nil
}

// Enqueue adds a durable job for the tenant. A zero RunAt is now.
func (t *tenant) Enqueue(ctx context.Context, j store.NewJob) (int64, error) {
	id, err := t.s.queue.Insert(ctx, t.id, j)
	if err != nil {
		return 0, t.s.errorf("enqueue job", err)
	}
	return id, nil
}

// occurrenceColumns are the columns scanOccurrence reads.
const occurrenceColumns = `id, delivery_key, error_id, query_id, agent_id, error_type, severity, next_action, attempt,
	reported_at, received_at, report, feedback, actions`

// scanOccurrence reads occurrenceColumns.
func scanOccurrence(row Row) (store.Occurrence, error) {
	var (
		o                  store.Occurrence
		key                *string
		reported, received int64
	)
	if err := row.Scan(&o.ID, &key, &o.ErrorID, &o.QueryID, &o.AgentID, &o.ErrorType, &o.Severity, &o.NextAction,
		&o.Attempt, &reported, &received, docDest(&o.Report), docDest(&o.Feedback), docDest(&o.Actions)); err != nil {
		return o, err
	}
	if key != nil {
		o.DeliveryKey = *key
	}
	o.ReportedAt, o.ReceivedAt = fromNanos(reported), fromNanos(received)
	o.Report, o.Feedback, o.Actions = nilIfEmpty(o.Report), nilIfEmpty(o.Feedback), nilIfEmpty(o.Actions)
	return o, nil
}

// FeedbackAfter returns the feedback of the tenant's occurrences after
// the position after, in the order of their positions.
//
// It reads the tenant's own range of occurrences_by_tenant: a stream's
// cost does not grow with the other tenants' rows, which a read by the
// positions' own index went through and skipped (a stream resuming from
// position 0 read the whole table). The index costs every report one
// more entry, at the end of its tenant's range.
func (t *tenant) FeedbackAfter(ctx context.Context, after int64, limit int) ([]store.SavedFeedback, error) {
	query := FeedbackAfterSQL(t.s.d)
	var out []store.SavedFeedback
	rows, err := t.s.db.Reader().Query(ctx, query, t.id, after, max(limit, 0))
	err = scanAll(rows, err, func(row Row) error {
		var (
			f   store.SavedFeedback
			doc *string
		)
		err := row.Scan(&f.ID, &doc)
		f.Feedback = raw(doc)
		out = append(out, f)
		return err
	})
	if err != nil {
		return nil, t.s.errorf("feedback after", err)
	}
	return out, nil
}

// FeedbackAfterSQL is FeedbackAfter's query in d: $1 the tenant, $2 the
// position after, $3 the limit. Its tests check the plan reads the
// tenant's range only.
func FeedbackAfterSQL(d Dialect) string {
	if d.XidPositions {
		// Only transactions older than the snapshot's xmin have ended:
		// every occurrence still to commit has an xid at or above it.
		return `SELECT xid::text::bigint, feedback FROM occurrences
			WHERE tenant = $1 AND xid > $2::bigint::text::xid8 AND xid < pg_snapshot_xmin(pg_current_snapshot())
			ORDER BY occurrences.xid LIMIT $3`
	}
	return `SELECT id, feedback FROM occurrences WHERE tenant = $1 AND id > $2 ORDER BY id LIMIT $3`
}

// LatestOccurrence returns the position at which the streams stand: every
// tenant's occurrences at or before it are committed and readable, and
// those saved later come after it. With IDs as positions it is the
// latest ID of any tenant (a look-up of the primary key's end, where the
// tenant's own maximum would read all its occurrences); with xids, the
// one before the oldest transaction still running.
func (t *tenant) LatestOccurrence(ctx context.Context) (int64, error) {
	query := `SELECT COALESCE(max(id), 0) FROM occurrences`
	if t.s.d.XidPositions {
		query = `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint - 1`
	}
	var pos int64
	if err := t.s.db.Reader().QueryRow(ctx, query).Scan(&pos); err != nil {
		return 0, t.s.errorf("latest occurrence", err)
	}
	return pos, nil
}

// StreamStart returns LatestOccurrence's position and the tenant's
// occurrences committed after it, in one statement (one snapshot).
func (t *tenant) StreamStart(ctx context.Context, limit int) (int64, []int64, error) {
	if !t.s.d.XidPositions {
		pos, err := t.LatestOccurrence(ctx) // writes are serialised: none is committed after it
		return pos, nil, err
	}
	var (
		pos    int64
		before []int64
	)
	err := t.s.db.Reader().QueryRow(ctx, `
		SELECT h.xmin::text::bigint - 1,
			ARRAY(SELECT o.xid::text::bigint FROM occurrences AS o
				WHERE o.tenant = $1 AND o.xid >= h.xmin ORDER BY o.xid LIMIT $2)
		FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin) AS h`, t.id, max(limit, 0)).Scan(&pos, &before)
	if err != nil {
		return 0, nil, t.s.errorf("stream start", err)
	}
	return pos, before, nil
}
