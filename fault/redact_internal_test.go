package fault

import "testing"

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
		for _, p := range secretPatterns {
			if p.re.MatchString(s) {
				t.Fatalf("%q matches %s but has no trigger", s, p.re)
			}
		}
		if stackStart.MatchString(s) {
			t.Fatalf("%q starts a stack but has no trigger", s)
		}
	})
}
