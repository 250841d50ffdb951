package sqlstore

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/triage-go/triage/store"
)

// summaryColumns are the columns scanSummary reads: the sequence number,
// then the record's fields and its latest occurrence's next action, from
// recordFrom. No document: a listing reads a few small columns per
// record, whatever the size of the reports (the documents are TOASTed
// out of line on PostgreSQL, and on SQLite they follow next_action in the
// row, on overflow pages not read).
const summaryColumns = `r.seq, r.error_id, r.query_id, r.agent_id, r.error_type, r.severity,
	r.first_seen, r.last_seen, r.occurrence_count, COALESCE(o.next_action, ''),
	r.status, r.workflow, r.first_release, r.last_release, r.last_environment, r.code, r.title`

// recordColumns are summaryColumns and the report and the feedback: the
// latest occurrence's (or, for a record written before records pointed at
// it, the record's own copy).
const recordColumns = summaryColumns + `, COALESCE(o.report, r.report), COALESCE(o.feedback, r.feedback)`

// recordFrom joins a record to its latest occurrence.
const recordFrom = `records r LEFT JOIN occurrences o ON o.id = r.latest_id`

// scanSummary reads summaryColumns, then more; the record's status is
// as it reads at now (Workflow.StatusAt).
func (t *tenant) scanSummary(row Row, r *store.RecordSummary, now time.Time, more ...any) (seq int64, err error) {
	var (
		first, last int64
		status      string
		doc         *string
	)
	err = row.Scan(append([]any{&seq, &r.ErrorID, &r.QueryID, &r.AgentID, &r.ErrorType, &r.Severity,
		&first, &last, &r.Count, &r.NextAction, &status, &doc, &r.FirstRelease, &r.LastRelease, &r.LastEnvironment,
		&r.Code, &r.Title}, more...)...)
	if err != nil {
		return seq, err
	}
	r.FirstSeen, r.LastSeen = fromNanos(first), fromNanos(last)
	if r.Title == "" {
		r.Title = r.ErrorType // saved before records kept a title
	}
	if r.Workflow, err = decodeWorkflow(status, doc); err != nil {
		return seq, err
	}
	r.Status = r.Workflow.StatusAt(now)
	return seq, nil
}

// ErrorRecord returns an error's record with the first page of its
// occurrences and its latest jobs, in one snapshot.
func (t *tenant) ErrorRecord(ctx context.Context, errorID string) (store.Record, bool, error) {
	var r store.Record
	err := t.read(ctx, func(q Querier) error {
		r = store.Record{}
		seq, err := t.scanSummary(q.QueryRow(ctx, `SELECT `+recordColumns+` FROM `+recordFrom+` WHERE r.tenant = $1 AND r.error_id = $2`,
			t.id, errorID), &r.RecordSummary, t.s.now(), docDest(&r.Report), docDest(&r.Feedback))
		if err != nil {
			return err
		}
		r.Report, r.Feedback = nilIfEmpty(r.Report), nilIfEmpty(r.Feedback)
		budget := store.PageBytes - int64(len(r.Report)+len(r.Feedback))
		page, err := t.occurrences(ctx, q, seq, store.DefaultOccurrenceLimit, budget, nil)
		if err != nil {
			return err
		}
		r.Occurrences, r.OccurrencesNext = page.Occurrences, page.Next
		r.Jobs, r.MoreJobs, err = t.s.queue.ListTx(ctx, q, t.id, errorID, 0, store.RecordJobs)
		if err != nil {
			return err
		}
		if r.MoreJobs {
			r.JobsNext = encodeJobCursor(r.Jobs[len(r.Jobs)-1].ID)
		}
		slices.Reverse(r.Jobs) // the record's are by ID, oldest first
		return nil
	})
	if errors.Is(err, sql.ErrNoRows) {
		return store.Record{}, false, nil
	}
	if err != nil {
		return store.Record{}, false, t.s.errorf("get record", err)
	}
	return r, true, nil
}

// Occurrences returns a page of an error's occurrences, the latest
// received first.
func (t *tenant) Occurrences(ctx context.Context, errorID string, f store.OccurrenceFilter) (store.OccurrencePage, bool, error) {
	var after *occurrenceKey
	if f.Cursor != "" {
		k, err := decodeOccurrenceCursor(f.Cursor)
		if err != nil {
			return store.OccurrencePage{}, false, t.s.errorf("list occurrences", err)
		}
		after = &k
	}
	limit := f.Limit
	switch {
	case limit <= 0:
		limit = store.DefaultOccurrenceLimit
	case limit > store.MaxOccurrenceLimit:
		limit = store.MaxOccurrenceLimit
	}
	budget := f.MaxBytes
	if budget <= 0 {
		budget = store.PageBytes
	}
	var page store.OccurrencePage
	found := false
	err := t.read(ctx, func(q Querier) error {
		var seq int64
		err := q.QueryRow(ctx, `SELECT seq FROM records WHERE tenant = $1 AND error_id = $2`, t.id, errorID).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) {
			found = false
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		page, err = t.occurrences(ctx, q, seq, limit, budget, after)
		return err
	})
	if err != nil {
		return store.OccurrencePage{}, false, t.s.errorf("list occurrences", err)
	}
	if !found {
		return store.OccurrencePage{}, false, nil
	}
	return page, true, nil
}

