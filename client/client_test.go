package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/resilience"
	"github.com/triage-go/triage/wire/problem"
)

// request is what the test server saw of one request.
type request struct {
	method, path string
	header       http.Header
	body         []byte
	at           time.Time
}

// server is an httptest.Server whose handler answers the nth request (from
// 1) with respond, recording every request.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []request
}

func newServer(t *testing.T, respond func(n int, w http.ResponseWriter, r *http.Request)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, request{method: r.Method, path: r.URL.Path, header: r.Header.Clone(), body: body, at: time.Now()})
		n := len(s.reqs)
		s.mu.Unlock()
		respond(n, w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]request(nil), s.reqs...)
}

// fast is a resilience configuration for tests: short backoff, no jitter,
// no breaker.
var fast = resilience.Config{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, DisableJitter: true, DisableBreaker: true}

func newClient(t *testing.T, url string, cfg client.Config) *client.Client {
	t.Helper()
	cfg.Resilience = fast
	c, err := client.New(url, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func testReport() *triage.Report {
	return &triage.Report{
		AgentID:   "sql_agent",
		Timestamp: time.Date(2025, 8, 8, 12, 1, 0, 0, time.UTC),
		Status:    "error",
		Data: triage.Data{
			ErrorType: triage.QueryError,
			ErrorCode: "DB_TIMEOUT",
			Message:   "query timed out after 30s",
			QueryID:   "q_456",
			Context:   map[string]any{"table": "sales"},
		},
	}
}

func testFeedback(duplicate bool) triage.Feedback {
	return triage.Feedback{
		ErrorID:             "err_7f3a",
		ErrorType:           triage.QueryError,
		ErrorSource:         "sql_agent",
		Severity:            triage.SeverityMedium,
		Confidence:          0.95,
		UserMessage:         "The query took too long. I narrowed it to the last 30 days.",
		RecoverySuggestions: []string{"Narrow the date range"},
		AutomatedActions:    []string{"reduce_scope:30d"},
		ContextPreserved:    true,
		QueryID:             "q_456",
		Timestamp:           time.Date(2025, 8, 8, 12, 1, 1, 0, time.UTC),
		NextAction:          triage.Resume,
		RootCause:           triage.RootCause{Cause: triage.CauseScope, Confidence: 0.8, Evidence: []string{"timeout"}},
		Attempt:             1,
		Fault:               triage.FaultInfo{Code: fault.Timeout, HTTPStatus: 504, Retryable: true},
		Duplicate:           duplicate,
	}
}

func writeFeedback(w http.ResponseWriter, status int, fb triage.Feedback) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(fb)
}

// writeProblem answers as the service does: an RFC 9457 document written
// by wire/problem, with Retry-After when the fault has a delay.
func writeProblem(w http.ResponseWriter, r *http.Request, f *fault.Error) {
	problem.Write(w, r, f, nil)
}

func asFault(t *testing.T, err error) *fault.Error {
	t.Helper()
	if err == nil {
		t.Fatal("err = nil, want a fault")
	}
	var f *fault.Error
	if !errors.As(err, &f) {
		t.Fatalf("err = %T %v, want a *fault.Error", err, err)
	}
	return f
}

func TestReportCreated(t *testing.T) {
	want := testFeedback(false)
	s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { writeFeedback(w, http.StatusCreated, want) })
	c := newClient(t, s.URL+"/triage/", client.Config{APIKey: "tk_live_0123456789"})

	report := testReport()
	fb, err := c.Report(context.Background(), report, nil)
	if err != nil {
		t.Fatalf("Report: %v", err)
	}
	if fb.ErrorID != want.ErrorID || fb.NextAction != triage.Resume || fb.Duplicate ||
		fb.UserMessage != want.UserMessage || fb.RootCause.Cause != triage.CauseScope ||
		fb.Fault.Code != fault.Timeout || !fb.Timestamp.Equal(want.Timestamp) {
		t.Errorf("feedback = %+v, want %+v", fb, want)
	}

	reqs := s.requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.method != http.MethodPost || r.path != "/triage/v1/errors" {
		t.Errorf("request = %s %s, want POST /triage/v1/errors", r.method, r.path)
	}
	for name, want := range map[string]string{
		"Content-Type":  "application/json",
		"Authorization": "Bearer tk_live_0123456789",
		"User-Agent":    client.DefaultUserAgent,
	} {
		if got := r.header.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if key := r.header.Get("Idempotency-Key"); !uuidV4.MatchString(key) {
		t.Errorf("Idempotency-Key = %q, want a random UUID", key)
	}
	got, err := triage.DecodeReport(r.body)
	if err != nil {
		t.Fatalf("the service could not decode the body %s: %v", r.body, err)
	}
	if got.AgentID != report.AgentID || got.Data.QueryID != report.Data.QueryID || !got.Timestamp.Equal(report.Timestamp) ||
		got.Data.Context["table"] != "sales" {
		t.Errorf("body = %+v, want %+v", got, report)
	}
}

func TestReportDuplicate(t *testing.T) {
	s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		writeFeedback(w, http.StatusOK, testFeedback(true))
	})
	fb, err := newClient(t, s.URL, client.Config{}).Report(context.Background(), testReport(), nil)
	if err != nil {
		t.Fatalf("Report: %v", err)
	}
	if !fb.Duplicate || fb.ErrorID != "err_7f3a" {
		t.Errorf("feedback = %+v, want the duplicate's", fb)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestReportFillsDefaultsOnACopy(t *testing.T) {
	s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		writeFeedback(w, http.StatusCreated, testFeedback(false))
	})
	report := testReport()
	report.Timestamp, report.Status = time.Time{}, ""
	before := time.Now().Add(-time.Second)
	if _, err := newClient(t, s.URL, client.Config{}).Report(context.Background(), report, nil); err != nil {
		t.Fatalf("Report: %v", err)
	}
	if !report.Timestamp.IsZero() || report.Status != "" {
		t.Errorf("the caller's report was changed: %+v", report)
	}
	got, err := triage.DecodeReport(s.requests()[0].body)
	if err != nil {
		t.Fatalf("DecodeReport: %v", err)
	}
	if got.Status != "error" || got.Timestamp.Before(before) {
		t.Errorf("sent status %q, timestamp %v; want \"error\" and now", got.Status, got.Timestamp)
	}
}

