package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/triage-go/triage/store"
)

// StartRun records a run as running, in one statement: an insert that
// does nothing on (tenant, run_id) taken.
func (t *tenant) StartRun(ctx context.Context, r store.Run) (store.Run, error) {
	run, commit, err := t.StartRunEarly(ctx, r)
	if err == nil {
		err = commit()
	}
	if err != nil {
		return store.Run{}, err
	}
	return run, nil
}

// StartRunEarly is StartRun's insert, answered before its commit where
// the database's writer can (EarlyExecer: SQLite's group commit), and
// once committed otherwise (PostgreSQL's single statement: commit then
// has nothing left to wait for).
func (t *tenant) StartRunEarly(ctx context.Context, r store.Run) (store.Run, func() error, error) {
	for _, c := range []struct {
		what, id string
		required bool
	}{{"run id", r.RunID, true}, {"thread id", r.ThreadID, false}, {"agent id", r.AgentID, true}} {
		if err := checkRunID(c.what, c.id, c.required); err != nil {
			return store.Run{}, nil, t.s.errorf("start run", err)
		}
	}
	run := store.Run{RunID: r.RunID, ThreadID: r.ThreadID, AgentID: r.AgentID, Outcome: store.RunRunning,
		StartedAt: fromNanos(nanos(t.s.now()))}
	const insert = `
		INSERT INTO runs (tenant, run_id, thread_id, agent_id, outcome, started_at, finished_at, fault, answer_bytes)
		VALUES ($1, $2, $3, $4, $5, $6, 0, NULL, 0)
		ON CONFLICT (tenant, run_id) DO NOTHING`
	args := []any{t.id, run.RunID, run.ThreadID, run.AgentID, run.Outcome, nanos(run.StartedAt)}
	var (
		n      int64
		commit func() error
		err    error
	)
	if ew, ok := t.s.db.Writer().(EarlyExecer); ok {
		n, commit, err = ew.ExecEarly(ctx, insert, args...)
	} else {
		n, err = t.s.db.Writer().Exec(ctx, insert, args...)
	}
	if err == nil && n == 0 {
		// The id is taken: a 409 only once the transaction that found
		// it taken commits (had it failed, a start that took the id in
		// that same transaction would have lost it too).
		if commit != nil {
			err = commit()
		}
		if err == nil {
			err = fmt.Errorf("%w: %q", store.ErrRunExists, r.RunID)
		}
	}
	if err != nil {
		return store.Run{}, nil, t.s.errorf("start run", err)
	}
	if commit == nil {
		return run, func() error { return nil }, nil
	}
	return run, func() error {
		if err := commit(); err != nil {
			return t.s.errorf("start run", err)
		}
		return nil
	}, nil
}

// FinishRun records how a running run ended, in one statement: an update
// of the row still running, which returns it.
func (t *tenant) FinishRun(ctx context.Context, runID string, end store.RunEnd) (store.Run, error) {
	run, err := t.finishRun(ctx, runID, end)
	if err != nil {
		return store.Run{}, t.s.errorf("finish run", err)
	}
	return run, nil
}

func (t *tenant) finishRun(ctx context.Context, runID string, end store.RunEnd) (store.Run, error) {
	if err := checkRunEnd(end); err != nil {
		return store.Run{}, err
	}
	if !isText(runID) {
		return store.Run{}, fmt.Errorf("%w: %q", store.ErrNoRun, runID) // never stored
	}
	run := store.Run{RunID: runID, Outcome: end.Outcome, FinishedAt: fromNanos(nanos(t.s.now())),
		Fault: nilIfEmpty(end.Fault), AnswerBytes: end.AnswerBytes}
	events, err := encodeRunEvents(end.Events, end.EventsOmitted)
	if err != nil {
		return store.Run{}, err
	}
	run.Events, run.EventsOmitted = normalEvents(end.Events), end.EventsOmitted
	// The end's position: the transaction's ID on PostgreSQL, the next
	// number on SQLite, whose writes are one at a time.
	pos := `(SELECT COALESCE(max(ended_pos), 0) + 1 FROM runs)`
	if t.s.d.XidPositions {
		pos = `pg_current_xact_id()`
	}
	var started int64
	update := func(q Execer) error {
		return q.QueryRow(ctx, `
		UPDATE runs SET outcome = $3, finished_at = $4, fault = $5, answer_bytes = $6, code = $7, events = $8, `+t.s.d.runEndColumn()+` = `+pos+`
		WHERE tenant = $1 AND run_id = $2 AND outcome = 'running'
		RETURNING thread_id, agent_id, started_at`,
			t.id, runID, run.Outcome, nanos(run.FinishedAt), text(run.Fault), run.AnswerBytes, faultCode(run.Fault), text(events)).Scan(&run.ThreadID, &run.AgentID, &started)
	}
	if len(end.Jobs) == 0 {
		err = update(t.s.db.Writer()) // one statement
	} else {
		// The end and its jobs commit together: a failed run's recording
		// is durable as soon as its end is, and never enqueued for a run
		// that ended already.
		err = t.write(ctx, func(q Querier) error {
			if err := update(q); err != nil {
				return err
			}
			return t.enqueueAll(ctx, q, end.Jobs)
		})
	}
	if errors.Is(err, sql.ErrNoRows) {
		// Ended already, or none: the row tells which.
		_, found, gerr := t.getRun(ctx, runID)
		switch {
		case gerr != nil:
			return store.Run{}, gerr
		case found:
			return store.Run{}, fmt.Errorf("%w: %q", store.ErrRunEnded, runID)
		}
		return store.Run{}, fmt.Errorf("%w: %q", store.ErrNoRun, runID)
	}
	if err != nil {
		return store.Run{}, err
	}
	run.StartedAt = fromNanos(started)
	return run, nil
}

