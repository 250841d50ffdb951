package sqlstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// The report path in one write (store.Reporter): a read, then one
// transaction that claims the delivery, compares and sets the attempt
// count, records the failure and saves the occurrence. There is no claim
// in flight between the two: a report either commits all of it or
// nothing, so a failure leaves no claim to release.

// peekSQL is PeekReport's read, one statement (one snapshot): the
// delivery's claim and feedback (as priorFeedback reads them), whether an
// occurrence holds its key, the attempts counted under the attempt key,
// the failures of the window (%s: peekCountSQL or peekCappedSQL), and
// what the rest of the report's handling would read in round trips of
// its own: whether the agent has a callback URL (Agent), the version of
// the tenant's alert rules (alertRulesVersion), and whether the cache
// holds the query's result (Get, which use_cache reads: the cache's
// primary key, one lookup).
// $1 the tenant, $2 the delivery key, $3 the attempt key, $4 and $5 the
// agent and code, $6 and $7 the window's bounds, $8 the cap, $9 the query.
const peekSQL = `
SELECT d.claimed_at, COALESCE(d.feedback, o.feedback), CASE WHEN d.feedback IS NULL THEN d.occurrence_id END, o.id,
	CASE WHEN d.delivery_key IS NULL THEN FALSE
		ELSE EXISTS (SELECT 1 FROM occurrences AS s WHERE s.tenant = $1 AND s.delivery_key = $2) END,
	COALESCE((SELECT a.n FROM attempts AS a WHERE a.tenant = $1 AND a.attempt_key = $3), 0),
	%s,
	EXISTS (SELECT 1 FROM agents AS g WHERE g.tenant = $1 AND g.agent_id = $4 AND g.callback_url <> ''),
	COALESCE((SELECT r.updated_at FROM alert_rules AS r WHERE r.tenant = $1), 0),
	EXISTS (SELECT 1 FROM cache AS k WHERE k.tenant = $1 AND k.query_id = $9)
FROM (SELECT 1 AS one) AS x
LEFT JOIN deliveries AS d ON d.tenant = $1 AND d.delivery_key = $2
LEFT JOIN occurrences AS o ON o.id = d.occurrence_id AND o.tenant = d.tenant`

// peekTotalSQL counts the window's failures from the key's total
// (Dialect.HistoryTotals): the total less the failures after the window,
// which lie between it and the total (one range of history's key), and
// those before it not forgotten yet (a range at the key's start, empty
// as a rule), where counting the window's rows read up to $8 of them, a
// third of a report's CPU for an agent failing often. $8 is unused.
const peekTotalSQL = `COALESCE((SELECT sum(CASE WHEN h.at = ` + historyTotalAt + ` THEN h.n ELSE -h.n END) FROM history AS h
			WHERE h.tenant = $1 AND h.agent = $4 AND h.code = $5 AND h.at > $7), 0)
		- COALESCE((SELECT sum(h.n) FROM history AS h WHERE h.tenant = $1 AND h.agent = $4 AND h.code = $5 AND h.at < $6), 0)
		+ 0 * $8`

// peekCappedSQL counts the window's failures, at most $8 (recentCap: 0
// counts none, and reads no failure).
const peekCappedSQL = `(SELECT count(*) FROM (SELECT 1 FROM history
		WHERE tenant = $1 AND agent = $4 AND code = $5 AND at >= $6 AND at <= $7 LIMIT $8) AS w)`

// peekWindow is how d's peek counts the window's failures.
func peekWindow(d Dialect) string {
	if d.HistoryTotals {
		return peekTotalSQL
	}
	return peekCappedSQL
}

// PeekSQL is d's peek statement (peekSQL), for the plan tests.
func PeekSQL(d Dialect) string { return fmt.Sprintf(peekSQL, peekWindow(d)) }

