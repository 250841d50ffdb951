package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/internal/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/postgres"
	"github.com/triage-go/triage/store/sqlite"
	"github.com/triage-go/triage/wire/sse"
)

// clock is a test clock that moves only when told.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// scenarioNow is the time of the CLI's golden runs (internal/cli's
// handleArgs), so that the service's feedback can be compared with them.
var scenarioNow = time.Date(2025, 8, 8, 12, 20, 30, 0, time.UTC)

const goldenDir = "../internal/cli/testdata/handle"

type fixture struct {
	t      *testing.T
	srv    *Server
	http   *httptest.Server
	store  store.Store
	clock  *clock
	logBuf *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// onPostgres tells whether a test runs on PostgreSQL: the tests run on
// SQLite, and again on PostgreSQL under TestOnPostgres.
func onPostgres(t *testing.T) bool { return strings.HasPrefix(t.Name(), "TestOnPostgres/") }

// newDatabase names a fresh database for the test: a SQLite file, or a
// PostgreSQL schema.
func newDatabase(t *testing.T) string {
	if onPostgres(t) {
		return pgtest.FreshSchema(t)
	}
	return filepath.Join(t.TempDir(), "triage.db")
}

func openStore(t *testing.T, db string, clk *clock) store.Store {
	t.Helper()
	var st store.Store
	var err error
	if onPostgres(t) {
		st, err = postgres.Open(context.Background(), db, store.Options{Now: clk.Now})
	} else {
		st, err = sqlite.Open(context.Background(), db, store.Options{Now: clk.Now})
	}
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestOnPostgres runs the service's tests on PostgreSQL.
func TestOnPostgres(t *testing.T) {
	pgtest.URL(t)
	for _, c := range []struct {
		name string
		test func(*testing.T)
	}{
		{"Scenarios", TestScenariosOverHTTP}, {"ListErrors", TestListErrors}, {"ErrorStatuses", TestErrorStatuses},
		{"IdempotencyKey", TestIdempotencyKey}, {"Tenancy", TestTenancy}, {"Jobs", TestJobs},
		{"ConcurrentIdentical", TestConcurrentIdentical}, {"StoresSurviveRestart", TestHandlerStoresSurviveRestart},
		{"TwoInstances", TestTwoInstances}, {"EventsReplay", TestEventsReplay},
	} {
		t.Run(c.name, c.test)
	}
}

// newFixture starts a Server on a fresh SQLite store, with a test clock
// and the job worker off (tests run jobs with runDue).
func newFixture(t *testing.T, mod func(*Config)) *fixture {
	t.Helper()
	clk := &clock{now: scenarioNow}
	st := openStore(t, newDatabase(t), clk)
	t.Cleanup(func() { st.Close() })
	buf := &syncBuffer{}
	cfg := Config{Store: st, Now: clk.Now, JobPoll: -1, Logger: slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close() })
	return &fixture{t: t, srv: srv, http: hs, store: st, clock: clk, logBuf: buf}
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("status %d: body is not a JSON object: %v\n%s", r.status, err, r.body)
	}
	return m
}

