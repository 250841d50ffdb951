package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// requireJSON refuses a body whose Content-Type is not JSON (415). A
// request without a Content-Type is read as JSON.
func requireJSON(r *http.Request) error { return checkContentType(r.Header.Get("Content-Type")) }

// checkContentType refuses a media type that is not JSON (415); "" is
// JSON.
func checkContentType(ct string) error {
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return nil
	}
	return fault.New(fault.InvalidRequest, "The request body must be JSON (Content-Type: application/json).",
		fault.WithStatus(http.StatusUnsupportedMediaType), fault.WithDetail("content_type", fault.Redact(ct)))
}

// readBody reads the request body, at most limit bytes (413 beyond).
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, tooLarge(limit)
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

// tooLarge is the 413 of a body over limit bytes.
func tooLarge(limit int64) error {
	return fault.New(fault.PayloadTooLarge, "The request body is too large.", fault.WithDetail("limit_bytes", limit))
}

// malformed is the 400 of a body that is not JSON, or not the JSON
// expected at all.
func malformed(body []byte) *fault.Error {
	var syntax *json.SyntaxError
	msg := "is not valid JSON"
	err := json.Unmarshal(body, new(json.RawMessage))
	if errors.As(err, &syntax) {
		msg = "is not valid JSON: " + syntax.Error() + " at byte " + strconv.FormatInt(syntax.Offset, 10)
	} else if len(bytes.TrimSpace(body)) == 0 {
		msg = "is empty"
	}
	field := fault.WithFieldErrors(fault.FieldError{Field: "(root)", Message: msg})
	if err != nil {
		return fault.Wrap(err, fault.InvalidRequest, "The request body is not valid JSON.", field)
	}
	return fault.New(fault.InvalidRequest, "The request body is not valid JSON.", field)
}

// unprocessable turns an INVALID_REQUEST of a well-formed body into a 422.
func unprocessable(err error) error {
	f, ok := fault.As(err)
	if !ok || f.Code != fault.InvalidRequest {
		return err
	}
	f = f.Clone()
	f.Status = http.StatusUnprocessableEntity
	return f
}

