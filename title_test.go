package triage_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

func TestReportTitle(t *testing.T) {
	for _, c := range []struct {
		name       string
		data       triage.Data
		code, want string
	}{
		{"code and message", triage.Data{ErrorCode: "DB_TIMEOUT", Message: "query  timed\nout"}, "DB_TIMEOUT", "DB_TIMEOUT: query timed out"},
		{"message only", triage.Data{Message: "no such column"}, "", "no such column"},
		{"fault's code", triage.Data{Message: "slow", Fault: &fault.Error{Code: "UPSTREAM_TIMEOUT"}}, "UPSTREAM_TIMEOUT", "UPSTREAM_TIMEOUT: slow"},
		{"code only", triage.Data{ErrorCode: "E1"}, "E1", "E1"},
		{"redacted", triage.Data{ErrorCode: "AUTH", Message: "bad key sk-abcdefghijklmnopqrstuvwxyz0123456789"}, "AUTH", "AUTH: bad key " + fault.Redact("sk-abcdefghijklmnopqrstuvwxyz0123456789")},
	} {
		r := triage.Report{Data: c.data}
		code, title := r.Title()
		if code != c.code || title != c.want {
			t.Errorf("%s: Title() = %q, %q; want %q, %q", c.name, code, title, c.code, c.want)
		}
	}
}

func TestCutTitle(t *testing.T) {
	words := strings.Repeat("word ", 60)
	got := triage.CutTitle(words, triage.MaxTitle)
	if len(got) > triage.MaxTitle || !strings.HasSuffix(got, "word…") {
		t.Errorf("words cut to %q (%d bytes): want at most %d, ending at a whole word", got, len(got), triage.MaxTitle)
	}
	runes := strings.Repeat("é", 150) // 300 bytes, no space
	got = triage.CutTitle(runes, triage.MaxTitle)
	if len(got) > triage.MaxTitle || !utf8.ValidString(got) || len(got) < triage.MaxTitle-4 {
		t.Errorf("a long word cut to %q (%d bytes): want valid UTF-8 of %d bytes at most, cut near the bound", got, len(got), triage.MaxTitle)
	}
	if got := triage.CutTitle("short", triage.MaxTitle); got != "short" {
		t.Errorf("a short title became %q", got)
	}
}

func FuzzCutTitle(f *testing.F) {
	f.Add("DB_TIMEOUT: query timed out", 200)
	f.Add(strings.Repeat("é ", 150), 10)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 4 || n > 1000 || !utf8.ValidString(s) {
			return
		}
		got := triage.CutTitle(s, n)
		if len(got) > n || !utf8.ValidString(got) {
			t.Fatalf("CutTitle(%q, %d) = %q: %d bytes, valid %t", s, n, got, len(got), utf8.ValidString(got))
		}
	})
}