func (f *fixture) do(method, path string, body []byte, header map[string]string) response {
	f.t.Helper()
	req, err := http.NewRequest(method, f.http.URL+path, bytes.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := f.http.Client().Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// loadInventory PUTs the golden runs' schema inventory and cache.
func (f *fixture) loadInventory(header map[string]string) {
	f.t.Helper()
	var schemas map[string]json.RawMessage
	if err := json.Unmarshal(readFile(f.t, goldenDir+"/schema.json"), &schemas); err != nil {
		f.t.Fatal(err)
	}
	for source, doc := range schemas {
		if r := f.do("PUT", "/v1/schemas/"+source, doc, header); r.status != 200 {
			f.t.Fatalf("PUT schema: %d %s", r.status, r.body)
		}
	}
	var cache map[string]json.RawMessage
	if err := json.Unmarshal(readFile(f.t, goldenDir+"/cache.json"), &cache); err != nil {
		f.t.Fatal(err)
	}
	for q, doc := range cache {
		if r := f.do("PUT", "/v1/cache/"+q, doc, header); r.status != 200 {
			f.t.Fatalf("PUT cache: %d %s", r.status, r.body)
		}
	}
}

// scenarios are seed 004's scenarios (and the golden runs' others), one
// report each.
var scenarios = []string{"ambiguous_input", "schema_synonym", "schema_missing", "db_timeout",
	"chart_incompatible", "service_outage", "invalid_date_range", "llm_rate_limited", "unclassified"}

func jsonEqual(t *testing.T, got, want []byte) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got: %v", err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("want: %v", err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return bytes.Equal(gb, wb)
}

func TestScenariosOverHTTP(t *testing.T) {
	f := newFixture(t, nil)
	f.loadInventory(nil)
	for _, name := range scenarios {
		t.Run(name, func(t *testing.T) {
			report := readFile(t, goldenDir+"/"+name+".json")
			r := f.do("POST", "/v1/errors", report, nil)
			if r.status != http.StatusCreated {
				t.Fatalf("status %d, want 201: %s", r.status, r.body)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if want := readFile(t, goldenDir+"/"+name+".feedback"); !jsonEqual(t, r.body, want) {
				t.Errorf("feedback differs from the CLI's golden %s.feedback:\n got %s\nwant %s", name, r.body, want)
			}
			fb := r.json(t)

			// The same delivery again: 200, the same feedback, marked.
			again := f.do("POST", "/v1/errors", report, nil)
			if again.status != http.StatusOK {
				t.Fatalf("duplicate: status %d, want 200: %s", again.status, again.body)
			}
			dup := again.json(t)
			if dup["error_id"] != fb["error_id"] || dup["duplicate"] != true || dup["user_message"] != fb["user_message"] {
				t.Errorf("duplicate feedback: %s", again.body)
			}

			// The record.
			rec := f.do("GET", "/v1/errors/"+fb["error_id"].(string), nil, nil)
			if rec.status != 200 {
				t.Fatalf("GET record: %d %s", rec.status, rec.body)
			}
			var record store.Record
			if err := json.Unmarshal(rec.body, &record); err != nil {
				t.Fatal(err)
			}
			if record.ErrorID != fb["error_id"] || record.Count != 1 || len(record.Occurrences) != 1 {
				t.Fatalf("record: %+v", record)
			}
			// The actions' outcomes, one per automated action.
			var outcomes []triage.Outcome
			if acts := record.Occurrences[0].Actions; len(acts) > 0 && json.Unmarshal(acts, &outcomes) != nil {
				t.Fatalf("actions %s", acts)
			}
			detail := fb["automated_actions"].([]any)
			if len(outcomes) != len(detail) {
				t.Fatalf("%d outcomes for %d automated actions", len(outcomes), len(detail))
			}
			for i, o := range outcomes {
				if o.Detail != detail[i] || o.Action == "" || o.Status == "" {
					t.Errorf("outcome %d: %+v, automated action %v", i, o, detail[i])
				}
			}
			if !jsonEqual(t, record.Feedback, r.body) || !jsonEqual(t, record.Report, report) {
				t.Errorf("record's report or feedback differ:\n%s", rec.body)
			}
		})
	}
}

func TestListErrors(t *testing.T) {
	f := newFixture(t, nil)
	ids := map[string]bool{}
	for _, name := range scenarios {
		r := f.do("POST", "/v1/errors", readFile(t, goldenDir+"/"+name+".json"), nil)
		if r.status != 201 {
			t.Fatalf("%s: %d %s", name, r.status, r.body)
		}
		ids[r.json(t)["error_id"].(string)] = true
	}
	seen := map[string]bool{}
	cursor := ""
	pages := 0
	for {
		path := "/v1/errors?limit=4"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		r := f.do("GET", path, nil, nil)
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		var page store.Page
		if err := json.Unmarshal(r.body, &page); err != nil {
			t.Fatal(err)
		}
		pages++
		for _, rec := range page.Records {
			if seen[rec.ErrorID] {
				t.Errorf("%s listed twice", rec.ErrorID)
			}
			seen[rec.ErrorID] = true
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	if len(seen) != len(ids) || pages != 3 {
		t.Errorf("listed %d of %d records in %d pages", len(seen), len(ids), pages)
	}
	r := f.do("GET", "/v1/errors?query_id=q_456&error_type=query_error", nil, nil)
	var page store.Page
	if err := json.Unmarshal(r.body, &page); err != nil || len(page.Records) != 1 || page.Records[0].QueryID != "q_456" {
		t.Errorf("filter by query: %d %s", r.status, r.body)
	}
	r = f.do("GET", "/v1/errors?severity=urgent&limit=0&since=yesterday&color=red", nil, nil)
	if r.status != 400 {
		t.Fatalf("bad filters: %d %s", r.status, r.body)
	}
	fields := fieldsOf(t, r)
	for _, want := range []string{"color", "severity", "since", "limit"} {
		if !fields[want] {
			t.Errorf("bad filters: no error for %s: %s", want, r.body)
		}
	}
	if r := f.do("GET", "/v1/errors?cursor=bm9wZQ", nil, nil); r.status != 400 || !fieldsOf(t, r)["cursor"] {
		t.Errorf("bad cursor: %d %s", r.status, r.body)
	}
}

// fieldsOf returns the fields a problem's errors name.
func fieldsOf(t *testing.T, r response) map[string]bool {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q, want application/problem+json", ct)
	}
	var p struct {
		Errors []struct{ Field, Message string }
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range p.Errors {
		out[e.Field] = true
	}
	return out
}

func codeOf(t *testing.T, r response) string {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q, want application/problem+json (%s)", ct, r.body)
	}
	m := r.json(t)
	if int(m["status"].(float64)) != r.status {
		t.Errorf("problem status %v, response %d", m["status"], r.status)
	}
	code, _ := m["code"].(string)
	return code
}

func TestErrorStatuses(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxBody = 4096 })
	valid := readFile(t, goldenDir+"/db_timeout.json")
	cases := []struct {
		name   string
		method string
		path   string
		body   []byte
		header map[string]string
		status int
		code   string
	}{
		{"malformed JSON", "POST", "/v1/errors", []byte(`{"agent_id": `), nil, 400, "INVALID_REQUEST"},
		{"empty body", "POST", "/v1/errors", []byte(``), nil, 400, "INVALID_REQUEST"},
		{"invalid report", "POST", "/v1/errors", []byte(`{"agent_id":"a b","status":"ok","data":{}}`), nil, 422, "INVALID_REQUEST"},
		{"not an object", "POST", "/v1/errors", []byte(`[1,2]`), nil, 422, "INVALID_REQUEST"},
		{"too large", "POST", "/v1/errors", bytes.Repeat([]byte(" "), 5000), nil, 413, "PAYLOAD_TOO_LARGE"},
		{"not JSON", "POST", "/v1/errors", valid, map[string]string{"Content-Type": "text/plain"}, 415, "INVALID_REQUEST"},
		{"unknown route", "GET", "/v2/nothing", nil, nil, 404, "NOT_FOUND"},
		{"wrong method", "DELETE", "/v1/errors", nil, nil, 405, "INVALID_REQUEST"},
		{"unknown record", "GET", "/v1/errors/err_0000000000000000", nil, nil, 404, "NOT_FOUND"},
		{"bad schema path", "PUT", "/v1/schemas/a%20b", []byte(`{"fields":[]}`), nil, 400, "INVALID_REQUEST"},
		{"bad schema", "PUT", "/v1/schemas/sales", []byte(`{"fields":["a"],"synonyms":{"b":"c"},"x":1}`), nil, 422, "INVALID_REQUEST"},
		{"bad agent", "PUT", "/v1/agents/query_engine", []byte(`{"callback_url":"ftp://x"}`), nil, 422, "INVALID_REQUEST"},
		{"bad cache", "PUT", "/v1/cache/q_1", []byte(`{"summary":5}`), nil, 422, "INVALID_REQUEST"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.do(c.method, c.path, c.body, c.header)
			if r.status != c.status {
				t.Fatalf("status %d, want %d: %s", r.status, c.status, r.body)
			}
			if code := codeOf(t, r); code != c.code {
				t.Errorf("code %q, want %q: %s", code, c.code, r.body)
			}
		})
	}
	r := f.do("POST", "/v1/errors", []byte(`{"agent_id":"a b","status":"ok","data":{}}`), nil)
	fields := fieldsOf(t, r)
	for _, want := range []string{"agent_id", "timestamp", "status", "data.message", "data.query_id"} {
		if !fields[want] {
			t.Errorf("422 does not list %s: %s", want, r.body)
		}
	}
	if r := f.do("DELETE", "/v1/errors", nil, nil); r.header.Get("Allow") != "GET, POST" {
		t.Errorf("405 Allow %q", r.header.Get("Allow"))
	}
	// Nothing was recorded by the refused requests.
	page, err := f.store.Tenant(DefaultTenant).ErrorRecords(context.Background(), store.Filter{})
	if err != nil || len(page.Records) != 0 {
		t.Errorf("refused requests recorded %d records (%v)", len(page.Records), err)
	}
}