// runEndColumn is the column of a run's end position: ended_xid (xid8)
// where positions are transaction IDs, else ended_pos.
func (d Dialect) runEndColumn() string {
	if d.XidPositions {
		return "ended_xid"
	}
	return "ended_pos"
}

// RunsEndedAfterSQL is RunsEndedAfter's query in d: $1 the tenant, $2 the
// position after, $3 the limit; it reads the tenant's range of its
// positions' index (runs_by_tenant_end, runs_by_end on PostgreSQL).
func RunsEndedAfterSQL(d Dialect) string {
	if d.XidPositions {
		// Only transactions older than the snapshot's xmin have ended:
		// every end still to commit has an xid at or above it.
		return `SELECT ended_xid::text::bigint, run_id, thread_id, agent_id, outcome, started_at, finished_at, fault, answer_bytes, error_id
			FROM runs WHERE tenant = $1 AND ended_xid > $2::bigint::text::xid8 AND ended_xid < pg_snapshot_xmin(pg_current_snapshot())
			ORDER BY runs.ended_xid LIMIT $3`
	}
	return `SELECT ended_pos, run_id, thread_id, agent_id, outcome, started_at, finished_at, fault, answer_bytes, error_id
		FROM runs WHERE tenant = $1 AND ended_pos > $2 ORDER BY ended_pos LIMIT $3`
}

// RunsEndedAfter returns the tenant's runs ended after the position after,
// as FeedbackAfter reads the occurrences.
func (t *tenant) RunsEndedAfter(ctx context.Context, after int64, limit int) ([]store.EndedRun, error) {
	query := RunsEndedAfterSQL(t.s.d)
	var out []store.EndedRun
	rows, err := t.s.db.Reader().Query(ctx, query, t.id, after, max(limit, 0))
	err = scanAll(rows, err, func(row Row) error {
		var (
			e                 store.EndedRun
			started, finished int64
		)
		var errorID *string
		err := row.Scan(&e.Pos, &e.Run.RunID, &e.Run.ThreadID, &e.Run.AgentID, &e.Run.Outcome, &started, &finished,
			docDest(&e.Run.Fault), &e.Run.AnswerBytes, &errorID)
		e.Run.ErrorID = deref(errorID)
		e.Run.StartedAt, e.Run.FinishedAt, e.Run.Fault = fromNanos(started), fromNanos(finished), nilIfEmpty(e.Run.Fault)
		out = append(out, e)
		return err
	})
	if err != nil {
		return nil, t.s.errorf("runs ended after", err)
	}
	return out, nil
}

// LatestRunEnd returns the position at which a reader of ended runs
// starting now stands (see LatestOccurrence).
func (t *tenant) LatestRunEnd(ctx context.Context) (int64, error) {
	query := `SELECT COALESCE(max(ended_pos), 0) FROM runs`
	if t.s.d.XidPositions {
		query = `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint - 1`
	}
	var pos int64
	if err := t.s.db.Reader().QueryRow(ctx, query).Scan(&pos); err != nil {
		return 0, t.s.errorf("latest run end", err)
	}
	return pos, nil
}