// PeekReport reads what Start would answer for req, writing nothing.
func (t *tenant) PeekReport(ctx context.Context, req triage.StartRequest) (store.Peeked, error) {
	p, err := t.peek(ctx, req)
	if err != nil && !errors.Is(err, store.ErrTwoStep) {
		return store.Peeked{}, t.s.errorf("peek report", err)
	}
	return p, err
}

func (t *tenant) peek(ctx context.Context, req triage.StartRequest) (store.Peeked, error) {
	if t.s.keepsUnreleased(claimRef{t.id, req.Key}) {
		return store.Peeked{}, store.ErrTwoStep // Start releases it
	}
	to := failureAt(req.At)
	from := to - int64(max(req.Window, 0))
	var (
		claimedAt, pointer, id *int64
		doc                    *string
		saved                  bool
		attempts, recent       int64
		read                   store.PeekedReads
	)
	read1 := func(q Querier) error {
		return q.QueryRow(ctx, t.s.peek, t.id, req.Key, req.AttemptKey, req.Agent, req.Code, from, to, recentCap(req), req.QueryID).
			Scan(&claimedAt, &doc, &pointer, &id, &saved, &attempts, &recent, &read.Callback, &read.AlertRules, &read.Cached)
	}
	if err := t.readIdle(ctx, read1); err != nil {
		return store.Peeked{}, err
	}
	read.Valid = true
	first := store.Peeked{StartResult: triage.StartResult{First: true, Attempt: int(attempts) + 1, Recent: int(recent) + 1}, Read: read}
	switch {
	case claimedAt == nil:
		return first, nil
	case doc != nil:
		var fb *triage.Feedback
		if err := json.Unmarshal([]byte(*doc), &fb); err != nil {
			return store.Peeked{}, err
		}
		return store.Peeked{StartResult: triage.StartResult{Prior: fb}, Saved: saved, Read: read}, nil
	case pointer != nil && id == nil:
		return store.Peeked{}, store.ErrTwoStep // saved as an occurrence that is gone: Start releases the claim
	case *claimedAt < nanos(t.s.now().Add(-store.ClaimLease)):
		return first, nil // in flight, lost: taken over
	}
	return store.Peeked{Read: read}, nil // in flight
}

// readIdle runs the one-row read fn on the writer's connection when it is
// idle (IdleReader), and on a reader otherwise, or when the writer's read
// failed (a writer recovering from a full disk, say: the reader's answer
// is as good).
func (t *tenant) readIdle(ctx context.Context, fn func(Querier) error) error {
	if ir, ok := t.s.db.(IdleReader); ok {
		if ran, err := ir.ReadIdle(ctx, fn); ran && (err == nil || ctx.Err() != nil) {
			return err
		}
	}
	return fn(t.s.db.Reader())
}

// reportFailed marks the errors the one-statement Report raises to roll
// itself back (a cast of the reason to an integer fails).
const reportFailed = "triage-report:"

// Report's outcomes that roll it back.
const (
	reportMoved = reportFailed + "moved"
	reportSaved = reportFailed + "saved"
)

// Report claims, counts, records and saves in one transaction, when seen
// still holds.
func (t *tenant) Report(ctx context.Context, req triage.StartRequest, seen triage.StartResult, o store.Occurrence) (store.Saved, error) {
	switch {
	case !seen.First || seen.Attempt < 1:
		return store.Saved{}, t.s.errorf("report", errors.New("not a first delivery's peek"))
	case req.Key == "" || o.DeliveryKey != req.Key:
		return store.Saved{}, t.s.errorf("report", errors.New("the occurrence's delivery key is not the request's"))
	case o.ErrorID == "":
		return store.Saved{}, t.s.errorf("report", errors.New("occurrence without error_id"))
	}
	if o.ReceivedAt.IsZero() {
		o.ReceivedAt = t.s.now()
	}
	var (
		saved store.Saved
		err   error
	)
	if t.s.d.WritableCTE {
		saved, err = t.reportOneStatement(ctx, req, seen, o)
	} else {
		err = t.write(ctx, func(q Querier) error {
			var err error
			saved, err = t.reportTx(ctx, q, req, seen, o)
			return err
		})
	}
	if err != nil && !errors.Is(err, store.ErrReportMoved) && !errors.Is(err, store.ErrTwoStep) {
		return store.Saved{}, t.s.errorf("report", err)
	}
	return saved, err
}

