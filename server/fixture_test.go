package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/postgres"
	"github.com/triage-go/triage/store/sqlite"
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

// scenarioNow is the time of the CLI's golden runs (cmd/triage/internal/cli's
// handleArgs), so that the service's feedback can be compared with them.
var scenarioNow = time.Date(2025, 8, 8, 12, 20, 30, 0, time.UTC)

const goldenDir = "../cmd/triage/internal/cli/testdata/handle"

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
		st, err = postgres.Open(context.Background(), db, store.Config{Now: clk.Now})
	} else {
		st, err = sqlite.Open(context.Background(), db, store.Config{Now: clk.Now})
	}
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestOnPostgres runs the service's tests on PostgreSQL.
func TestOnPostgres(t *testing.T) {
	t.Parallel()
	pgtest.URL(t)
	for _, c := range []struct {
		name string
		test func(*testing.T)
	}{
		{"Scenarios", TestScenariosOverHTTP}, {"ListErrors", TestListErrors}, {"ErrorStatuses", TestErrorStatuses},
		{"IdempotencyKey", TestIdempotencyKey}, {"Tenancy", TestTenancy}, {"Jobs", TestJobs},
		{"ConcurrentIdentical", TestConcurrentIdentical}, {"StoresSurviveRestart", TestHandlerStoresSurviveRestart},
		{"TwoInstances", TestTwoInstances}, {"TwoInstancesRunEachJobOnce", TestTwoInstancesRunEachJobOnce}, {"EventsReplay", TestEventsReplay},
		{"RecordReadsAreBounded", TestRecordReadsAreBounded}, {"OccurrencesRoute", TestOccurrencesRoute},
		{"InvalidUTF8Refused", TestInvalidUTF8Refused}, {"InvalidUTF8InDocuments", TestInvalidUTF8InDocuments}, {"ContextSecretsRedacted", TestContextSecretsRedacted},
		{"RefusedReportRetriedAnew", TestRefusedReportRetriedAnew}, {"Accept", TestAccept},
		{"RunRecords", TestRunRecords}, {"RunIDUsedOnce", TestRunIDUsedOnce}, {"RunRecordsDisconnect", TestRunRecordsDisconnect},
		{"RunRecordStoreFailures", TestRunRecordStoreFailures}, {"RunRecordEvents", TestRunRecordEvents},
		{"RunEventsAcrossInstances", TestRunEventsAcrossInstances}, {"RunsEndOnShutdown", TestRunsEndOnShutdown},
		{"JobsUI", TestJobsUI}, {"EventsAnnounced", testEventsAnnounced},
		{"EventsPastOlderTransaction", testEventsPastOlderTransaction},
		{"MCPErrorTools", TestMCPErrorTools}, {"BridgeErrorToolsOverTheClient", TestBridgeErrorToolsOverTheClient},
		{"ResolveThenReportAgainRegresses", TestResolveThenReportAgainRegresses}, {"ChangeProblems", TestChangeProblems},
		{"AlertsAPI", TestAlertsAPI}, {"200ReportsOneNotification", Test200ReportsOneNotification},
		{"153EscalationsOneAlert", Test153EscalationsOneAlert}, {"AlertTenantsIsolated", TestAlertTenantsIsolated},
		{"FailureRateAlert", TestFailureRateAlert},
		{"SearchSortAndCounts", TestSearchSortAndCounts},
		{"FailedRunsRecorded", TestFailedRunsRecorded}, {"FailedRunRecordingRetried", TestFailedRunRecordingRetried},
		{"FailedMCPCallsRecorded", TestFailedMCPCallsRecorded}, {"RunTotals", TestRunTotals},
		{"MCPSessionRecorded", TestMCPSessionRecorded}, {"MCPSessionEnds", TestMCPSessionEnds},
	} {
		t.Run(c.name, c.test)
	}
}

// newFixture starts a Server on a fresh SQLite store, with a test clock
// and the job worker off (a test runs it with runWorker).
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
	documented(f.t, resp, b)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// documented fails t when a problem's status is neither its code's
// default nor one of the cases the code table lists: the table users read
// says every status a code comes with.
func documented(t *testing.T, resp *http.Response, body []byte) {
	t.Helper()
	if resp.Header.Get("Content-Type") != "application/problem+json" {
		return
	}
	var p struct{ Code fault.Code }
	if json.Unmarshal(body, &p) == nil && p.Code.Known() && !p.Code.Documents(resp.StatusCode) {
		t.Errorf("a %s problem answered %d, which fault's code table does not list for it (fault.statusCases)", p.Code, resp.StatusCode)
	}
}

// callback registers a callback URL for agent (nothing listens there:
// the worker does not run in the tests that call it), so that the retry
// action enqueues a job for its reports.
func (f *fixture) callback(agent string) {
	f.t.Helper()
	if r := f.do("PUT", "/v1/callbacks/"+agent, []byte(`{"callback_url":"http://203.0.113.7/retry"}`), nil); r.status != 200 {
		f.t.Fatalf("PUT /v1/callbacks/%s: %d %s", agent, r.status, r.body)
	}
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

// callbacks is an agent's (or ops') HTTP endpoint that answers with the
// statuses it is given, in turn, and records what it receives.
type callbacks struct {
	mu       sync.Mutex
	statuses []int
	bodies   [][]byte
	times    []time.Time // when each body came
	headers  []http.Header
	srv      *httptest.Server
}

func newCallbacks(t *testing.T, statuses ...int) *callbacks {
	c := &callbacks{statuses: statuses}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.bodies = append(c.bodies, b)
		c.times = append(c.times, time.Now())
		c.headers = append(c.headers, r.Header.Clone())
		status := 200
		if len(c.statuses) > 0 {
			status, c.statuses = c.statuses[0], c.statuses[1:]
		}
		if status == 503 || status == 429 {
			w.Header().Set("Retry-After", "1")
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// header returns the headers of call i (nil: no such call yet).
func (c *callbacks) header(i int) http.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i >= len(c.headers) {
		return nil
	}
	return c.headers[i]
}

func (c *callbacks) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.bodies)
}

// calls returns the bodies received so far, and when each came.
func (c *callbacks) calls() ([][]byte, []time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.bodies...), append([]time.Time(nil), c.times...)
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