// occurrenceKey is where an occurrence stands in the order of the pages:
// by received_at, then ID, the latest first.
type occurrenceKey struct{ received, id int64 }

// occurrences reads a page of the occurrences of the record whose seq is
// seq in q (its range of occurrences_by_record): those after
// after (from the latest when nil), at most limit, and no more than fit in
// budget bytes of documents but always one. It reads the sizes of the
// documents first (from the rows' headers on SQLite, the TOAST pointers
// on PostgreSQL: the documents are not read), then the documents of the
// occurrences that fit: it holds the page and nothing more.
func (t *tenant) occurrences(ctx context.Context, q Querier, seq int64, limit int, budget int64,
	after *occurrenceKey) (store.OccurrencePage, error) {
	sizes, docs, args := occurrencePageSQL(t.id, seq, limit, after)
	page := store.OccurrencePage{Occurrences: []store.Occurrence{}}
	var (
		last       occurrenceKey
		n          int
		used       int64
		more, full bool
	)
	rows, err := q.Query(ctx, sizes, args...)
	err = scanAll(rows, err, func(row Row) error {
		if full {
			return nil
		}
		var (
			k    occurrenceKey
			size int64
		)
		if err := row.Scan(&k.received, &k.id, &size); err != nil {
			return err
		}
		if n == limit || (n > 0 && used+size > budget) {
			more, full = true, true
			return nil
		}
		last, n, used = k, n+1, used+size
		return nil
	})
	if err != nil || n == 0 {
		return page, err
	}
	// The documents of the n that fit: down to the last of them.
	args[len(args)-1] = n
	rows, err = q.Query(ctx, docs, append(args, last.received, last.id)...)
	err = scanAll(rows, err, func(row Row) error {
		o, err := scanOccurrence(row)
		page.Occurrences = append(page.Occurrences, o)
		return err
	})
	if err != nil {
		return page, err
	}
	if more {
		page.Next = encodeOccurrenceCursor(last)
	}
	return page, nil
}

// OccurrencePageSQL is occurrencePageSQL for the plan tests, after the
// page a cursor ends ("" for the first).
func OccurrencePageSQL(tenant string, seq int64, limit int, cursor string) (sizes, docs string, args []any, err error) {
	var after *occurrenceKey
	if cursor != "" {
		k, err := decodeOccurrenceCursor(cursor)
		if err != nil {
			return "", "", nil, err
		}
		after = &k
	}
	sizes, docs, args = occurrencePageSQL(tenant, seq, limit, after)
	return sizes, docs, args, nil
}

// occurrencePageSQL returns the two reads of a page of the occurrences of
// tenant's record whose seq is seq, the latest received first, after
// after (from the latest when nil): sizes reads the keys and documents'
// sizes of limit+1 (one more tells whether there is a next page), docs
// the documents down to the last that fits, given as two more arguments
// (its received_at and id) after args, whose last (sizes' limit) the
// caller sets to how many fit. Both read the record's range of
// occurrences_by_record (the plan tests check it).
func occurrencePageSQL(tenant string, seq int64, limit int, after *occurrenceKey) (sizes, docs string, args []any) {
	where := ` FROM occurrences WHERE tenant = $1 AND record_seq = $2`
	args = []any{tenant, seq}
	if after != nil {
		where += ` AND (received_at < $3 OR (received_at = $3 AND id < $4))`
		args = append(args, after.received, after.id)
	}
	args = append(args, limit+1)
	n := len(args)
	order := ` ORDER BY received_at DESC, id DESC LIMIT $` + strconv.Itoa(n)
	sizes = `SELECT received_at, id, COALESCE(octet_length(report), 0) + COALESCE(octet_length(feedback), 0)
		+ COALESCE(octet_length(actions), 0)` + where + order
	docs = `SELECT ` + occurrenceColumns + where + ` AND (received_at > $` + strconv.Itoa(n+1) +
		` OR (received_at = $` + strconv.Itoa(n+1) + ` AND id >= $` + strconv.Itoa(n+2) + `))` + order
	return sizes, docs, args
}

// occurrenceCursorPrefix tells an occurrences' cursor from a records' one.
const occurrenceCursorPrefix = "occ:"

// encodeOccurrenceCursor is the cursor continuing a page of occurrences
// after the one at k.
func encodeOccurrenceCursor(k occurrenceKey) string {
	return base64.RawURLEncoding.EncodeToString([]byte(occurrenceCursorPrefix +
		strconv.FormatInt(k.received, 10) + ":" + strconv.FormatInt(k.id, 10)))
}