// postError is POST /v1/errors: a report in, the feedback out (201 new,
// 200 duplicate), through Accept.
func (s *Server) postError(w http.ResponseWriter, r *http.Request) error {
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
	ans, err := s.Accept(r.Context(), Submission{Tenant: tenantOf(r.Context()), Body: body,
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

// report handles one report and records it: the status (201 or 200) and
// the feedback's JSON.
func (s *Server) report(ctx context.Context, body []byte) (int, []byte, error) {
	rep, err := triage.DecodeReport(body)
	if err != nil {
		if !json.Valid(body) {
			return 0, nil, malformed(body)
		}
		// The handler refuses it again, so that its metrics and logs see
		// the invalid report.
		if _, herr := s.handler.Handle(ctx, body); herr != nil {
			err = herr
		}
		return 0, nil, unprocessable(err)
	}
	jobs := &pending{}
	fb, err := s.handler.HandleReport(context.WithValue(ctx, pendingKey{}, jobs), rep)
	if err != nil {
		return 0, nil, unprocessable(err)
	}
	out, err := marshal(fb)
	if err != nil {
		return 0, nil, err
	}
	var actions json.RawMessage
	if len(fb.Outcomes) > 0 {
		if actions, err = marshal(fb.Outcomes); err != nil {
			return 0, nil, err
		}
	}
	// The report as it is stored: its context redacted as the handler's.
	storedRep, err := storedReport(body)
	if err != nil {
		return 0, nil, err
	}
	// The stored feedback is the delivery's, not this answer's: a
	// duplicate's is saved only when the first delivery's save was lost,
	// and then it is the first one stored (and streamed).
	stored := out
	if fb.Duplicate {
		first := *fb
		first.Duplicate = false
		if stored, err = marshal(&first); err != nil {
			return 0, nil, err
		}
	}
	occ := store.Occurrence{
		DeliveryKey: triage.DeliveryKey(rep),
		ErrorID:     fb.ErrorID,
		QueryID:     fb.QueryID,
		AgentID:     rep.AgentID,
		ErrorType:   string(fb.ErrorType),
		Severity:    string(fb.Severity),
		NextAction:  string(fb.NextAction),
		Attempt:     fb.Attempt,
		ReportedAt:  rep.Timestamp,
		ReceivedAt:  s.cfg.Now(),
		Report:      storedRep,
		Feedback:    stored,
		Actions:     actions,
		Jobs:        jobs.jobs,
	}
	// Saved for duplicates too (a no-op when it is there): a 200 or a 201
	// always means the record is committed, even when the instance that
	// first handled the report died before saving it. The save completes
	// the delivery and enqueues the jobs, in the same transaction.
	t := s.cfg.Store.Tenant(tenantOf(ctx))
	id, err := t.SaveOccurrence(ctx, occ)
	if err != nil {
		if !fb.Duplicate {
			// Not saved: the delivery's claim goes, so that the client's
			// retry is handled anew rather than told it is in flight.
			if rerr := t.Release(context.WithoutCancel(ctx), occ.DeliveryKey); rerr != nil {
				s.log.Error("releasing a delivery claim failed", "error", fault.From(rerr))
			}
		}
		return 0, nil, storeFailure(err)
	}
	if id != 0 { // 0: an earlier delivery saved it
		s.events.wake(tenantOf(ctx))
	}
	if fb.Duplicate {
		return http.StatusOK, out, nil
	}
	return http.StatusCreated, out, nil
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
		return "", badKey("Idempotency-Key", "must be sent once")
	}
	v := strings.TrimSpace(vals[0])
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	return v, checkKey("Idempotency-Key", v)
}

// checkKey checks an idempotency key: 1 to 255 printable ASCII
// characters, without spaces, quotes or backslashes. name is what the
// client calls it (a header's name).
func checkKey(name, v string) error {
	if v == "" || len(v) > 255 {
		return badKey(name, "must be 1 to 255 characters")
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x21 || v[i] > 0x7e || v[i] == '"' || v[i] == '\\' {
			return badKey(name, "must be printable ASCII without spaces, quotes or backslashes")
		}
	}
	return nil
}

func badKey(name, msg string) error {
	return fault.New(fault.InvalidRequest, "The "+name+" header is invalid.",
		fault.WithFieldErrors(fault.FieldError{Field: name, Message: msg}))
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

// parseFilter reads the query of GET /v1/errors: query_id, agent_id,
// error_type, severity, since (RFC 3339), limit, cursor. Every problem is
// reported at once.
func parseFilter(q url.Values) (store.Filter, error) {
	var f store.Filter
	var errs []fault.FieldError
	bad := func(field, msg string) { errs = append(errs, fault.FieldError{Field: field, Message: msg}) }
	one := func(name string) string {
		v := q[name]
		if len(v) > 1 {
			bad(name, "must be given once")
		}
		if len(v) == 0 {
			return ""
		}
		return v[0]
	}
	known := map[string]bool{"query_id": true, "agent_id": true, "error_type": true, "severity": true,
		"since": true, "limit": true, "cursor": true}
	for name := range q {
		if !known[name] {
			bad(name, "is not a filter; use query_id, agent_id, error_type, severity, since, limit or cursor")
		}
	}
	for _, p := range []struct {
		name string
		dst  *string
	}{{"query_id", &f.QueryID}, {"agent_id", &f.AgentID}} {
		if v := one(p.name); v != "" {
			if !triage.IsIdentifier(v) {
				bad(p.name, "must be 1 to 128 letters, digits, '_', '-', '.' or ':', starting with a letter or digit")
			}
			*p.dst = v
		}
	}
	if v := one("error_type"); v != "" {
		if t := triage.ErrorType(v); !t.Valid() {
			bad("error_type", "unknown type "+strconv.Quote(v))
		}
		f.ErrorType = v
	}
	if v := one("severity"); v != "" {
		switch v {
		case "low", "medium", "high", "critical":
		default:
			bad("severity", "must be low, medium, high or critical")
		}
		f.Severity = v
	}
	if v := one("since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			bad("since", "must be an RFC 3339 date and time, such as 2025-08-08T12:00:00Z")
		}
		f.Since = t
	}
	if v := one("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > store.MaxLimit {
			bad("limit", "must be a whole number from 1 to "+strconv.Itoa(store.MaxLimit))
		}
		f.Limit = n
	}
	f.Cursor = one("cursor")
	if len(errs) > 0 {
		return store.Filter{}, fault.Invalid("The query is invalid.", errs...)
	}
	return f, nil
}

// storeFailure is the fault of the storage's failure: SERVICE_UNAVAILABLE,
// worth a retry in a second. A cancelled or expired request, or a fault
// the store gave itself, stays what it is.
func storeFailure(err error) error {
	if _, ok := fault.As(err); ok || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fault.Wrap(err, fault.ServiceUnavailable, "Storage is unavailable; please retry shortly.",
		fault.WithRetryAfter(time.Second))
}
