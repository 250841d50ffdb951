package fault

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// maxRedactedLen bounds redacted text: a cause long enough to hold a request
// or response body is cut, not emitted.
const maxRedactedLen = 1024

const redacted = "[REDACTED]"

// secretPatterns find credentials in free text. Each keeps its first group
// (the name) and replaces the rest with [REDACTED].
var secretPatterns = sync.OnceValue(func() []secretPattern {
	out := make([]secretPattern, len(secretPatternSpecs))
	for i, p := range secretPatternSpecs {
		out[i] = secretPattern{regexp.MustCompile(p.pattern), p.repl}
	}
	return out
})

// secretPattern is one of secretPatterns, compiled.
type secretPattern struct {
	re   *regexp.Regexp
	repl string
}

// secretPatternSpecs are the expressions of secretPatterns, compiled on
// first use rather than at package init.
var secretPatternSpecs = []struct {
	pattern string
	repl    string
}{
	// Authorization: Bearer xyz, Proxy-Authorization: Basic xyz
	{`(?i)((?:proxy-)?authorization["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|token)\s+)?[^\s"',;]+`, "${1}" + redacted},
	// a bare bearer token
	{`(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{4,}`, "${1}" + redacted},
	// a bare basic credential: base64 with a digit, + or / in it (so that
	// "basic authentication" stays as it is)
	{`(?i)(\bbasic\s+)[A-Za-z0-9+/]*[0-9+/][A-Za-z0-9+/]*={0,2}`, "${1}" + redacted},
	// a JSON Web Token, wherever it stands
	{`\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`, redacted},
	// x-api-key: xyz, api_key=xyz, "apiKey": "xyz", password=..., secret: ...
	{`(?i)((?:x-goog-api-key|x-api-key|api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|client[_-]?secret|secret|password|passwd|pwd|auth|token|signature|sig|cookie|set-cookie)["']?\s*[:=]\s*["']?)[^\s"'&,;}]+`, "${1}" + redacted},
	// key=xyz, as Google's APIs take a key in the query string
	{`(\bkey=)[^\s"'&,;}]+`, "${1}" + redacted},
	// credentials in a URL's userinfo: scheme://user:pass@host
	{`(://)[^/\s:@]*:[^/\s@]+@`, "${1}" + redacted + "@"},
	// well-known key shapes: OpenAI and Anthropic (sk-...), Google (AIza...),
	// GitHub, Slack, AWS access key ids
	{`\b(?:sk-[A-Za-z0-9_-]{8,}|AIza[0-9A-Za-z_-]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})`, redacted},
}

// stackStart finds where a stack trace begins: Go's goroutine header and
// frames, Python's traceback header and frames, and the indented "at"
// frames of JavaScript, Java, Kotlin and C#.
var stackStart = lazyRegexp(`(?m)(?:^goroutine \d+ \[|^Traceback \(most recent call last\)|^\s*File "[^"]+", line \d+|^[ \t]+at [\w$.<>/\\-]+[ (]|^\s*\S+\.go:\d+ \+0x)`)

// Redact removes credentials and stack traces from free text, for the cause
// text that debug output and logs carry: secrets registered with
// RegisterSecret, whatever their shape; bearer tokens, API keys, passwords
// and signatures (as headers, query parameters or JSON members), URL
// userinfo, and keys of well-known shapes become [REDACTED]; a stack trace
// and everything after it is cut; text longer than 1 KiB is truncated.
func Redact(s string) string {
	if secrets := registered.Load(); secrets != nil {
		for _, secret := range *secrets {
			if strings.Contains(s, secret) {
				s = strings.ReplaceAll(s, secret, redacted)
			}
		}
	}
	if !mayHoldSecret(s) {
		return s
	}
	// Cut first, so that the patterns never run over more than a few
	// kilobytes, whatever an upstream echoed into its error.
	truncated := false
	if len(s) > 4*maxRedactedLen {
		s, truncated = s[:cutAt(s, 4*maxRedactedLen)], true
	}
	if loc := stackStart().FindStringIndex(s); loc != nil {
		s = strings.TrimRight(s[:loc[0]], " \t\r\n") + " [stack trace removed]"
	}
	for _, p := range secretPatterns() {
		s = p.re.ReplaceAllString(s, p.repl)
	}
	if len(s) > maxRedactedLen || truncated {
		s = s[:cutAt(s, maxRedactedLen)] + "…[truncated]"
	}
	return s
}

