package web_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/triage-go/triage/web"
)

// get asks h for path with method and headers, and returns the answer.
func get(t *testing.T, h http.Handler, method, path string, header ...string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := rec.Result()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(body)
}

// distFiles lists dist/, the build the package embeds, by URL path.
func distFiles(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir("dist", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("dist", p)
		out["/"+filepath.ToSlash(rel)] = body
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHandlerServesTheBuild serves every file of dist/ with its content
// type, caching and security headers, and nothing else.
func TestHandlerServesTheBuild(t *testing.T) {
	h := web.Handler()
	files := distFiles(t)
	if len(files) < 3 {
		t.Fatalf("dist/ holds %d files: run `npm run build --prefix web`", len(files))
	}
	types := map[string]string{".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
		".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
	for p, body := range files {
		path, cache := p, "public, max-age=31536000, immutable"
		if p == "/index.html" {
			path, cache = "/", "no-cache"
		} else if !strings.HasPrefix(p, "/assets/") || !regexp.MustCompile(`-[A-Za-z0-9_-]{8}\.\w+$`).MatchString(p) {
			t.Errorf("%s is not a hashed asset: the build must put every file but index.html in assets/, its hash in its name", p)
		}
		res, got := get(t, h, "GET", path)
		if res.StatusCode != 200 || got != string(body) {
			t.Errorf("GET %s: %d, %d bytes (want %d)", path, res.StatusCode, len(got), len(body))
		}
		want := map[string]string{
			"Content-Type":            types[filepath.Ext(p)],
			"Cache-Control":           cache,
			"Content-Security-Policy": web.ContentSecurityPolicy,
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "no-referrer",
			"X-Frame-Options":         "DENY",
		}
		for k, v := range want {
			if res.Header.Get(k) != v {
				t.Errorf("GET %s: %s %q, want %q", path, k, res.Header.Get(k), v)
			}
		}
		etag := res.Header.Get("ETag")
		if !regexp.MustCompile(`^"[0-9a-f]{24}"$`).MatchString(etag) {
			t.Errorf("GET %s: ETag %q", path, etag)
		}
		if res, got := get(t, h, "GET", path, "If-None-Match", etag); res.StatusCode != 304 || got != "" {
			t.Errorf("GET %s If-None-Match: %d %q", path, res.StatusCode, got)
		}
		if res, got := get(t, h, "HEAD", path); res.StatusCode != 200 || got != "" || res.Header.Get("Content-Type") != types[filepath.Ext(p)] {
			t.Errorf("HEAD %s: %d %q", path, res.StatusCode, got)
		}
	}
	for _, path := range []string{"/index.html", "/nope", "/assets/", "/assets/nope.js", "/dist/index.html", "/src/dashboard/main.tsx"} {
		if res, _ := get(t, h, "GET", path); res.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", path, res.StatusCode)
		}
	}
	if res, _ := get(t, h, "POST", "/"); res.StatusCode != 405 || res.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /: %d Allow %q", res.StatusCode, res.Header.Get("Allow"))
	}
}

// TestPageIsSelfContained checks what the Content-Security-Policy relies
// on: the page loads its scripts and styles from the service's own
// assets/, and has no inline script or style; no stylesheet imports or
// points at anything elsewhere; and the policy allows nothing inline and
// no eval.
func TestPageIsSelfContained(t *testing.T) {
	files := distFiles(t)
	page := string(files["/index.html"])
	refs := regexp.MustCompile(`(?i)\b(?:src|href)="([^"]*)"`).FindAllStringSubmatch(page, -1)
	if len(refs) < 3 {
		t.Fatalf("index.html references %d files: %s", len(refs), page)
	}
	for _, m := range refs {
		if !strings.HasPrefix(m[1], "./assets/") || files[strings.TrimPrefix(m[1], ".")] == nil {
			t.Errorf("index.html references %q, which is not a file of the build's assets/", m[1])
		}
	}
	for _, tag := range regexp.MustCompile(`(?is)<script\b[^>]*>`).FindAllString(page, -1) {
		if !strings.Contains(tag, ` src="`) {
			t.Errorf("index.html has an inline script: %s", tag)
		}
	}
	if regexp.MustCompile(`(?i)<style\b|\sstyle=|\son[a-z]+=|javascript:`).MatchString(page) {
		t.Errorf("index.html has an inline style or handler:\n%s", page)
	}
	for p, body := range files {
		if filepath.Ext(p) != ".css" {
			continue
		}
		for _, m := range regexp.MustCompile(`@import|url\(\s*['"]?([^)'"]*)`).FindAllStringSubmatch(string(body), -1) {
			if m[0] == "@import" || strings.Contains(m[1], ":") || strings.HasPrefix(m[1], "//") {
				t.Errorf("%s loads %q", p, m[0])
			}
		}
	}
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "*", "data:", "http:", "https:"} {
		if strings.Contains(web.ContentSecurityPolicy, bad) {
			t.Errorf("the policy allows %s: %s", bad, web.ContentSecurityPolicy)
		}
	}
}

// Text files go gzipped to a client that takes gzip, and as they are to
// one that does not; both are the same file.
func TestHandlerGzip(t *testing.T) {
	h := web.Handler()
	get := func(path, accept string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", path, nil)
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	plain := get("/", "")
	if plain.Header().Get("Content-Encoding") != "" || plain.Header().Get("Vary") != "Accept-Encoding" {
		t.Fatalf("identity: %v", plain.Header())
	}
	for _, accept := range []string{"gzip", "br, gzip;q=0.8", "*"} {
		gz := get("/", accept)
		if gz.Header().Get("Content-Encoding") != "gzip" || gz.Header().Get("ETag") == plain.Header().Get("ETag") {
			t.Fatalf("%q: %v", accept, gz.Header())
		}
		zr, err := gzip.NewReader(gz.Body)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(body, plain.Body.Bytes()) {
			t.Fatalf("%q: the gzipped page is not the page (%v)", accept, err)
		}
		if gz.Body.Len() >= plain.Body.Len() {
			t.Errorf("%q: gzipped %d bytes, plain %d", accept, gz.Body.Len(), plain.Body.Len())
		}
	}
	for _, accept := range []string{"gzip;q=0", "br", "identity"} {
		if rec := get("/", accept); rec.Header().Get("Content-Encoding") != "" {
			t.Errorf("%q: sent %q", accept, rec.Header().Get("Content-Encoding"))
		}
	}
	// A gzipped answer's ETag revalidates the gzipped answer.
	gz := get("/", "gzip")
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	req.Header.Set("If-None-Match", gz.Header().Get("ETag"))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 304 {
		t.Errorf("If-None-Match of the gzipped ETag: %d", rec.Code)
	}
}