func TestIdempotencyKey(t *testing.T) {
	f := newFixture(t, nil)
	report := readFile(t, goldenDir+"/db_timeout.json")
	key := map[string]string{"Idempotency-Key": `"k-1"`}
	first := f.do("POST", "/v1/errors", report, key)
	if first.status != 201 {
		t.Fatalf("%d %s", first.status, first.body)
	}
	again := f.do("POST", "/v1/errors", report, key)
	if again.status != 201 || !bytes.Equal(again.body, first.body) || again.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("repeat: %d %q %s", again.status, again.header.Get("Idempotent-Replayed"), again.body)
	}
	other := f.do("POST", "/v1/errors", readFile(t, goldenDir+"/ambiguous_input.json"), key)
	if other.status != 422 || codeOf(t, other) != "INVALID_REQUEST" || !fieldsOf(t, other)["Idempotency-Key"] {
		t.Errorf("another payload: %d %s", other.status, other.body)
	}
	// A request in flight under a key: 409.
	sum := sha256.Sum256(report)
	st, _, err := f.store.Tenant(DefaultTenant).BeginRequest(context.Background(), "k-2", hex.EncodeToString(sum[:]))
	if err != nil || st != store.IdemNew {
		t.Fatal(st, err)
	}
	busy := f.do("POST", "/v1/errors", report, map[string]string{"Idempotency-Key": "k-2"})
	if busy.status != 409 || codeOf(t, busy) != "SESSION_BUSY" || busy.header.Get("Retry-After") == "" {
		t.Errorf("in flight: %d %v %s", busy.status, busy.header, busy.body)
	}
	// An invalid report's 422 is the key's final answer too.
	k3 := map[string]string{"Idempotency-Key": "k-3"}
	bad := f.do("POST", "/v1/errors", []byte(`{}`), k3)
	bad2 := f.do("POST", "/v1/errors", []byte(`{}`), k3)
	if bad.status != 422 || bad2.status != 422 || !bytes.Equal(bad.body, bad2.body) || bad2.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("invalid under a key: %d %d", bad.status, bad2.status)
	}
	if r := f.do("POST", "/v1/errors", report, map[string]string{"Idempotency-Key": "a b"}); r.status != 400 {
		t.Errorf("bad key: %d %s", r.status, r.body)
	}
}