// decodeOccurrenceCursor reads a cursor encodeOccurrenceCursor made; any
// other string is store.ErrBadCursor.
func decodeOccurrenceCursor(c string) (occurrenceKey, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return occurrenceKey{}, store.ErrBadCursor
	}
	rest, ok := strings.CutPrefix(string(b), occurrenceCursorPrefix)
	received, id, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 {
		return occurrenceKey{}, store.ErrBadCursor
	}
	var k occurrenceKey
	k.received, err = strconv.ParseInt(received, 10, 64)
	if err != nil {
		return occurrenceKey{}, store.ErrBadCursor
	}
	k.id, err = strconv.ParseInt(id, 10, 64)
	if err != nil || k.id <= 0 {
		return occurrenceKey{}, store.ErrBadCursor
	}
	return k, nil
}

// errorJobs returns the latest n jobs of an error, by ID, with their
// attempts, and whether it has older ones.
// ErrorJobs returns a page of an error's jobs, the latest first.
func (t *tenant) ErrorJobs(ctx context.Context, errorID string, f store.JobFilter) (store.JobPage, bool, error) {
	var before int64
	if f.Cursor != "" {
		var err error
		if before, err = decodeJobCursor(f.Cursor); err != nil {
			return store.JobPage{}, false, t.s.errorf("list jobs", err)
		}
	}
	n := f.Limit
	switch {
	case n <= 0:
		n = store.RecordJobs
	case n > store.MaxJobLimit:
		n = store.MaxJobLimit
	}
	var page store.JobPage
	found := false
	err := t.read(ctx, func(q Querier) error {
		page = store.JobPage{Jobs: []store.Job{}}
		var one int
		err := q.QueryRow(ctx, `SELECT 1 FROM records WHERE tenant = $1 AND error_id = $2`, t.id, errorID).Scan(&one)
		if found = err == nil; errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		jobs, more, err := t.s.queue.ListTx(ctx, q, t.id, errorID, before, n)
		if err != nil {
			return err
		}
		page.Jobs = jobs
		if more {
			page.Next = encodeJobCursor(jobs[len(jobs)-1].ID)
		}
		return nil
	})
	if err != nil {
		return store.JobPage{}, false, t.s.errorf("list jobs", err)
	}
	return page, found, nil
}

// jobCursorPrefix tells a jobs' cursor from the others.
const jobCursorPrefix = "job:"

// encodeJobCursor is the cursor continuing a record's jobs below the job
// id.
func encodeJobCursor(id int64) string { return encodeIDCursor(jobCursorPrefix, id) }

// decodeJobCursor reads a cursor encodeJobCursor made; any other string
// is store.ErrBadCursor.
func decodeJobCursor(c string) (int64, error) { return decodeIDCursor(jobCursorPrefix, c) }

// where builds a list's WHERE clause and its arguments, the tenant's
// first ($1).
type where struct {
	strings.Builder
	args []any
}

func newWhere(tenantColumn, tenant string) *where {
	w := &where{args: []any{tenant}}
	w.WriteString(tenantColumn + " = $1")
	return w
}

// arg adds v to the arguments and returns its placeholder.
func (w *where) arg(v any) string {
	w.args = append(w.args, v)
	return "$" + strconv.Itoa(len(w.args))
}

// cond adds "AND column op $n" for v (column holds its operator).
func (w *where) cond(column string, v any) {
	w.WriteString(" AND " + column + " " + w.arg(v))
}

// equal adds "AND column = $n" when v is set.
func (w *where) equal(column, v string) {
	if v != "" {
		w.cond(column+" =", v)
	}
}

// CountOccurrences counts an error's occurrences received at or after
// since, up to atMost: a walk of at most atMost entries of
// occurrences_by_record (tenant, record_seq, received_at, id), after a
// look-up of the record's seq.
func (t *tenant) CountOccurrences(ctx context.Context, errorID string, since time.Time, atMost int) (int, error) {
	if atMost <= 0 {
		return 0, nil
	}
	var n int
	err := t.s.db.Reader().QueryRow(ctx, CountOccurrencesSQL,
		t.id, errorID, nanos(since), atMost).Scan(&n)
	if err != nil {
		return 0, t.s.errorf("count occurrences", err)
	}
	return n, nil
}

// CountOccurrencesSQL is CountOccurrences' query: $1 the tenant, $2 the
// error, $3 since (nanoseconds), $4 atMost. Its plan tests check that it
// reads the record's seq through the records' unique index, then
// occurrences_by_record's range only.
const CountOccurrencesSQL = `SELECT count(*) FROM (SELECT 1 FROM occurrences
	WHERE tenant = $1 AND record_seq = (SELECT seq FROM records WHERE tenant = $1 AND error_id = $2)
	AND received_at >= $3 LIMIT $4) AS c`
