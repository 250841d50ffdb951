package negotiate_test

import (
	"testing"

	"github.com/triage-go/triage/internal/negotiate"
)

// TestBest: the tricky Accept headers, against the offers of the module's
// handlers: a problem type's page (HTML, else JSON) and a run's stream
// (AG-UI's SSE, else CAP's NDJSON).
func TestBest(t *testing.T) {
	t.Parallel()
	page := []string{"text/html", "application/json", "application/problem+json"}
	stream := []string{"text/event-stream", "application/x-ndjson"}
	for _, c := range []struct {
		accept []string
		offers []string
		want   string
	}{
		// No Accept, or an empty one, accepts anything: the server's choice.
		{nil, page, "text/html"},
		{[]string{""}, stream, "text/event-stream"},
		{[]string{" , "}, stream, "text/event-stream"},
		// Wildcards.
		{[]string{"*/*"}, page, "text/html"},
		{[]string{"application/*"}, page, "application/json"},
		{[]string{"text/*;q=0.1, application/json;q=0.2"}, page, "application/json"},
		// q decides, not order.
		{[]string{"text/html;q=0.5, application/json"}, page, "application/json"},
		{[]string{"application/x-ndjson, text/event-stream;q=0.9"}, stream, "application/x-ndjson"},
		{[]string{"text/event-stream, application/x-ndjson"}, stream, "text/event-stream"},
		// Equal q: the server's preference.
		{[]string{"application/json, text/html"}, page, "text/html"},
		// q=0 refuses, in every spelling, even under a wildcard that accepts.
		{[]string{"application/json;q=0"}, page, ""},
		{[]string{"*/*, text/html;q=0"}, page, "application/json"},
		{[]string{"text/html;q=0.000, */*;q=0.1"}, page, "application/json"},
		{[]string{"text/event-stream;q=0, application/x-ndjson;q=0"}, stream, ""},
		{[]string{"*/*;q=0"}, page, ""},
		// The most specific range wins over a wildcard, whatever its order.
		{[]string{"text/*;q=0, text/html"}, page, "text/html"},
		{[]string{"text/html, text/*;q=0"}, page, "text/html"},
		{[]string{"application/json;q=0, application/*"}, page, "application/problem+json"},
		// Case: types and parameter names are case-insensitive.
		{[]string{"Application/JSON"}, page, "application/json"},
		{[]string{"TEXT/HTML;Q=0, application/json"}, page, "application/json"},
		{[]string{"Application/X-NDJSON"}, stream, "application/x-ndjson"},
		// Parameters other than q are not matched; whitespace (tabs too)
		// around them is allowed.
		{[]string{"application/json; charset=utf-8"}, page, "application/json"},
		{[]string{`application/json;profile="a,b", text/html;q=0.5`}, page, "application/json"}, // a quoted comma
		{[]string{`application/json;p="a\",b";q=0, text/html;q=0.5`}, page, "text/html"},        // an escaped quote
		{[]string{"text/html;level=1;q=0.7, application/json;q=0.8"}, page, "application/json"},
		{[]string{"text/html;\tq=0, application/json"}, page, "application/json"},
		// A malformed q, or a malformed element, is left out.
		{[]string{"text/html;q=2, application/json;q=0.5"}, page, "application/json"},
		{[]string{"text/html;q=0.5000, application/json;q=0.1"}, page, "application/json"},
		{[]string{"text/html;q=1.001, application/json;q=0.1"}, page, "application/json"},
		{[]string{"text/html;q=-1, application/json;q=0.1"}, page, "application/json"},
		{[]string{"text/html;q=, application/json;q=0.1"}, page, "application/json"},
		{[]string{"text/html;q=abc"}, page, ""},
		{[]string{"garbage"}, page, ""},
		{[]string{"*/json, text/html;q=0.1"}, page, "text/html"},
		{[]string{"text/html/x, application/json;q=0.1"}, page, "application/json"},
		// Several header lines are one list.
		{[]string{"text/html;q=0", "application/json"}, page, "application/json"},
		{[]string{"application/x-ndjson"}, nil, ""},
	} {
		if got := negotiate.Best(c.accept, c.offers...); got != c.want {
			t.Errorf("Best(%q, %q) = %q, want %q", c.accept, c.offers, got, c.want)
		}
	}
}

// TestEncoding: Accept-Encoding by the same q rules.
func TestEncoding(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		accept []string
		want   bool
	}{
		{nil, false},
		{[]string{""}, false},
		{[]string{"gzip"}, true},
		{[]string{"GZip"}, true},
		{[]string{"gzip, deflate, br"}, true},
		{[]string{"br;q=1.0, gzip;q=0.8, *;q=0.1"}, true},
		{[]string{"*"}, true},
		{[]string{"gzip;q=0"}, false},
		{[]string{"gzip;q=0.000"}, false},
		{[]string{"gzip;Q=0"}, false},
		{[]string{"gzip ; q=0"}, false},
		{[]string{"*, gzip;q=0"}, false}, // the coding itself wins over "*"
		{[]string{"gzip;q=0, *"}, false},
		{[]string{"*;q=0, gzip"}, true},
		{[]string{"*;q=0"}, false},
		{[]string{"identity"}, false},
		{[]string{"deflate", "gzip;q=0.5"}, true},
		{[]string{"gzip;q=2"}, false}, // not a qvalue: left out
		{[]string{"x-gzip"}, false},
		{[]string{"gzip/1"}, false}, // a media type is not a coding
	} {
		if got := negotiate.Encoding(c.accept, "gzip"); got != c.want {
			t.Errorf("Encoding(%q, gzip) = %v, want %v", c.accept, got, c.want)
		}
	}
}

// TestCoding: the coding a handler that can write Brotli and gzip sends.
func TestCoding(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		accept []string
		want   string
	}{
		// None asked for: identity.
		{nil, ""},
		{[]string{""}, ""},
		{[]string{"identity"}, ""},
		{[]string{"deflate, zstd"}, ""},
		// A browser's header: the server's preference, Brotli.
		{[]string{"gzip, deflate, br, zstd"}, "br"},
		{[]string{"BR"}, "br"},
		{[]string{"gzip"}, "gzip"},
		{[]string{"*"}, "br"},
		// q decides, not order.
		{[]string{"br;q=0.5, gzip"}, "gzip"},
		{[]string{"gzip;q=0.9, br;q=0.8"}, "gzip"},
		{[]string{"gzip;q=0.8, br;q=0.8"}, "br"},
		// q=0 refuses, the coding's own element over "*".
		{[]string{"br;q=0, gzip"}, "gzip"},
		{[]string{"*, br;q=0"}, "gzip"},
		{[]string{"*;q=0"}, ""},
		{[]string{"*;q=0, gzip;q=0.1"}, "gzip"},
		{[]string{"br;q=0, gzip;q=0"}, ""},
		// Refusing identity with nothing else taken leaves identity.
		{[]string{"identity;q=0"}, ""},
		{[]string{"identity;q=0, gzip"}, "gzip"},
		// A malformed q is left out; several lines are one list.
		{[]string{"br;q=2, gzip;q=0.1"}, "gzip"},
		{[]string{"br;q=0", "gzip;q=0.5"}, "gzip"},
	} {
		if got := negotiate.Coding(c.accept, "br", "gzip"); got != c.want {
			t.Errorf("Coding(%q, br, gzip) = %q, want %q", c.accept, got, c.want)
		}
	}
	if got := negotiate.Coding([]string{"br"}); got != "" {
		t.Errorf("Coding(br) of no offers = %q", got)
	}
}