// cutAt returns the largest rune boundary of s at or before n.
func cutAt(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return n
}

var (
	registeredMu sync.Mutex
	registered   atomic.Pointer[[]string]
)

// minRegisteredSecret is the shortest secret RegisterSecret takes: a shorter
// string would match innocent text.
const minRegisteredSecret = 8

// RegisterSecret makes Redact replace every occurrence of secret, whatever
// its shape: an API key a service holds (the provider packages register the
// keys their clients are built with), a database password. Secrets shorter
// than 8 bytes are ignored. It is safe to call concurrently with Redact.
func RegisterSecret(secret string) {
	secret = strings.TrimSpace(secret)
	if len(secret) < minRegisteredSecret {
		return
	}
	registeredMu.Lock()
	defer registeredMu.Unlock()
	var next []string
	if cur := registered.Load(); cur != nil {
		if slices.Contains(*cur, secret) {
			return
		}
		next = append(next, *cur...)
	}
	next = append(next, secret)
	registered.Store(&next)
}

// triggers are lower-case fragments that every pattern above needs; text
// with none of them is returned as it is, without running the patterns.
var triggers = newFragments("auth", "bearer", "key", "token", "secret",
	"passw", "sig", "cookie", "sk-", "aiza",
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_",
	"xox", "akia", "://", "goroutine", "traceback",
	".go:", "pwd", "basic", "eyj", "file \"")

// mayHoldSecret reports whether s could match a pattern of Redact: it is
// long enough to need truncating, or it holds a trigger (ASCII letters
// compared without case).
func mayHoldSecret[T ~string | ~[]byte](s T) bool {
	if len(s) > maxRedactedLen {
		return true
	}
	return holds(triggers, s) || stackFrameAt(s)
}

// stackFrameAt reports whether s has a line that begins with spaces or
// tabs and then "at " (a JavaScript or Java stack frame, which stackStart
// matches; "at" in either case): "at " alone is in half the sentences of
// English ("that ", "format "), and would send them all through the
// patterns.
func stackFrameAt[T ~string | ~[]byte](s T) bool {
	for j := 1; j+3 <= len(s); j++ {
		if s[j]|0x20 != 'a' || s[j+1]|0x20 != 't' || s[j+2] != ' ' || (s[j-1] != ' ' && s[j-1] != '\t') {
			continue
		}
		k := j
		for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t') {
			k--
		}
		if k == 0 || s[k-1] == '\n' || s[k-1] == '\r' {
			return true
		}
	}
	return false
}

// fragments finds any of a set of lower-case ASCII fragments in a text,
// ASCII letters compared without case, in one pass: at each byte only the
// fragments that begin with it are compared. It is what a strings.Contains
// of each fragment in the text's ASCII-lowered copy tells, without the
// copy and a scan per fragment.
type fragments struct {
	first [256][]string // the fragments by their first byte, in both cases
}

func newFragments(list ...string) *fragments {
	f := &fragments{}
	for _, s := range list {
		if s == "" || strings.ToLower(s) != s {
			panic("fault: fragment " + strconv.Quote(s) + " is empty or not lower-case")
		}
		c := s[0]
		f.first[c] = append(f.first[c], s)
		if 'a' <= c && c <= 'z' {
			f.first[c-'a'+'A'] = append(f.first[c-'a'+'A'], s)
		}
	}
	return f
}

// in reports whether s holds one of the fragments.
func (f *fragments) in(s string) bool { return holds(f, s) }

