package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// The reads of error records are bounded in bytes whatever the reports'
// size: a listing carries summaries (no document), a record its latest
// report and feedback with a first page of its occurrences and its latest
// jobs, and a page of occurrences at most store.PageBytes of documents
// (or one occurrence, when it alone is more). See docs/service.md.

// writeDocuments writes v as the JSON of a 200, without HTML escaping
// (json.Marshal would write each '<' as six bytes), as the records are.
func writeDocuments(w http.ResponseWriter, v any) error {
	setJSON(w)
	return newEncoder(w).Encode(v) // marshalled whole before the first byte is written
}

func setJSON(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
}

// newEncoder is an encoder that writes documents as they are.
func newEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// occurrenceHead is an occurrence without its documents: the fields of
// the same JSON names here hide the embedded ones, and are left empty.
type occurrenceHead struct {
	store.Occurrence
	Report   json.RawMessage `json:"report,omitempty"`
	Feedback json.RawMessage `json:"feedback,omitempty"`
	Actions  json.RawMessage `json:"actions,omitempty"`
}

// recordHead is a record without its documents and its occurrences.
type recordHead struct {
	store.Record
	Report      json.RawMessage    `json:"report,omitempty"`
	Feedback    json.RawMessage    `json:"feedback,omitempty"`
	Occurrences []store.Occurrence `json:"occurrences,omitempty"`
}

// document is a member of a JSON object that holds a stored document,
// written as it is (null when there is none) unless it is optional.
type document struct {
	name     string
	doc      json.RawMessage
	optional bool
}

// objectWriter writes a JSON object whose documents go out as they were
// stored, the bytes of the store's page, never copied into a buffer that
// holds the whole response: on a buffered writer, a few KiB at a time.
type objectWriter struct{ w *bufio.Writer }

// object writes head, a value that marshals to a JSON object, with the
// members docs added and, when more is not nil, the member occurrences,
// whose value more writes.
func (o objectWriter) object(head any, docs []document, more func()) error {
	b, err := json.Marshal(head)
	if err != nil {
		return err
	}
	b = bytes.TrimSuffix(b, []byte("}"))
	o.w.Write(b)
	sep := len(b) > 1
	member := func(name string) {
		if sep {
			o.w.WriteByte(',')
		}
		sep = true
		o.w.WriteString(`"` + name + `":`)
	}
	for _, d := range docs {
		switch {
		case len(d.doc) > 0:
			member(d.name)
			o.w.Write(d.doc)
		case !d.optional:
			member(d.name)
			o.w.WriteString("null")
		}
	}
	if more != nil {
		member("occurrences")
		more()
	}
	o.w.WriteByte('}')
	return nil
}

// occurrences writes occs as a JSON array.
func (o objectWriter) occurrences(occs []store.Occurrence) {
	o.w.WriteByte('[')
	for i, occ := range occs {
		if i > 0 {
			o.w.WriteByte(',')
		}
		_ = o.object(occurrenceHead{Occurrence: occ}, []document{
			{"report", occ.Report, false}, {"feedback", occ.Feedback, false}, {"actions", occ.Actions, true},
		}, nil) // the heads are plain values: they marshal
	}
	o.w.WriteByte(']')
}

// checkDocuments reports a stored document that is not valid JSON (a row
// changed by hand): the request fails before a byte of it is written,
// rather than sending invalid JSON.
func checkDocuments(docs ...json.RawMessage) error {
	for _, d := range docs {
		if len(d) > 0 && !json.Valid(d) {
			return errors.New("a stored document is not valid JSON")
		}
	}
	return nil
}

// writeObject writes the JSON object of a 200 that write makes, through a
// 32 KiB buffer.
func writeObject(w http.ResponseWriter, write func(objectWriter) error) error {
	setJSON(w)
	bw := bufio.NewWriterSize(w, 32<<10)
	if err := write(objectWriter{bw}); err != nil {
		return err // nothing written yet: the object's head is marshalled first
	}
	bw.WriteByte('\n')
	_ = bw.Flush() // once the response has begun, there is no problem to answer with
	return nil
}

// writeRecord writes a record with its documents and its occurrences'.
func writeRecord(w http.ResponseWriter, rec store.Record) error {
	if err := checkDocuments(rec.Report, rec.Feedback); err != nil {
		return fmt.Errorf("record %s: %w", rec.ErrorID, err)
	}
	if err := checkOccurrences(rec.Occurrences); err != nil {
		return err
	}
	return writeObject(w, func(o objectWriter) error {
		return o.object(recordHead{Record: rec}, []document{{"report", rec.Report, false}, {"feedback", rec.Feedback, false}},
			func() { o.occurrences(rec.Occurrences) })
	})
}

// writeOccurrences writes a page of occurrences.
func writeOccurrences(w http.ResponseWriter, page store.OccurrencePage) error {
	if err := checkOccurrences(page.Occurrences); err != nil {
		return err
	}
	return writeObject(w, func(o objectWriter) error {
		return o.object(struct {
			Next string `json:"next_cursor,omitempty"`
		}{page.Next}, nil, func() { o.occurrences(page.Occurrences) })
	})
}