// claimFirstSQL claims a delivery not claimed, or claimed in flight
// before $4 (lost): it changes no row when it is claimed otherwise.
const claimFirstSQL = `
	INSERT INTO deliveries (tenant, delivery_key, claimed_at) VALUES ($1, $2, $3)
	ON CONFLICT (tenant, delivery_key) DO UPDATE SET claimed_at = excluded.claimed_at
		WHERE ` + inFlightClaim + ` AND deliveries.claimed_at < $4`

// claimSavedSQL is claimFirstSQL completed as occurrence $5: the claim
// and the delivery's completion in one statement, where SaveOccurrence
// completes a claim taken before (saveDelivery).
const claimSavedSQL = `
	INSERT INTO deliveries (tenant, delivery_key, claimed_at, occurrence_id) VALUES ($1, $2, $3, $5)
	ON CONFLICT (tenant, delivery_key) DO UPDATE SET claimed_at = excluded.claimed_at, occurrence_id = excluded.occurrence_id
		WHERE ` + inFlightClaim + ` AND deliveries.claimed_at < $4`

// reportTx is Report in q's transaction: the occurrence (unless one holds
// the delivery key), the claim, completed as that occurrence, the
// attempt's compare and set, the failure, then the occurrence's record,
// release and jobs. Neither the claim nor the occurrence's insert returns
// a row: SQLite writes a statement journal for a statement with RETURNING
// (a trigger, to SQLite) and keeps its rows in a temporary table. The
// occurrence goes first, so that the claim can complete it: a claim that
// fails rolls it back with the rest. A claim in flight past the lease
// whose occurrence was saved meanwhile is completed as SaveOccurrence
// completes it (completeAnew).
func (t *tenant) reportTx(ctx context.Context, q Querier, req triage.StartRequest, seen triage.StartResult, o store.Occurrence) (store.Saved, error) {
	now := t.s.now()
	id, inserted, err := t.insertOccurrence(ctx, q, o, req.Key)
	if err != nil {
		return store.Saved{}, err
	}
	claim, args := claimFirstSQL, []any{t.id, req.Key, nanos(now), nanos(now.Add(-store.ClaimLease))}
	if inserted {
		claim, args = claimSavedSQL, append(args, id)
	}
	n, err := q.Exec(ctx, claim, args...)
	if err != nil {
		return store.Saved{}, err
	}
	if n == 0 {
		return store.Saved{}, store.ErrReportMoved // claimed or saved meanwhile
	}
	if seen.Attempt == 1 {
		n, err = q.Exec(ctx, `INSERT INTO attempts (tenant, attempt_key, n, updated_at) VALUES ($1, $2, 1, $3)
			ON CONFLICT (tenant, attempt_key) DO NOTHING`, t.id, req.AttemptKey, nanos(now))
	} else {
		n, err = q.Exec(ctx, `UPDATE attempts SET n = n + 1, updated_at = $3
			WHERE tenant = $1 AND attempt_key = $2 AND n = $4`, t.id, req.AttemptKey, nanos(now), seen.Attempt-1)
	}
	if err != nil {
		return store.Saved{}, err
	}
	if n == 0 {
		return store.Saved{}, store.ErrReportMoved // counted meanwhile
	}
	to := failureAt(req.At)
	if err := t.keepFailure(ctx, q, req.Agent, req.Code, to, to-int64(max(req.Window, 0))); err != nil {
		return store.Saved{}, err
	}
	if !inserted {
		return store.Saved{}, t.completeAnew(ctx, q, o) // saved already: see saveTx
	}
	saved, err := t.recordOccurrence(ctx, q, o, id)
	if err != nil {
		return store.Saved{}, err
	}
	jobs, held, err := t.holdEscalation(ctx, q, o.Jobs)
	if err != nil {
		return store.Saved{}, err
	}
	saved.Held = held
	return saved, t.enqueueAll(ctx, q, jobs)
}

