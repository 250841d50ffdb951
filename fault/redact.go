package fault

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"slices"
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
var triggers = [][]byte{
	[]byte("auth"), []byte("bearer"), []byte("key"), []byte("token"), []byte("secret"),
	[]byte("passw"), []byte("sig"), []byte("cookie"), []byte("sk-"), []byte("aiza"),
	[]byte("ghp_"), []byte("gho_"), []byte("ghu_"), []byte("ghs_"), []byte("ghr_"),
	[]byte("xox"), []byte("akia"), []byte("://"), []byte("goroutine"), []byte("traceback"),
	[]byte(".go:"), []byte("pwd"), []byte("basic"), []byte("eyj"), []byte("file \""),
}

// mayHoldSecret reports whether s could match a pattern of Redact: it is
// long enough to need truncating, or it holds a trigger.
func mayHoldSecret(s string) bool {
	if len(s) > maxRedactedLen {
		return true
	}
	var buf [maxRedactedLen]byte
	b := buf[:len(s)]
	for i := range len(s) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	for _, t := range triggers {
		if bytes.Contains(b, t) {
			return true
		}
	}
	return stackFrameAt(b)
}

// stackFrameAt reports whether b has a line that begins with spaces or
// tabs and then "at " (a JavaScript or Java stack frame, which stackStart
// matches): "at " alone is in half the sentences of English ("that ",
// "format "), and would send them all through the patterns.
func stackFrameAt(b []byte) bool {
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte("at "))
		if j < 0 {
			return false
		}
		j += i
		k := j
		for k > 0 && (b[k-1] == ' ' || b[k-1] == '\t') {
			k--
		}
		if k < j && (k == 0 || b[k-1] == '\n' || b[k-1] == '\r') {
			return true
		}
		i = j + 1
	}
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// sensitiveKeys are detail keys that never leave the process, whatever their
// value: credentials, raw traffic and stack traces.
var sensitiveKeys = []string{
	"authorization", "api_key", "apikey", "api-key", "x-api-key", "secret",
	"password", "passwd", "pwd", "cookie", "credential", "private_key", "stack", "traceback",
	"header", "request_body", "response_body", "raw_request", "raw_response",
}

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
	for _, s := range sensitiveKeys {
		if strings.Contains(l, s) {
			return true
		}
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
		return Redact(x), true
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
