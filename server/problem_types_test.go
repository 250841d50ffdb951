package server

import (
	"encoding/json"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/triage-go/triage/fault"
)

// The 401's hint says how to send a key, whole: the redaction of secrets
// must not eat its own words.
func TestUnauthorizedHintIsWhole(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.APIKeys = map[string]string{"key-a-0123456789abcdef": "acme"} })
	r := f.do("GET", "/v1/errors", nil, nil)
	if r.status != 401 || codeOf(t, r) != "TENANT_REQUIRED" {
		t.Fatalf("%d %s", r.status, r.body)
	}
	detail, _ := r.json(t)["detail"].(string)
	const want = "An API key is required: send it in the X-API-Key header, or in the Authorization header with the scheme Bearer."
	if detail != want {
		t.Errorf("detail %q\nwant   %q", detail, want)
	}
}

// Every problem type the service writes resolves, against the service, to
// a page about it; JSON when asked.
func TestProblemTypePages(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	nf := f.do("GET", "/v1/errors/err_0123456789abcdef", nil, nil)
	typ, _ := nf.json(t)["type"].(string)
	if typ != "/errors/not-found" {
		t.Fatalf("type %q", typ)
	}
	for _, spec := range fault.Codes() {
		r := f.do("GET", spec.Type, nil, nil)
		if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(r.body), "<h1>"+spec.Title+"</h1>") || !strings.Contains(string(r.body), string(spec.Code)) {
			t.Errorf("GET %s: %d %s\n%s", spec.Type, r.status, r.header.Get("Content-Type"), r.body)
		}
	}
	r := f.do("GET", "/errors/rate-limited", nil, map[string]string{"Accept": "application/json"})
	var doc problemTypeDoc
	if err := json.Unmarshal(r.body, &doc); err != nil || r.status != 200 {
		t.Fatalf("%d %s (%v)", r.status, r.body, err)
	}
	if doc.Code != "RATE_LIMITED" || doc.Status != 429 || !doc.Retryable || doc.Type != "/errors/rate-limited" {
		t.Errorf("%+v", doc)
	}
	list := f.do("GET", "/errors", nil, map[string]string{"Accept": "application/json, text/html;q=0.5"})
	var docs []problemTypeDoc
	if err := json.Unmarshal(list.body, &docs); err != nil || len(docs) != len(fault.Codes()) {
		t.Errorf("GET /errors: %d types (%v)", len(docs), err)
	}
	html := f.do("GET", "/errors", nil, map[string]string{"Accept": "text/html,application/json"})
	if !strings.Contains(string(html.body), `<a href="/errors/timeout">`) {
		t.Errorf("the index does not link the pages: %s", html.body)
	}
	if r := f.do("GET", "/errors/no-such-type", nil, nil); r.status != 404 || codeOf(t, r) != "NOT_FOUND" {
		t.Errorf("unknown type: %d %s", r.status, r.body)
	}
}

func TestProblemBaseURI(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.ProblemBaseURI = "https://docs.example/triage/" })
	r := f.do("GET", "/v1/errors/err_0123456789abcdef", nil, nil)
	if typ, _ := r.json(t)["type"].(string); typ != "https://docs.example/errors/not-found" {
		t.Errorf("type %q", typ)
	}
	for _, bad := range []string{"docs.example", "/errors/", "ftp://docs.example/", "https://"} {
		if _, err := New(Config{Store: f.store, ProblemBaseURI: bad, Logger: slog.New(slog.DiscardHandler)}); err == nil {
			t.Errorf("ProblemBaseURI %q accepted", bad)
		}
	}
}

