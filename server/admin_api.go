package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
)

// Bounds of the documents the PUT routes take.
const (
	maxSchemaFields = 10_000
	maxFieldName    = 256
)

// decodeStrict decodes one JSON object with dec (jsonmember.Strict:
// unknown members, wrong types and strings that are not Unicode text are
// field errors, each naming its member by its path): 400 for a body that
// is not JSON at all, 422 for one that is JSON but not this document.
func decodeStrict[T any](body []byte, dec *jsonmember.Strict[T]) (T, error) {
	if !json.Valid(body) {
		var zero T
		return zero, service.Malformed(body)
	}
	v, err := dec.Decode(body)
	if ve, ok := errors.AsType[*jsonmember.ValidationError](err); ok {
		return v, invalidDoc(ve.FieldErrors())
	}
	return v, err
}

func invalidDoc(errs []fault.FieldError) error {
	if len(errs) == 0 {
		return nil
	}
	return fault.New(fault.InvalidRequest, "The document is invalid.", fault.WithStatus(http.StatusUnprocessableEntity),
		fault.WithFieldErrors(errs...))
}

// The documents the PUT routes take, and their strict decoders.
type (
	schemaBody struct {
		Fields   []string          `json:"fields"`
		Synonyms map[string]string `json:"synonyms"`
	}
	cachedBody struct {
		StoredAt *time.Time     `json:"stored_at"`
		Summary  string         `json:"summary"`
		Data     map[string]any `json:"data"`
	}
	agentBody struct {
		CallbackURL string `json:"callback_url"`
	}
)

var (
	schemaDoc = jsonmember.NewStrict[schemaBody]()
	cachedDoc = jsonmember.NewStrict[cachedBody]()
	agentDoc  = jsonmember.NewStrict[agentBody]()
)

// decodeSchema decodes the body of PUT /v1/schemas/{source}:
// {"fields": [...], "synonyms": {"missing name": "field"}}. Every synonym
// maps to one of the fields.
func decodeSchema(body []byte) (triage.SchemaInfo, error) {
	doc, err := decodeStrict(body, schemaDoc)
	if err != nil {
		return triage.SchemaInfo{}, err
	}
	var errs []fault.FieldError
	bad := func(field, msg string) { errs = append(errs, fault.FieldError{Field: field, Message: msg}) }
	if doc.Fields == nil {
		bad("fields", "is required")
	}
	if len(doc.Fields) > maxSchemaFields {
		bad("fields", "has more than 10000 fields")
	}
	have := make(map[string]bool, len(doc.Fields))
	for _, f := range doc.Fields {
		if f == "" || len(f) > maxFieldName {
			bad("fields", "every field is 1 to 256 characters")
			break
		}
		have[f] = true
	}
	if len(doc.Synonyms) > maxSchemaFields {
		bad("synonyms", "has more than 10000 synonyms")
	}
	for from, to := range doc.Synonyms {
		if from == "" || len(from) > maxFieldName {
			bad("synonyms", "every name is 1 to 256 characters")
			break
		}
		if !have[to] {
			bad("synonyms."+from, "maps to "+quote(to)+", which is not in fields")
		}
	}
	if err := invalidDoc(errs); err != nil {
		return triage.SchemaInfo{}, err
	}
	return triage.SchemaInfo{Fields: doc.Fields, Synonyms: doc.Synonyms}, nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// decodeCached decodes the body of PUT /v1/cache/{query_id}:
// {"summary": "...", "stored_at": RFC 3339, "data": {...}}; stored_at
// defaults to now.
func decodeCached(body []byte, now time.Time) (triage.CachedResult, error) {
	doc, err := decodeStrict(body, cachedDoc)
	if err != nil {
		return triage.CachedResult{}, err
	}
	var errs []fault.FieldError
	if len(doc.Summary) > 1024 {
		errs = append(errs, fault.FieldError{Field: "summary", Message: "is longer than 1024 bytes"})
	}
	if strings.ContainsRune(doc.Summary, 0) { // a column of text, which PostgreSQL's cannot hold
		errs = append(errs, fault.FieldError{Field: "summary", Message: `holds \u0000, which is not text`})
	}
	if doc.StoredAt != nil && doc.StoredAt.After(now.Add(time.Minute)) {
		errs = append(errs, fault.FieldError{Field: "stored_at", Message: "is in the future"})
	}
	if err := invalidDoc(errs); err != nil {
		return triage.CachedResult{}, err
	}
	r := triage.CachedResult{StoredAt: now.UTC(), Summary: doc.Summary, Data: doc.Data}
	if doc.StoredAt != nil {
		r.StoredAt = doc.StoredAt.UTC()
	}
	return r, nil
}

// decodeAgent decodes the body of PUT /v1/callbacks/{agent_id}:
// {"callback_url": "https://…"}, an absolute http or https URL without
// credentials.
func decodeAgent(body []byte) (string, error) {
	doc, err := decodeStrict(body, agentDoc)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(doc.CallbackURL)
	switch {
	case doc.CallbackURL == "":
		return "", invalidDoc([]fault.FieldError{{Field: "callback_url", Message: "is required"}})
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return "", invalidDoc([]fault.FieldError{{Field: "callback_url", Message: "must be an absolute http or https URL"}})
	case u.User != nil:
		return "", invalidDoc([]fault.FieldError{{Field: "callback_url", Message: "must not carry credentials"}})
	case len(doc.CallbackURL) > 2048:
		return "", invalidDoc([]fault.FieldError{{Field: "callback_url", Message: "is longer than 2048 bytes"}})
	}
	return doc.CallbackURL, nil
}

// pathID reads an identifier path parameter.
func pathID(r *http.Request, name string) (string, error) {
	v := r.PathValue(name)
	if !triage.IsIdentifier(v) {
		return "", fault.Invalid("The path is invalid.", fault.FieldError{Field: name,
			Message: "must be 1 to 128 letters, digits, '_', '-', '.' or ':', starting with a letter or digit"})
	}
	return v, nil
}

// putBody checks and reads a PUT's JSON body.
func (s *Server) putBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if err := requireJSON(r); err != nil {
		return nil, err
	}
	return readBody(w, r, s.cfg.MaxBody)
}

