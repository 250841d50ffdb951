package server

import (
	"net/http"
	"testing"
)

// The server's two negotiations read Accept by internal/negotiate's one
// rule: q decides, not the order; the most specific range wins; q=0
// refuses; case does not matter. A header naming neither offer gets the
// default (HTML; AG-UI's SSE).
func TestNegotiations(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		accept    string
		json, cap bool
	}{
		{"", false, false},
		{"*/*", false, false},
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", false, false}, // a browser
		{"application/json", true, false},
		{"Application/Problem+JSON", true, false},
		{"text/html;q=0.5, application/json", true, false},
		{"application/json;q=0, text/html", false, false},
		{"application/json;q=0", false, false},
		{"*/*, text/html;q=0", true, false},
		{"application/x-ndjson", false, true},
		{"APPLICATION/X-NDJSON", false, true},
		{"text/event-stream;q=0.1, application/x-ndjson", false, true},
		{"application/x-ndjson, text/event-stream", false, false},
		{"application/x-ndjson;q=0", false, false},
		{"application/*, text/event-stream;q=0", true, true},
		{"image/png", false, false},
	} {
		r := &http.Request{Header: http.Header{"Accept": {c.accept}}}
		if got := wantsJSON(r); got != c.json {
			t.Errorf("%q: wantsJSON %v, want %v", c.accept, got, c.json)
		}
		if got := wantsCAP(r); got != c.cap {
			t.Errorf("%q: wantsCAP %v, want %v", c.accept, got, c.cap)
		}
	}
}