// LinkRun sets a run's error_id, in one statement, and moves an ended
// run's end position on, so that RunsEndedAfter's readers (the event
// stream's "run" events) are told of it again, now with its record.
func (t *tenant) LinkRun(ctx context.Context, runID, errorID string) error {
	if err := checkRunID("error id", errorID, true); err != nil {
		return t.s.errorf("link run", err)
	}
	if !isText(runID) {
		return t.s.errorf("link run", fmt.Errorf("%w: %q", store.ErrNoRun, runID)) // never stored
	}
	pos := `(SELECT COALESCE(max(ended_pos), 0) + 1 FROM runs)` // as finishRun
	if t.s.d.XidPositions {
		pos = `pg_current_xact_id()`
	}
	col := t.s.d.runEndColumn()
	n, err := t.s.db.Writer().Exec(ctx, `UPDATE runs SET error_id = $3, `+col+` = CASE WHEN outcome = 'running' THEN `+col+` ELSE `+pos+` END
		WHERE tenant = $1 AND run_id = $2`, t.id, runID, errorID)
	if err == nil && n == 0 {
		err = fmt.Errorf("%w: %q", store.ErrNoRun, runID)
	}
	if err != nil {
		return t.s.errorf("link run", err)
	}
	return nil
}

// GetRun returns a run's record.
func (t *tenant) GetRun(ctx context.Context, runID string) (store.Run, bool, error) {
	run, found, err := t.getRun(ctx, runID)
	if err != nil {
		return store.Run{}, false, t.s.errorf("get run", err)
	}
	return run, found, nil
}

func (t *tenant) getRun(ctx context.Context, runID string) (store.Run, bool, error) {
	if !isText(runID) {
		return store.Run{}, false, nil // never stored
	}
	run := store.Run{RunID: runID}
	var (
		started, finished int64
		errorID           *string
		events            json.RawMessage
	)
	err := t.s.db.Reader().QueryRow(ctx, `
		SELECT thread_id, agent_id, outcome, started_at, finished_at, fault, answer_bytes, error_id, events
		FROM runs WHERE tenant = $1 AND run_id = $2`,
		t.id, runID).Scan(&run.ThreadID, &run.AgentID, &run.Outcome, &started, &finished, docDest(&run.Fault), &run.AnswerBytes, &errorID, docDest(&events))
	run.ErrorID = deref(errorID)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Run{}, false, nil
	}
	if err != nil {
		return store.Run{}, false, err
	}
	if run.Events, run.EventsOmitted, err = decodeRunEvents(events); err != nil {
		return store.Run{}, false, err
	}
	run.StartedAt, run.FinishedAt, run.Fault = fromNanos(started), fromNanos(finished), nilIfEmpty(run.Fault)
	return run, true, nil
}

// checkRunID refuses an id the runs table may not hold: see
// store.ErrInvalidRun.
func checkRunID(what, id string, required bool) error {
	switch {
	case id == "" && required:
		return fmt.Errorf("%w: the %s is empty", store.ErrInvalidRun, what)
	case len(id) > store.MaxRunIDBytes:
		return fmt.Errorf("%w: the %s is %d bytes long, over %d (store.MaxRunIDBytes)", store.ErrInvalidRun, what, len(id), store.MaxRunIDBytes)
	case !isText(id):
		return fmt.Errorf("%w: the %s %q is not UTF-8 text without NULs", store.ErrInvalidRun, what, id)
	}
	return nil
}

// checkRunEnd refuses an end FinishRun may not record: see
// store.ErrInvalidRun.
func checkRunEnd(end store.RunEnd) error {
	switch end.Outcome {
	case store.RunFinished, store.RunDisconnected, store.RunShutdown:
		if len(end.Fault) > 0 {
			return fmt.Errorf("%w: a %s run has no fault", store.ErrInvalidRun, end.Outcome)
		}
	case store.RunFailed:
		switch {
		case len(end.Fault) == 0:
			return fmt.Errorf("%w: a failed run needs its fault", store.ErrInvalidRun)
		case len(end.Fault) > store.MaxRunFaultBytes:
			return fmt.Errorf("%w: the fault is %d bytes, over %d (store.MaxRunFaultBytes)", store.ErrInvalidRun, len(end.Fault), store.MaxRunFaultBytes)
		case !utf8.Valid(end.Fault) || !json.Valid(end.Fault) || !bytes.HasPrefix(bytes.TrimSpace(end.Fault), []byte("{")):
			return fmt.Errorf("%w: the fault is not a JSON object in UTF-8", store.ErrInvalidRun)
		}
	default:
		return fmt.Errorf("%w: unknown outcome %q", store.ErrInvalidRun, end.Outcome)
	}
	if end.AnswerBytes < 0 {
		return fmt.Errorf("%w: negative answer_bytes %d", store.ErrInvalidRun, end.AnswerBytes)
	}
	return checkRunEvents(end.Events, end.EventsOmitted)
}

