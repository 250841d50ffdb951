package server

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/triage-go/triage/adapter/riverui"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/postgres"
	"github.com/triage-go/triage/store/sqlite"
)

// riverUI is River's UI for st, a store openStore opened, built as the
// program builds it: from the store's typed River client.
func riverUI(t *testing.T, st store.Store) JobsUI {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	var (
		h   riverui.Handler
		err error
	)
	if onPostgres(t) {
		h, err = riverui.New(st.(*postgres.Store).RiverClient(), JobsUIPath, log)
	} else {
		h, err = riverui.New(st.(*sqlite.Store).RiverClient(), JobsUIPath, log)
	}
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestJobsUIConfig: River's UI needs an operator key when tenants have
// API keys, and that key is none of theirs.
func TestJobsUIConfig(t *testing.T) {
	t.Parallel()
	st := openStore(t, newDatabase(t), &clock{now: scenarioNow})
	defer st.Close()
	const tenantKey = "key-a-0123456789abcdef"
	ui := riverUI(t, st)
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no operator key", Config{APIKeys: map[string]string{tenantKey: "acme"}, JobsUI: ui}, "needs an OperatorKey"},
		{"a short key", Config{JobsUI: ui, OperatorKey: "short"}, "at least 16"},
		{"a tenant's key", Config{APIKeys: map[string]string{tenantKey: "acme"}, JobsUI: ui, OperatorKey: tenantKey}, "tenant's API key"},
	} {
		c.cfg.Store, c.cfg.JobPoll, c.cfg.Logger = st, -1, slog.New(slog.DiscardHandler)
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// TestJobsUI: River's UI at /riverui/ is the operator key's: its page and
// assets, its API listing a job enqueued through Triage's API, a cancel
// from the same origin; not a tenant's key, nor a change from another
// origin, nor no key (problems, with a Basic challenge a browser answers).
func TestJobsUI(t *testing.T) {
	t.Parallel()
	const (
		tenantKey   = "key-a-0123456789abcdef"
		operatorKey = "operator-0123456789abcdef"
	)
	clk := &clock{now: scenarioNow}
	st := openStore(t, newDatabase(t), clk)
	t.Cleanup(func() { st.Close() })
	srv, err := New(Config{Store: st, Now: clk.Now, JobPoll: -1, APIKeys: map[string]string{tenantKey: "acme"},
		JobsUI: riverUI(t, st), OperatorKey: operatorKey, AuthFailRate: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	addr, cancel, done := serve(t, srv) // Serve starts the UI's background work
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	base := "http://" + addr
	do := func(method, path string, body []byte, header map[string]string) response {
		t.Helper()
		req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		if u := header["basic"]; u != "" {
			req.Header.Del("basic")
			req.SetBasicAuth("ops", u)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return response{status: resp.StatusCode, header: resp.Header, body: b}
	}
	r := do("POST", "/v1/errors", readFile(t, goldenDir+"/service_outage.json"), map[string]string{"X-API-Key": tenantKey, "Content-Type": "application/json"})
	if r.status != 201 {
		t.Fatalf("POST: %d %s", r.status, r.body)
	}
	id := r.json(t)["error_id"].(string)

	// Refused: no key, a tenant's key (however sent), a wrong one.
	for _, c := range []struct {
		header map[string]string
		status int
		code   string
	}{
		{nil, 401, "TENANT_REQUIRED"},
		{map[string]string{"X-API-Key": tenantKey}, 403, "TENANT_UNAUTHORIZED"},
		{map[string]string{"Authorization": "Bearer " + tenantKey}, 403, "TENANT_UNAUTHORIZED"},
		{map[string]string{"basic": tenantKey}, 401, "TENANT_REQUIRED"},
		{map[string]string{"basic": operatorKey + "x"}, 401, "TENANT_REQUIRED"},
	} {
		for _, path := range []string{"/riverui/", "/riverui/api/jobs?state=available"} {
			r := do("GET", path, nil, c.header)
			if r.status != c.status || codeOf(t, r) != c.code || bytes.Contains(r.body, []byte(tenantKey)) {
				t.Errorf("%s with %v: %d %s", path, c.header, r.status, r.body)
			}
			if challenge := r.header.Get("WWW-Authenticate"); (c.status == 401) != strings.HasPrefix(challenge, "Basic ") {
				t.Errorf("%s with %v: WWW-Authenticate %q", path, c.header, challenge)
			}
		}
	}
	// The key opens nothing of a tenant's.
	if r := do("GET", "/v1/errors", nil, map[string]string{"X-API-Key": operatorKey}); r.status != 403 {
		t.Errorf("the API with the operator key: %d %s", r.status, r.body)
	}

	// The page, as a browser gets it once it sent the key, and its
	// script.
	browser := map[string]string{"basic": operatorKey, "Accept": "text/html,application/xhtml+xml"}
	r = do("GET", "/riverui/", nil, browser)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") || !bytes.Contains(r.body, []byte(`"apiUrl":"/riverui/api"`)) ||
		r.header.Get("X-Frame-Options") != "DENY" {
		t.Fatalf("GET /riverui/: %d %v %s", r.status, r.header, r.body)
	}
	script := regexp.MustCompile(`src="(/riverui/assets/[^"]+\.js)"`).FindSubmatch(r.body)
	if script == nil {
		t.Fatalf("no script in %s", r.body)
	}
	if r := do("GET", string(script[1]), nil, map[string]string{"basic": operatorKey}); r.status != 200 ||
		!strings.Contains(r.header.Get("Content-Type"), "javascript") || len(r.body) < 1000 {
		t.Errorf("GET %s: %d %v", script[1], r.status, r.header)
	}
	if r := do("GET", "/riverui", nil, browser); r.status != 200 { // redirected
		t.Errorf("GET /riverui: %d", r.status)
	}

	// Its API lists the job the report enqueued: an escalation, due now
	// (no worker runs).
	r = do("GET", "/riverui/api/jobs?state=available", nil, map[string]string{"Authorization": "Bearer " + operatorKey})
	var list struct {
		Data []struct {
			ID    int64  `json:"id"`
			Args  string `json:"args"`
			Kind  string `json:"kind"`
			State string `json:"state"`
		} `json:"data"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &list) != nil || len(list.Data) != 1 {
		t.Fatalf("GET /riverui/api/jobs: %d %s", r.status, r.body)
	}
	if j := list.Data[0]; j.Kind != store.JobEscalation || j.State != "available" || !strings.Contains(j.Args, id) || !strings.Contains(j.Args, `"acme"`) {
		t.Errorf("the job as River's UI lists it: %+v", j)
	}
	jobID := strconv.FormatInt(list.Data[0].ID, 10)

	// A change another origin's page makes with the operator's
	// credentials is refused; the same origin's goes through.
	cancelJob := []byte(`{"ids":["` + jobID + `"]}`)
	for _, h := range []map[string]string{{"Sec-Fetch-Site": "cross-site"}, {"Origin": "https://evil.example"}} {
		h["basic"], h["Content-Type"] = operatorKey, "application/json"
		if r := do("POST", "/riverui/api/jobs/cancel", cancelJob, h); r.status != 403 || codeOf(t, r) != "TENANT_UNAUTHORIZED" {
			t.Errorf("a cancel from another origin (%v): %d %s", h, r.status, r.body)
		}
	}
	if r := do("POST", "/riverui/api/jobs/cancel", cancelJob, map[string]string{"basic": operatorKey, "Content-Type": "application/json",
		"Sec-Fetch-Site": "same-origin", "Origin": base}); r.status != 200 {
		t.Fatalf("a cancel: %d %s", r.status, r.body)
	}
	var rec store.Record
	if err := json.Unmarshal(do("GET", "/v1/errors/"+id, nil, map[string]string{"X-API-Key": tenantKey}).body, &rec); err != nil ||
		len(rec.Jobs) != 1 || rec.Jobs[0].State != store.JobCancelled {
		t.Errorf("after the UI cancelled the job: %+v (%v)", rec.Jobs, err)
	}
}

// Without Config.JobsUI there is no /riverui/; without API keys and an
// operator key, it is as open as the API.
func TestJobsUIOptIn(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	if r := f.do("GET", "/riverui/", nil, nil); r.status != 404 || codeOf(t, r) != "NOT_FOUND" {
		t.Errorf("without JobsUI: %d %s", r.status, r.body)
	}
	f = newFixture(t, func(c *Config) { c.JobsUI = riverUI(t, c.Store) })
	if r := f.do("GET", "/riverui/api/jobs?state=available", nil, nil); r.status != 200 || !bytes.Contains(r.body, []byte(`"data":[]`)) {
		t.Errorf("open: %d %s", r.status, r.body)
	}
}
