package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/triage-go/triage"
)

// Counts are the root package's: store keeps its name for them.
type (
	Counts      = triage.Counts
	CountSeries = triage.CountSeries
)

// Trends are a tenant's occurrences counted per record and hour, kept as
// the occurrences are saved (in the save's transaction), with each
// record's agent and code, so that a series by record, agent or code
// reads the counts, never the occurrences.
type Trends interface {
	// RecordCounts returns an error's series (f.By and f.ErrorIDs are
	// ignored), and false when the tenant has no such error.
	RecordCounts(ctx context.Context, errorID string, f CountFilter) (Counts, bool, error)
	// Counts returns the series f asks for.
	Counts(ctx context.Context, f CountFilter) (Counts, error)
}

// What a series counts (CountFilter.By).
const (
	CountByRecord = "record"
	CountByAgent  = "agent"
	CountByCode   = "code"
)

// CountFilter selects series of counts.
type CountFilter struct {
	// By is CountByRecord (default), CountByAgent or CountByCode.
	By string
	// Bucket is time.Hour (default) or 24 * time.Hour (UTC days).
	Bucket time.Duration
	// Since and Until bound the range, widened to whole buckets: Since
	// down to its bucket's start, Until up to its bucket's end. Defaults:
	// Until now, Since a day (hour buckets) or 30 days (day buckets)
	// before Until. At most MaxCountBuckets buckets.
	Since, Until time.Time
	// ErrorIDs, with CountByRecord, selects those records only (at most
	// MaxLimit of them).
	ErrorIDs []string
	// Limit bounds the series: the keys with most occurrences in the
	// range. 1 to MaxCountSeries, default DefaultCountSeries.
	Limit int
}

// The bounds of a CountFilter.
const (
	// MaxCountBuckets bounds a range: 31 days of hours.
	MaxCountBuckets    = 31 * 24
	DefaultCountSeries = 20
	MaxCountSeries     = 100
)

// ErrCountRange is the error of a CountFilter whose range is empty or
// longer than MaxCountBuckets buckets.
var ErrCountRange = fmt.Errorf("store: a range of counts is from 1 to %d buckets", MaxCountBuckets)

// Range returns f's buckets: the start of the first (in hours since the
// Unix epoch), how many hours a bucket holds, and how many buckets, for
// now when Until is zero; ErrCountRange when they are none or too many.
func (f CountFilter) Range(now time.Time) (first, hours, n int64, err error) {
	hours = 1
	if f.Bucket == 24*time.Hour {
		hours = 24
	}
	until := f.Until
	if until.IsZero() {
		until = now
	}
	since := f.Since
	switch {
	case !since.IsZero():
	case hours == 24:
		since = until.Add(-30 * 24 * time.Hour)
	default:
		since = until.Add(-24 * time.Hour)
	}
	first = floorDiv(since.Unix(), 3600*hours) * hours
	end := -floorDiv(-until.Unix(), 3600*hours) * hours // rounded up
	if end == first && !until.Before(since) {
		end += hours // an instant is in its bucket
	}
	n = (end - first) / hours
	if n < 1 || n > MaxCountBuckets {
		return 0, 0, 0, ErrCountRange
	}
	return first, hours, n, nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// The sorts of a listing (Filter.Sort).
const (
	// SortLastSeen lists the most recently seen first (the default).
	SortLastSeen = "last_seen"
	// SortFirstSeen lists the most recently created first: the order of
	// the records' creation, which is their first_seen's but for the
	// clock skew of instances sharing a store.
	SortFirstSeen = "first_seen"
	// SortCount lists the most occurrences first: all of a record's, or,
	// with a Filter.Window, those of the hours in the window.
	SortCount = "count"
)

// MaxWindow bounds Filter.Window: the counts' default retention.
const MaxWindow = 30 * 24 * time.Hour

// Search bounds: a Filter.Search of more is refused (ErrBadSearch).
const (
	MaxSearchBytes = 200
	MaxSearchTerms = 8
)

// ErrBadSearch is the error of a Filter.Search that ParseSearch refuses.
var ErrBadSearch = errors.New("store: invalid search")

// ParseSearch reads a search (a listing's q): its terms, the runs of
// letters and digits it holds, lower-cased, in order, without repeats.
// Every other character separates terms, and none is syntax: "DB_TIMEOUT"
// is the terms db and timeout, "planner-v2" planner and v2. A record
// matches when each term begins a word of its title, code, agent or
// query. It refuses (ErrBadSearch, with why) a search longer than
// MaxSearchBytes, not UTF-8, or without a term or with more than
// MaxSearchTerms.
func ParseSearch(q string) ([]string, error) {
	if len(q) > MaxSearchBytes {
		return nil, fmt.Errorf("%w: is %d bytes; at most %d", ErrBadSearch, len(q), MaxSearchBytes)
	}
	if !utf8.ValidString(q) {
		return nil, fmt.Errorf("%w: is not UTF-8 text", ErrBadSearch)
	}
	var terms []string
	for _, w := range strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		w = strings.ToLower(w)
		if !slices.Contains(terms, w) {
			terms = append(terms, w)
		}
	}
	switch {
	case len(terms) == 0:
		return nil, fmt.Errorf("%w: has no word to search (letters or digits)", ErrBadSearch)
	case len(terms) > MaxSearchTerms:
		return nil, fmt.Errorf("%w: has %d words; at most %d", ErrBadSearch, len(terms), MaxSearchTerms)
	}
	return terms, nil
}

// DefaultCountRetention is how long the hourly counts are kept by
// default (Retention.Counts).
const DefaultCountRetention = 30 * 24 * time.Hour