// A query string that does not decode is refused, on every route, rather
// than read as if the bad pair were not there.
func TestMalformedQuery(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for _, path := range []string{
		"/v1/errors?agent_id=%zz", "/v1/errors?agent_id=a%", "/v1/errors?agent_id=a;limit=1",
		"/v1/errors/err_0123456789abcdef?x=%g0", "/healthz?%", "/errors?a=%2",
	} {
		r := f.do("GET", path, nil, nil)
		if r.status != 400 || codeOf(t, r) != "INVALID_REQUEST" {
			t.Errorf("GET %s: %d %s", path, r.status, r.body)
			continue
		}
		m := r.json(t)
		errs, _ := m["errors"].([]any)
		if len(errs) != 1 || errs[0].(map[string]any)["field"] != "query" {
			t.Errorf("GET %s: %s", path, r.body)
		}
	}
	if r := f.do("GET", "/v1/errors?agent_id=query%5Fengine&limit=5", nil, nil); r.status != 200 {
		t.Errorf("a well-formed query: %d %s", r.status, r.body)
	}
}

// The members openapi.json marks required are present in what the
// service writes, and every operation documents a 4xx answer.
func TestOpenAPIRequiredMembers(t *testing.T) {
	t.Parallel()
	var doc struct {
		Info struct {
			License struct{ Name, Identifier string } `json:"license"`
		} `json:"info"`
		Paths      map[string]map[string]struct{ Responses map[string]json.RawMessage } `json:"paths"`
		Components struct {
			Schemas map[string]struct{ Required []string } `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Info.License.Name == "" {
		t.Error("no license")
	}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if !slices.ContainsFunc(slices.Collect(maps.Keys(op.Responses)), func(s string) bool { return strings.HasPrefix(s, "4") }) {
				t.Errorf("%s %s documents no 4xx response", method, path)
			}
		}
	}
	has := func(schema string, obj map[string]any) {
		t.Helper()
		req := doc.Components.Schemas[schema].Required
		if len(req) == 0 {
			t.Errorf("%s has no required members", schema)
		}
		for _, m := range req {
			if _, ok := obj[m]; !ok {
				t.Errorf("%s lacks required %q: %v", schema, m, obj)
			}
		}
	}

	ops := newCallbacks(t)
	f := newFixture(t, func(c *Config) {
		c.APIKeys = map[string]string{"key-a-0123456789abcdef": "acme"}
		c.Webhook = ops.srv.URL + "/escalations"
	})
	auth := map[string]string{"X-API-Key": "key-a-0123456789abcdef"}
	for _, r := range []response{
		f.do("GET", "/v1/errors", nil, nil),                                              // 401
		f.do("GET", "/v1/errors/err_0123456789abcdef", nil, auth),                        // 404
		f.do("POST", "/v1/errors", []byte(`{}`), auth),                                   // 422
		f.do("GET", "/v1/errors?limit=%zz", nil, auth),                                   // 400
		f.do("POST", "/v1/errors", []byte(`{}`), map[string]string{"X-API-Key": "nope"}), // 403
	} {
		has("Problem", r.json(t))
	}
	// A callback URL, so that the retry is a job.
	if r := f.do("PUT", "/v1/agents/query_engine", []byte(`{"callback_url":"https://agents.example/retry"}`), auth); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	r := f.do("POST", "/v1/errors", readFile(t, goldenDir+"/db_timeout.json"), auth)
	if r.status != 201 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	has("Feedback", r.json(t))
	has("RetryPlan", r.json(t)["retry"].(map[string]any))
	rec := f.do("GET", "/v1/errors/"+r.json(t)["error_id"].(string), nil, auth).json(t)
	has("Record", rec)
	occs, _ := rec["occurrences"].([]any)
	jobs, _ := rec["jobs"].([]any)
	if len(occs) == 0 || len(jobs) == 0 {
		t.Fatalf("a record without occurrences or jobs: %v", rec)
	}
	has("Occurrence", occs[0].(map[string]any))
	has("Job", jobs[0].(map[string]any))
	listing := f.do("GET", "/v1/errors", nil, auth).json(t)
	records, _ := listing["records"].([]any)
	if len(records) == 0 {
		t.Fatal("a listing without records")
	}
	has("Page", listing)
	has("RecordSummary", records[0].(map[string]any))
	has("OccurrencePage", f.do("GET", "/v1/errors/"+r.json(t)["error_id"].(string)+"/occurrences", nil, auth).json(t))
	if tenant := jobs[0].(map[string]any)["tenant"]; tenant != "acme" {
		t.Errorf("job tenant %v", tenant)
	}
}
