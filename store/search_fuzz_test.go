package store_test

import (
	"errors"
	"strings"
	"testing"
	"unicode"

	"github.com/triage-go/triage/store"
)

// FuzzParseSearch: a listing's q comes from clients. Any string is
// refused with ErrBadSearch, or gives 1 to MaxSearchTerms terms, each
// letters and digits only, lower-cased, distinct: nothing a full-text
// syntax (FTS5's quotes, stars, AND/NEAR, column filters; tsquery's
// & | ! : operators) can read. Seeds: testdata/fuzz.
func FuzzParseSearch(f *testing.F) {
	f.Fuzz(func(t *testing.T, q string) {
		terms, err := store.ParseSearch(q)
		if err != nil {
			if !errors.Is(err, store.ErrBadSearch) || terms != nil {
				t.Fatalf("%q: %q, %v", q, terms, err)
			}
			return
		}
		if len(terms) == 0 || len(terms) > store.MaxSearchTerms || len(q) > store.MaxSearchBytes {
			t.Fatalf("%q: %d terms", q, len(terms))
		}
		for i, term := range terms {
			if term == "" || strings.IndexFunc(term, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) >= 0 ||
				term != strings.ToLower(term) {
				t.Fatalf("%q: term %q", q, term)
			}
			for _, other := range terms[:i] {
				if other == term {
					t.Fatalf("%q: %q twice", q, term)
				}
			}
		}
	})
}

func TestParseSearch(t *testing.T) {
	for q, want := range map[string]string{
		"DB_TIMEOUT":        "db timeout",
		"planner-v2 PLAN":   "planner v2 plan",
		`"timed" OR x*`:     "timed or x",
		"Straße Zeitüb ½":   "straße zeitüb",
		"a a A":             "a",
		"column:product_id": "column product id",
	} {
		terms, err := store.ParseSearch(q)
		if err != nil || strings.Join(terms, " ") != want {
			t.Errorf("ParseSearch(%q) = %q, %v; want %s", q, terms, err, want)
		}
	}
	for _, q := range []string{"", " ", `"*():^-`, strings.Repeat("x", store.MaxSearchBytes+1), "a b c d e f g h i", "\xffx"} {
		if terms, err := store.ParseSearch(q); !errors.Is(err, store.ErrBadSearch) {
			t.Errorf("ParseSearch(%q) = %q, %v; want ErrBadSearch", q, terms, err)
		}
	}
}
