package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/triage-go/triage/store"
)

// Bad bytes: text that is not Unicode, secrets in a report's context, and
// requests that net/http would answer in text/plain.

// reportWith is db_timeout's report with the given members of data (raw
// JSON, possibly not UTF-8) and the given query id.
func reportWith(queryID, members string) []byte {
	return []byte(`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:05Z","status":"error",` +
		`"data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s",` +
		`"query_id":"` + queryID + `"` + members + `}}`)
}

// surrogateEscape finds a \u escape of a UTF-16 surrogate (one not
// itself escaped), which encoding/json never writes.
var surrogateEscape = regexp.MustCompile(`(?i)(?:^|[^\\])(?:\\\\)*\\ud[89a-f]`)

// validJSONText checks that a response body is JSON a strict client takes:
// valid UTF-8, and no escaped surrogate without its pair.
func validJSONText(t *testing.T, what string, body []byte) {
	t.Helper()
	if !utf8.Valid(body) || !json.Valid(body) {
		t.Errorf("%s is not valid UTF-8 JSON: %q", what, body)
	}
	if surrogateEscape.Match(body) {
		t.Errorf("%s holds a surrogate escape: %s", what, body)
	}
}

// TestInvalidUTF8Refused: a report whose strings are not Unicode text
// (bytes that are not UTF-8, an escaped surrogate without its pair) is
// refused with a 422 naming each member, on both stores; nothing is
// recorded, and the list and records stay valid JSON. Text that is
// Unicode, escaped or not, is taken as it is.
func TestInvalidUTF8Refused(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	refused := []struct {
		name   string
		body   []byte
		fields []string
	}{
		{"bytes in context", reportWith("q_bad1", `,"context":{"note":"a`+"\xff\xfe"+`b","n":1}`), []string{"data.context.note"}},
		{"bytes in message and nested context", []byte(`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:05Z","status":"error",` +
			`"data":{"message":"timed out ` + "\xc3\x28" + `","query_id":"q_bad2","context":{"rows":[{"name":"` + "\xed\xa0\x80" + `"}]}}}`),
			[]string{"data.message", "data.context.rows[0].name"}},
		{"bytes in a member name", reportWith("q_bad3", `,"context":{"k`+"\xff"+`":true}`), []string{"data.context.k\uFFFD"}},
		{"bytes in a member the format does not define", []byte(`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:05Z",` +
			`"status":"error","extra":"` + "\x80" + `","data":{"message":"m","query_id":"q_bad4"}}`), []string{"extra"}},
		{"lone high surrogate", reportWith("q_bad5", `,"context":{"note":"a\ud800b"}`), []string{"data.context.note"}},
		{"lone low surrogate", reportWith("q_bad6", `,"context":{"note":"\uDC00"}`), []string{"data.context.note"}},
		{"surrogates reversed", reportWith("q_bad7", `,"context":{"note":"\udc00\ud800"}`), []string{"data.context.note"}},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			for _, key := range []map[string]string{nil, {"Idempotency-Key": "k-" + strings.ReplaceAll(c.name, " ", "-")}} {
				r := f.do("POST", "/v1/errors", c.body, key)
				if r.status != http.StatusUnprocessableEntity || codeOf(t, r) != "INVALID_REQUEST" {
					t.Fatalf("status %d, want 422 INVALID_REQUEST: %s", r.status, r.body)
				}
				validJSONText(t, "the problem", r.body)
				fields := fieldsOf(t, r)
				for _, want := range c.fields {
					if !fields[want] {
						t.Errorf("the problem does not name %q: %s", want, r.body)
					}
				}
			}
		})
	}

	// Unicode text is taken: UTF-8 as it is, escapes, a surrogate pair.
	ok := reportWith("q_text", `,"context":{"note":"café \u00e9t\u00E9 \ud83d\ude00 😀 \"q\" \\ud800","n":1}`)
	r := f.do("POST", "/v1/errors", ok, nil)
	if r.status != http.StatusCreated {
		t.Fatalf("Unicode text: status %d: %s", r.status, r.body)
	}
	validJSONText(t, "the feedback", r.body)
	fb := r.json(t)
	note := fb["context"].(map[string]any)["note"]
	if want := `café été 😀 😀 "q" \ud800`; note != want {
		t.Errorf("context.note = %q, want %q", note, want)
	}

	// Only the valid report was recorded, and every answer is valid JSON.
	page := f.do("GET", "/v1/errors", nil, nil)
	validJSONText(t, "the list", page.body)
	var list store.Page
	if err := json.Unmarshal(page.body, &list); err != nil || len(list.Records) != 1 {
		t.Fatalf("list: %v, %s", err, page.body)
	}
	rec := f.do("GET", "/v1/errors/"+fb["error_id"].(string), nil, nil)
	if rec.status != 200 {
		t.Fatalf("record: %d %s", rec.status, rec.body)
	}
	validJSONText(t, "the record", rec.body)
}

