package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

func TestScenariosOverHTTP(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

func TestErrorStatuses(t *testing.T) {
	t.Parallel()
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
		{"bad callback", "PUT", "/v1/callbacks/query_engine", []byte(`{"callback_url":"ftp://x"}`), nil, 422, "INVALID_REQUEST"},
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	// A service with agents has every route: /mcp is there too.
	s := mcpFixture(t).srv
	routes := map[string]bool{}
	for _, rt := range s.routeTable() {
		key := strings.ToLower(rt.Method) + " " + rt.Path
		routes[key] = true
		if _, ok := doc.Paths[rt.Path][strings.ToLower(rt.Method)]; !ok {
			t.Errorf("openapi.json lacks %s %s", rt.Method, rt.Path)
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
	t.Parallel()
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
	if want := []float64{1, 2, 3, 4}; !slices.Equal(attempts, want) {
		t.Errorf("attempts across restarts %v, want %v", attempts, want)
	}
}