// checkOccurrences checks the documents of occs.
func checkOccurrences(occs []store.Occurrence) error {
	for _, occ := range occs {
		if err := checkDocuments(occ.Report, occ.Feedback, occ.Actions); err != nil {
			return fmt.Errorf("occurrence %d of %s: %w", occ.ID, occ.ErrorID, err)
		}
	}
	return nil
}

// recordID reads the {error_id} of a record's route: an identifier, else
// the record is not found.
func recordID(r *http.Request) (string, error) {
	id := r.PathValue("error_id")
	if !triage.IsIdentifier(id) {
		return "", fault.New(fault.NotFound, "No such error.")
	}
	return id, nil
}

// getError is GET /v1/errors/{error_id}: the record with its latest
// report and feedback, its latest occurrences (occurrences_next_cursor
// continues on GET /v1/errors/{error_id}/occurrences) and its latest jobs.
func (s *Server) getError(w http.ResponseWriter, r *http.Request, tenant string) error {
	id, err := recordID(r)
	if err != nil {
		return err
	}
	rec, ok, err := s.cfg.Store.Tenant(tenant).ErrorRecord(r.Context(), id)
	if err != nil {
		return store.Unavailable(err)
	}
	if !ok {
		return fault.New(fault.NotFound, "No such error.", fault.WithDetail("error_id", id))
	}
	return writeRecord(w, rec)
}

// listOccurrences is GET /v1/errors/{error_id}/occurrences: a page of the
// record's occurrences, the latest first, each with its report, feedback
// and actions.
func (s *Server) listOccurrences(w http.ResponseWriter, r *http.Request, tenant string) error {
	id, err := recordID(r)
	if err != nil {
		return err
	}
	f, err := parseOccurrenceFilter(r.URL.Query())
	if err != nil {
		return err
	}
	page, ok, err := s.cfg.Store.Tenant(tenant).Occurrences(r.Context(), id, f)
	if errors.Is(err, store.ErrBadCursor) {
		return badCursor()
	}
	if err != nil {
		return store.Unavailable(err)
	}
	if !ok {
		return fault.New(fault.NotFound, "No such error.", fault.WithDetail("error_id", id))
	}
	return writeOccurrences(w, page)
}

// listJobs is GET /v1/errors/{error_id}/jobs: a page of the record's
// jobs, the latest first, each with its attempts: the record's latest
// jobs, then the older ones its jobs_next_cursor continues with.
func (s *Server) listJobs(w http.ResponseWriter, r *http.Request, tenant string) error {
	id, err := recordID(r)
	if err != nil {
		return err
	}
	l := listQuery{q: r.URL.Query()}
	l.only("limit", "cursor")
	f := store.JobFilter{Cursor: l.one("cursor")}
	if v := l.one("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > store.MaxJobLimit {
			l.bad("limit", "must be a whole number from 1 to "+strconv.Itoa(store.MaxJobLimit))
		}
		f.Limit = n
	}
	if err := l.err(); err != nil {
		return err
	}
	page, ok, err := s.cfg.Store.Tenant(tenant).ErrorJobs(r.Context(), id, f)
	if errors.Is(err, store.ErrBadCursor) {
		return badCursor()
	}
	if err != nil {
		return store.Unavailable(err)
	}
	if !ok {
		return fault.New(fault.NotFound, "No such error.", fault.WithDetail("error_id", id))
	}
	return writeDocuments(w, page)
}

// parseOccurrenceFilter reads the query of GET
// /v1/errors/{error_id}/occurrences: limit and cursor.
func parseOccurrenceFilter(q url.Values) (store.OccurrenceFilter, error) {
	var f store.OccurrenceFilter
	var errs []fault.FieldError
	bad := func(field, msg string) { errs = append(errs, fault.FieldError{Field: field, Message: msg}) }
	for name, v := range q {
		switch {
		case name != "limit" && name != "cursor":
			bad(name, "is not a parameter; use limit or cursor")
		case len(v) > 1:
			bad(name, "must be given once")
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > store.MaxOccurrenceLimit {
			bad("limit", "must be a whole number from 1 to "+strconv.Itoa(store.MaxOccurrenceLimit))
		}
		f.Limit = n
	}
	f.Cursor = q.Get("cursor")
	if len(errs) > 0 {
		return store.OccurrenceFilter{}, fault.Invalid("The query is invalid.", errs...)
	}
	return f, nil
}

// badCursor is the 400 of a cursor the service did not make.
func badCursor() error {
	return fault.Invalid("The query is invalid.", fault.FieldError{Field: "cursor", Message: "is not a cursor this service made"})
}

// listErrors is GET /v1/errors: a page of record summaries.
func (s *Server) listErrors(w http.ResponseWriter, r *http.Request, tenant string) error {
	f, err := parseFilter(r.URL.Query())
	if err != nil {
		return err
	}
	page, err := s.cfg.Store.Tenant(tenant).ErrorRecords(r.Context(), f)
	if errors.Is(err, store.ErrBadCursor) {
		return badCursor()
	}
	if err != nil {
		return store.Unavailable(err)
	}
	if page.Records == nil {
		page.Records = []store.RecordSummary{}
	}
	return writeDocuments(w, page)
}