// putSchema is PUT /v1/schemas/{source}.
func (s *Server) putSchema(w http.ResponseWriter, r *http.Request, tenant string) error {
	source, err := pathID(r, "source")
	if err != nil {
		return err
	}
	body, err := s.putBody(w, r)
	if err != nil {
		return err
	}
	info, err := decodeSchema(body)
	if err != nil {
		return err
	}
	if err := s.cfg.Store.Tenant(tenant).PutSchema(r.Context(), source, info); err != nil {
		return store.Unavailable(err)
	}
	return encodeJSON(w, http.StatusOK, map[string]any{"source": source, "fields": info.Fields, "synonyms": info.Synonyms})
}

// putCache is PUT /v1/cache/{query_id}.
func (s *Server) putCache(w http.ResponseWriter, r *http.Request, tenant string) error {
	queryID, err := pathID(r, "query_id")
	if err != nil {
		return err
	}
	body, err := s.putBody(w, r)
	if err != nil {
		return err
	}
	res, err := decodeCached(body, s.cfg.Now())
	if err != nil {
		return err
	}
	if err := s.cfg.Store.Tenant(tenant).PutCache(r.Context(), queryID, res); err != nil {
		return store.Unavailable(err)
	}
	return encodeJSON(w, http.StatusOK, struct {
		QueryID string `json:"query_id"`
		triage.CachedResult
	}{queryID, res})
}

// callbacksDeprecated is when PUT /v1/agents/{agent_id} was deprecated
// for PUT /v1/callbacks/{agent_id} (issue 24), as its Deprecation header
// (RFC 9745) says it: 2026-12-02.
const callbacksDeprecated = "@1796169600"

// putAgentCallback is PUT /v1/agents/{agent_id}, the old path of PUT
// /v1/callbacks/{agent_id}, kept as an alias: it does the same, and says
// that it is deprecated (Deprecation) and where it went (Link, RFC 8594's
// successor-version). /v1/agents is the agent registry (GET /v1/agents,
// the runs); a pipeline agent's callback is another noun.
func (s *Server) putAgentCallback(w http.ResponseWriter, r *http.Request, tenant string) error {
	w.Header().Set("Deprecation", callbacksDeprecated)
	if id, err := pathID(r, "agent_id"); err == nil {
		w.Header().Set("Link", "</v1/callbacks/"+url.PathEscape(id)+`>; rel="successor-version"`)
	}
	return s.putCallback(w, r, tenant)
}

// putCallback is PUT /v1/callbacks/{agent_id}: where the retries of a
// pipeline agent's queries are posted.
func (s *Server) putCallback(w http.ResponseWriter, r *http.Request, tenant string) error {
	id, err := pathID(r, "agent_id")
	if err != nil {
		return err
	}
	body, err := s.putBody(w, r)
	if err != nil {
		return err
	}
	callback, err := decodeAgent(body)
	if err != nil {
		return err
	}
	if s.svc.RefusesCallback(callback) {
		return invalidDoc([]fault.FieldError{{Field: "callback_url",
			Message: "must not be localhost or a loopback, private or link-local address"}})
	}
	a := store.Agent{ID: id, CallbackURL: callback, UpdatedAt: s.cfg.Now().UTC()}
	if err := s.cfg.Store.Tenant(tenant).PutAgent(r.Context(), a); err != nil {
		return store.Unavailable(err)
	}
	return encodeJSON(w, http.StatusOK, a)
}
