package server

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// fakeUI is a dashboard of two files, standing in for package web's
// Handler (server may not import web): it counts the requests it gets, and
// answers 404 with headers of its own for anything else.
type fakeUI struct{ calls atomic.Int64 }

func (u *fakeUI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.calls.Add(1)
	w.Header().Set("X-UI", "yes")
	switch r.URL.Path {
	case "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write([]byte("<!doctype html><title>UI</title>"))
	case "/assets/app-1234.js":
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		_, _ = w.Write([]byte("console.log(1)"))
	default:
		w.Header().Set("Cache-Control", "no-cache")
		http.NotFound(w, r)
	}
}

func TestDashboardRoutes(t *testing.T) {
	t.Parallel()
	const key = "key-a-0123456789abcdef"
	ui := &fakeUI{}
	f := newFixture(t, func(c *Config) {
		c.UI = ui
		c.APIKeys = map[string]string{key: "acme"}
		c.AuthFailRate = -1
	})

	// The page and its assets need no key; the API still does.
	r := f.do("GET", "/", nil, nil)
	if r.status != 200 || string(r.body) != "<!doctype html><title>UI</title>" || r.header.Get("Cache-Control") != "no-cache" {
		t.Errorf("GET /: %d %v %s", r.status, r.header, r.body)
	}
	if r := f.do("HEAD", "/", nil, nil); r.status != 200 || len(r.body) != 0 {
		t.Errorf("HEAD /: %d %s", r.status, r.body)
	}
	if r := f.do("GET", "/assets/app-1234.js", nil, nil); r.status != 200 || string(r.body) != "console.log(1)" {
		t.Errorf("an asset: %d %s", r.status, r.body)
	}
	if r := f.do("GET", "/v1/errors", nil, nil); r.status != 401 || codeOf(t, r) != "TENANT_REQUIRED" {
		t.Errorf("the API without a key: %d %s", r.status, r.body)
	}

	// An asset the UI does not have is the API's 404 problem, without the
	// UI's headers.
	calls := ui.calls.Load()
	r = f.do("GET", "/assets/gone-0000.js", nil, nil)
	if r.status != 404 || codeOf(t, r) != "NOT_FOUND" || r.json(t)["details"].(map[string]any)["path"] != "/assets/gone-0000.js" {
		t.Errorf("a missing asset: %d %s", r.status, r.body)
	}
	if r.header.Get("X-UI") != "" || r.header.Get("Cache-Control") == "no-cache" || strings.Contains(string(r.body), "404 page not found") {
		t.Errorf("a missing asset carries the UI's answer: %v %s", r.header, r.body)
	}
	if ui.calls.Load() != calls+1 {
		t.Errorf("the UI was asked %d times for a missing asset", ui.calls.Load()-calls)
	}

	// The UI sees no other path: the API's unknown paths, and the
	// pages of a client-side router, are the API's 404.
	calls = ui.calls.Load()
	for _, path := range []string{"/v1/nope", "/errors/nope", "/index.html", "/errors-page", "/assets", "/assets/", "/assets/a/b.js"} {
		r := f.do("GET", path, nil, map[string]string{"X-API-Key": key})
		if r.status != 404 || codeOf(t, r) != "NOT_FOUND" {
			t.Errorf("GET %s: %d %s", path, r.status, r.body)
		}
	}
	if ui.calls.Load() != calls {
		t.Errorf("the UI was asked for %d paths it does not serve", ui.calls.Load()-calls)
	}
	// Other methods are refused as on any route.
	r = f.do("POST", "/", []byte(`{}`), nil)
	if r.status != 405 || r.header.Get("Allow") != "GET" || codeOf(t, r) != "INVALID_REQUEST" {
		t.Errorf("POST /: %d Allow %q %s", r.status, r.header.Get("Allow"), r.body)
	}
}

func TestNoDashboard(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for _, path := range []string{"/", "/assets/app-1234.js"} {
		if r := f.do("GET", path, nil, nil); r.status != 404 || codeOf(t, r) != "NOT_FOUND" {
			t.Errorf("GET %s without a UI: %d %s", path, r.status, r.body)
		}
	}
}
