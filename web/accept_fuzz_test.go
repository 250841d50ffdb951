package web

import (
	"net/http"
	"strings"
	"testing"
)

// FuzzAcceptsGzip: the gzip build is served only to a request whose
// Accept-Encoding headers name gzip or "*".
// Seeds: testdata/fuzz/FuzzAcceptsGzip.
func FuzzAcceptsGzip(f *testing.F) {
	f.Fuzz(func(t *testing.T, a, b string) {
		r := &http.Request{Header: http.Header{"Accept-Encoding": {a, b}}}
		got := acceptsGzip(r)
		if got && !strings.Contains(strings.ToLower(a+b), "gzip") && !strings.Contains(a+b, "*") {
			t.Fatalf("%q, %q: gzip", a, b)
		}
	})
}
