package server

import (
	"errors"
	"net/http"
	"strings"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember"
	"github.com/triage-go/triage/store"
)

// A team works its records: PATCH /v1/errors/{error_id} changes one
// (status, resolution or ignore condition, assignee, note), POST
// /v1/errors/changes changes the records a filter selects, and GET
// /v1/errors/{error_id}/history lists the transitions. The rules are
// triage.Workflow.Apply's, run by the store in the transaction that
// writes the change; its problems (422, 409) come back as they are.

// ByOperator is who a change is by on a service without API keys: the
// operator's own service (with keys, it is the key's name, its tenant).
const ByOperator = "operator"

var (
	changeDoc        = jsonmember.NewStrict[triage.Change]()
	recordsChangeDoc = jsonmember.NewStrict[triage.RecordsChange]()
)

// decodeChange decodes the body of PATCH /v1/errors/{error_id}: a
// triage.Change, strictly (unknown members refused). Its rules
// (Workflow.Apply) are checked by the store; a NUL, which a text column
// cannot hold, is refused here.
func decodeChange(body []byte) (triage.Change, error) {
	c, err := decodeStrict(body, changeDoc)
	if err != nil {
		return triage.Change{}, err
	}
	return c, checkChangeText(c, "")
}

// checkChangeText refuses a NUL in the free texts of c (prefix: where c
// is in the document).
func checkChangeText(c triage.Change, prefix string) error {
	var errs []fault.FieldError
	if strings.ContainsRune(c.Note, 0) {
		errs = append(errs, fault.FieldError{Field: prefix + "note", Message: `holds \u0000, which is not text`})
	}
	if c.Assignee != nil && strings.ContainsRune(*c.Assignee, 0) {
		errs = append(errs, fault.FieldError{Field: prefix + "assignee", Message: `holds \u0000, which is not text`})
	}
	if c.Resolution != nil && strings.ContainsRune(c.Resolution.InRelease, 0) {
		errs = append(errs, fault.FieldError{Field: prefix + "resolution.in_release", Message: `holds \u0000, which is not text`})
	}
	return invalidDoc(errs)
}

// decodeRecordsChange decodes the body of POST /v1/errors/changes: a
// triage.RecordsChange, strictly, and its filter as the store's.
func decodeRecordsChange(body []byte) (triage.Change, store.Filter, error) {
	doc, err := decodeStrict(body, recordsChangeDoc)
	if err != nil {
		return triage.Change{}, store.Filter{}, err
	}
	if err := checkChangeText(doc.Change, "change."); err != nil {
		return triage.Change{}, store.Filter{}, err
	}
	in := doc.Filter
	var errs []fault.FieldError
	bad := func(field, msg string) { errs = append(errs, fault.FieldError{Field: "filter." + field, Message: msg}) }
	const idRule = "must be 1 to 128 letters, digits, '_', '-', '.' or ':', starting with a letter or digit"
	if in.QueryID != "" && !triage.IsIdentifier(in.QueryID) {
		bad("query_id", idRule)
	}
	if in.AgentID != "" && !triage.IsIdentifier(in.AgentID) {
		bad("agent_id", idRule)
	}
	if in.ErrorType != "" && !in.ErrorType.Valid() {
		bad("error_type", "unknown type "+quote(string(in.ErrorType)))
	}
	switch in.Severity {
	case "", "low", "medium", "high", "critical":
	default:
		bad("severity", "must be low, medium, high or critical")
	}
	if in.Status != "" && !in.Status.Valid() {
		bad("status", "must be unresolved, resolved, ignored or regressed")
	}
	if in.Environment != "" {
		if msg := environmentProblem(in.Environment); msg != "" {
			bad("environment", msg)
		}
	}
	if in.Release != "" {
		if msg := triage.CheckRelease(in.Release); msg != "" {
			bad("release", msg)
		}
	}
	if len(in.ErrorIDs) > triage.MaxBulkIDs {
		bad("error_ids", "at most 10000 records")
	} else {
		for _, id := range in.ErrorIDs {
			if !triage.IsIdentifier(id) {
				bad("error_ids", "every record is an error_id: "+idRule)
				break
			}
		}
	}
	if err := invalidDoc(errs); err != nil {
		return triage.Change{}, store.Filter{}, err
	}
	f := store.Filter{ErrorIDs: in.ErrorIDs, QueryID: in.QueryID, AgentID: in.AgentID,
		ErrorType: string(in.ErrorType), Severity: string(in.Severity), Status: in.Status,
		Environment: in.Environment, Release: in.Release}
	if in.Since != nil {
		f.Since = *in.Since
	}
	return doc.Change, f, nil
}

// changedBy is who a change of tenant's records is by: the API key's
// name (the tenant it names), or ByOperator without keys.
func (s *Server) changedBy(tenant string) string {
	if s.keys.empty() {
		return ByOperator
	}
	return tenant
}

// changeProblem is the answer to a store's error of a change: the
// workflow's own problem as it is, else the store's unavailability.
func changeProblem(err error) error {
	if f, ok := errors.AsType[*fault.Error](err); ok {
		return f
	}
	return store.Unavailable(err)
}

// patchError is PATCH /v1/errors/{error_id}: the change applied, the
// record's summary answered.
func (s *Server) patchError(w http.ResponseWriter, r *http.Request, tenant string) error {
	id, err := recordID(r)
	if err != nil {
		return err
	}
	body, err := s.putBody(w, r)
	if err != nil {
		return err
	}
	c, err := decodeChange(body)
	if err != nil {
		return err
	}
	ch, ok, err := s.svc.ChangeRecord(r.Context(), tenant, id, c, s.changedBy(tenant))
	if err != nil {
		return changeProblem(err)
	}
	if !ok {
		return fault.New(fault.NotFound, "No such error.", fault.WithDetail("error_id", id))
	}
	return writeDocuments(w, ch.Record)
}

// changeErrors is POST /v1/errors/changes: one change applied to every
// record the filter selects, answering how many it changed.
func (s *Server) changeErrors(w http.ResponseWriter, r *http.Request, tenant string) error {
	body, err := s.putBody(w, r)
	if err != nil {
		return err
	}
	c, f, err := decodeRecordsChange(body)
	if err != nil {
		return err
	}
	n, err := s.svc.ChangeRecords(r.Context(), tenant, f, c, s.changedBy(tenant))
	if err != nil {
		return changeProblem(err)
	}
	return writeDocuments(w, triage.RecordsChanged{Changed: n})
}

// errorHistory is GET /v1/errors/{error_id}/history: a page of the
// record's transitions, the latest first.
func (s *Server) errorHistory(w http.ResponseWriter, r *http.Request, tenant string) error {
	id, err := recordID(r)
	if err != nil {
		return err
	}
	l := listQuery{q: r.URL.Query()}
	l.only("limit", "cursor")
	f := store.HistoryFilter{Limit: l.limit(), Cursor: l.one("cursor")}
	if err := l.err(); err != nil {
		return err
	}
	page, ok, err := s.cfg.Store.Tenant(tenant).RecordHistory(r.Context(), id, f)
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
