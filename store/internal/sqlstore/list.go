package sqlstore

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/triage-go/triage/store"
)

// FullText is how a dialect searches the records (store.Filter.Search).
type FullText struct {
	// From, when set, is a table m of the seq of the records that match
	// the full-text query at the placeholder %s, which a search reads
	// first, then each record by its key; else Match is the condition,
	// on records r, that r matches it.
	From, Match string
	// Query is the full-text query of store.ParseSearch's terms: each
	// term a prefix of a word, all of them. The terms are letters and
	// digits only: quoted, they cannot be read as the query's syntax.
	Query func(terms []string) string
}

// FTS5 searches the records_fts table (SQLite's FTS5, migration 0016):
// "db"* AND "timeout"*. The matches are read first (CROSS JOIN keeps
// SQLite to that order), then sorted: as a condition, SQLite walked the
// sort's index through every record of the tenant to find a page of a
// rare word's (33 ms for two words matching none, at 100k records).
var FTS5 = FullText{
	From: `(SELECT rowid AS seq FROM records_fts WHERE records_fts MATCH %s) AS m`,
	Query: func(terms []string) string {
		q := make([]string, len(terms))
		for i, t := range terms {
			q[i] = `"` + t + `"*`
		}
		return strings.Join(q, " AND ")
	},
}

// TSVector searches the records' search column (PostgreSQL's full text,
// migration 0017): 'db':* & 'timeout':*.
var TSVector = FullText{
	Match: `r.search @@ to_tsquery('simple', %s)`,
	Query: func(terms []string) string {
		q := make([]string, len(terms))
		for i, t := range terms {
			q[i] = `'` + t + `':*`
		}
		return strings.Join(q, " & ")
	},
}

