package negotiate_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/triage-go/triage/internal/negotiate"
)

// FuzzBest: Best answers one of the offers, or "" (seeds in
// testdata/fuzz/FuzzBest); an offer it answers for a header that has an
// element is named by the header, itself or by a wildcard; and the answer
// does not depend on how the header is split into lines.
func FuzzBest(f *testing.F) {
	offers := []string{"text/event-stream", "application/x-ndjson", "application/json"}
	f.Fuzz(func(t *testing.T, accept string) {
		got := negotiate.Best([]string{accept}, offers...)
		if got != "" && !slices.Contains(offers, got) {
			t.Fatalf("%q: %q is not an offer", accept, got)
		}
		lower := strings.ToLower(accept)
		typ, _, _ := strings.Cut(got, "/")
		if got != "" && strings.Trim(accept, " \t,") != "" &&
			!strings.Contains(lower, got) && !strings.Contains(lower, typ+"/*") && !strings.Contains(lower, "*/*") {
			t.Fatalf("%q: %q, which it does not name", accept, got)
		}
		if before, after, ok := strings.Cut(accept, ","); ok && !strings.Contains(accept, `"`) {
			if again := negotiate.Best([]string{before, after}, offers...); again != got && strings.Trim(before, " \t") != "" && strings.Trim(after, " \t") != "" {
				t.Fatalf("%q: %q in one line, %q in two", accept, got, again)
			}
		}
	})
}

// FuzzEncoding: gzip is taken only from Accept-Encoding headers that name
// gzip or "*" (seeds in testdata/fuzz/FuzzEncoding).
func FuzzEncoding(f *testing.F) {
	f.Fuzz(func(t *testing.T, a, b string) {
		got := negotiate.Encoding([]string{a, b}, "gzip")
		if got && !strings.Contains(strings.ToLower(a+b), "gzip") && !strings.Contains(a+b, "*") {
			t.Fatalf("%q, %q: gzip", a, b)
		}
	})
}

func FuzzCoding(f *testing.F) {
	f.Fuzz(func(t *testing.T, a, b string) {
		got := negotiate.Coding([]string{a, b}, "br", "gzip")
		if got != "" && !negotiate.Encoding([]string{a, b}, got) {
			t.Fatalf("%q, %q: %q, which it does not take", a, b, got)
		}
		if got == "gzip" && negotiate.Encoding([]string{a, b}, "br") && !strings.Contains(strings.ToLower(a+b), "q=") {
			t.Fatalf("%q, %q: gzip over br, with no q", a, b)
		}
	})
}