func TestTenancy(t *testing.T) {
	const keyA, keyB = "key-a-0123456789abcdef", "key-b-0123456789abcdef"
	f := newFixture(t, func(c *Config) { c.APIKeys = map[string]string{keyA: "acme", keyB: "globex"} })
	report := readFile(t, goldenDir+"/db_timeout.json")
	if r := f.do("POST", "/v1/errors", report, nil); r.status != 401 || codeOf(t, r) != "TENANT_REQUIRED" {
		t.Errorf("no key: %d %s", r.status, r.body)
	}
	if r := f.do("POST", "/v1/errors", report, map[string]string{"Authorization": "Bearer wrong-key-0123456789"}); r.status != 403 || codeOf(t, r) != "TENANT_UNAUTHORIZED" {
		t.Errorf("wrong key: %d %s", r.status, r.body)
	}
	if r := f.do("POST", "/v1/errors", report, map[string]string{"Authorization": "Basic " + keyA}); r.status != 403 {
		t.Errorf("another scheme: %d %s", r.status, r.body)
	}
	a := f.do("POST", "/v1/errors", report, map[string]string{"Authorization": "Bearer " + keyA})
	if a.status != 201 {
		t.Fatalf("tenant A: %d %s", a.status, a.body)
	}
	id := a.json(t)["error_id"].(string)
	if r := f.do("GET", "/v1/errors/"+id, nil, map[string]string{"X-API-Key": keyA}); r.status != 200 {
		t.Errorf("A reads its record: %d %s", r.status, r.body)
	}
	if r := f.do("GET", "/v1/errors/"+id, nil, map[string]string{"X-API-Key": keyB}); r.status != 404 || codeOf(t, r) != "NOT_FOUND" {
		t.Errorf("B reads A's record: %d %s", r.status, r.body)
	}
	if r := f.do("GET", "/v1/errors", nil, map[string]string{"X-API-Key": keyB}); !strings.Contains(string(r.body), `"records":[]`) {
		t.Errorf("B lists: %d %s", r.status, r.body)
	}
	// B's first report of the same error is B's first: attempt 1, 201.
	b := f.do("POST", "/v1/errors", report, map[string]string{"X-API-Key": keyB})
	if b.status != 201 || b.json(t)["attempt"] != 1.0 {
		t.Errorf("B's report: %d %s", b.status, b.body)
	}
	if logs := f.logBuf.String(); strings.Contains(logs, keyA) || strings.Contains(logs, keyB) || strings.Contains(logs, "wrong-key") {
		t.Errorf("a key reached the logs:\n%s", logs)
	}
	// Health, readiness, metrics and the API description need no key.
	for _, path := range []string{"/healthz", "/readyz", "/metrics", "/openapi.json"} {
		if r := f.do("GET", path, nil, nil); r.status != 200 {
			t.Errorf("%s: %d", path, r.status)
		}
	}
}

func TestRateLimit(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.RateLimit, c.RateBurst = 1, 2 })
	var last response
	for range 3 {
		last = f.do("GET", "/v1/errors", nil, nil)
	}
	if last.status != 429 || codeOf(t, last) != "RATE_LIMITED" {
		t.Fatalf("third request: %d %s", last.status, last.body)
	}
	if last.header.Get("Retry-After") != "1" || last.header.Get("RateLimit-Policy") != `"tenant";q=2;w=2` ||
		last.header.Get("RateLimit") != `"tenant";r=0;t=1` {
		t.Errorf("headers: %v", last.header)
	}
	f.clock.Advance(time.Second)
	if r := f.do("GET", "/v1/errors", nil, nil); r.status != 200 {
		t.Errorf("after a second: %d", r.status)
	}
}

func TestConcurrencyBound(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxConcurrent = 2 })
	f.srv.slots <- struct{}{}
	f.srv.slots <- struct{}{} // two requests in progress
	r := f.do("GET", "/v1/errors", nil, nil)
	if r.status != 503 || codeOf(t, r) != "SERVICE_UNAVAILABLE" || r.header.Get("Retry-After") != "1" {
		t.Errorf("over the bound: %d %v %s", r.status, r.header, r.body)
	}
	if r := f.do("GET", "/healthz", nil, nil); r.status != 200 {
		t.Errorf("health is not bounded: %d", r.status)
	}
	<-f.srv.slots
	if r := f.do("GET", "/v1/errors", nil, nil); r.status != 200 {
		t.Errorf("a slot free: %d", r.status)
	}
}

func TestDebugProblems(t *testing.T) {
	for _, debug := range []bool{false, true} {
		f := newFixture(t, func(c *Config) { c.Debug = debug })
		r := f.do("POST", "/v1/errors", []byte(`{"agent_id":`), nil)
		_, has := r.json(t)["debug"]
		if has != debug {
			t.Errorf("debug=%v: problem has debug member: %v (%s)", debug, has, r.body)
		}
		if strings.Contains(string(r.body), "goroutine") || strings.Contains(string(r.body), ".go:") {
			t.Errorf("a stack trace reached the client: %s", r.body)
		}
	}
}

func TestOpenAPIListsEveryRoute(t *testing.T) {
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q", doc.OpenAPI)
	}
	s := &Server{}
	routes := map[string]bool{}
	for _, rt := range s.routeTable() {
		key := strings.ToLower(rt.method) + " " + rt.path
		routes[key] = true
		if _, ok := doc.Paths[rt.path][strings.ToLower(rt.method)]; !ok {
			t.Errorf("openapi.json lacks %s %s", rt.method, rt.path)
		}
	}
	for path, ops := range doc.Paths {
		for method := range ops {
			if !routes[method+" "+path] {
				t.Errorf("openapi.json documents %s %s, which is not a route", method, path)
			}
		}
	}
}