// ErrorRecords lists record summaries in f's sort, with their total.
func (t *tenant) ErrorRecords(ctx context.Context, f store.Filter) (store.Page, error) {
	now := t.s.now()
	l, err := listRecords(t.s.d, now, t.id, f)
	if err != nil {
		return store.Page{}, t.s.errorf("list records", err)
	}
	if b, ok := t.s.db.(Behind); ok && f.Search != "" {
		// The index behind the records catches up first: the search
		// sees every record committed before it.
		if err := b.CatchUp(ctx); err != nil {
			return store.Page{}, t.s.errorf("list records", err)
		}
	}
	page := store.Page{Records: []store.RecordSummary{}}
	err = t.read(ctx, func(q Querier) error {
		page = store.Page{Records: []store.RecordSummary{}}
		var last listKey
		query, total := l.query, l.total
		if l.listedQuery != "" {
			// No record behind the listing's indexes in this snapshot:
			// they hold every record, and the statements need not merge.
			var behind bool
			if err := q.QueryRow(ctx, t.s.d.AnyUnlisted).Scan(&behind); err != nil {
				return err
			}
			if !behind {
				query, total = l.listedQuery, l.listedTotal
			}
		}
		rows, err := q.Query(ctx, query, l.args...)
		err = scanAll(rows, err, func(row Row) error {
			var (
				r store.RecordSummary
				k listKey
			)
			dest := []any{}
			if l.windowed {
				dest = append(dest, &k.n)
			}
			seq, err := t.scanSummary(row, &r, now, dest...)
			if err != nil {
				return err
			}
			if len(page.Records) == l.size {
				page.Next = l.encode(last)
				return nil
			}
			switch l.sort {
			case store.SortLastSeen:
				k.n = nanos(r.LastSeen)
			case store.SortCount:
				if !l.windowed {
					k.n = int64(r.Count)
				}
			}
			k.seq, r.WindowCount = seq, k.n*boolInt(l.windowed)
			page.Records, last = append(page.Records, r), k
			return nil
		})
		if err != nil {
			return err
		}
		if err := q.QueryRow(ctx, total, l.totalArgs...).Scan(&page.Total); err != nil {
			return err
		}
		if page.Total > store.TotalCap {
			page.Total, page.TotalCapped = store.TotalCap, true
		}
		return nil
	})
	if err != nil {
		return store.Page{}, t.s.errorf("list records", err)
	}
	return page, nil
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// listKey is where a record stands in a listing's order: its sort's value
// (last_seen in nanoseconds, or a count; none for first_seen), then its
// seq, the greatest first.
type listKey struct{ n, seq int64 }

// recordList is a listing's statements: the page's (one more record than
// the page, to tell whether there is a next) and its total's.
type recordList struct {
	query, total    string
	args, totalArgs []any
	// listedQuery and listedTotal, when set, are query and total for a
	// snapshot in which every record is listed (Dialect.Listed): the
	// listed records alone, through their indexes.
	listedQuery, listedTotal string
	sort                     string
	windowed                 bool
	// hours are a windowed listing's: from the first to the one before
	// end, which its cursor keeps, so that its pages count the same hours.
	hour, end int64
	size      int
}

// encode is the cursor continuing l after k.
func (l recordList) encode(k listKey) string {
	return encodeListCursor(l.sort, l.windowed, l.hour, l.end, k)
}

// ErrorRecordsSQL is ErrorRecords' query in d, at now, of tenant's
// records that f selects, with its arguments, for the plan tests.
func ErrorRecordsSQL(d Dialect, now time.Time, tenant string, f store.Filter) (string, []any, error) {
	l, err := listRecords(d, now, tenant, f)
	return l.query, l.args, err
}

// listRecords builds the statements of a listing in d, at now.
func listRecords(d Dialect, now time.Time, tenant string, f store.Filter) (recordList, error) {
	l := recordList{sort: f.Sort, size: pageSize(f.Limit)}
	if l.sort == "" {
		l.sort = store.SortLastSeen
	}
	switch l.sort {
	case store.SortLastSeen, store.SortFirstSeen, store.SortCount:
	default:
		return l, fmt.Errorf("unknown sort %q", f.Sort)
	}
	if f.Window != 0 {
		if l.sort != store.SortCount || f.Window < time.Hour || f.Window > store.MaxWindow || f.Window%time.Hour != 0 {
			return l, fmt.Errorf("a window is whole hours from 1 to %v, with the count sort", store.MaxWindow)
		}
		l.windowed = true
		l.end = now.Unix()/3600 + 1
		l.hour = l.end - int64(f.Window/time.Hour)
	}
	var after *listKey
	if f.Cursor != "" {
		k, hour, end, err := decodeListCursor(f.Cursor, l.sort, l.windowed)
		if err != nil {
			return l, err
		}
		after = &k
		if l.windowed {
			l.hour, l.end = hour, end
		}
	}
	w := newWhere("r.tenant", tenant)
	from := recordFrom
	if l.windowed {
		// The records seen in the window, with their counts in it.
		from = `(SELECT seq, CAST(sum(n) AS BIGINT) AS n FROM record_counts WHERE tenant = $1 AND hour >= ` + w.arg(l.hour) + ` AND hour < ` + w.arg(l.end) +
			` GROUP BY seq) c CROSS JOIN records r LEFT JOIN occurrences o ON o.id = r.latest_id`
		// CROSS JOIN: SQLite reads c first and looks each record up
		// (PostgreSQL reorders as it sees fit), by its key: record_counts
		// is keyed by the record's seq.
		w.WriteString(" AND r.seq = c.seq")
	}
	filterRecords(w, f, now)
	if f.SessionID != "" {
		w.WriteString(" AND r.error_id IN (" + sessionRecordsSQL(d, w, f.SessionID) + ")")
	}
	if f.QueryID != "" && d.ByQuery != "" && !l.windowed && f.Search == "" {
		// A query's records, however few, read through its range and
		// sorted: as many as the total counts (at most TotalCap), never
		// the tenant's others. (A window or a search reads its own
		// matches first.)
		from = strings.Replace(recordFrom, "records r", d.ByQuery, 1)
	}
	if f.Search != "" {
		terms, err := store.ParseSearch(f.Search)
		if err != nil {
			return l, err
		}
		query := w.arg(d.FullText.Query(terms))
		if d.FullText.From != "" {
			from = fmt.Sprintf(d.FullText.From, query) + ` CROSS JOIN ` + from
			w.WriteString(" AND r.seq = m.seq")
		} else {
			w.WriteString(" AND " + fmt.Sprintf(d.FullText.Match, query))
		}
	}
	// Where the listing's indexes are written behind (Dialect.Listed),
	// the listed records are read through them, the others through the
	// table, and merged. A search or a window reads its matches first.
	behind := d.Listed != "" && !l.windowed && f.Search == ""
	if behind {
		listed := `(SELECT count(*) FROM (SELECT 1 FROM ` + from + ` WHERE ` + w.String() + ` AND ` + d.Listed + ` LIMIT ` +
			strconv.Itoa(store.TotalCap+1) + `) AS m)`
		l.total = `SELECT ` + listed + ` + (SELECT count(*) FROM ` + recordFrom + ` WHERE ` + w.String() + ` AND ` + d.Unlisted + `)`
		l.listedTotal = `SELECT ` + listed
	} else {
		l.total = `SELECT count(*) FROM (SELECT 1 FROM ` + from + ` WHERE ` + w.String() + ` LIMIT ` +
			strconv.Itoa(store.TotalCap+1) + `) AS m`
	}
	l.totalArgs = append([]any(nil), w.args...)

	var key, order string
	switch {
	case l.windowed:
		key, order = "c.n", "c.n DESC, r.seq DESC"
	case l.sort == store.SortLastSeen:
		key, order = "r.last_seen", "r.last_seen DESC, r.seq DESC"
	case l.sort == store.SortCount:
		key, order = "r.occurrence_count", "r.occurrence_count DESC, r.seq DESC"
	default:
		order = "r.seq DESC"
	}
	if after != nil {
		if key == "" {
			w.cond("r.seq <", after.seq)
		} else {
			w.WriteString(" AND (" + key + ", r.seq) < (" + w.arg(after.n) + ", " + w.arg(after.seq) + ")")
		}
	}
	cols := summaryColumns
	if l.windowed {
		cols += ", c.n"
	}
	limit := w.arg(l.size + 1)
	l.query = `SELECT ` + cols + ` FROM ` + from + ` WHERE ` + w.String() + ` ORDER BY ` + order + ` LIMIT ` + limit
	if behind {
		l.listedQuery = `SELECT ` + cols + ` FROM ` + from + ` WHERE ` + w.String() + ` AND ` + d.Listed + ` ORDER BY ` + order + ` LIMIT ` + limit
		l.query = ListedFirst(d, cols, from, recordFrom, w.String(), order, limit)
	}
	l.args = w.args
	return l, nil
}

// ListedFirst is `SELECT cols FROM from WHERE where ORDER BY order LIMIT
// limit` where d writes the listing's indexes behind (Dialect.Listed):
// the records listed through from (which walks their indexes), the
// unlisted ones through unlisted (the table: a range of seq), each
// part's order walked or sorted, then merged. order's columns are
// records r's, and cols must name each of them once.
func ListedFirst(d Dialect, cols, from, unlisted, where, order, limit string) string {
	// The compound's order names its result columns.
	return `SELECT * FROM (SELECT ` + cols + ` FROM ` + from + ` WHERE ` + where + ` AND ` + d.Listed +
		` ORDER BY ` + order + ` LIMIT ` + limit + `) AS listed UNION ALL SELECT * FROM (SELECT ` + cols + ` FROM ` + unlisted +
		` WHERE ` + where + ` AND ` + d.Unlisted + `) AS unlisted ORDER BY ` + strings.ReplaceAll(order, "r.", "") + ` LIMIT ` + limit
}

// listCursorPrefix marks a listing's cursor: "rec2:" then its sort (and,
// windowed, "@" and its first and end hours), the key's value and seq. The cursors
// of before sorts ("rec:" and a seq) read as first_seen's.
const listCursorPrefix = "rec2:"

func encodeListCursor(sort string, windowed bool, hour, end int64, k listKey) string {
	if sort == store.SortFirstSeen {
		return encodeCursor(k.seq)
	}
	if windowed {
		sort += "@" + strconv.FormatInt(hour, 10) + "-" + strconv.FormatInt(end, 10)
	}
	return base64.RawURLEncoding.EncodeToString([]byte(listCursorPrefix + sort + ":" +
		strconv.FormatInt(k.n, 10) + ":" + strconv.FormatInt(k.seq, 10)))
}

// decodeListCursor reads a cursor encodeListCursor made for sort (and a
// window, when windowed): any other string is store.ErrBadCursor.
func decodeListCursor(c, sort string, windowed bool) (k listKey, hour, end int64, err error) {
	if sort == store.SortFirstSeen {
		k.seq, err = decodeCursor(c)
		return k, 0, 0, err
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return listKey{}, 0, 0, store.ErrBadCursor
	}
	rest, ok := strings.CutPrefix(string(b), listCursorPrefix)
	parts := strings.Split(rest, ":")
	if !ok || len(parts) != 3 {
		return listKey{}, 0, 0, store.ErrBadCursor
	}
	name, window, hasWindow := strings.Cut(parts[0], "@")
	if name != sort || hasWindow != windowed {
		return listKey{}, 0, 0, store.ErrBadCursor
	}
	if windowed {
		first, last, ok := strings.Cut(window, "-")
		hour, err = strconv.ParseInt(first, 10, 64)
		if err != nil || !ok {
			return listKey{}, 0, 0, store.ErrBadCursor
		}
		if end, err = strconv.ParseInt(last, 10, 64); err != nil || end <= hour {
			return listKey{}, 0, 0, store.ErrBadCursor
		}
	}
	k.n, err = strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return listKey{}, 0, 0, store.ErrBadCursor
	}
	k.seq, err = strconv.ParseInt(parts[2], 10, 64)
	if err != nil || k.seq <= 0 {
		return listKey{}, 0, 0, store.ErrBadCursor
	}
	return k, hour, end, nil
}
