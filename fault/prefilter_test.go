package fault

import (
	"strings"
	"testing"
)

// Every text rule but the weakest is filterable, and the filter is a
// necessary condition: on texts the rules were written for, the filter never
// rules out a rule that matches.
func TestPrefilterSound(t *testing.T) {
	t.Parallel()
	texts := []string{
		"context deadline exceeded", "dial tcp 127.0.0.1:5432: connect: connection refused",
		"429 Too Many Requests", "Error 429, Status: RESOURCE_EXHAUSTED", "Error 403, Status: PERMISSION_DENIED",
		"session abc not found", "The model `gpt-9` does not exist", "Missing required credential: apiKey",
		"Error: connect ECONNREFUSED 127.0.0.1:6379", "getaddrinfo ENOTFOUND x", "panic: boom",
		"candidate blocked: finishReason: SAFETY", "Service Unavailable", "httpx.ReadTimeout", "CANCELLED",
	}
	for _, r := range textRules() {
		if r.filter.lits == nil {
			t.Errorf("rule %s cannot be prefiltered", r.name)
		}
		for _, s := range texts {
			if r.re.MatchString(s) && !r.filter.mayMatch(strings.ToLower(s)) {
				t.Errorf("rule %s matches %q but its filter rules it out", r.name, s)
			}
		}
	}
}

// FuzzPrefilter: for any text, a rule whose expression matches passes its
// filter, and statusInText needs a status-like number.
func FuzzPrefilter(f *testing.F) {
	for _, s := range []string{"Connection Refused", "RESOURCE_EXHAUSTED", "HTTP 503", "Session X expired", "K\u212aelvin"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !isASCII(s) {
			return // classifyText runs every rule on such text
		}
		lower := strings.ToLower(s)
		for _, r := range textRules() {
			if r.re.MatchString(s) && !r.filter.mayMatch(lower) {
				t.Fatalf("rule %s matches %q but its filter rules it out", r.name, s)
			}
		}
		if statusInText().MatchString(s) && !hasStatusLike(s) {
			t.Fatalf("statusInText matches %q without a status-like number", s)
		}
	})
}