func TestHandlerStoresSurviveRestart(t *testing.T) {
	// Attempts live in the store: a second Server on the same database
	// counts on.
	db := newDatabase(t)
	clk := &clock{now: scenarioNow}
	open := func() (*Server, store.Store) {
		st := openStore(t, db, clk)
		srv, err := New(Config{Store: st, Now: clk.Now, JobPoll: -1, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		return srv, st
	}
	report := func(ts string) []byte {
		return []byte(`{"agent_id":"query_engine","timestamp":"` + ts + `","status":"error","data":{"error_code":"DB_TIMEOUT","message":"Query timed out after 30s","query_id":"q_9"}}`)
	}
	var attempts []float64
	for i, ts := range []string{"2025-08-08T12:00:00Z", "2025-08-08T12:01:00Z", "2025-08-08T12:02:00Z", "2025-08-08T12:03:00Z"} {
		srv, st := open()
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/errors", bytes.NewReader(report(ts))))
		var fb triage.Feedback
		if err := json.Unmarshal(rec.Body.Bytes(), &fb); err != nil {
			t.Fatalf("%d: %v %s", i, err, rec.Body)
		}
		attempts = append(attempts, float64(fb.Attempt))
		if i == 3 && fb.NextAction != triage.Escalate {
			t.Errorf("fourth attempt across restarts: next_action %s", fb.NextAction)
		}
		st.Close()
	}
	if want := []float64{1, 2, 3, 4}; !equalFloats(attempts, want) {
		t.Errorf("attempts across restarts %v, want %v", attempts, want)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// callbacks is an agent's (or ops') HTTP endpoint that answers with the
// statuses it is given, in turn, and records what it receives.
type callbacks struct {
	mu       sync.Mutex
	statuses []int
	bodies   [][]byte
	srv      *httptest.Server
}

func newCallbacks(t *testing.T, statuses ...int) *callbacks {
	c := &callbacks{statuses: statuses}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.bodies = append(c.bodies, b)
		status := 200
		if len(c.statuses) > 0 {
			status, c.statuses = c.statuses[0], c.statuses[1:]
		}
		if status == 503 {
			w.Header().Set("Retry-After", "30")
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *callbacks) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.bodies)
}

func (f *fixture) record(id string) store.Record {
	f.t.Helper()
	r := f.do("GET", "/v1/errors/"+id, nil, nil)
	var rec store.Record
	if err := json.Unmarshal(r.body, &rec); err != nil {
		f.t.Fatalf("%d %s", r.status, r.body)
	}
	return rec
}

func TestJobs(t *testing.T) {
	ops := newCallbacks(t)
	f := newFixture(t, func(c *Config) { c.Webhook = ops.srv.URL + "/escalations" })
	ctx := context.Background()
	agent := newCallbacks(t, 503, 200)
	if r := f.do("PUT", "/v1/agents/query_engine", []byte(`{"callback_url":"`+agent.srv.URL+`/retry"}`), nil); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	r := f.do("POST", "/v1/errors", readFile(t, goldenDir+"/db_timeout.json"), nil)
	id := r.json(t)["error_id"].(string)

	f.srv.runDue(ctx)
	if agent.count() != 0 {
		t.Fatal("the retry ran before it was due")
	}
	f.clock.Advance(3 * time.Second) // retry:2 is due 2s after the report
	f.srv.runDue(ctx)
	if agent.count() != 1 {
		t.Fatalf("the due retry ran %d times", agent.count())
	}
	var job triage.RetryJob
	if err := json.Unmarshal(agent.bodies[0], &job); err != nil || job.ErrorID != id || job.QueryID != "q_456" || job.Attempt != 2 {
		t.Errorf("callback body %s (%v)", agent.bodies[0], err)
	}
	rec := f.record(id)
	if len(rec.Jobs) != 1 || rec.Jobs[0].State != store.JobAvailable || len(rec.Jobs[0].Attempts) != 1 ||
		!strings.Contains(rec.Jobs[0].Attempts[0].Error, "503") {
		t.Fatalf("after a 503: %+v", rec.Jobs)
	}
	// The agent said Retry-After: 30, longer than the first backoff (5s).
	f.clock.Advance(10 * time.Second)
	f.srv.runDue(ctx)
	if agent.count() != 1 {
		t.Errorf("retried before the agent's Retry-After")
	}
	f.clock.Advance(25 * time.Second)
	f.srv.runDue(ctx)
	rec = f.record(id)
	if agent.count() != 2 || rec.Jobs[0].State != store.JobSucceeded || len(rec.Jobs[0].Attempts) != 2 || rec.Jobs[0].Attempts[1].Error != "" {
		t.Errorf("second attempt: calls %d, jobs %+v", agent.count(), rec.Jobs)
	}

	// An escalation goes to the webhook.
	r = f.do("POST", "/v1/errors", readFile(t, goldenDir+"/service_outage.json"), nil)
	outage := r.json(t)["error_id"].(string)
	f.srv.runDue(ctx)
	if ops.count() != 1 || !bytes.Contains(ops.bodies[0], []byte(outage)) {
		t.Errorf("webhook calls %d", ops.count())
	}

	// A permanent failure: an agent without a callback.
	r = f.do("POST", "/v1/errors", []byte(`{"agent_id":"chart_agent","timestamp":"2025-08-08T12:20:10Z","status":"error","data":{"error_code":"QUERY_TIMEOUT","message":"timed out","query_id":"q_77"}}`), nil)
	lost := r.json(t)["error_id"].(string)
	f.clock.Advance(time.Minute)
	f.srv.runDue(ctx)
	rec = f.record(lost)
	if len(rec.Jobs) != 1 || rec.Jobs[0].State != store.JobFailed || !strings.Contains(rec.Jobs[0].Attempts[0].Error, "no callback URL") {
		t.Errorf("no callback: %+v", rec.Jobs)
	}
}

func TestConcurrentIdentical(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.RateLimit = -1 })
	report := readFile(t, goldenDir+"/db_timeout.json")
	statuses := make(chan int, 50)
	ids := make(chan string, 50)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			for {
				r := f.do("POST", "/v1/errors", report, nil)
				if r.status == 409 {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				statuses <- r.status
				if r.status < 300 {
					ids <- r.json(t)["error_id"].(string)
				}
				return
			}
		})
	}
	wg.Wait()
	close(statuses)
	close(ids)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[201] != 1 || count[200] != 49 {
		t.Errorf("statuses %v, want one 201 and 49 200s", count)
	}
	var id string
	for got := range ids {
		if id != "" && got != id {
			t.Errorf("error_ids %s and %s", id, got)
		}
		id = got
	}
	rec := f.record(id)
	if rec.Count != 1 || len(rec.Jobs) != 1 {
		t.Errorf("occurrences %d, jobs %d: want one of each", rec.Count, len(rec.Jobs))
	}
}

