package oneline

import (
	"strings"
	"testing"
)

var cases = []string{
	"", "x", " ", "plain words here", " lead", "trail ", "two  spaces", "tab\there", "new\nline",
	"nbsp\u00a0x", "nel\u0085x", "em\u2003space", "I used “sku_id”, the current name of “product_id”.",
	"bad \xff utf8", "\xe2\x80", "ctrl\x01char", "del\x7fchar", "ideographic\u3000space", " ", "a b",
}

func TestJoin(t *testing.T) {
	for _, s := range cases {
		want := strings.Join(strings.Fields(s), " ")
		if got := Join(s); got != want {
			t.Errorf("Join(%q) = %q, want %q", s, got, want)
		}
		if got := Is(s); got != (want == s) {
			t.Errorf("Is(%q) = %v, want %v", s, got, want == s)
		}
	}
}

func TestJoinAllocs(t *testing.T) {
	s := "I used “sku_id”, the current name of “product_id”."
	if n := testing.AllocsPerRun(100, func() { _ = Join(s) }); n != 0 {
		t.Errorf("Join of a line allocates %v times, want 0", n)
	}
}

// FuzzJoin holds Join and Is to strings.Fields and strings.Join: the
// same text, and Is exactly when the text is its own join.
func FuzzJoin(f *testing.F) {
	for _, s := range cases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.Join(strings.Fields(s), " ")
		if got := Join(s); got != want {
			t.Fatalf("Join(%q) = %q, want %q", s, got, want)
		}
		if got := Is(s); got != (want == s) {
			t.Fatalf("Is(%q) = %v, want %v", s, got, want == s)
		}
	})
}
