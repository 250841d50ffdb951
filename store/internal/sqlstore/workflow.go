package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// A record's workflow is kept on its row: the whole triage.Workflow as
// JSON (workflow; NULL for a record nobody changed, which is unresolved),
// and, for the listing's filter and its index, its status, the instant an
// ignore for a time lapses (wake_at, 0 for none) and its assignee. One
// function writes them all (writeWorkflow), so they never disagree. The
// rules are the root's (Workflow.Apply, Workflow.Occur), run here inside
// the transaction that saves the change or the occurrence, with the row
// locked (FOR UPDATE on PostgreSQL; SQLite's writes are one at a time).

// bulkBatch is how many records one write of ChangeRecords changes: a
// write holds SQLite's writer, so a large change goes in short writes.
const bulkBatch = 500

// decodeWorkflow is the workflow a record's row keeps.
func decodeWorkflow(status string, doc *string) (triage.Workflow, error) {
	if doc == nil || *doc == "" {
		return triage.Workflow{Status: triage.Status(status)}, nil
	}
	var w triage.Workflow
	if err := json.Unmarshal([]byte(*doc), &w); err != nil {
		return triage.Workflow{}, errors.New("a record's workflow is not valid JSON")
	}
	return w, nil
}

// occurs tells whether an occurrence may change w: only a resolved or an
// ignored record's workflow has anything to decide.
func occurs(w triage.Workflow) bool {
	return w.Status == triage.StatusResolved || w.Status == triage.StatusIgnored
}

// occur is the save's workflow step for o on its record, whose workflow
// is w, in q's transaction (the occurrence saved in it, or committed
// before it): Workflow.Occur, and the new workflow and the transition
// written when they changed.
func (t *tenant) occur(ctx context.Context, q Querier, o store.Occurrence, w triage.Workflow) (triage.Workflow, *triage.Transition, error) {
	if !occurs(w) {
		return w, nil, nil
	}
	var fixed string
	if w.Resolution != nil {
		fixed = w.Resolution.InRelease
	}
	releases, err := t.releaseOrder(ctx, q, o.Release, fixed)
	if err != nil {
		return w, nil, err
	}
	var countErr error
	next, tr := w.Occur(triage.Occurred{At: o.ReceivedAt, Release: o.Release,
		InWindow: func(window time.Duration) int {
			var n int
			atMost := 1
			if w.Ignore != nil {
				atMost = max(w.Ignore.Count, 1)
			}
			countErr = q.QueryRow(ctx, CountOccurrencesSQL, t.id, o.ErrorID, nanos(o.ReceivedAt.Add(-window)), atMost).Scan(&n)
			return n
		}}, releases)
	if countErr != nil {
		return w, nil, countErr
	}
	if tr == nil && sameDoc(w, next) {
		return w, nil, nil
	}
	if err := t.writeWorkflow(ctx, q, o.ErrorID, next); err != nil {
		return w, nil, err
	}
	if tr != nil {
		if err := t.addTransition(ctx, q, o.ErrorID, tr); err != nil {
			return w, nil, err
		}
	}
	return next, tr, nil
}

// sameDoc reports whether a and b are kept as the same document.
func sameDoc(a, b triage.Workflow) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// writeWorkflow writes w on an error's record: its document and the
// columns derived from it.
func (t *tenant) writeWorkflow(ctx context.Context, q Querier, errorID string, w triage.Workflow) error {
	doc, err := json.Marshal(w)
	if err != nil {
		return err
	}
	var wake int64
	if w.Status == triage.StatusIgnored && w.Ignore != nil {
		wake = nanos(w.Ignore.Until)
	}
	_, err = q.Exec(ctx, `UPDATE records SET status = $3, wake_at = $4, assignee = $5, workflow = $6
		WHERE tenant = $1 AND error_id = $2`, t.id, errorID, string(w.Status), wake, w.Assignee, string(doc))
	return err
}

// addTransition keeps tr in an error's history.
func (t *tenant) addTransition(ctx context.Context, q Querier, errorID string, tr *triage.Transition) error {
	doc, err := json.Marshal(tr)
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, `INSERT INTO record_transitions (tenant, error_id, at, doc) VALUES ($1, $2, $3, $4)`,
		t.id, errorID, nanos(tr.At), string(doc))
	return err
}