func TestReportInvalid(t *testing.T) {
	fields := []fault.FieldError{
		{Field: "agent_id", Message: "is required"},
		{Field: "data.query_id", Message: "is required"},
	}
	s := newServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		writeProblem(w, r, fault.New(fault.InvalidRequest, "The error report is invalid.",
			fault.WithStatus(http.StatusUnprocessableEntity), fault.WithFieldErrors(fields...)))
	})
	_, err := newClient(t, s.URL, client.Config{}).Report(context.Background(), testReport(), nil)
	f := asFault(t, err)
	if f.Code != fault.InvalidRequest || f.HTTPStatus() != http.StatusUnprocessableEntity || f.Retryable {
		t.Errorf("fault = %v (status %d, retryable %v), want INVALID_REQUEST, 422, not retryable", f, f.HTTPStatus(), f.Retryable)
	}
	if f.Message != "The error report is invalid." {
		t.Errorf("Message = %q", f.Message)
	}
	if len(f.FieldErrors) != 2 || f.FieldErrors[0] != fields[0] || f.FieldErrors[1] != fields[1] {
		t.Errorf("FieldErrors = %v, want %v", f.FieldErrors, fields)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1: INVALID_REQUEST is not retried", n)
	}
}

func TestReportAPIKeyNeverInErrors(t *testing.T) {
	for _, key := range []string{"tk_live_9f8e7d6c5b4a", "k3y"} {
		t.Run(key, func(t *testing.T) {
			s := newServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
				// A careless server that echoes the credential everywhere.
				auth := r.Header.Get("Authorization")
				token := strings.TrimPrefix(auth, "Bearer ")
				w.Header().Set("Content-Type", problem.ContentType)
				w.WriteHeader(http.StatusForbidden)
				json.NewEncoder(w).Encode(map[string]any{
					"type": "/errors/tenant-unauthorized", "status": 403, "code": "TENANT_UNAUTHORIZED",
					"detail":  "key " + token + " is revoked (" + auth + ")",
					"errors":  []map[string]string{{"field": token, "message": "unknown key " + token}},
					"details": map[string]any{"key": token},
					"debug":   map[string]any{"cause": "lookup " + token},
				})
			})
			c := newClient(t, s.URL, client.Config{APIKey: key})
			_, err := c.Report(context.Background(), testReport(), nil)
			f := asFault(t, err)
			if f.Code != fault.TenantUnauthorized {
				t.Errorf("Code = %s, want TENANT_UNAUTHORIZED", f.Code)
			}
			if got := s.requests()[0].header.Get("Authorization"); got != "Bearer "+key {
				t.Errorf("Authorization = %q, want Bearer and the key", got)
			}
			var log bytes.Buffer
			slog.New(slog.NewJSONHandler(&log, nil)).Error("report failed", "err", f)
			payload, _ := json.Marshal(f.Payload(true))
			for what, text := range map[string]string{
				"Error":   err.Error(),
				"%+v":     fmt.Sprintf("%+v", err),
				"Message": f.Message,
				"fields":  fmt.Sprint(f.FieldErrors),
				"details": fmt.Sprint(f.Details),
				"debug":   f.Debug.Cause,
				"log":     log.String(),
				"payload": string(payload),
				"client":  fmt.Sprintf("%v %+v %#v %s", c, c, c, c),
			} {
				if strings.Contains(text, key) {
					t.Errorf("%s holds the API key: %s", what, text)
				}
			}
		})
	}
}