// reportCTE is Report in one statement, where the dialect has writable
// CTEs: saveCTE, after the claim (which takes the occurrence's id from
// its sequence, and so completes the delivery as it claims it), the
// attempt's compare and set, and the failure's record, each only when
// the one before wrote. Under READ COMMITTED a claim or an attempt row
// another transaction is writing waits for it to end, and is then read
// again: a claim committed meanwhile leaves claimed empty (nothing is
// written), an attempt counted meanwhile leaves attempt empty, and the
// final SELECT then fails on purpose (a cast of reportMoved to an
// integer), which rolls the statement back, claim included. So does an
// occurrence saved meanwhile under the key (a lost claim taken over:
// reportSaved, for Start's way). The record is upserted before the
// occurrence is inserted (the record points at the occurrence's id, and
// the occurrence is found by the record's seq, occurrences_by_record):
// the rollback takes its count back with the rest, and the count of its
// hour (countHourSQL).
//
// The occurrence's id comes from its identity column's sequence, named as
// PostgreSQL names it (occurrences_id_seq, in the schema the statement is
// prepared in): pg_get_serial_sequence looked the name up in pg_depend
// at every call, ~8 µs of the statement's ~440.
//
// $1-$25 are saveCTE's; $26 the lapsed claims' bound, $27 the attempt
// key, $28 the attempts counted when peeked, $29 and $30 the failure's
// agent and code, $31 its time and $32 the window's start; $33 the
// subject of the escalation the statement may hold (heldEscalation,
// holdSQL: held counts it, and its job is not inserted), $34 the bound
// of its throttle's interval, $35 its position in the jobs' arrays, from
// 1 (0: none).
const reportCTE = `
WITH id AS (
	SELECT nextval('occurrences_id_seq') AS id
), claimed AS (
	INSERT INTO deliveries (tenant, delivery_key, claimed_at, occurrence_id) SELECT $1, $2, $15, id FROM id
	ON CONFLICT (tenant, delivery_key) DO UPDATE SET claimed_at = excluded.claimed_at, occurrence_id = excluded.occurrence_id
		WHERE ` + inFlightClaim + ` AND deliveries.claimed_at < $26
	RETURNING 1
), counted AS (
	INSERT INTO attempts (tenant, attempt_key, n, updated_at)
	SELECT $1, $27, 1, $15 WHERE $28::bigint = 0 AND EXISTS (SELECT 1 FROM claimed)
	ON CONFLICT (tenant, attempt_key) DO NOTHING
	RETURNING n
), bumped AS (
	UPDATE attempts SET n = n + 1, updated_at = $15
	WHERE tenant = $1 AND attempt_key = $27 AND n = $28::bigint AND $28::bigint > 0 AND EXISTS (SELECT 1 FROM claimed)
	RETURNING n
), attempt AS (
	SELECT n FROM counted UNION ALL SELECT n FROM bumped
), recorded AS (
	INSERT INTO history (tenant, agent, code, at)
	SELECT $1, $29, $30, $31 WHERE EXISTS (SELECT 1 FROM attempt)
	RETURNING 1
), forgotten AS (
	DELETE FROM history
	WHERE tenant = $1 AND agent = $29 AND code = $30 AND ` + ForgottenFailures + `$32 AND EXISTS (SELECT 1 FROM attempt)
	RETURNING 1
), r AS (
	INSERT INTO records (tenant, error_id, query_id, agent_id, error_type, severity,
		first_seen, last_seen, occurrence_count, latest_id, first_release, last_release, last_environment, code, title)
	SELECT $1, $3, $4, $5, $6, $7, $11, $11, 1, id, $22::text, $22::text, $23::text, $24, $25 FROM id
	WHERE EXISTS (SELECT 1 FROM attempt)` + recordConflictSQL + `, seq, last_seen, agent_id, code
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
), held AS (
	UPDATE alert_throttles SET held = held + 1
	WHERE tenant = $1 AND rule = '` + triage.EscalationRule + `' AND subject = $33::text AND held > 0 AND sent_at <> 0
		AND sent_at > $34::bigint AND $35::bigint > 0 AND EXISTS (SELECT 1 FROM o)
	RETURNING 1
), j AS (
	INSERT INTO river_job (args, kind, max_attempts, state, scheduled_at, metadata)
	SELECT u.args::jsonb, u.kind, u.max_attempts, u.state::river_job_state, u.scheduled_at, u.metadata::jsonb
	FROM o, unnest($16::text[], $17::text[], $18::smallint[], $19::text[], $20::timestamptz[], $21::text[])
		WITH ORDINALITY AS u(args, kind, max_attempts, state, scheduled_at, metadata, n)
	WHERE NOT (u.n = $35::bigint AND EXISTS (SELECT 1 FROM held))
	RETURNING 1
)
SELECT (CASE WHEN NOT EXISTS (SELECT 1 FROM claimed) THEN '0'
		WHEN NOT EXISTS (SELECT 1 FROM attempt) THEN '` + reportMoved + `'
		WHEN NOT EXISTS (SELECT 1 FROM o) THEN '` + reportSaved + `'
		ELSE '1' END)::int,
	(SELECT id FROM o), r.occurrence_count = 1, r.status, r.workflow, EXISTS (SELECT 1 FROM held)
FROM (SELECT 1 AS one) AS x LEFT JOIN r ON TRUE`