// TestInvalidUTF8InDocuments: the PUT routes' documents follow the same
// rule.
func TestInvalidUTF8InDocuments(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for _, c := range []struct {
		path, body, field string
	}{
		{"/v1/schemas/sales", `{"fields":["revenue","a` + "\xff" + `"]}`, "fields[1]"},
		{"/v1/schemas/sales", `{"fields":["revenue"],"synonyms":{"rev` + "\xfe" + `":"revenue"}}`, "synonyms.rev\uFFFD"},
		{"/v1/schemas/sales", `{"fields":["revenue","\udfff"]}`, "fields[1]"},
		{"/v1/cache/q_1", `{"summary":"sales ` + "\xc0\xaf" + `","data":{"rows":3}}`, "summary"},
		{"/v1/cache/q_1", `{"summary":"sales","data":{"rows":["\ud800"]}}`, "data.rows[0]"},
		{"/v1/cache/q_1", `{"summary":"sales\u0000"}`, "summary"}, // text, but not in a PostgreSQL text column
		{"/v1/agents/query_engine", `{"callback_url":"https://agent.example/` + "\xff" + `"}`, "callback_url"},
	} {
		r := f.do("PUT", c.path, []byte(c.body), nil)
		if r.status != http.StatusUnprocessableEntity || codeOf(t, r) != "INVALID_REQUEST" || !fieldsOf(t, r)[c.field] {
			t.Errorf("PUT %s %q: %d, want 422 naming %q: %s", c.path, c.body, r.status, c.field, r.body)
		}
		validJSONText(t, "the problem", r.body)
	}
	if r := f.do("PUT", "/v1/schemas/sales", []byte(`{"fields":["r\u00e9venue","😀"]}`), nil); r.status != 200 {
		t.Errorf("a schema of Unicode text: %d %s", r.status, r.body)
	}
}

// The canaries: a secret of each kind, in a report's context.
var canaries = []string{
	"sk-proj-Canary0123456789abcdefXYZ",        // an OpenAI-style key
	"eyJhbGciOiJIUzI1NiJ9",                     // a JWT's header…
	"eyJzdWIiOiJjYW5hcnkifQ",                   // …and claims
	"hunter2hunter2",                           // password=
	"AKIAIOSFODNN7CANARY0",                     // an AWS access key id
	"/srv/app/main.go",                         // a stack trace's file path
	"correct-horse-battery-staple-canary",      // a value under a secret's name
	"ghp_CanaryCanaryCanaryCanaryCanary012345", // a GitHub token, in a member's name
	"sk-ant-MessageCanary0123456789",           // a key in data.message
	"faultcanary4242",                          // a password in data.fault's message
	"extracanary5151",                          // a password in a member the format does not name
}

const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5hcnkifQ.c2lnbmF0dXJlLWNhbmFyeQ"

