package handler

import (
	"strings"
	"testing"
)

// FuzzOneLine holds oneLine's shortcut to what it shortcuts: any text
// comes out as strings.Fields and a join make it.
func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"plain words here", " lead", "trail ", "two  spaces", "tab\there", "nbsp\u00a0x", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if isOneLine(s) && strings.Join(strings.Fields(s), " ") != s {
			t.Fatalf("%q is taken as one line, but Fields and Join make %q", s, strings.Join(strings.Fields(s), " "))
		}
	})
}