// reportOneStatement is Report with reportCTE: one round trip.
func (t *tenant) reportOneStatement(ctx context.Context, req triage.StartRequest, seen triage.StartResult, o store.Occurrence) (store.Saved, error) {
	now := t.s.now()
	jobs, err := t.jobArrays(o.Jobs)
	if err != nil {
		return store.Saved{}, err
	}
	to := nanos(req.At)
	var (
		state     int
		id        *int64
		isNew     *bool
		status    *string
		doc       *string
		held      bool
		subject   string
		heldBound int64
	)
	hi := heldEscalation(o.Jobs)
	if hi >= 0 {
		subject, heldBound = o.Jobs[hi].ErrorID, nanos(now.Add(-o.Jobs[hi].Throttle))
	}
	err = t.s.db.Writer().QueryRow(ctx, t.s.report,
		t.id, req.Key, o.ErrorID, o.QueryID, o.AgentID, o.ErrorType, o.Severity,
		o.NextAction, o.Attempt, nanos(o.ReportedAt), nanos(o.ReceivedAt), text(o.Report), text(o.Feedback),
		text(o.Actions), nanos(now), jobs.args, jobs.kinds, jobs.maxAttempts, jobs.states, jobs.scheduledAt, jobs.metadata,
		o.Release, o.Environment, o.Code, o.Title,
		nanos(now.Add(-store.ClaimLease)), req.AttemptKey, int64(seen.Attempt-1), req.Agent, req.Code, to,
		to-int64(max(req.Window, 0)), subject, heldBound, int64(hi+1)).Scan(&state, &id, &isNew, &status, &doc, &held)
	switch {
	case err != nil && strings.Contains(err.Error(), reportMoved):
		return store.Saved{}, store.ErrReportMoved
	case err != nil && strings.Contains(err.Error(), reportSaved):
		return store.Saved{}, store.ErrTwoStep
	case err != nil:
		return store.Saved{}, err
	case state == 0:
		return store.Saved{}, store.ErrReportMoved // claimed or saved meanwhile
	case id == nil || isNew == nil || status == nil:
		return store.Saved{}, fmt.Errorf("report: the statement saved no record (state %d)", state)
	}
	saved := store.Saved{ID: *id, NewRecord: *isNew}
	if held {
		saved.Held = 1
	}
	return t.afterStatement(ctx, o, saved, *status, doc)
}
