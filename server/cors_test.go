package server

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/triage-go/triage/agent"
)

const (
	appOrigin   = "http://127.0.0.1:5173"
	otherOrigin = "https://evil.example"
)

// corsFixture is a service with CORS on for origins, running the default
// agents (the AG-UI run endpoint is served), with keys when given.
func corsFixture(t *testing.T, origins []string, keys map[string]string) *fixture {
	t.Helper()
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return newFixture(t, func(c *Config) { c.Agents = m; c.CORSOrigins = origins; c.APIKeys = keys })
}

// headerList splits a comma-separated header's values, lower-cased.
func headerList(h http.Header, name string) []string {
	var out []string
	for _, v := range h.Values(name) {
		for p := range strings.SplitSeq(v, ",") {
			if p = strings.ToLower(strings.TrimSpace(p)); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func preflight(origin, method, headers string) map[string]string {
	h := map[string]string{"Origin": origin, "Access-Control-Request-Method": method}
	if headers != "" {
		h["Access-Control-Request-Headers"] = headers
	}
	return h
}

// noCORS fails when r carries any CORS response header.
func noCORS(t *testing.T, what string, r response) {
	t.Helper()
	for name := range r.header {
		if strings.HasPrefix(strings.ToLower(name), "access-control-") {
			t.Errorf("%s: %d with %s: %v", what, r.status, name, r.header)
		}
	}
}

// Off by default: a preflight is the 405 it always was, and no answer
// carries a CORS header, whatever the Origin.
func TestCORSOffByDefault(t *testing.T) {
	t.Parallel()
	f := corsFixture(t, nil, nil)
	r := f.do("OPTIONS", "/v1/errors", nil, preflight(appOrigin, "POST", "content-type"))
	if r.status != http.StatusMethodNotAllowed {
		t.Errorf("preflight with CORS off: %d %s", r.status, r.body)
	}
	noCORS(t, "preflight with CORS off", r)
	r = f.do("POST", "/v1/errors", readFile(t, goldenDir+"/db_timeout.json"), map[string]string{"Origin": appOrigin})
	if r.status != http.StatusCreated {
		t.Fatalf("report: %d %s", r.status, r.body)
	}
	noCORS(t, "report with CORS off", r)
	if slices.Contains(headerList(r.header, "Vary"), "origin") {
		t.Errorf("Vary: Origin with CORS off: %v", r.header)
	}
}

// A preflight from an allowed origin is answered 204, before the key and
// the rate limit, with the methods and headers the API takes; one from
// another origin, or asking for a header the API does not take, gets no
// CORS header (its browser then refuses the request).
func TestCORSPreflight(t *testing.T) {
	t.Parallel()
	f := corsFixture(t, []string{appOrigin, "https://app.example.com"}, map[string]string{"k-tenant-a-0123456789": "a"})
	for _, c := range []struct {
		name, path, method, headers string
	}{
		{"Report", "/v1/errors", "POST", "authorization,content-type,idempotency-key"},
		{"ReportWithXAPIKey", "/v1/errors", "POST", "content-type,idempotency-key,x-api-key"},
		{"Run", "/v1/agents/echo/runs", "POST", "accept,authorization,content-type"},
		{"Events", "/v1/events", "GET", "authorization,last-event-id"},
		{"Change", "/v1/errors/err_1", "PATCH", "authorization,content-type"},
		{"Delete", "/v1/alerts/rules/r1", "DELETE", "authorization"},
		{"Traced", "/v1/errors", "GET", "authorization,traceparent,tracestate"},
	} {
		r := f.do("OPTIONS", c.path, nil, preflight(appOrigin, c.method, c.headers))
		if r.status != http.StatusNoContent || len(r.body) != 0 {
			t.Errorf("%s: %d %s", c.name, r.status, r.body)
		}
		h := r.header
		if h.Get("Access-Control-Allow-Origin") != appOrigin {
			t.Errorf("%s: Access-Control-Allow-Origin %q", c.name, h.Get("Access-Control-Allow-Origin"))
		}
		if !slices.Contains(headerList(h, "Access-Control-Allow-Methods"), strings.ToLower(c.method)) {
			t.Errorf("%s: Access-Control-Allow-Methods %q", c.name, h.Values("Access-Control-Allow-Methods"))
		}
		allowed := headerList(h, "Access-Control-Allow-Headers")
		for want := range strings.SplitSeq(c.headers, ",") {
			if !slices.Contains(allowed, want) {
				t.Errorf("%s: Access-Control-Allow-Headers %q lacks %s", c.name, allowed, want)
			}
		}
		if h.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("%s: credentials allowed", c.name)
		}
		if h.Get("Access-Control-Max-Age") != "7200" {
			t.Errorf("%s: Access-Control-Max-Age %q", c.name, h.Get("Access-Control-Max-Age"))
		}
		if !slices.Contains(headerList(h, "Vary"), "origin") {
			t.Errorf("%s: Vary %q", c.name, h.Values("Vary"))
		}
	}
	// The second origin listed, in another case than the list's: origins'
	// schemes and hosts are case-insensitive.
	r := f.do("OPTIONS", "/v1/errors", nil, preflight("https://app.example.com", "POST", "content-type"))
	if r.status != http.StatusNoContent || r.header.Get("Access-Control-Allow-Origin") != "https://app.example.com" {
		t.Errorf("second origin: %d %v", r.status, r.header)
	}

	for _, c := range []struct {
		name, path, origin, method, headers string
	}{
		{"OtherOrigin", "/v1/errors", otherOrigin, "POST", "content-type"},
		{"Null", "/v1/errors", "null", "POST", "content-type"},
		{"OtherPort", "/v1/errors", "http://127.0.0.1:5174", "POST", "content-type"},
		{"OtherScheme", "/v1/errors", "https://127.0.0.1:5173", "POST", "content-type"},
		{"SuffixOfAllowed", "/v1/errors", "https://evil-app.example.com", "POST", "content-type"},
		{"UnknownHeader", "/v1/errors", appOrigin, "POST", "content-type,x-evil"},
		{"Cookie", "/v1/errors", appOrigin, "POST", "cookie"},
		{"UnknownMethod", "/v1/errors", appOrigin, "TRACE", ""},
	} {
		r := f.do("OPTIONS", c.path, nil, preflight(c.origin, c.method, c.headers))
		noCORS(t, c.name, r)
	}

	// Not the API: /mcp refuses other origins, the rest is not for them.
	for _, path := range []string{"/mcp", "/healthz", "/metrics", "/openapi.json", "/", "/v1/../mcp", "/v1/%2e%2e/mcp", "/v1"} {
		r := f.do("OPTIONS", path, nil, preflight(appOrigin, "POST", "content-type"))
		if r.status == http.StatusNoContent {
			t.Errorf("%s: a preflight answered %d", path, r.status)
		}
		noCORS(t, path, r)
	}
}

// An allowed origin's requests are served as any other, their answers,
// problems and AG-UI runs included, with its origin and the headers a
// client must read exposed; another origin's are served with none (its
// browser keeps the answer from the page).
func TestCORSActualRequests(t *testing.T) {
	t.Parallel()
	const key = "k-tenant-a-0123456789"
	f := corsFixture(t, []string{appOrigin}, map[string]string{key: "a"})
	auth := func(origin string) map[string]string {
		return map[string]string{"Origin": origin, "Authorization": "Bearer " + key, "Idempotency-Key": "cors-1"}
	}
	exposed := func(what string, r response) {
		t.Helper()
		if r.header.Get("Access-Control-Allow-Origin") != appOrigin || r.header.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("%s: %d %v", what, r.status, r.header)
		}
		got := headerList(r.header, "Access-Control-Expose-Headers")
		for _, want := range []string{"retry-after", "ratelimit", "ratelimit-policy", "idempotent-replayed", "www-authenticate", "deprecation", "link"} {
			if !slices.Contains(got, want) {
				t.Errorf("%s: Access-Control-Expose-Headers %q lacks %s", what, got, want)
			}
		}
		if !slices.Contains(headerList(r.header, "Vary"), "origin") {
			t.Errorf("%s: Vary %q", what, r.header.Values("Vary"))
		}
	}

	report := readFile(t, goldenDir+"/db_timeout.json")
	r := f.do("POST", "/v1/errors", report, auth(appOrigin))
	if r.status != http.StatusCreated {
		t.Fatalf("report: %d %s", r.status, r.body)
	}
	exposed("report", r)
	r = f.do("POST", "/v1/errors", report, auth(appOrigin))
	if r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %v", r.status, r.header)
	}
	exposed("replay", r)

	// Problems: the page must read them too.
	r = f.do("POST", "/v1/errors", []byte(`{}`), map[string]string{"Origin": appOrigin, "Authorization": "Bearer " + key})
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("invalid report: %d %s", r.status, r.body)
	}
	exposed("invalid report", r)
	r = f.do("GET", "/v1/errors", nil, map[string]string{"Origin": appOrigin})
	if r.status != http.StatusUnauthorized || r.header.Get("WWW-Authenticate") == "" {
		t.Fatalf("no key: %d %v", r.status, r.header)
	}
	exposed("no key", r)

	// The AG-UI run endpoint streams with the headers set before it.
	r = f.do("POST", "/v1/agents/echo/runs", runInput("hello"), map[string]string{"Origin": appOrigin, "Authorization": "Bearer " + key, "Accept": "text/event-stream"})
	events := runEvents(t, r)
	if events[len(events)-1].Type() != "RUN_FINISHED" {
		t.Errorf("run: %v", events)
	}
	exposed("run", r)

	// Another origin is served (CORS is not access control: the key is),
	// with no CORS header.
	r = f.do("GET", "/v1/errors", nil, map[string]string{"Origin": otherOrigin, "Authorization": "Bearer " + key})
	if r.status != http.StatusOK {
		t.Fatalf("other origin: %d %s", r.status, r.body)
	}
	noCORS(t, "other origin", r)
	// So is a request with no Origin (curl, the Go client): no CORS header.
	r = f.do("GET", "/v1/errors", nil, map[string]string{"Authorization": "Bearer " + key})
	noCORS(t, "no origin", r)
	// The service's own pages are not the API's.
	r = f.do("GET", "/healthz", nil, map[string]string{"Origin": appOrigin})
	noCORS(t, "healthz", r)
}

