package server

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// The counts of occurrences over time (store.Trends): a record's, and
// the tenant's by record, agent or code, in hour or day buckets, always
// zero-filled (one count per bucket), over at most store.MaxCountBuckets
// buckets.

// getErrorCounts is GET /v1/errors/{error_id}/counts: the record's series.
func (s *Server) getErrorCounts(w http.ResponseWriter, r *http.Request, tenant string) error {
	id, err := recordID(r)
	if err != nil {
		return err
	}
	f, err := parseCountFilter(r.URL.Query(), false)
	if err != nil {
		return err
	}
	c, ok, err := s.cfg.Store.Tenant(tenant).RecordCounts(r.Context(), id, f)
	if errors.Is(err, store.ErrCountRange) {
		return badCountRange()
	}
	if err != nil {
		return store.Unavailable(err)
	}
	if !ok {
		return fault.New(fault.NotFound, "No such error.", fault.WithDetail("error_id", id))
	}
	return writeDocuments(w, c)
}

// getCounts is GET /v1/counts: the tenant's series by record, agent or
// code.
func (s *Server) getCounts(w http.ResponseWriter, r *http.Request, tenant string) error {
	f, err := parseCountFilter(r.URL.Query(), true)
	if err != nil {
		return err
	}
	c, err := s.cfg.Store.Tenant(tenant).Counts(r.Context(), f)
	if errors.Is(err, store.ErrCountRange) {
		return badCountRange()
	}
	if err != nil {
		return store.Unavailable(err)
	}
	return writeDocuments(w, c)
}

// badCountRange is the 400 of a range of more buckets than a series holds.
func badCountRange() error {
	return fault.Invalid("The query is invalid.", fault.FieldError{Field: "since",
		Message: "the range from since to until is from 1 to " + strconv.Itoa(store.MaxCountBuckets) + " buckets (31 days of hours)"})
}

// parseCountFilter reads the query of the counts: bucket, since, until
// and, for the tenant's (all), by, error_id (repeated) and limit.
func parseCountFilter(q url.Values, all bool) (store.CountFilter, error) {
	l := listQuery{q: q}
	if all {
		l.only("by", "bucket", "since", "until", "error_id", "limit")
	} else {
		l.only("bucket", "since", "until")
	}
	var f store.CountFilter
	switch v := l.one("bucket"); v {
	case "", "hour":
		f.Bucket = time.Hour
	case "day":
		f.Bucket = 24 * time.Hour
	default:
		l.bad("bucket", "must be hour or day")
	}
	f.Since, f.Until = l.since("since"), l.since("until")
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		l.bad("until", "must be after since")
	}
	if all {
		switch f.By = l.one("by"); f.By {
		case "", store.CountByRecord, store.CountByAgent, store.CountByCode:
		default:
			l.bad("by", "must be record, agent or code")
		}
		f.ErrorIDs = q["error_id"]
		switch {
		case len(f.ErrorIDs) > 0 && f.By != "" && f.By != store.CountByRecord:
			l.bad("error_id", "only with by=record")
		case len(f.ErrorIDs) > store.MaxCountSeries:
			l.bad("error_id", "at most "+strconv.Itoa(store.MaxCountSeries)+" of them")
		}
		for _, id := range f.ErrorIDs {
			if !triage.IsIdentifier(id) {
				l.bad("error_id", "must be 1 to 128 letters, digits, '_', '-', '.' or ':', starting with a letter or digit")
				break
			}
		}
		if v := l.one("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > store.MaxCountSeries {
				l.bad("limit", "must be a whole number from 1 to "+strconv.Itoa(store.MaxCountSeries))
			}
			f.Limit = n
		}
		if len(f.ErrorIDs) > 0 && f.Limit == 0 {
			f.Limit = len(f.ErrorIDs) // every record asked for
		}
	}
	if err := l.err(); err != nil {
		return store.CountFilter{}, err
	}
	return f, nil
}

// getRunTotals is GET /v1/counts/runs: the tenant's runs started in a
// range, by agent and outcome, and the failed ones by code (store.Runs'
// RunTotals: at most store.MaxRunsTotalled of them, the latest).
func (s *Server) getRunTotals(w http.ResponseWriter, r *http.Request, tenant string) error {
	l := listQuery{q: r.URL.Query()}
	l.only("since", "until", "limit")
	var f store.RunTotalsFilter
	f.Since, f.Until = l.since("since"), l.since("until")
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		l.bad("until", "must be after since")
	}
	if v := l.one("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > store.MaxCountSeries {
			l.bad("limit", "must be a whole number from 1 to "+strconv.Itoa(store.MaxCountSeries))
		}
		f.Limit = n
	}
	if err := l.err(); err != nil {
		return err
	}
	c, err := s.cfg.Store.Tenant(tenant).RunTotals(r.Context(), f)
	if errors.Is(err, store.ErrRunTotalsRange) { // since after the default until (now)
		return fault.Invalid("The query is invalid.", fault.FieldError{Field: "since", Message: "must be before until (default: now)"})
	}
	if err != nil {
		return store.Unavailable(err)
	}
	return writeDocuments(w, c)
}
