package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
)

// requireJSON refuses a body whose Content-Type is not JSON (415). A
// request without a Content-Type is read as JSON.
func requireJSON(r *http.Request) error {
	return service.CheckContentType(r.Header.Get("Content-Type"))
}

// readBody reads the request body, at most limit bytes (413 beyond).
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, service.TooLarge(limit)
		}
		if errors.Is(err, errBodyTooSlow) {
			// 408: the client was too slow to send its request (RFC 9110
			// §15.5.9), not a gateway's timeout (504); the connection is
			// closed after the answer, since the rest of the body is unread.
			w.Header().Set("Connection", "close")
			return nil, fault.New(fault.Timeout, "The request body did not arrive in time; send it at once, and retry.",
				fault.WithStatus(http.StatusRequestTimeout), fault.WithRetryAfter(time.Second))
		}
		return nil, fault.Wrap(err, fault.InvalidRequest, "The request body could not be read.")
	}
	return body, nil
}

// postError is POST /v1/errors: a report in, the feedback out (201 new,
// 200 duplicate), through Accept.
func (s *Server) postError(w http.ResponseWriter, r *http.Request, tenant string) error {
	if err := requireJSON(r); err != nil {
		return err
	}
	body, err := readBody(w, r, s.cfg.MaxBody)
	if err != nil {
		return err
	}
	key, err := idempotencyKey(r.Header)
	if err != nil {
		return err
	}
	ans, err := s.svc.Accept(r.Context(), service.Submission{Tenant: tenant, Body: body,
		ContentType: r.Header.Get("Content-Type"), Key: key})
	if err != nil {
		return err
	}
	if ans.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.Header().Set("Content-Type", ans.ContentType)
	w.WriteHeader(ans.Status)
	_, err = w.Write(ans.Body)
	return err
}

// idempotencyKey reads the Idempotency-Key header (the IETF draft
// draft-ietf-httpapi-idempotency-key-header: a structured-field string;
// a bare token is taken too).
func idempotencyKey(h http.Header) (string, error) {
	vals := h.Values("Idempotency-Key")
	if len(vals) == 0 {
		return "", nil
	}
	if len(vals) > 1 {
		return "", fault.New(fault.InvalidRequest, "The Idempotency-Key header is invalid.",
			fault.WithFieldErrors(fault.FieldError{Field: "Idempotency-Key", Message: "must be sent once"}))
	}
	v := strings.TrimSpace(vals[0])
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	return v, service.CheckKey("Idempotency-Key", v)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func encodeJSON(w http.ResponseWriter, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	writeJSON(w, status, append(body, '\n'))
	return nil
}

// listQuery reads the query of a list (GET /v1/errors, /v1/runs),
// collecting every problem to report them at once.
type listQuery struct {
	q    url.Values
	errs []fault.FieldError
}

func (l *listQuery) bad(field, msg string) {
	l.errs = append(l.errs, fault.FieldError{Field: field, Message: msg})
}

// only refuses the parameters not named.
func (l *listQuery) only(names ...string) {
	for name := range l.q {
		if !slices.Contains(names, name) {
			l.bad(name, "is not a filter; use "+strings.Join(names[:len(names)-1], ", ")+" or "+names[len(names)-1])
		}
	}
}

// one is a parameter given at most once ("" when absent).
func (l *listQuery) one(name string) string {
	v := l.q[name]
	if len(v) > 1 {
		l.bad(name, "must be given once")
	}
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// identifier is a parameter that follows the identifier rule.
func (l *listQuery) identifier(name string) string {
	v := l.one(name)
	if v != "" && !triage.IsIdentifier(v) {
		l.bad(name, "must be 1 to 128 letters, digits, '_', '-', '.' or ':', starting with a letter or digit")
	}
	return v
}

// since is an RFC 3339 time.
func (l *listQuery) since(name string) time.Time {
	v := l.one(name)
	if v == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		l.bad(name, "must be an RFC 3339 date and time, such as 2025-08-08T12:00:00Z")
	}
	return t
}

// limit is a page size, 1 to store.MaxLimit (0 when absent).
func (l *listQuery) limit() int {
	v := l.one("limit")
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > store.MaxLimit {
		l.bad("limit", "must be a whole number from 1 to "+strconv.Itoa(store.MaxLimit))
	}
	return n
}

// err is the problems found, as one INVALID_REQUEST fault, or nil.
func (l *listQuery) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	return fault.Invalid("The query is invalid.", l.errs...)
}

// environmentProblem says what is wrong with s as an environment's name
// (a report's rule), or "".
func environmentProblem(s string) string {
	if len(s) > triage.MaxEnvironment || !triage.IsIdentifier(s) {
		return fmt.Sprintf("must be 1 to %d letters, digits, '_', '-', '.' or ':', starting with a letter or digit", triage.MaxEnvironment)
	}
	return ""
}

