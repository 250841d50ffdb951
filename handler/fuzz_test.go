package handler

import (
	"slices"
	"strings"
	"testing"

	"github.com/triage-go/triage/fault"
)

// FuzzOneLine holds oneLine to what it stands for: any text comes out
// redacted, then as strings.Fields and a join make it.
func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"plain words here", " lead", "trail ", "two  spaces", "tab\there", "nbsp\u00a0x", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := oneLine(s), strings.Join(strings.Fields(fault.Redact(s)), " "); got != want {
			t.Fatalf("oneLine(%q) = %q, want %q", s, got, want)
		}
	})
}

// FuzzRefine holds refine, which works in its input's array, to refine
// as first written, which copied it: the same suggestions, never nil.
func FuzzRefine(f *testing.F) {
	f.Add("Retry now\nNarrow the date range\nNarrow the date range to 2024-08-02 – 2025-08-01\nretry NOW", 2)
	f.Add("", 0)
	f.Add("a\nb\nA\nc\nd\ne\nf\ng\nB", 1)
	f.Fuzz(func(t *testing.T, list string, n int) {
		var in []string
		if list != "" {
			in = strings.Split(list, "\n")
		}
		if n < 0 || n > len(in) {
			n = len(in)
		}
		want := refineCopying(slices.Clone(in), n)
		got := refine(slices.Clone(in), n)
		if !slices.Equal(got, want) || got == nil {
			t.Fatalf("refine(%q, %d) = %#v, want %#v", in, n, got, want)
		}
	})
}

// refineCopying is refine as first written.
func refineCopying(in []string, n int) []string {
	out := make([]string, n, len(in))
	copy(out, in[:n])
	for _, s := range in[n:] {
		if i := slices.IndexFunc(out[:n], func(p string) bool { return hasPrefixFold(s, p) }); i >= 0 && len(s) > len(out[i]) {
			out[i] = s
			continue
		}
		out = append(out, s)
	}
	kept := out[:0]
	for _, s := range out {
		if !slices.ContainsFunc(kept, func(k string) bool { return strings.EqualFold(k, s) }) {
			kept = append(kept, s)
		}
	}
	return kept[:min(len(kept), 6)]
}