func TestReportTransportError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: connection refused
	c := newClient(t, "http://"+addr, client.Config{APIKey: "tk_live_0123456789"})
	_, err = c.Report(context.Background(), testReport(), nil)
	f := asFault(t, err)
	if f.Code != fault.TransportError || f.Details["attempts"] != 3 {
		t.Errorf("fault = %v, details %v; want TRANSPORT_ERROR after 3 attempts", f, f.Details)
	}
	if strings.Contains(err.Error(), "tk_live_0123456789") {
		t.Errorf("error holds the API key: %v", err)
	}
}

func TestReportBadResponse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		respond func(w http.ResponseWriter)
	}{
		{"invalid JSON", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"error_id": "err_1", `)
		}},
		{"HTML", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html>login</html>`)
		}},
		{"no error_id", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{}`)
		}},
		{"too long", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			fb := testFeedback(false)
			fb.UserMessage = strings.Repeat("x", 2<<20)
			json.NewEncoder(w).Encode(fb)
		}},
		{"204", func(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { tc.respond(w) })
			_, err := newClient(t, s.URL, client.Config{}).Report(context.Background(), testReport(), nil)
			f := asFault(t, err)
			if f.Code != fault.ProtocolError || f.Retryable {
				t.Errorf("fault = %v, want PROTOCOL_ERROR, not retryable", f)
			}
			if n := len(s.requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
		})
	}
}

func TestReportNil(t *testing.T) {
	s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {})
	_, err := newClient(t, s.URL, client.Config{}).Report(context.Background(), nil, nil)
	if f := asFault(t, err); f.Code != fault.InvalidRequest {
		t.Errorf("fault = %v, want INVALID_REQUEST", f)
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("server saw %d requests, want 0", n)
	}
}

func TestReportUnencodable(t *testing.T) {
	s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {})
	report := testReport()
	report.Data.Context["ch"] = make(chan int)
	_, err := newClient(t, s.URL, client.Config{}).Report(context.Background(), report, nil)
	if f := asFault(t, err); f.Code != fault.InvalidRequest {
		t.Errorf("fault = %v, want INVALID_REQUEST", f)
	}
}

func TestUserAgent(t *testing.T) {
	s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		writeFeedback(w, http.StatusCreated, testFeedback(false))
	})
	for _, cfg := range []client.Config{{UserAgent: "sql-agent/2.1"}, {UserAgent: "ignored", NoUserAgent: true}} {
		c := newClient(t, s.URL, cfg)
		if _, err := c.Report(context.Background(), testReport(), nil); err != nil {
			t.Fatal(err)
		}
	}
	reqs := s.requests()
	if got := reqs[0].header.Get("User-Agent"); got != "sql-agent/2.1" {
		t.Errorf("User-Agent = %q, want sql-agent/2.1", got)
	}
	if got, ok := reqs[1].header["User-Agent"]; ok {
		t.Errorf("User-Agent = %q, want none", got)
	}
}

func TestWithHTTPClientAndPolicy(t *testing.T) {
	s := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			writeProblem(w, r, fault.New(fault.ServiceUnavailable, ""))
			return
		}
		writeFeedback(w, http.StatusCreated, testFeedback(false))
	})
	var sent int
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent++
		return http.DefaultTransport.RoundTrip(r)
	})}
	c, err := client.New(s.URL, client.Config{HTTPClient: hc,
		Resilience: resilience.Config{MaxAttempts: 1}, // overridden by the policy
		Policy:     resilience.New(fast)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Report(context.Background(), testReport(), nil); err != nil {
		t.Fatalf("Report: %v", err)
	}
	if sent != 2 {
		t.Errorf("the http.Client sent %d requests, want 2", sent)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestNewRejects(t *testing.T) {
	for _, tc := range []struct {
		url string
		cfg client.Config
	}{
		{"", client.Config{}},
		{"triage.internal", client.Config{}},
		{"ftp://triage.internal", client.Config{}},
		{"http://", client.Config{}},
		{"http://user:hunter2secret@triage.internal", client.Config{}},
		{"http://triage.internal?key=hunter2secret", client.Config{}},
		{"http://triage.internal#x", client.Config{}},
		{"http://triage.internal", client.Config{APIKey: " "}},
		{"http://triage.internal", client.Config{APIKey: "two words"}},
		{"http://triage.internal", client.Config{APIKey: "key\r\nX-Evil: 1"}},
		{"http://triage.internal", client.Config{UserAgent: "a\r\nX-Evil: 1"}},
		{"http://tri\x7fage", client.Config{}},
	} {
		c, err := client.New(tc.url, tc.cfg)
		if c != nil {
			t.Errorf("New(%q) = %v, want nil", tc.url, c)
		}
		f := asFault(t, err)
		if f.Code != fault.ConfigError {
			t.Errorf("New(%q): fault = %v, want CONFIG_ERROR", tc.url, f)
		}
		if strings.Contains(err.Error(), "hunter2secret") {
			t.Errorf("New(%q): error holds the secret: %v", tc.url, err)
		}
	}
}

func TestReportAPIKeyNotInTransportErrors(t *testing.T) {
	// A transport whose error repeats the key (a proxy's, a buggy
	// middleware's).
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return nil, errors.New("proxy refused " + r.Header.Get("Authorization"))
	})}
	c := newClient(t, "http://triage.internal", client.Config{HTTPClient: hc, APIKey: "k3y"})
	_, err := c.Report(context.Background(), testReport(), nil)
	f := asFault(t, err)
	if strings.Contains(err.Error(), "k3y") || strings.Contains(f.Debug.Cause, "k3y") || strings.Contains(fmt.Sprintf("%+v", err), "k3y") {
		t.Errorf("error holds the API key: %v (debug %q)", err, f.Debug.Cause)
	}
	// The cause is not in the error's text, but debug output and logs show
	// it: redacted, still reachable.
	if f.Cause == nil || !strings.Contains(f.Cause.Error(), "proxy refused Bearer [REDACTED]") {
		t.Errorf("cause = %v, want it with the key redacted", f.Cause)
	}
	if debug, err := json.Marshal(f.Payload(true)); err != nil || strings.Contains(string(debug), "k3y") {
		t.Errorf("debug output holds the API key: %s (%v)", debug, err)
	}
}

func TestGet(t *testing.T) {
	record := `{"error_id":"err_7f3a","occurrences":[{"query_id":"q_456"}]}`
	s := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/errors/missing":
			writeProblem(w, r, fault.New(fault.NotFound, "No such error."))
		case r.URL.Path == "/v1/errors/garbled":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `[1, 2`)
		case n == 1:
			writeProblem(w, r, fault.New(fault.ServiceUnavailable, ""))
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, record+"\n")
		}
	})
	c := newClient(t, s.URL, client.Config{APIKey: "tk_live_0123456789"})

	rec, err := c.Get(context.Background(), "err_7f3a")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if rec.ErrorID != "err_7f3a" || len(rec.Occurrences) != 1 || rec.Occurrences[0].QueryID != "q_456" {
		t.Errorf("record = %+v, want %s", rec, record)
	}
	reqs := s.requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2 (a 503, then the record)", len(reqs))
	}
	for _, r := range reqs {
		if r.method != http.MethodGet || r.path != "/v1/errors/err_7f3a" || r.header.Get("Authorization") != "Bearer tk_live_0123456789" {
			t.Errorf("request = %s %s (Authorization %q)", r.method, r.path, r.header.Get("Authorization"))
		}
	}

	_, err = c.Get(context.Background(), "missing")
	if f := asFault(t, err); f.Code != fault.NotFound || f.HTTPStatus() != http.StatusNotFound {
		t.Errorf("missing: fault = %v, want NOT_FOUND", f)
	}
	_, err = c.Get(context.Background(), "garbled")
	if f := asFault(t, err); f.Code != fault.ProtocolError {
		t.Errorf("garbled: fault = %v, want PROTOCOL_ERROR", f)
	}
	for _, bad := range []string{"", "../admin", "a/b", "has space"} {
		_, err := c.Get(context.Background(), bad)
		if f := asFault(t, err); f.Code != fault.InvalidRequest {
			t.Errorf("Get(%q): fault = %v, want INVALID_REQUEST", bad, f)
		}
	}
	if n := len(s.requests()); n != 4 {
		t.Errorf("server saw %d requests, want 4: invalid ids are not sent", n)
	}
}
