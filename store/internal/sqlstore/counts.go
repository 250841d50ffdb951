package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/triage-go/triage/store"
)

// RecordCounts returns an error's series from record_counts.
func (t *tenant) RecordCounts(ctx context.Context, errorID string, f store.CountFilter) (store.Counts, bool, error) {
	f.By, f.ErrorIDs, f.Limit = store.CountByRecord, []string{errorID}, 1
	var (
		c     store.Counts
		found bool
	)
	err := t.read(ctx, func(q Querier) error {
		var one int
		err := q.QueryRow(ctx, `SELECT 1 FROM records WHERE tenant = $1 AND error_id = $2`, t.id, errorID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			found = false
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		c, err = t.counts(ctx, q, f)
		if err == nil && len(c.Series) == 0 {
			c.Series = []store.CountSeries{{Key: errorID, Counts: make([]int64, countBuckets(c))}}
		}
		return err
	})
	if err != nil {
		return store.Counts{}, false, t.s.errorf("record counts", err)
	}
	return c, found, nil
}

// Counts returns the series f asks for.
func (t *tenant) Counts(ctx context.Context, f store.CountFilter) (store.Counts, error) {
	var c store.Counts
	err := t.read(ctx, func(q Querier) error {
		var err error
		c, err = t.counts(ctx, q, f)
		return err
	})
	if err != nil {
		return store.Counts{}, t.s.errorf("counts", err)
	}
	return c, nil
}

// countBuckets is how many buckets c's range holds.
func countBuckets(c store.Counts) int {
	step := time.Hour
	if c.Bucket == "day" {
		step = 24 * time.Hour
	}
	return int(c.Until.Sub(c.Since) / step)
}

// CountsSQL is the statements of the series f asks for, for the plan
// tests: top, the keys' totals (the Limit with most occurrences), with
// its arguments; then buckets(keys), the buckets of those keys, with its
// arguments.
//
// record_counts is keyed by the record's seq (migrations 0022 on SQLite,
// 0023 on PostgreSQL: a new record's count appends): a series by record
// sums by seq and then looks each sum's record up by its key for its
// error ID,
// and the records asked for by error ID are found by the records' unique
// index first.
func CountsSQL(tenant string, f store.CountFilter, first, hours, n int64) (top string, args []any,
	buckets func(keys []string) (string, []any), err error) {
	var key string
	switch f.By {
	case "", store.CountByRecord:
		key = "seq"
	case store.CountByAgent:
		key = "agent_id"
	case store.CountByCode:
		key = "code"
	default:
		return "", nil, nil, fmt.Errorf("unknown series %q", f.By)
	}
	byRecord := key == "seq"
	w := newWhere("tenant", tenant)
	w.cond("hour >=", first)
	w.cond("hour <", first+hours*n)
	in := func(w *where, column string, values []string) {
		list := make([]string, len(values))
		for i, v := range values {
			list[i] = w.arg(v)
		}
		if byRecord {
			w.WriteString(" AND seq IN (SELECT seq FROM records WHERE tenant = $1 AND error_id IN (" + strings.Join(list, ", ") + "))")
			return
		}
		w.WriteString(" AND " + column + " IN (" + strings.Join(list, ", ") + ")")
	}
	if len(f.ErrorIDs) > 0 {
		if !byRecord || len(f.ErrorIDs) > store.MaxLimit {
			return "", nil, nil, fmt.Errorf("error ids select at most %d records, of series by record", store.MaxLimit)
		}
		in(w, key, f.ErrorIDs)
	}
	limit := countLimit(f.Limit)
	cond, condArgs := w.String(), slices.Clone(w.args)
	if byRecord {
		// Each record's error ID by its key, a subquery per row: as a join,
		// PostgreSQL read every record (a hash join) once the range held
		// a tenth of them.
		top = `SELECT ` + errorIDOfSeq + ` AS error_id, c.total FROM (SELECT seq, CAST(sum(n) AS BIGINT) AS total FROM record_counts WHERE ` + cond +
			` GROUP BY seq) AS c ORDER BY total DESC, error_id LIMIT ` + w.arg(limit)
	} else {
		top = `SELECT ` + key + `, CAST(sum(n) AS BIGINT) AS total FROM record_counts WHERE ` + cond +
			` GROUP BY ` + key + ` ORDER BY total DESC, ` + key + ` LIMIT ` + w.arg(limit)
	}
	buckets = func(keys []string) (string, []any) {
		b := &where{args: slices.Clone(condArgs)}
		b.WriteString(cond)
		if keys != nil {
			in(b, key, keys)
		}
		q := `SELECT ` + key + `, (hour - $2) / ` + fmt.Sprint(hours) + ` AS b, CAST(sum(n) AS BIGINT) AS m FROM record_counts WHERE ` +
			b.String() + ` GROUP BY ` + key + `, b`
		if byRecord {
			q = `SELECT ` + errorIDOfSeq + `, c.b, c.m FROM (` + q + `) AS c`
		}
		return q, b.args
	}
	return top, w.args, buckets, nil
}

// errorIDOfSeq is the error ID of the record of c.seq, looked up by its key.
const errorIDOfSeq = `(SELECT r.error_id FROM records AS r WHERE r.seq = c.seq)`

// counts reads the series f asks for in q.
func (t *tenant) counts(ctx context.Context, q Querier, f store.CountFilter) (store.Counts, error) {
	first, hours, n, err := f.Range(t.s.now())
	if err != nil {
		return store.Counts{}, err
	}
	c := store.Counts{By: f.By, Bucket: "hour", Since: time.Unix(first*3600, 0).UTC(), Until: time.Unix((first+hours*n)*3600, 0).UTC(),
		Series: []store.CountSeries{}}
	if c.By == "" {
		c.By = store.CountByRecord
	}
	if hours == 24 {
		c.Bucket = "day"
	}
	top, args, buckets, err := CountsSQL(t.id, f, first, hours, n)
	if err != nil {
		return store.Counts{}, err
	}
	if c.By != store.CountByRecord {
		// An agent's or a code's buckets are few (keys × buckets rows):
		// one read of the range gives them all, and the totals.
		return c, t.countAll(ctx, q, &c, buckets, n, f.Limit)
	}
	index := map[string]int{}
	rows, err := q.Query(ctx, top, args...)
	err = scanAll(rows, err, func(row Row) error {
		var s store.CountSeries
		if err := row.Scan(&s.Key, &s.Total); err != nil {
			return err
		}
		index[s.Key] = len(c.Series)
		s.Counts = make([]int64, n)
		c.Series = append(c.Series, s)
		return nil
	})
	if err != nil || len(c.Series) == 0 {
		return c, err
	}
	keys := make([]string, len(c.Series))
	for i, s := range c.Series {
		keys[i] = s.Key
	}
	query, args := buckets(keys)
	rows, err = q.Query(ctx, query, args...)
	err = scanAll(rows, err, func(row Row) error {
		var (
			key  string
			b, m int64
		)
		if err := row.Scan(&key, &b, &m); err != nil {
			return err
		}
		if i, ok := index[key]; ok && b >= 0 && b < n {
			c.Series[i].Counts[b] = m
		}
		return nil
	})
	return c, err
}

// countAll reads every key's buckets of c's range in one query (buckets
// of no key), and keeps the limit with most occurrences.
func (t *tenant) countAll(ctx context.Context, q Querier, c *store.Counts, buckets func([]string) (string, []any), n int64, limit int) error {
	index := map[string]int{}
	query, args := buckets(nil)
	rows, err := q.Query(ctx, query, args...)
	err = scanAll(rows, err, func(row Row) error {
		var (
			key  string
			b, m int64
		)
		if err := row.Scan(&key, &b, &m); err != nil {
			return err
		}
		i, ok := index[key]
		if !ok {
			i, index[key] = len(c.Series), len(c.Series)
			c.Series = append(c.Series, store.CountSeries{Key: key, Counts: make([]int64, n)})
		}
		if b >= 0 && b < n {
			c.Series[i].Counts[b] += m
			c.Series[i].Total += m
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(c.Series, func(a, b store.CountSeries) int {
		if a.Total != b.Total {
			return cmp.Compare(b.Total, a.Total)
		}
		return strings.Compare(a.Key, b.Key)
	})
	c.Series = c.Series[:min(len(c.Series), countLimit(limit))]
	return nil
}

// countLimit is how many series a filter's Limit asks for.
func countLimit(limit int) int {
	switch {
	case limit <= 0:
		return store.DefaultCountSeries
	case limit > store.MaxCountSeries:
		return store.MaxCountSeries
	}
	return limit
}
