package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/triage-go/triage/internal/negotiate"
)

// dist is the dashboard as `npm run build` writes it (Vite): index.html
// and, under assets/, files whose names carry their content's hash. It is
// committed, so that building the binary needs no Node.js; TestDistUpToDate
// checks that it is the build of the sources.
//
//go:embed dist
var dist embed.FS

// ContentSecurityPolicy is the policy every answer of Handler carries: the
// page's scripts, styles, images and connections are the service's own,
// nothing inline (no inline script, no style element or attribute; styles
// React sets through the DOM are not inline styles), no eval, no frames,
// no forms posted anywhere, no plugins.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// The Cache-Control of the page and of its assets: index.html is checked
// at every load (so a new build is seen at once; its ETag makes that a
// 304), and an asset, whose name changes with its content, is kept for a
// year.
const (
	pageCache  = "no-cache"
	assetCache = "public, max-age=31536000, immutable"
)

// contentTypes are the types of the files a build holds, by extension;
// a file of another extension is served as application/octet-stream.
// (mime.TypeByExtension reads the system's tables, which differ.)
var contentTypes = map[string]string{
	".html":  "text/html; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".css":   "text/css; charset=utf-8",
	".svg":   "image/svg+xml",
	".png":   "image/png",
	".ico":   "image/x-icon",
	".json":  "application/json",
	".woff2": "font/woff2",
	".txt":   "text/plain; charset=utf-8",
}

// file is one file of the build, ready to serve.
type file struct {
	body        []byte
	contentType string
	cache       string
	etag        string
	// br is body compressed with Brotli, as the build wrote it beside the
	// file (NAME.br), and gz body gzipped when the handler was made; each
	// with its own ETag. Nil for a file that does not shrink by a tenth
	// (an image, a tiny file).
	br, gz         []byte
	brEtag, gzEtag string
}

// compressible are the extensions of the files worth gzipping.
var compressible = map[string]bool{".html": true, ".js": true, ".css": true, ".svg": true, ".json": true, ".txt": true}

// gzipped is body gzipped at the best compression, or nil when that saves
// less than a tenth. Done once, when the handler is first made.
func gzipped(body []byte) []byte {
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return nil
	}
	if _, err := zw.Write(body); err != nil || zw.Close() != nil {
		return nil
	}
	if b.Len() > len(body)*9/10 {
		return nil
	}
	return b.Bytes()
}

// etagOf is the ETag of body: a quoted prefix of its SHA-256, with a
// suffix naming its coding ("-br", "-gzip") when it is one.
func etagOf(body []byte, coding string) string {
	sum := sha256.Sum256(body)
	tag := hex.EncodeToString(sum[:12])
	if coding != "" {
		tag += "-" + coding
	}
	return `"` + tag + `"`
}

var (
	filesOnce sync.Once
	files     map[string]*file // by URL path: "/" and "/assets/…"
)

func load() {
	files = map[string]*file{}
	root, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // the directive embeds dist: it is there
	}
	_ = fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		// NAME.br is NAME's Brotli, served for NAME, not at a path of its own.
		if err != nil || d.IsDir() || path.Ext(p) == ".br" {
			return err
		}
		body, err := fs.ReadFile(root, p)
		if err != nil {
			return err
		}
		f := &file{body: body, cache: assetCache, etag: etagOf(body, "")}
		f.contentType = contentTypes[path.Ext(p)]
		if f.contentType == "" {
			f.contentType = "application/octet-stream"
		}
		if compressible[path.Ext(p)] {
			if f.gz = gzipped(body); f.gz != nil {
				f.gzEtag = etagOf(f.gz, "gzip")
			}
		}
		if br, err := fs.ReadFile(root, p+".br"); err == nil {
			f.br, f.brEtag = br, etagOf(br, "br")
		}
		urlPath := "/" + p
		if p == "index.html" {
			urlPath, f.cache = "/", pageCache
		}
		files[urlPath] = f
		return nil
	})
}

// Handler serves the dashboard: GET / is its page (index.html) and GET
// /assets/NAME its scripts, stylesheets and images, from the build
// embedded in the binary; HEAD too. Any other path, or a file the build
// does not have, is answered 404 (http.NotFound), and another method 405.
//
// Every answer has the Content-Security-Policy ContentSecurityPolicy, and
// X-Content-Type-Options nosniff, Referrer-Policy no-referrer and
// X-Frame-Options DENY; a file has its content type by extension, an ETag
// (If-None-Match is answered 304), and Cache-Control: no-cache for the
// page, a year and immutable for an asset. Text files are sent compressed
// to a client whose Accept-Encoding takes it, with Vary: Accept-Encoding
// and an ETag of their own: Brotli, which the build writes beside each
// (NAME.br, at its best quality), or else gzip, which Handler makes when
// it is first called (at the best level); of two codings the request
// takes equally, Brotli, the smaller.
//
// The page makes requests to the service it was served by only (the API
// under /v1, with the API key it asks for), so Handler belongs on the
// service's own origin: `triage serve` mounts it at / (server.Config.UI).
func Handler() http.Handler {
	filesOnce.Do(load)
	return http.HandlerFunc(serve)
}

func serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	f := files[r.URL.Path]
	if f == nil || (r.URL.Path != "/" && !strings.HasPrefix(r.URL.Path, "/assets/")) {
		http.NotFound(w, r)
		return
	}
	h.Set("Content-Type", f.contentType)
	h.Set("Cache-Control", f.cache)
	body, etag := f.body, f.etag
	if f.br != nil || f.gz != nil {
		h.Add("Vary", "Accept-Encoding")
		var offers []string
		if f.br != nil {
			offers = append(offers, "br")
		}
		if f.gz != nil {
			offers = append(offers, "gzip")
		}
		switch negotiate.Coding(r.Header.Values("Accept-Encoding"), offers...) {
		case "br":
			body, etag = f.br, f.brEtag
			h.Set("Content-Encoding", "br")
		case "gzip":
			body, etag = f.gz, f.gzEtag
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", etag)
	if h.Get("Content-Encoding") != "" {
		// ServeContent leaves it out when the answer is encoded (for
		// handlers that compress as they write); this body is whole. A
		// range or a 304 sets or removes it.
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}