// "*" alone, with API keys, answers every origin with the wildcard and
// never with credentials.
func TestCORSAllOrigins(t *testing.T) {
	t.Parallel()
	f := corsFixture(t, []string{CORSAllOrigins}, map[string]string{"k-tenant-a-0123456789": "a"})
	r := f.do("OPTIONS", "/v1/errors", nil, preflight(otherOrigin, "POST", "authorization,content-type"))
	if r.status != http.StatusNoContent || r.header.Get("Access-Control-Allow-Origin") != "*" || r.header.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("preflight: %d %v", r.status, r.header)
	}
	r = f.do("GET", "/v1/errors", nil, map[string]string{"Origin": otherOrigin, "Authorization": "Bearer k-tenant-a-0123456789"})
	if r.status != http.StatusOK || r.header.Get("Access-Control-Allow-Origin") != "*" || r.header.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("request: %d %v", r.status, r.header)
	}
}

// New refuses what would not match a browser's Origin, or would match
// more than the operator meant.
func TestCORSConfig(t *testing.T) {
	t.Parallel()
	keys := map[string]string{"k-tenant-a-0123456789": "a"}
	for _, c := range []struct {
		name    string
		origins []string
		keys    map[string]string
		want    string // in the error; "" for none
	}{
		{"Origin", []string{"https://app.example.com", "http://localhost:5173", "http://[::1]:8081"}, nil, ""},
		{"AllWithKeys", []string{"*"}, keys, ""},
		{"AllWithoutKeys", []string{"*"}, nil, "needs API keys"},
		{"AllAndMore", []string{"*", "https://app.example.com"}, keys, "must be alone"},
		{"Null", []string{"null"}, keys, "sandboxed"},
		{"Wildcard", []string{"https://*.example.com"}, keys, "no wildcard"},
		{"Path", []string{"https://app.example.com/"}, keys, "no path"},
		{"LongerPath", []string{"https://app.example.com/app"}, keys, "no path"},
		{"DefaultPort", []string{"https://app.example.com:443"}, keys, "default port"},
		{"DefaultHTTPPort", []string{"http://app.example.com:80"}, keys, "default port"},
		{"NoScheme", []string{"app.example.com"}, keys, "not an origin"},
		{"OtherScheme", []string{"ftp://app.example.com"}, keys, "not an origin"},
		{"Query", []string{"https://app.example.com?x"}, keys, "not an origin"},
		{"User", []string{"https://u@app.example.com"}, keys, "not an origin"},
		{"Empty", []string{""}, keys, "not an origin"},
	} {
		st := openStore(t, newDatabase(t), &clock{now: scenarioNow})
		srv, err := New(Config{Store: st, JobPoll: -1, CORSOrigins: c.origins, APIKeys: c.keys, Logger: slog.New(slog.DiscardHandler)})
		if srv != nil {
			srv.Close()
		}
		st.Close()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}
