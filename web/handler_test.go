package web_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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

// distFiles lists dist/, the build the package embeds, by URL path; with
// br, the Brotli files written beside them (NAME.br), else the others.
func distFiles(t *testing.T, br bool) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir("dist", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (filepath.Ext(p) == ".br") != br {
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
	files := distFiles(t, false)
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
	// The Brotli files are served for their files, not at paths of their own.
	paths := []string{"/index.html", "/nope", "/assets/", "/assets/nope.js", "/dist/index.html", "/src/dashboard/main.tsx"}
	for p := range distFiles(t, true) {
		paths = append(paths, p)
	}
	for _, path := range paths {
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
	files := distFiles(t, false)
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

// TestHandlerCompression: text files go as Brotli (the build's NAME.br)
// or gzip (made by the handler) to a client that takes it, by the q-values
// of its Accept-Encoding, and as they are to one that takes neither; each
// coding with its Content-Encoding, Content-Length and ETag, and every
// answer of a compressible file with Vary: Accept-Encoding.
func TestHandlerCompression(t *testing.T) {
	h := web.Handler()
	brs := distFiles(t, true)
	if len(brs) < 3 {
		t.Fatalf("dist/ holds %d .br files: run `npm run build --prefix web`", len(brs))
	}
	send := func(path string, header ...string) *http.Response {
		req := httptest.NewRequest("GET", path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Result()
	}
	read := func(res *http.Response) []byte {
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for brPath, br := range brs {
		path := strings.TrimSuffix(brPath, ".br")
		plain := distFiles(t, false)[path]
		if path == "/index.html" {
			path = "/"
		}
		if plain == nil {
			t.Fatalf("%s has no file it is the Brotli of", brPath)
		}
		etags := map[string]string{}
		for _, c := range []struct {
			accept string
			want   string // the Content-Encoding
		}{
			{"", ""},
			{"identity", ""},
			{"identity;q=0", ""}, // refused, but nothing else taken: identity
			{"deflate, zstd", ""},
			{"gzip, deflate, br, zstd", "br"}, // Chromium's
			{"br", "br"},
			{"*", "br"},
			{"gzip", "gzip"},
			{"br;q=0.5, gzip", "gzip"},
			{"br;q=0, *", "gzip"},
			{"br;q=0, gzip;q=0", ""},
			{"*;q=0", ""},
		} {
			res := send(path, "Accept-Encoding", c.accept)
			body := read(res)
			what := fmt.Sprintf("GET %s, Accept-Encoding %q", path, c.accept)
			if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != c.want || res.Header.Get("Vary") != "Accept-Encoding" {
				t.Errorf("%s: %d, Content-Encoding %q (want %q), Vary %q", what, res.StatusCode,
					res.Header.Get("Content-Encoding"), c.want, res.Header.Get("Vary"))
				continue
			}
			if got := res.Header.Get("Content-Length"); got != strconv.Itoa(len(body)) {
				t.Errorf("%s: Content-Length %s, %d bytes sent", what, got, len(body))
			}
			switch c.want {
			case "":
				if !bytes.Equal(body, plain) {
					t.Errorf("%s: not the file", what)
				}
			case "br":
				if !bytes.Equal(body, br) {
					t.Errorf("%s: not dist%s", what, brPath)
				}
			case "gzip":
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, plain) {
					t.Errorf("%s: the gzipped file is not the file (%v)", what, err)
				}
			}
			if c.want != "" && len(body) >= len(plain) {
				t.Errorf("%s: %d bytes, %d as it is", what, len(body), len(plain))
			}
			// One ETag per coding, and each revalidates its own coding only.
			etag := res.Header.Get("ETag")
			if have, ok := etags[c.want]; ok && have != etag {
				t.Errorf("%s: ETag %s, %s before", what, etag, have)
			}
			etags[c.want] = etag
			if res := send(path, "Accept-Encoding", c.accept, "If-None-Match", etag); res.StatusCode != 304 {
				t.Errorf("%s, If-None-Match its ETag: %d", what, res.StatusCode)
			}
		}
		if len(etags) != 3 || etags[""] == etags["br"] || etags[""] == etags["gzip"] || etags["br"] == etags["gzip"] {
			t.Errorf("GET %s: the ETags of the codings: %v", path, etags)
		}
		if res := send(path, "Accept-Encoding", "gzip", "If-None-Match", etags["br"]); res.StatusCode != 200 {
			t.Errorf("GET %s: gzip, If-None-Match the Brotli ETag: %d", path, res.StatusCode)
		}
	}
	// A file that does not shrink is sent as it is, without Vary: none of the
	// build's text files is that small, so this is the 404's path.
	if res := send("/assets/nope.js", "Accept-Encoding", "br"); res.Header.Get("Content-Encoding") != "" {
		t.Errorf("a 404 was sent as %s", res.Header.Get("Content-Encoding"))
	}
}