// TestTwoInstances: two services on one database are one service: the same
// report posted to both at once is handled once.
func TestTwoInstances(t *testing.T) {
	db := newDatabase(t)
	clk := &clock{now: scenarioNow}
	var urls []string
	for range 2 {
		st := openStore(t, db, clk)
		t.Cleanup(func() { st.Close() })
		srv, err := New(Config{Store: st, Now: clk.Now, JobPoll: -1, RateLimit: -1, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv)
		t.Cleanup(hs.Close)
		urls = append(urls, hs.URL)
	}
	report := readFile(t, goldenDir+"/db_timeout.json")
	statuses := make(chan int, 20)
	ids := make(chan string, 20)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			for {
				resp, err := http.Post(urls[i%2]+"/v1/errors", "application/json", bytes.NewReader(report))
				if err != nil {
					t.Error(err)
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 409 {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				statuses <- resp.StatusCode
				var fb triage.Feedback
				if json.Unmarshal(body, &fb) == nil {
					ids <- fb.ErrorID
				}
				return
			}
		})
	}
	wg.Wait()
	close(statuses)
	close(ids)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[201] != 1 || count[200] != 19 {
		t.Errorf("statuses %v across two instances, want one 201 and 19 200s", count)
	}
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	if len(seen) != 1 {
		t.Errorf("error_ids %v", seen)
	}
}

// failingSave is a store whose first SaveOccurrence fails.
type failingSave struct {
	store.Store
	failed *bool
}

func (f failingSave) Tenant(id string) store.Tenant {
	return failingTenant{Tenant: f.Store.Tenant(id), failed: f.failed}
}

type failingTenant struct {
	store.Tenant
	failed *bool
}

func (f failingTenant) SaveOccurrence(ctx context.Context, o store.Occurrence) (int64, error) {
	if !*f.failed {
		*f.failed = true
		return 0, errors.New("disk full")
	}
	return f.Tenant.SaveOccurrence(ctx, o)
}

// TestSaveFailure: a report whose record could not be saved is a 503, to
// retry in a second; the retry is handled anew (not a 409 for a minute),
// with its jobs.
func TestSaveFailure(t *testing.T) {
	failed := false
	f := newFixture(t, nil)
	f.srv.cfg.Store = failingSave{Store: f.store, failed: &failed}
	report := readFile(t, goldenDir+"/db_timeout.json")
	if r := f.do("POST", "/v1/errors", report, nil); r.status != 503 || codeOf(t, r) != "SERVICE_UNAVAILABLE" ||
		r.header.Get("Retry-After") != "1" || strings.Contains(string(r.body), "disk full") {
		t.Fatalf("save failed: %d %s", r.status, r.body)
	}
	r := f.do("POST", "/v1/errors", report, nil)
	if r.status != 201 {
		t.Fatalf("the retry: %d %s", r.status, r.body)
	}
	rec := f.record(r.json(t)["error_id"].(string))
	if rec.Count != 1 || len(rec.Jobs) != 1 {
		t.Errorf("after the retry: %d occurrences, %d jobs", rec.Count, len(rec.Jobs))
	}
}