// lockWorkflow reads an error's record's workflow in q, its row locked
// until q ends; false when there is no such record.
func (t *tenant) lockWorkflow(ctx context.Context, q Querier, errorID string) (triage.Workflow, bool, error) {
	var (
		status string
		doc    *string
	)
	err := q.QueryRow(ctx, `SELECT status, workflow FROM records WHERE tenant = $1 AND error_id = $2`+t.s.d.ForUpdate,
		t.id, errorID).Scan(&status, &doc)
	if errors.Is(err, sql.ErrNoRows) {
		return triage.Workflow{}, false, nil
	}
	if err != nil {
		return triage.Workflow{}, false, err
	}
	w, err := decodeWorkflow(status, doc)
	return w, err == nil, err
}

// upsertRelease adds o's release, when it names one, to the tenant's
// releases (where it is new, after every other).
func (t *tenant) upsertRelease(ctx context.Context, q Querier, o store.Occurrence) error {
	if o.Release == "" {
		return nil
	}
	_, err := q.Exec(ctx, `INSERT INTO releases (tenant, name, first_seen) VALUES ($1, $2, $3)
		ON CONFLICT (tenant, name) DO NOTHING`, t.id, o.Release, nanos(o.ReceivedAt))
	return err
}

// releaseOrder is the order of the releases names in the tenant's
// releases, for Workflow.Occur: a release never reported comes after
// every other.
func (t *tenant) releaseOrder(ctx context.Context, q Querier, names ...string) (triage.Releases, error) {
	ids := map[string]int64{}
	for _, name := range names {
		if name == "" {
			continue
		}
		var id int64
		err := q.QueryRow(ctx, `SELECT id FROM releases WHERE tenant = $1 AND name = $2`, t.id, name).Scan(&id)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return triage.Releases{}, err
		default:
			ids[name] = id
		}
	}
	return triage.Releases{Later: func(a, b string) bool {
		ia, okA := ids[a]
		ib, okB := ids[b]
		switch {
		case !okA:
			return true
		case !okB:
			return false
		}
		return ia > ib
	}}, nil
}

// latestRelease is the tenant's latest release ("" for none), for a
// resolution in the next release.
func (t *tenant) latestRelease(ctx context.Context, q Querier) (string, error) {
	var name string
	err := q.QueryRow(ctx, `SELECT name FROM releases WHERE tenant = $1 ORDER BY id DESC LIMIT 1`, t.id).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return name, err
}

// nextRelease tells whether c asks for the next release (which reads the
// latest).
func nextRelease(c triage.Change) bool {
	return c.Resolution != nil && c.Resolution.InNextRelease
}

// ChangeRecord applies c to an error's record in one write: the row
// locked, Workflow.Apply, the workflow and the transition written, and
// the record's summary read back.
func (t *tenant) ChangeRecord(ctx context.Context, errorID string, c triage.Change, by string) (store.Changed, bool, error) {
	var (
		out      store.Changed
		found    bool
		applyErr error
	)
	now := t.s.now()
	err := t.write(ctx, func(q Querier) error {
		out, found, applyErr = store.Changed{}, false, nil
		w, ok, err := t.lockWorkflow(ctx, q, errorID)
		if err != nil || !ok {
			return err
		}
		found = true
		var releases triage.Releases
		if nextRelease(c) {
			if releases.Latest, err = t.latestRelease(ctx, q); err != nil {
				return err
			}
		}
		next, tr, err := w.Apply(c, by, now, releases)
		if err != nil {
			applyErr = err // nothing written: the transaction commits nothing
			return nil
		}
		if tr != nil {
			if err := t.writeWorkflow(ctx, q, errorID, next); err != nil {
				return err
			}
			if err := t.addTransition(ctx, q, errorID, tr); err != nil {
				return err
			}
		}
		out.Transition = tr
		_, err = t.scanSummary(q.QueryRow(ctx, `SELECT `+summaryColumns+` FROM `+recordFrom+` WHERE r.tenant = $1 AND r.error_id = $2`,
			t.id, errorID), &out.Record, now)
		return err
	})
	if err != nil {
		return store.Changed{}, false, t.s.errorf("change record", err)
	}
	if applyErr != nil {
		return store.Changed{}, true, applyErr
	}
	return out, found, nil
}