// holds is f.in for text as a string or as bytes.
func holds[T ~string | ~[]byte](f *fragments, s T) bool {
	for i := 0; i < len(s); i++ {
	next:
		for _, frag := range f.first[s[i]] {
			if len(s)-i < len(frag) {
				continue
			}
			for j := 1; j < len(frag); j++ {
				c := s[i+j]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				if c != frag[j] {
					continue next
				}
			}
			return true
		}
	}
	return false
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// sensitiveKeys are detail keys that never leave the process, whatever their
// value: credentials, raw traffic and stack traces.
var sensitiveKeys = newFragments(
	"authorization", "api_key", "apikey", "api-key", "x-api-key", "secret",
	"password", "passwd", "pwd", "cookie", "credential", "private_key", "stack", "traceback",
	"header", "request_body", "response_body", "raw_request", "raw_response")

// exactSensitiveKeys are keys that are sensitive when they are the whole
// name ("request" but not "request_id").
var exactSensitiveKeys = map[string]bool{"request": true, "response": true, "body": true, "raw": true,
	"auth": true, "key": true}

// sensitiveKey reports whether a member named k is dropped: its name
// denotes a secret, or holds one itself (a map keyed by URLs with
// credentials, by tokens).
func sensitiveKey(k string) bool {
	l := strings.ToLower(k)
	if exactSensitiveKeys[l] || strings.HasSuffix(l, "token") {
		return true // token, access_token, x-auth-token; not max_tokens
	}
	if sensitiveKeys.in(l) {
		return true
	}
	return Redact(k) != k
}

// SanitizeDetails returns a copy of details that is safe for any client and
// always encodable as JSON: members whose names denote credentials, headers,
// raw requests or responses, or stack traces are dropped, as are members
// whose names Redact would change (a name that holds a credential, or is
// longer than 1 KiB), and strings are redacted (see Redact), at every
// depth. Values of other types (structs, typed maps and slices, pointers)
// are normalized through encoding/json first, so their fields are checked
// by their JSON names too; a value JSON cannot encode (NaN, a channel, a
// function) is dropped, because an error path must not fail. It returns
// nil for no details.
func SanitizeDetails(details map[string]any) map[string]any {
	if len(details) == 0 {
		return nil
	}
	out := make(map[string]any, len(details))
	for k, v := range details {
		if sensitiveKey(k) {
			continue
		}
		if v, ok := sanitizeValue(v, 0); ok {
			out[k] = v
		}
	}
	return out
}

// SanitizeDecoded is SanitizeDetails for details the caller owns and no
// one else holds, as encoding/json decodes an object into a
// map[string]any: it gives the same result, but changes details and the
// maps and lists in it in place rather than copying them (a value of
// another type is copied, as SanitizeDetails does). It returns nil for no
// details.
func SanitizeDecoded(details map[string]any) map[string]any {
	if len(details) == 0 {
		return nil
	}
	return sanitizeMapInPlace(details, 0)
}

func sanitizeMapInPlace(m map[string]any, depth int) map[string]any {
	for k, v := range m {
		if sensitiveKey(k) {
			delete(m, k)
			continue
		}
		if v, ok := sanitizeInPlace(v, depth); ok {
			m[k] = v
		} else {
			delete(m, k)
		}
	}
	return m
}

// sanitizeInPlace is sanitizeValue, changing a map[string]any or []any in
// place.
func sanitizeInPlace(v any, depth int) (any, bool) {
	if depth > maxSanitizeDepth {
		return nil, false
	}
	switch x := v.(type) {
	case map[string]any:
		return sanitizeMapInPlace(x, depth+1), true
	case []any:
		if x == nil {
			return []any{}, true // as sanitizeValue makes it
		}
		out := x[:0]
		for _, e := range x {
			if e, ok := sanitizeInPlace(e, depth+1); ok {
				out = append(out, e)
			}
		}
		clear(x[len(out):])
		return out, true
	}
	return sanitizeValue(v, depth)
}

// maxSanitizeDepth bounds recursion through nested details.
const maxSanitizeDepth = 32

func sanitizeValue(v any, depth int) (any, bool) {
	if depth > maxSanitizeDepth {
		return nil, false
	}
	switch x := v.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, json.Number:
		return v, true
	case float64:
		return v, !math.IsNaN(x) && !math.IsInf(x, 0)
	case float32:
		return v, !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0)
	case string:
		if r := Redact(x); r != x {
			return r, true
		}
		return v, true // as it was: no new interface value to allocate
	case error:
		return Redact(x.Error()), true
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			if sensitiveKey(k) {
				continue
			}
			if e, ok := sanitizeValue(e, depth+1); ok {
				m[k] = e
			}
		}
		return m, true
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			if e, ok := sanitizeValue(e, depth+1); ok {
				out = append(out, e)
			}
		}
		return out, true
	case []string:
		out := make([]string, len(x))
		for i, s := range x {
			out[i] = Redact(s)
		}
		return out, true
	}
	// Anything else goes through JSON, as an encoder would see it.
	data, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var plain any
	if err := dec.Decode(&plain); err != nil {
		return nil, false
	}
	return sanitizeValue(plain, depth+1)
}
