package server

import (
	"net/http"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember"
)

// The alert rules and targets of the request's tenant
// (/v1/alerts/rules, /v1/alerts/targets): the service checks and keeps
// them (service.Service.PutAlertRule, …); a target's credentials are
// written, never read back.

var (
	alertRuleDoc   = jsonmember.NewStrict[triage.AlertRule]()
	alertTargetDoc = jsonmember.NewStrict[triage.AlertTarget]()
)

// decodeAlertRule decodes the body of PUT /v1/alerts/rules/{rule_id}: a
// rule, whose id, when it has one, is the path's.
func decodeAlertRule(body []byte, id string) (triage.AlertRule, error) {
	r, err := decodeStrict(body, alertRuleDoc)
	if err != nil {
		return r, err
	}
	if r.ID != "" && r.ID != id {
		return r, invalidDoc([]fault.FieldError{{Field: "id", Message: "is not the path's rule_id (it may be left out)"}})
	}
	r.ID = id
	return r, nil
}

// decodeAlertTarget decodes the body of PUT /v1/alerts/targets/{target}:
// a target, whose name, when it has one, is the path's.
func decodeAlertTarget(body []byte, name string) (triage.AlertTarget, error) {
	t, err := decodeStrict(body, alertTargetDoc)
	if err != nil {
		return t, err
	}
	if t.Name != "" && t.Name != name {
		return t, invalidDoc([]fault.FieldError{{Field: "name", Message: "is not the path's target (it may be left out)"}})
	}
	t.Name = name
	return t, nil
}

// noQuery refuses a query string where the route takes none.
func noQuery(r *http.Request) error {
	q := r.URL.Query()
	if len(q) == 0 {
		return nil
	}
	var errs []fault.FieldError
	for name := range q {
		errs = append(errs, fault.FieldError{Field: name, Message: "is not a parameter; " + r.Method + " " + r.URL.Path + " takes none"})
	}
	return fault.Invalid("The query is invalid.", errs...)
}

// alertName reads a rule's or target's name from the path: what
// AlertConfig.Check accepts.
func alertName(r *http.Request, param string) (string, error) {
	v := r.PathValue(param)
	if !validAlertName(v) {
		return "", fault.Invalid("The path is invalid.", fault.FieldError{Field: param, Message: "must be 1 to 64 of a-z, 0-9, '-' and '_'"})
	}
	return v, nil
}

func validAlertName(v string) bool {
	if len(v) < 1 || len(v) > 64 {
		return false
	}
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// listAlertRules is GET /v1/alerts/rules.
func (s *Server) listAlertRules(w http.ResponseWriter, r *http.Request, tenant string) error {
	if err := noQuery(r); err != nil {
		return err
	}
	rules, _, err := s.svc.Alerts(r.Context(), tenant)
	if err != nil {
		return err
	}
	return encodeJSON(w, http.StatusOK, rules)
}

// listAlertTargets is GET /v1/alerts/targets: without their credentials.
func (s *Server) listAlertTargets(w http.ResponseWriter, r *http.Request, tenant string) error {
	if err := noQuery(r); err != nil {
		return err
	}
	_, targets, err := s.svc.Alerts(r.Context(), tenant)
	if err != nil {
		return err
	}
	return encodeJSON(w, http.StatusOK, targets)
}

// putAlertRule is PUT /v1/alerts/rules/{rule_id}.
func (s *Server) putAlertRule(w http.ResponseWriter, r *http.Request, tenant string) error {
	id, err := alertName(r, "rule_id")
	if err != nil {
		return err
	}
	body, err := s.putBody(w, r)
	if err != nil {
		return err
	}
	rule, err := decodeAlertRule(body, id)
	if err != nil {
		return err
	}
	if err := s.svc.PutAlertRule(r.Context(), tenant, rule); err != nil {
		return err
	}
	return encodeJSON(w, http.StatusOK, rule)
}

// putAlertTarget is PUT /v1/alerts/targets/{target}: the answer is the
// target without its credentials.
func (s *Server) putAlertTarget(w http.ResponseWriter, r *http.Request, tenant string) error {
	name, err := alertName(r, "target")
	if err != nil {
		return err
	}
	body, err := s.putBody(w, r)
	if err != nil {
		return err
	}
	t, err := decodeAlertTarget(body, name)
	if err != nil {
		return err
	}
	if err := s.svc.PutAlertTarget(r.Context(), tenant, t); err != nil {
		return err
	}
	return encodeJSON(w, http.StatusOK, t.View())
}

// deleteAlertRule is DELETE /v1/alerts/rules/{rule_id}.
func (s *Server) deleteAlertRule(w http.ResponseWriter, r *http.Request, tenant string) error {
	id, err := alertName(r, "rule_id")
	if err != nil {
		return err
	}
	found, err := s.svc.DeleteAlertRule(r.Context(), tenant, id)
	if err != nil {
		return err
	}
	if !found {
		return fault.New(fault.NotFound, "No such alert rule.", fault.WithDetail("rule_id", id))
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deleteAlertTarget is DELETE /v1/alerts/targets/{target}.
func (s *Server) deleteAlertTarget(w http.ResponseWriter, r *http.Request, tenant string) error {
	name, err := alertName(r, "target")
	if err != nil {
		return err
	}
	found, err := s.svc.DeleteAlertTarget(r.Context(), tenant, name)
	if err != nil {
		return err
	}
	if !found {
		return fault.New(fault.NotFound, "No such alert target.", fault.WithDetail("target", name))
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