// ChangeRecords applies c to the records f selects, bulkBatch records a
// write, walking them by seq, the latest first: a record the change moves
// out of f's selection (by status) is behind the walk, so it ends.
func (t *tenant) ChangeRecords(ctx context.Context, f store.Filter, c triage.Change, by string) ([]string, error) {
	if f.SessionID != "" {
		// The listing's alone: a bulk change must never ignore a filter.
		return nil, t.s.errorf("change records", errors.New("a bulk change has no session filter"))
	}
	now := t.s.now()
	var releases triage.Releases
	if nextRelease(c) {
		var err error
		if releases.Latest, err = t.latestRelease(ctx, t.s.db.Reader()); err != nil {
			return nil, t.s.errorf("change records", err)
		}
	}
	// An invalid change is refused before any record is changed.
	if _, _, err := (triage.Workflow{Status: triage.StatusUnresolved}).Apply(c, by, now, releases); err != nil {
		return nil, err
	}
	var total []string
	after := int64(math.MaxInt64)
	for {
		n, last, changed := 0, int64(0), []string(nil)
		err := t.write(ctx, func(q Querier) error {
			n, last, changed = 0, 0, nil
			w := recordWhere(t.id, f, now)
			w.cond("r.seq <", after)
			query := BulkSQL(t.s.d, w.String(), w.arg(bulkBatch))
			type row struct {
				id string
				w  triage.Workflow
			}
			var batch []row
			rows, err := q.Query(ctx, query, w.args...)
			err = scanAll(rows, err, func(r Row) error {
				var (
					seq    int64
					id     string
					status string
					doc    *string
				)
				if err := r.Scan(&seq, &id, &status, &doc); err != nil {
					return err
				}
				wf, err := decodeWorkflow(status, doc)
				batch, last, n = append(batch, row{id, wf}), seq, n+1
				return err
			})
			if err != nil {
				return err
			}
			if nextRelease(c) {
				if releases.Latest, err = t.latestRelease(ctx, q); err != nil {
					return err
				}
			}
			for _, r := range batch {
				next, tr, err := r.w.Apply(c, by, now, releases)
				if err != nil {
					return err
				}
				if tr == nil {
					continue
				}
				if err := t.writeWorkflow(ctx, q, r.id, next); err != nil {
					return err
				}
				if err := t.addTransition(ctx, q, r.id, tr); err != nil {
					return err
				}
				changed = append(changed, r.id)
			}
			return nil
		})
		if err != nil {
			return total, t.s.errorf("change records", err)
		}
		total = append(total, changed...)
		if n < bulkBatch {
			return total, nil
		}
		after = last
	}
}

// recordWhere is the WHERE clause selecting the tenant's records f
// selects (but its Cursor), at now (Status as Workflow.StatusAt reads
// it): an ignored record whose wake_at has passed is unresolved.
func recordWhere(tenant string, f store.Filter, now time.Time) *where {
	w := newWhere("r.tenant", tenant)
	filterRecords(w, f, now)
	return w
}

// BulkSQL is a bulk change's read of its next records in d: those where
// holds, the latest first seen first, at most limit. (Listed first where
// the listing's indexes are written behind: a status's records are a
// range of records_by_status, and the unlisted ones a range of seq.)
func BulkSQL(d Dialect, where, limit string) string {
	const cols, order = `r.seq, r.error_id, r.status, r.workflow`, `r.seq DESC`
	if d.Listed != "" {
		return ListedFirst(d, cols, "records r", "records r", where, order, limit) + d.ForUpdate
	}
	return `SELECT ` + cols + ` FROM records r WHERE ` + where + ` ORDER BY ` + order + ` LIMIT ` + limit + d.ForUpdate
}