// canaryContext holds every canary, at several depths, with members that
// are not secret.
var canaryContext = `,"context":{` +
	`"checkpoint_id":"run_7f3a","row_count":48000000,` +
	`"note":"upstream said: Authorization: Bearer ` + jwt + `",` +
	`"config":{"provider":"openai","api_key":"sk-proj-Canary0123456789abcdefXYZ","key_hint":"sk-proj-Canary0123456789abcdefXYZ"},` +
	`"dsn_log":"connect failed: password=hunter2hunter2 host=db",` +
	`"aws":["AKIAIOSFODNN7CANARY0",{"id":"AKIAIOSFODNN7CANARY0"}],` +
	`"trace":"panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/srv/app/main.go:42 +0x1d\n",` +
	`"frames":{"deep":[{"where":"main.run()\n\t/srv/app/main.go:42 +0x1d"}]},` +
	`"password":"correct-horse-battery-staple-canary",` +
	`"headers":{"Authorization":"Bearer ` + jwt + `"},` +
	`"seen":{"ghp_CanaryCanaryCanaryCanaryCanary012345":true}}`

// TestContextSecretsRedacted: secrets in data.context reach no one: not
// the POST's answer, an event stream, the record, the list, the stored
// rows or the logs. The members that are not secret are kept.
func TestContextSecretsRedacted(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	events, closeEvents := f.stream(nil)
	defer closeEvents()
	canaryReport := bytes.Replace(reportWith("q_canary", canaryContext), []byte("Query timed out after 30s"),
		[]byte("Query timed out after 30s (client sk-ant-MessageCanary0123456789)"), 1)
	canaryReport = bytes.Replace(canaryReport, []byte(`"query_id":"q_canary"`),
		[]byte(`"query_id":"q_canary","fault":{"code":"UPSTREAM_ERROR","message":"upstream said password=faultcanary4242"},`+
			`"extra":{"note":"retry with password=extracanary5151"}`), 1)
	leaks := func(where string, text []byte) {
		t.Helper()
		for _, c := range canaries {
			if strings.Contains(string(text), c) {
				t.Errorf("%s leaks %q:\n%s", where, c, text)
			}
		}
	}

	r := f.do("POST", "/v1/errors", canaryReport, map[string]string{"Idempotency-Key": "canary"})
	if r.status != http.StatusCreated {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	leaks("the POST's answer", r.body)
	fb := r.json(t)
	c, _ := fb["context"].(map[string]any)
	if c["checkpoint_id"] != "run_7f3a" || c["row_count"] != 48000000.0 || fb["context_ref"] != "run_7f3a" ||
		c["config"].(map[string]any)["provider"] != "openai" {
		t.Errorf("the context's other members were not kept: %v", c)
	}
	again := f.do("POST", "/v1/errors", canaryReport, map[string]string{"Idempotency-Key": "canary"})
	leaks("the replayed answer", again.body)
	dup := f.do("POST", "/v1/errors", canaryReport, nil)
	leaks("the duplicate's answer", dup.body)

	frame, err := events.Next()
	if err != nil || frame.Event != "feedback" {
		t.Fatalf("event %+v, %v", frame, err)
	}
	leaks("the event stream", []byte(frame.Data))

	id := fb["error_id"].(string)
	rec := f.do("GET", "/v1/errors/"+id, nil, nil)
	if rec.status != 200 {
		t.Fatalf("record: %d %s", rec.status, rec.body)
	}
	leaks("GET /v1/errors/"+id, rec.body)
	var record store.Record
	if err := json.Unmarshal(rec.body, &record); err != nil {
		t.Fatal(err)
	}
	var stored struct {
		Data struct {
			Context map[string]any `json:"context"`
		} `json:"data"`
	}
	if err := json.Unmarshal(record.Report, &stored); err != nil || stored.Data.Context["checkpoint_id"] != "run_7f3a" {
		t.Errorf("the stored report lost its context: %v %s", err, record.Report)
	}
	list := f.do("GET", "/v1/errors", nil, nil)
	leaks("GET /v1/errors", list.body)

	row, ok, err := f.store.Tenant(DefaultTenant).ErrorRecord(context.Background(), id)
	if err != nil || !ok {
		t.Fatalf("ErrorRecord: %v %v", ok, err)
	}
	raw, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	leaks("the stored record", raw)
	leaks("the logs", []byte(f.logBuf.String()))
}

// rawRequest sends text on a connection of its own to the fixture's server
// and reads the response.
func (f *fixture) rawRequest(text string) (*http.Response, []byte) {
	f.t.Helper()
	conn, err := net.DialTimeout("tcp", f.http.Listener.Addr().String(), 5*time.Second)
	if err != nil {
		f.t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	// Written on its own: the server may answer, and close, before it has
	// read all of a request too large.
	go func() { _, _ = io.WriteString(conn, text) }()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		f.t.Fatalf("%q: %v", text, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// TestRequestsServeMuxWouldAnswer: requests whose target is not a path
// (CONNECT's host:port, "*") reach the handler, and get a problem rather
// than ServeMux's text/plain "404 page not found" or its bare 400.
func TestRequestsServeMuxWouldAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for _, c := range []struct {
		request string
		status  int
		code    string
	}{
		{"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 404, "NOT_FOUND"},
		{"CONNECT 127.0.0.1:22 HTTP/1.1\r\n\r\n", 404, "NOT_FOUND"},
		{"CONNECT /v1/errors HTTP/1.1\r\nHost: x\r\n\r\n", 405, "INVALID_REQUEST"},
		{"GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400, "INVALID_REQUEST"},
		{"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400, "INVALID_REQUEST"},
	} {
		resp, body := f.rawRequest(c.request)
		if resp.StatusCode != c.status || resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%q: %d %q, want %d problem+json: %s", c.request, resp.StatusCode, resp.Header.Get("Content-Type"), c.status, body)
			continue
		}
		var p struct{ Code string }
		if err := json.Unmarshal(body, &p); err != nil || p.Code != c.code {
			t.Errorf("%q: code %q, want %q (%v): %s", c.request, p.Code, c.code, err, body)
		}
	}
}

// TestRequestsNetHTTPAnswers holds docs/service.md to what net/http does
// before any handler runs: these answers are its own, in text/plain, and
// the service cannot make them problems.
func TestRequestsNetHTTPAnswers(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for _, c := range []struct {
		request string
		status  int
	}{
		{"GET /v1/errors%zz HTTP/1.1\r\nHost: x\r\n\r\n", 400},                         // a bad escape in the path
		{"GET /v1/errors HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\n\r\n", 400},           // a control byte in a header
		{"GET /v1/errors HTTP/1.1\r\nBad Name: x\r\nHost: x\r\n\r\n", 400},             // a header name with a space
		{"G@T /v1/errors HTTP/1.1\r\nHost: x\r\n\r\n", 400},                            // a method that is not a token
		{"GET /v1/errors HTTP/1.1\r\n\r\n", 400},                                       // HTTP/1.1 without Host
		{"GET /v1/errors HTTP/1.1\r\nHost: a b\r\n\r\n", 400},                          // a malformed Host
		{"GET /v1/errors HTTP/3.0\r\nHost: x\r\n\r\n", 505},                            // a version it does not speak
		{"GET /v1/errors HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501}, // a transfer coding it does not know
		{"GET /v1/errors HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 1<<20+8192) + "\r\n\r\n", 431},
	} {
		resp, body := f.rawRequest(c.request)
		if resp.StatusCode != c.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
			t.Errorf("%.60q: %d %q, want net/http's %d in text/plain: %s", c.request, resp.StatusCode, resp.Header.Get("Content-Type"), c.status, body)
		}
	}
	// An Expect the server does not know: net/http's 417, without a body.
	resp, _ := f.rawRequest("GET /v1/errors HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n")
	if resp.StatusCode != http.StatusExpectationFailed {
		t.Errorf("Expect: %d, want 417", resp.StatusCode)
	}
}