// faultCode is the code of a failed run's fault, kept in its own column
// for ListRuns' filter; nil for no fault or a fault without one.
func faultCode(doc json.RawMessage) any {
	if len(doc) == 0 {
		return nil
	}
	var f struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(doc, &f) != nil || f.Code == "" || !isText(f.Code) {
		return nil
	}
	return f.Code
}

// ListRuns returns a page of the tenant's runs, the latest started first,
// by the runs_by_tenant_start index (runs_by_agent_start for an agent).
func (t *tenant) ListRuns(ctx context.Context, f store.RunFilter) (store.RunPage, error) {
	for _, v := range []string{f.AgentID, f.Outcome, f.Code} {
		if v != "" && !isText(v) {
			return store.RunPage{Runs: []store.Run{}}, nil // never stored
		}
	}
	query, args, err := ListRunsSQL(t.id, f)
	if err != nil {
		return store.RunPage{}, t.s.errorf("list runs", err)
	}
	n := pageSize(f.Limit)
	page := store.RunPage{Runs: []store.Run{}}
	rows, err := t.s.db.Reader().Query(ctx, query, args...)
	err = scanAll(rows, err, func(row Row) error {
		var (
			r                 store.Run
			started, finished int64
			errorID           *string
		)
		if err := row.Scan(&r.RunID, &r.ThreadID, &r.AgentID, &r.Outcome, &started, &finished, docDest(&r.Fault), &r.AnswerBytes, &errorID); err != nil {
			return err
		}
		r.ErrorID = deref(errorID)
		if len(page.Runs) == n {
			last := page.Runs[n-1]
			page.Next = encodeRunCursor(nanos(last.StartedAt), last.RunID)
			return nil
		}
		r.StartedAt, r.FinishedAt, r.Fault = fromNanos(started), fromNanos(finished), nilIfEmpty(r.Fault)
		page.Runs = append(page.Runs, r)
		return nil
	})
	if err != nil {
		return store.RunPage{}, t.s.errorf("list runs", err)
	}
	return page, nil
}

// ListRunsSQL is ListRuns' query of tenant's runs that f selects, with
// its arguments: one more than the page, to tell whether there is a next.
func ListRunsSQL(tenant string, f store.RunFilter) (string, []any, error) {
	w := newWhere("tenant", tenant)
	w.equal("agent_id", f.AgentID)
	w.equal("outcome", f.Outcome)
	w.equal("code", f.Code)
	if !f.Since.IsZero() {
		w.cond("started_at >=", nanos(f.Since))
	}
	if f.Cursor != "" {
		started, runID, err := decodeRunCursor(f.Cursor)
		if err != nil {
			return "", nil, err
		}
		at := w.arg(started)
		w.WriteString(" AND (started_at < " + at + " OR started_at = " + at + " AND run_id < " + w.arg(runID) + ")")
	}
	query := `SELECT run_id, thread_id, agent_id, outcome, started_at, finished_at, fault, answer_bytes, error_id FROM runs WHERE ` +
		w.String() + ` ORDER BY started_at DESC, run_id DESC LIMIT ` + w.arg(pageSize(f.Limit)+1)
	return query, w.args, nil
}

// runCursorPrefix marks a cursor of ListRuns: the last run's start (in
// nanoseconds) and its id.
const runCursorPrefix = "run1:"

func encodeRunCursor(started int64, runID string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(runCursorPrefix + strconv.FormatInt(started, 10) + ":" + runID))
}

// decodeRunCursor reads a cursor encodeRunCursor made; any other string
// is store.ErrBadCursor.
func decodeRunCursor(c string) (int64, string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, "", store.ErrBadCursor
	}
	rest, ok := strings.CutPrefix(string(b), runCursorPrefix)
	if !ok {
		return 0, "", store.ErrBadCursor
	}
	digits, runID, ok := strings.Cut(rest, ":")
	started, err := strconv.ParseInt(digits, 10, 64)
	if !ok || err != nil || started < 0 || runID == "" || !isText(runID) {
		return 0, "", store.ErrBadCursor
	}
	return started, runID, nil
}

// deref is a nullable text column's value, "" for NULL.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