// TestExpire: Serve deletes bookkeeping past its retention.
func TestExpire(t *testing.T) {
	clk := &clock{now: scenarioNow}
	st := openStore(t, newDatabase(t), clk)
	defer st.Close()
	srv, err := New(Config{Store: st, Now: clk.Now, JobPoll: -1, ExpireEvery: 10 * time.Millisecond,
		Retention: store.Retention{Idempotency: time.Minute}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	tn := st.Tenant(DefaultTenant)
	if _, _, err := tn.BeginRequest(t.Context(), "k", "h"); err != nil {
		t.Fatal(err)
	}
	if err := tn.FinishRequest(t.Context(), "k", store.StoredResponse{Status: 201, ContentType: "application/json", Body: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Minute)
	if state, _, err := tn.BeginRequest(t.Context(), "k", "h"); err != nil || state != store.IdemDone {
		t.Fatalf("before expiry: %v %v, want IdemDone", state, err)
	}
	_, cancel, done := serve(t, srv)
	deadline := time.Now().Add(5 * time.Second)
	for {
		state, _, err := tn.BeginRequest(t.Context(), "k", "h")
		if err != nil {
			t.Fatal(err)
		}
		if state == store.IdemNew {
			break // expired: the key is new again
		}
		if state != store.IdemDone {
			t.Fatalf("state %v", state)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the key was not expired: %v", state)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// stream opens GET /v1/events with the given headers.
func (f *fixture) stream(header map[string]string) (*sse.Reader, func()) {
	f.t.Helper()
	req, err := http.NewRequest("GET", f.http.URL+"/v1/events", nil)
	if err != nil {
		f.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := f.http.Client().Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		f.t.Fatalf("GET /v1/events: %d %s", resp.StatusCode, b)
	}
	return sse.NewReader(resp.Body), func() { resp.Body.Close() }
}

// nextEvent reads the stream's next event but comments: its name, its id
// and, for feedback, its error_id.
func nextEvent(t *testing.T, r *sse.Reader) (event, id, errorID string) {
	t.Helper()
	frame, err := r.Next()
	if err != nil {
		t.Fatalf("the stream ended: %v", err)
	}
	if frame.Event == "feedback" {
		var fb map[string]any
		if err := json.Unmarshal([]byte(frame.Data), &fb); err != nil {
			t.Fatalf("event data: %v: %s", err, frame.Data)
		}
		errorID, _ = fb["error_id"].(string)
	}
	return frame.Event, frame.ID, errorID
}

// atOrAfter tells whether the event id is a position at or after pos.
func atOrAfter(id string, pos int64) bool {
	n, err := strconv.ParseInt(id, 10, 64)
	return err == nil && n >= pos
}

// nextFeedback reads the stream's next event, which must be feedback: its
// id and error_id.
func nextFeedback(t *testing.T, r *sse.Reader) (id, errorID string) {
	t.Helper()
	event, id, errorID := nextEvent(t, r)
	if event != "feedback" {
		t.Fatalf("event %q (id %s), want feedback", event, id)
	}
	return id, errorID
}

// TestEventsReplay: a stream gets each feedback once, in order; one that
// reconnects with Last-Event-ID gets what it missed first, up to
// MaxReplay, then a truncated event; only its tenant's; and feedback
// another instance saved on the same store.
func TestEventsReplay(t *testing.T) {
	const keyA, keyB = "key-a-0123456789abcdef", "key-b-0123456789abcdef"
	keys := map[string]string{keyA: "acme", keyB: "globex"}
	f := newFixture(t, func(c *Config) { c.APIKeys, c.MaxReplay, c.EventPoll = keys, 3, 20*time.Millisecond })
	a, b := map[string]string{"X-API-Key": keyA}, map[string]string{"X-API-Key": keyB}
	template := string(readFile(t, goldenDir+"/db_timeout.json"))
	report := func(i int) []byte {
		return []byte(strings.Replace(template, `"q_456"`, fmt.Sprintf(`"q_%d"`, i), 1))
	}
	post := func(i int, header map[string]string) string {
		t.Helper()
		r := f.do("POST", "/v1/errors", report(i), header)
		if r.status != 201 {
			t.Fatalf("report %d: %d %s", i, r.status, r.body)
		}
		return r.json(t)["error_id"].(string)
	}

	old := post(99, a) // before the stream: not sent
	live, closeLive := f.stream(a)
	var ids, errorIDs []string
	for i := range 3 {
		errorIDs = append(errorIDs, post(i, a))
		id, errorID := nextFeedback(t, live)
		if errorID != errorIDs[i] {
			t.Fatalf("event %d: error_id %s, want %s (not the one from before the stream, %s)", i, errorID, errorIDs[i], old)
		}
		ids = append(ids, id)
	}
	closeLive()
	post(100, b) // another tenant's, never in A's stream
	for i := 3; i < 5; i++ {
		errorIDs = append(errorIDs, post(i, a))
	}

	// Reconnect after the second event: the third, fourth and fifth are
	// replayed (MaxReplay, and no more), then a new one comes live.
	again, closeAgain := f.stream(map[string]string{"X-API-Key": keyA, "Last-Event-ID": ids[1]})
	var got []string
	for range 3 {
		id, errorID := nextFeedback(t, again)
		got = append(got, errorID)
		ids = append(ids, id)
	}
	if want := errorIDs[2:5]; !slices.Equal(got, want) {
		t.Errorf("replayed %v, want %v", got, want)
	}
	errorIDs = append(errorIDs, post(5, a))
	id, errorID := nextFeedback(t, again)
	if errorID != errorIDs[5] {
		t.Errorf("after the replay: error_id %s, want %s (each event once)", errorID, errorIDs[5])
	}
	ids = append(ids, id)
	closeAgain()
	// A replayed event has the id it had live, and ids grow.
	if ids[3] != ids[2] {
		t.Errorf("the third event: id %s live, %s replayed", ids[2], ids[3])
	}
	ids = slices.Delete(ids, 3, 4)
	for i := 1; i < len(ids); i++ {
		prev, _ := strconv.ParseInt(ids[i-1], 10, 64)
		cur, err := strconv.ParseInt(ids[i], 10, 64)
		if err != nil || cur <= prev {
			t.Errorf("event ids %v do not grow", ids)
			break
		}
	}

	// Further behind than MaxReplay: three events, then truncated, whose
	// id is the position the stream goes on after (the newest event's on
	// SQLite; on PostgreSQL it may be later, see store.Tenant), then the
	// new.
	behind, closeBehind := f.stream(map[string]string{"X-API-Key": keyA, "Last-Event-ID": ids[0]})
	defer closeBehind()
	for i := 1; i <= 3; i++ {
		if _, errorID := nextFeedback(t, behind); errorID != errorIDs[i] {
			t.Errorf("replay %d: %s, want %s", i, errorID, errorIDs[i])
		}
	}
	newest, _ := strconv.ParseInt(ids[len(ids)-1], 10, 64)
	if event, id, _ := nextEvent(t, behind); event != "truncated" || !atOrAfter(id, newest) {
		t.Errorf("after MaxReplay: event %q id %s, want truncated with an id at or after %d", event, id, newest)
	}
	errorIDs = append(errorIDs, post(6, a))
	if _, errorID := nextFeedback(t, behind); errorID != errorIDs[6] {
		t.Errorf("after truncated: %s, want the new %s", errorID, errorIDs[6])
	}

	// Another instance on the same store: its feedback reaches this
	// instance's stream within EventPoll.
	other, err := New(Config{Store: f.store, Now: f.clock.Now, JobPoll: -1, APIKeys: keys, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(other)
	defer hs.Close()
	req, _ := http.NewRequest("POST", hs.URL+"/v1/errors", bytes.NewReader(report(7)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", keyA)
	resp, err := hs.Client().Do(req)
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("POST to the other instance: %v %v", resp, err)
	}
	var fb map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&fb); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, errorID := nextFeedback(t, behind); errorID != fb["error_id"] {
		t.Errorf("the other instance's feedback: %s, want %s", errorID, fb["error_id"])
	}

	// An id from the future (a store reset since) is taken for now.
	future, closeFuture := f.stream(map[string]string{"X-API-Key": keyA, "Last-Event-ID": "999999999"})
	defer closeFuture()
	errorIDs = append(errorIDs, post(8, a))
	if _, errorID := nextFeedback(t, future); errorID != errorIDs[len(errorIDs)-1] {
		t.Errorf("after a future Last-Event-ID: %s, want the new %s", errorID, errorIDs[len(errorIDs)-1])
	}

	// B reconnecting from 0 sees only its own.
	bs, closeB := f.stream(map[string]string{"X-API-Key": keyB, "Last-Event-ID": "0"})
	defer closeB()
	if _, errorID := nextFeedback(t, bs); slices.Contains(errorIDs, errorID) {
		t.Errorf("tenant B was replayed tenant A's %s", errorID)
	}

	for _, bad := range []string{"abc", "-1", "1.5"} {
		r := f.do("GET", "/v1/events", nil, map[string]string{"X-API-Key": keyA, "Last-Event-ID": bad})
		if r.status != 400 || codeOf(t, r) != "INVALID_REQUEST" {
			t.Errorf("Last-Event-ID %q: %d %s", bad, r.status, r.body)
		}
	}
}

// A duplicate whose first delivery's occurrence was never saved (its
// delivery was completed, here directly) saves it, with the delivery's
// feedback rather than the duplicate's answer.
func TestDuplicateSavesFirstFeedback(t *testing.T) {
	f := newFixture(t, nil)
	report := readFile(t, goldenDir+"/db_timeout.json")
	rep, err := triage.DecodeReport(report)
	if err != nil {
		t.Fatal(err)
	}
	prior := &triage.Feedback{ErrorID: "err_prior", ErrorType: triage.QueryError, QueryID: "q_456", NextAction: triage.Resume, UserMessage: "before"}
	tn := f.store.Tenant(DefaultTenant)
	if _, _, err := tn.Claim(t.Context(), triage.DeliveryKey(rep)); err != nil {
		t.Fatal(err)
	}
	if err := tn.Complete(t.Context(), triage.DeliveryKey(rep), prior); err != nil {
		t.Fatal(err)
	}
	r := f.do("POST", "/v1/errors", report, nil)
	if r.status != 200 || r.json(t)["duplicate"] != true {
		t.Fatalf("POST: %d %s", r.status, r.body)
	}
	rec := f.record("err_prior")
	if len(rec.Occurrences) != 1 {
		t.Fatalf("occurrences: %+v", rec.Occurrences)
	}
	var stored map[string]any
	if err := json.Unmarshal(rec.Occurrences[0].Feedback, &stored); err != nil {
		t.Fatal(err)
	}
	if _, ok := stored["duplicate"]; ok || stored["user_message"] != "before" {
		t.Errorf("stored feedback %s: want the delivery's, without duplicate", rec.Occurrences[0].Feedback)
	}
}

// A stream whose client stops reading is dropped after a write times out:
// a graceful shutdown does not wait on it for ShutdownTimeout.
func TestStalledStreamDoesNotHoldShutdown(t *testing.T) {
	defer func(d time.Duration) { eventWriteTimeout = d }(eventWriteTimeout)
	eventWriteTimeout = 200 * time.Millisecond
	clk := &clock{now: scenarioNow}
	st := openStore(t, newDatabase(t), clk)
	defer st.Close()
	srv, err := New(Config{Store: st, Now: clk.Now, JobPoll: -1, Logger: slog.New(slog.DiscardHandler), MaxReplay: 1000})
	if err != nil {
		t.Fatal(err)
	}
	// Enough feedback to fill the connection's buffers: 60 reports whose
	// context (kept in the feedback) is 256 KB.
	big := strings.Repeat("x", 256<<10)
	template := string(readFile(t, goldenDir+"/db_timeout.json"))
	for i := range 60 {
		report := strings.Replace(template, `"q_456"`, fmt.Sprintf(`"q_%d"`, i), 1)
		report = strings.Replace(report, `"context": {`, `"context": {"blob": "`+big+`",`, 1)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/errors", strings.NewReader(report)))
		if rec.Code != 201 {
			t.Fatalf("report %d: %d %s", i, rec.Code, rec.Body.String()[:min(200, rec.Body.Len())])
		}
	}
	addr, cancel, done := serve(t, srv)
	// A client that asks for everything and reads nothing.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "GET /v1/events HTTP/1.1\r\nHost: x\r\nLast-Event-ID: 0\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the stream is blocked on its writes
	start := time.Now()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Serve still waits on a stream whose client stopped reading")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("shutdown took %v", d)
	}
}

// serve runs srv.Serve on a loopback port: its address, the cancel that
// shuts it down, and Serve's result.
func serve(t *testing.T, srv *Server) (string, context.CancelFunc, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	return ln.Addr().String(), cancel, done
}
