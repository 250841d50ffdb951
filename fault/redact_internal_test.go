package fault

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzTriggers: the fast path of Redact never skips text that a pattern
// would change.
func FuzzTriggers(f *testing.F) {
	for _, s := range []string{"Authorization: x", "ApiKey=1", "AIzaSyA-1234567890abcdefghijk", "a://b:c@d",
		"x\n   at f (a.js:1:2)", "x\ngoroutine 1 [", "sk-abcdefgh", "plain text", "KEY=v"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if mayHoldSecret(s) {
			return
		}
		for _, p := range secretPatterns() {
			if p.re.MatchString(s) {
				t.Fatalf("%q matches %s but has no trigger", s, p.re)
			}
		}
		if stackStart().MatchString(s) {
			t.Fatalf("%q starts a stack but has no trigger", s)
		}
	})
}

// TestEnglishIsNotATrigger: everyday sentences take Redact's fast path.
func TestEnglishIsNotATrigger(t *testing.T) {
	for _, s := range []string{"I couldn't retrieve the full sales data right now (database timeout).",
		"Pie charts work best for categorical data. Should I convert it to a line chart?",
		"Look at that: the format is great at first."} {
		if mayHoldSecret(s) {
			t.Errorf("%q takes the slow path", s)
		}
	}
	for _, s := range []string{"x\n\tat com.example.Main(Main.java:3)", "  at f (a.js:1:2)"} {
		if !mayHoldSecret(s) {
			t.Errorf("%q, a stack frame, skips the patterns", s)
		}
	}
}

// Text up to the truncation length without a trigger skips the patterns
// (a 1 KiB string once cost a millisecond of backtracking), and a secret
// anywhere in it is still found.
func TestRedactGateUpToTheCut(t *testing.T) {
	plain := strings.Repeat("<", 1000)
	if mayHoldSecret(plain) || Redact(plain) != plain {
		t.Errorf("plain text of 1000 bytes goes through the patterns, or changes")
	}
	for _, secret := range []string{"sk-proj-Canary0123456789abcdef", "password=hunter2hunter2", "Authorization: Bearer abcdefghijkl", "AKIAIOSFODNN7EXAMPLE"} {
		s := strings.Repeat("<", 990-len(secret)) + " " + secret
		if got := Redact(s); strings.Contains(got, "Canary0123456789") || strings.Contains(got, "hunter2") ||
			strings.Contains(got, "abcdefghijkl") || strings.Contains(got, "IOSFODNN7") {
			t.Errorf("a secret at the end of %d bytes is kept: %q", len(s), got[len(got)-60:])
		}
	}
	if long := strings.Repeat("<", 3000); len(Redact(long)) > 1100 {
		t.Errorf("text over the cut is not cut")
	}
}

// FuzzFragments: the one-pass triggers and sensitive-key checks tell what
// a strings.Contains of each fragment in the ASCII-lowered text tells, and
// stackFrameAt what a search of every "at " in it does.
func FuzzFragments(f *testing.F) {
	for _, s := range []string{"Authorization: x", "AUTH", "x\n \tAt f", "\tat ", " at", "Set-Cookie", "Private_Key",
		"file \"a.py\"", "a.GO:12", "sk", "ghp_", "plain text", "Token", "x-api-key"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lower := []byte(s)
		for i, c := range lower {
			if 'A' <= c && c <= 'Z' {
				lower[i] = c + 'a' - 'A'
			}
		}
		for _, set := range []*fragments{triggers, sensitiveKeys} {
			want := false
			for _, list := range set.first {
				for _, frag := range list {
					want = want || strings.Contains(string(lower), frag)
				}
			}
			if got := set.in(s); got != want {
				t.Fatalf("in(%q) = %v, want %v", s, got, want)
			}
		}
		want := false
		for j := 0; j+3 <= len(lower) && !want; j++ {
			if string(lower[j:j+3]) != "at " {
				continue
			}
			k := j
			for k > 0 && (lower[k-1] == ' ' || lower[k-1] == '\t') {
				k--
			}
			want = k < j && (k == 0 || lower[k-1] == '\n' || lower[k-1] == '\r')
		}
		if got := stackFrameAt(s); got != want {
			t.Fatalf("stackFrameAt(%q) = %v, want %v", s, got, want)
		}
	})
}

// FuzzSanitizeDecoded: SanitizeDecoded gives what SanitizeDetails gives,
// on any decoded object.
func FuzzSanitizeDecoded(f *testing.F) {
	for _, s := range []string{`{}`, `{"a": "x", "password": "p", "n": [1, "Bearer abcdefgh", {"token": 1}, null]}`,
		`{"headers": {"x": 1}, "deep": {"a": {"b": {"c": [[["sk-abcdefghijkl"]]]}}}, "k": null, "f": 1.5}`,
		`{"Authorization": "x", "list": [], "m": {}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var a, b map[string]any
		if json.Unmarshal(data, &a) != nil || json.Unmarshal(data, &b) != nil {
			return
		}
		want, got := SanitizeDetails(a), SanitizeDecoded(b)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("SanitizeDecoded(%s) = %v, SanitizeDetails %v", data, got, want)
		}
	})
}