// filterRecords adds to w the conditions of f's fields on records r (all
// but its Search, Sort, Window, Limit and Cursor), at now.
func filterRecords(w *where, f store.Filter, now time.Time) {
	w.equal("r.query_id", f.QueryID)
	w.equal("r.agent_id", f.AgentID)
	w.equal("r.error_type", f.ErrorType)
	w.equal("r.severity", f.Severity)
	w.equal("r.last_environment", f.Environment)
	if f.Release != "" {
		rel := w.arg(f.Release)
		w.WriteString(" AND (r.first_release = " + rel + " OR r.last_release = " + rel + ")")
	}
	if !f.Since.IsZero() {
		w.cond("r.last_seen >=", nanos(f.Since))
	}
	switch f.Status {
	case "":
	case triage.StatusUnresolved:
		n := w.arg(nanos(now))
		w.WriteString(` AND (r.status = 'unresolved' OR (r.status = 'ignored' AND r.wake_at <> 0 AND r.wake_at <= ` + n + `))`)
	case triage.StatusIgnored:
		n := w.arg(nanos(now))
		w.WriteString(` AND r.status = 'ignored' AND (r.wake_at = 0 OR r.wake_at > ` + n + `)`)
	default:
		w.cond("r.status =", string(f.Status))
	}
	if len(f.ErrorIDs) > 0 {
		ph := make([]string, len(f.ErrorIDs))
		for i, id := range f.ErrorIDs {
			ph[i] = w.arg(id)
		}
		w.WriteString(" AND r.error_id IN (" + strings.Join(ph, ", ") + ")")
	}
}

// RecordHistory returns a page of an error's transitions, the latest
// first, by id.
func (t *tenant) RecordHistory(ctx context.Context, errorID string, f store.HistoryFilter) (triage.TransitionPage, bool, error) {
	after := int64(math.MaxInt64)
	if f.Cursor != "" {
		var err error
		if after, err = decodeHistoryCursor(f.Cursor); err != nil {
			return triage.TransitionPage{}, false, t.s.errorf("record history", err)
		}
	}
	n := pageSize(f.Limit)
	page := triage.TransitionPage{Transitions: []triage.Transition{}}
	found := false
	err := t.read(ctx, func(q Querier) error {
		page.Transitions, page.Next = []triage.Transition{}, ""
		var one int
		err := q.QueryRow(ctx, `SELECT 1 FROM records WHERE tenant = $1 AND error_id = $2`, t.id, errorID).Scan(&one)
		if found = err == nil; errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		var last int64
		rows, err := q.Query(ctx, `SELECT id, doc FROM record_transitions WHERE tenant = $1 AND error_id = $2 AND id < $3
			ORDER BY id DESC LIMIT $4`, t.id, errorID, after, n+1)
		return scanAll(rows, err, func(row Row) error {
			var (
				id  int64
				doc string
			)
			if err := row.Scan(&id, &doc); err != nil {
				return err
			}
			if len(page.Transitions) == n {
				page.Next = encodeHistoryCursor(last)
				return nil
			}
			var tr triage.Transition
			if err := json.Unmarshal([]byte(doc), &tr); err != nil {
				return errors.New("a transition is not valid JSON")
			}
			page.Transitions, last = append(page.Transitions, tr), id
			return nil
		})
	})
	if err != nil {
		return triage.TransitionPage{}, false, t.s.errorf("record history", err)
	}
	return page, found, nil
}

// historyCursorPrefix tells a history's cursor from the others.
const historyCursorPrefix = "hist:"

func encodeHistoryCursor(id int64) string { return encodeIDCursor(historyCursorPrefix, id) }

// decodeHistoryCursor reads a cursor encodeHistoryCursor made; any other
// string is store.ErrBadCursor.
func decodeHistoryCursor(c string) (int64, error) { return decodeIDCursor(historyCursorPrefix, c) }

// RecordWhereSQL is the WHERE clause of the listing (ErrorRecords) and
// of a bulk change for tenant's records f selects at now, on records r,
// with its arguments. Its plan tests check that a status filter reads
// records_by_status, in order.
func RecordWhereSQL(tenant string, f store.Filter, now time.Time) (string, []any) {
	w := recordWhere(tenant, f, now)
	return w.String(), w.args
}