// parseFilter reads the query of GET /v1/errors: query_id, agent_id,
// error_type, severity, status, environment, release, since (RFC 3339),
// q, sort, window, limit, cursor. Every problem is reported at once.
func parseFilter(q url.Values) (store.Filter, error) {
	l := listQuery{q: q}
	l.only("query_id", "agent_id", "error_type", "severity", "status", "environment", "release", "session_id", "since", "q", "sort", "window", "limit", "cursor")
	f := store.Filter{QueryID: l.identifier("query_id"), AgentID: l.identifier("agent_id")}
	if f.Environment = l.one("environment"); f.Environment != "" {
		if msg := environmentProblem(f.Environment); msg != "" {
			l.bad("environment", msg)
		}
	}
	if f.Release = l.one("release"); f.Release != "" {
		if msg := triage.CheckRelease(f.Release); msg != "" {
			l.bad("release", msg)
		}
	}
	if f.SessionID = l.one("session_id"); f.SessionID != "" {
		if len(f.SessionID) > store.MaxSessionIDBytes || !utf8.ValidString(f.SessionID) || strings.ContainsRune(f.SessionID, 0) {
			l.bad("session_id", "must be UTF-8 text without NULs of at most "+strconv.Itoa(store.MaxSessionIDBytes)+" bytes")
		}
	}
	if f.Search = l.one("q"); f.Search != "" {
		if _, err := store.ParseSearch(f.Search); err != nil {
			l.bad("q", strings.TrimPrefix(err.Error(), store.ErrBadSearch.Error()+": "))
		}
	}
	switch f.Sort = l.one("sort"); f.Sort {
	case "", store.SortLastSeen, store.SortFirstSeen, store.SortCount:
	default:
		l.bad("sort", "must be last_seen, first_seen or count")
	}
	if v := l.one("window"); v != "" {
		f.Window = parseWindow(v)
		switch {
		case f.Window == 0:
			l.bad("window", "must be whole hours (1h to 720h) or days (1d to 30d)")
		case f.Sort != store.SortCount:
			l.bad("window", "only with sort=count")
		}
	}
	if v := l.one("error_type"); v != "" {
		if t := triage.ErrorType(v); !t.Valid() {
			l.bad("error_type", "unknown type "+strconv.Quote(v))
		}
		f.ErrorType = v
	}
	if v := l.one("severity"); v != "" {
		switch v {
		case "low", "medium", "high", "critical":
		default:
			l.bad("severity", "must be low, medium, high or critical")
		}
		f.Severity = v
	}
	if v := triage.Status(l.one("status")); v != "" {
		if !v.Valid() {
			l.bad("status", "must be unresolved, resolved, ignored or regressed")
		}
		f.Status = v
	}
	f.Since, f.Limit, f.Cursor = l.since("since"), l.limit(), l.one("cursor")
	if err := l.err(); err != nil {
		return store.Filter{}, err
	}
	return f, nil
}

// parseWindow reads a window of a sort by count: "24h" or "7d", from an
// hour to store.MaxWindow; 0 for anything else.
func parseWindow(v string) time.Duration {
	unit := time.Hour
	digits, ok := strings.CutSuffix(v, "h")
	if !ok {
		digits, ok = strings.CutSuffix(v, "d")
		unit = 24 * time.Hour
	}
	n, err := strconv.Atoi(digits)
	if !ok || err != nil || n < 1 || digits[0] == '+' || time.Duration(n) > store.MaxWindow/unit {
		return 0
	}
	return time.Duration(n) * unit
}

// parseSessionFilter reads the query of GET /v1/sessions: outcome, since
// (RFC 3339), limit, cursor.
func parseSessionFilter(q url.Values) (store.SessionFilter, error) {
	l := listQuery{q: q}
	l.only("outcome", "since", "limit", "cursor")
	var f store.SessionFilter
	if f.Outcome = l.one("outcome"); f.Outcome != "" && !slices.Contains(store.SessionOutcomes, f.Outcome) {
		l.bad("outcome", "must be "+strings.Join(store.SessionOutcomes, ", "))
	}
	f.Since, f.Limit, f.Cursor = l.since("since"), l.limit(), l.one("cursor")
	if err := l.err(); err != nil {
		return store.SessionFilter{}, err
	}
	return f, nil
}

// parseRunFilter reads the query of GET /v1/runs: agent_id, outcome,
// code, since (RFC 3339), limit, cursor.
func parseRunFilter(q url.Values) (store.RunFilter, error) {
	l := listQuery{q: q}
	l.only("agent_id", "outcome", "code", "since", "limit", "cursor")
	f := store.RunFilter{AgentID: l.identifier("agent_id"), Code: l.identifier("code")}
	if v := l.one("outcome"); v != "" {
		switch v {
		case store.RunRunning, store.RunFinished, store.RunFailed, store.RunDisconnected, store.RunShutdown:
		default:
			l.bad("outcome", "must be running, finished, failed, disconnected or shutdown")
		}
		f.Outcome = v
	}
	f.Since, f.Limit, f.Cursor = l.since("since"), l.limit(), l.one("cursor")
	if err := l.err(); err != nil {
		return store.RunFilter{}, err
	}
	return f, nil
}
