package fault

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// textRule classifies free text that matches its pattern.
type textRule struct {
	name       string
	pattern    string
	re         *regexp.Regexp // pattern compiled, by textRules
	code       Code
	confidence float64
	// apply, when set, adjusts the fault from the match's submatches.
	apply func(f *Error, m []string)
	// filter rules the rule out cheaply before its expression runs.
	filter prefilter
}

// textRules returns the text rules with their expressions compiled and
// their prefilters built. They are compiled on first use, not at package
// init: every program that imports fault (the triage command's `version`
// among them) would otherwise pay for ~30 expressions it may never run.
var textRules = sync.OnceValue(func() []textRule {
	rules := make([]textRule, len(textRuleSpecs))
	for i, r := range textRuleSpecs {
		r.re = regexp.MustCompile(r.pattern)
		r.filter = newPrefilter(r.re)
		rules[i] = r
	}
	return rules
})

// Text rules, most specific first; the first that matches wins. They are
// meant for log lines and messages from foreign stacks (Python, Node, other
// services); Go errors are classified by type with From.
var textRuleSpecs = []textRule{
	{name: "quota_exhausted", code: QuotaExhausted, confidence: 0.8,
		pattern: `(?i)insufficient_quota|exceeded your current quota|credit balance is (?:too )?low|billing (?:hard )?limit|\b402 Payment Required|out of credits`},
	{name: "content_refused", code: ContentRefused, confidence: 0.7,
		pattern: `(?i)content[_ ]filter|content (?:management )?policy|blocked (?:due to|by) safety|safety (?:settings|filter|system)|finish_?reason\W+(?:SAFETY|RECITATION|PROHIBITED_CONTENT)|(?-i:\bPROHIBITED_CONTENT\b)|model (?:refused|declined)`},
	{name: "context_length", code: PayloadTooLarge, confidence: 0.75,
		pattern: `(?i)context_length_exceeded|maximum context length|prompt is too long|too many tokens|request entity too large|payload too large|content too large|exceeds (?:the )?maximum (?:size|length|allowed)|request body too large`},
	{name: "provider_auth", code: ProviderAuthFailed, confidence: 0.75,
		pattern: `(?i)invalid[ _-]?api[ _-]?key|incorrect api key|invalid x-api-key|api key not valid|authentication_error|(?-i:\bUNAUTHENTICATED\b)|invalid (?:auth(?:entication)?|bearer) token|permission_error|(?-i:\bPERMISSION_DENIED\b)`},
	{name: "tenant_required", code: TenantRequired, confidence: 0.7,
		pattern: `(?i)tenant[_ ]?id (?:is )?(?:required|missing)|missing tenant|tenant required|no tenant`},
	{name: "tenant_unauthorized", code: TenantUnauthorized, confidence: 0.7,
		pattern: `(?i)(?:invalid|unknown|unauthori[sz]ed|forbidden) tenant|tenant (?:is )?(?:not authori[sz]ed|unauthori[sz]ed|forbidden|invalid)`},
	// A resource limit (seed 000's session and message limits, seed 002's
	// "Session capacity reached") is RATE_LIMITED, as seed 000 maps it, but
	// not retryable, as seed 002 lists it: waiting does not free a session.
	{name: "resource_limit", code: RateLimited, confidence: 0.7,
		pattern: `(?i)capacity reached|(?:session|message|concurrency) limit (?:reached|exceeded)|too many (?:open )?sessions|maximum number of sessions`,
		apply:   func(f *Error, _ []string) { f.Retryable = false }},
	{name: "rate_limited", code: RateLimited, confidence: 0.75,
		pattern: `(?i)too many requests|rate[ _-]?limit|(?-i:\bRESOURCE_EXHAUSTED\b)|throttl|quota exceeded|request limit exceeded`},
	{name: "overloaded", code: ServiceUnavailable, confidence: 0.7,
		pattern: `(?i)overloaded|service unavailable|temporarily unavailable|(?-i:\bUNAVAILABLE\b)|server is busy|backpressure|at capacity`},
	{name: "context_canceled", code: Cancelled, confidence: 0.85,
		pattern: `(?i)context canceled|operation was canceled|request canceled|(?-i:\bCANCELLED\b)|AbortError|CancelledError`},
	{name: "deadline_exceeded", code: Timeout, confidence: 0.85,
		pattern: `(?i)deadline exceeded|(?-i:\bDEADLINE_EXCEEDED\b)|Client\.Timeout exceeded|gateway time-?out|TimeoutError|ReadTimeout|APITimeoutError`},
	{name: "io_timeout", code: Timeout, confidence: 0.85,
		pattern: `(?i)i/o timeout|\bETIMEDOUT\b|ConnectTimeout|connection timed out`,
		apply:   func(f *Error, _ []string) { f.Category = CategoryTransport }},
	{name: RuleConnectionRefused, code: TransportError, confidence: 0.85,
		pattern: `(?i)connection refused|\bECONNREFUSED\b|actively refused`},
	{name: "dns", code: TransportError, confidence: 0.85,
		pattern: `(?i)no such host|\bENOTFOUND\b|\bEAI_AGAIN\b|getaddrinfo|name or service not known|temporary failure in name resolution|server misbehaving|NXDOMAIN|could not resolve host`},
	{name: "connection_lost", code: TransportError, confidence: 0.75,
		pattern: `(?i)connection reset|\bECONNRESET\b|broken pipe|\bEPIPE\b|unexpected EOF|network is unreachable|no route to host|\bE(?:HOST|NET)UNREACH\b|connection aborted|socket hang up|closed network connection|server closed idle connection|connection closed|tls handshake|APIConnectionError|fetch failed`},
	{name: "timeout", code: Timeout, confidence: 0.65,
		pattern: `(?i)timed out|\btime-?out\b|request timeout`},
	{name: "session_not_found", code: SessionNotFound, confidence: 0.75,
		pattern: "(?i)session(?:[ _]id)?\\s+[\"'`]?([\\w.:-]+?)[\"'`]?\\s+(?:was )?(?:not found|does not exist|doesn't exist|has expired|expired|is unknown)|session not found(?::\\s*[\"'`]?([\\w.:-]+))?|unknown session|no such session|invalid session|SESSION_NOT_FOUND",
		apply: func(f *Error, m []string) {
			for _, id := range m[1:] {
				switch strings.ToLower(id) {
				case "", "is", "has", "was", "not", "id", "has been":
					continue
				}
				f.Details = map[string]any{"session_id": id}
				return
			}
		}},
	{name: "session_busy", code: SessionBusy, confidence: 0.65,
		pattern: `(?i)session (?:is )?busy|prompt (?:is )?already (?:running|in progress)|already processing|concurrent prompt`},
	{name: "capability_not_found", code: CapabilityNotFound, confidence: 0.7,
		pattern: "(?i)\\b(agent|capability|tool|model|function|method)\\s+[\"'`]?([\\w./:@-]+?)?[\"'`]?\\s*(?:was )?(?:not found|does not exist|is not available|is unavailable|not available)|unknown (?:tool|agent|capability|model|method)|model_not_found|method not found|no agent (?:named|registered for)",
		apply: func(f *Error, m []string) {
			if len(m) > 2 && m[2] != "" {
				f.Details = map[string]any{"kind": strings.ToLower(m[1]), "name": m[2]}
			}
		}},
	{name: "config", code: ConfigError, confidence: 0.7,
		pattern: `(?i)missing required credential|missing api key|api key (?:is )?(?:not set|missing|required)|(?:environment variable|env var) \S+ (?:is )?(?:not set|missing|required)|not configured|no agents registered|is not registered|invalid configuration|configuration error|misconfigur`},
	{name: "invalid_request", code: InvalidRequest, confidence: 0.65,
		pattern: `(?i)invalid_request_error|(?-i:\bINVALID_ARGUMENT\b)|bad request|invalid (?:json|input|argument|parameter|params|request|value)|validation (?:error|failed)|ValidationError|json: cannot unmarshal|invalid character .+ looking for|unexpected end of JSON input|malformed (?:request|json|input)|missing required (?:field|parameter|property)|is a required property|ZodError|unprocessable`},
	{name: "protocol", code: ProtocolError, confidence: 0.65,
		pattern: `(?i)invalid (?:worker )?response|malformed (?:response|result|prompt result)|protocol (?:error|violation)|unexpected (?:response|message) (?:format|type)`},
	{name: "executor_internal", code: InternalError, confidence: 0.6,
		pattern: `(?i)executor not started|not started|not initiali[sz]ed|invariant violat|internal error`},
	{name: "agent_crash", code: AgentExecutionError, confidence: 0.6,
		pattern: `(?i)panic:|nil pointer dereference|index out of range|segmentation fault|Traceback \(most recent call last\)|TypeError|AttributeError|KeyError|ReferenceError|NullPointerException|unhandled exception|uncaught exception`},
	{name: "upstream_failure", code: UpstreamError, confidence: 0.65,
		pattern: `(?i)bad gateway|internal server error|upstream (?:error|failure|connect error)`,
		apply:   func(f *Error, _ []string) { f.Retryable = true }},
}

// statusInText finds an HTTP status named as such: after "status", "HTTP",
// "code", or before its reason phrase.
// The reason phrases are net/http's, so "404 Documents" is not a status.
var statusInText = sync.OnceValue(func() *regexp.Regexp {
	phrases := []string{"Gateway Time-out", "Request Time-out", "Overloaded", "Site is overloaded"}
	for code := 400; code < 600; code++ {
		if t := http.StatusText(code); t != "" {
			phrases = append(phrases, regexp.QuoteMeta(t))
		}
	}
	return regexp.MustCompile(`(?i)(?:\b(?:status(?:[ _]?code)?|http(?:/[\d.]+)?|error[ _]code|code)\s*[:=]?\s*([45]\d\d)\b)|` +
		`(?:\b([45]\d\d)\s+(?:` + strings.Join(phrases, "|") + `)\b)`)
})

// retryAfterInText finds a delay a message asks for: "retry after 30",
// "Retry-After: 30", "try again in 20s", "retryDelay": "17s".
var retryAfterInText = lazyRegexp(`(?i)(?:retry[- ]after|try again in|retry in|retryDelay"?)\W{0,4}(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)?\b`)

// retryAtInText finds a Retry-After header quoted with an HTTP-date.
var retryAtInText = lazyRegexp(`(?i)retry-after:?\s*((?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT)`)

// ClassifyText classifies free text: a log line, an error message from
// another language's stack, an upstream's error body. It recognises Go's
// own error texts ("context deadline exceeded", "connection refused", "no
// such host"), HTTP status lines ("429 Too Many Requests"), provider
// messages ("invalid api key", "rate limit exceeded", "overloaded_error")
// and more; docs/classification.md lists every rule.
//
// Confidence is lower than typed classification (at most 0.85, often
// 0.65); text no rule recognises is AGENT_EXECUTION_ERROR with confidence
// 0.1. Message is the code's safe default; the text itself goes only to
// Debug.Cause. A delay the text asks for ("retry after 30 seconds") becomes
// RetryAfter.
func ClassifyText(text string) *Error {
	s := strings.TrimSpace(text)
	if len(s) > maxClassifiedText {
		s = s[:maxClassifiedText]
	}
	f := classifyText(s)
	f.Debug.Cause = bound(text)
	if f.Retryable || f.Code == RateLimited || f.Code == ServiceUnavailable {
		if d, ok := retryAfterFromText(s); ok {
			f.RetryAfter = d
		}
	}
	return f
}

// maxClassifiedText bounds the work one classification does.
const maxClassifiedText = 64 << 10

func classifyText(s string) *Error {
	// The prefilters compare lower-cased ASCII; (?i) also folds a few
	// non-ASCII letters onto ASCII ones (ſ onto s, K onto k), so text that
	// is not all ASCII runs every rule.
	lower, filter := strings.ToLower(s), isASCII(s)
	rules := textRules()
	for i := range rules {
		r := &rules[i]
		if filter && !r.filter.mayMatch(lower) {
			continue
		}
		m := r.re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		// An explicit HTTP status is better evidence than a generic word,
		// unless a specific rule (quota, content, auth, …) matched first.
		if r.confidence < 0.75 {
			if f := statusFromText(s); f != nil {
				return f
			}
		}
		f := fromSpec(r.code.spec(), Classification{Method: MethodText, Rule: r.name, Confidence: r.confidence})
		if r.apply != nil {
			r.apply(f, m)
		}
		return f
	}
	if f := statusFromText(s); f != nil {
		return f
	}
	return fromSpec(AgentExecutionError.spec(), Classification{Method: MethodText, Rule: "unknown", Confidence: 0.1})
}

func statusFromText(s string) *Error {
	if !hasStatusLike(s) {
		return nil
	}
	m := statusInText().FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	v := m[1]
	if v == "" {
		v = m[2]
	}
	status, err := strconv.Atoi(v)
	if err != nil {
		return nil
	}
	f := FromStatus(status, nil, time.Time{})
	f.Classification = Classification{Method: MethodText, Rule: "http_status_" + v, Confidence: 0.7}
	return f
}

func retryAfterFromText(s string) (time.Duration, bool) {
	if m := retryAtInText().FindStringSubmatch(s); m != nil {
		if d, ok := parseRetryAfterValue(m[1], time.Now()); ok && d > 0 {
			return d, true
		}
	}
	m := retryAfterInText().FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil || n < 0 {
		return 0, false
	}
	unit := time.Second
	switch u := strings.ToLower(m[2]); {
	case strings.HasPrefix(u, "ms"), strings.HasPrefix(u, "milli"):
		unit = time.Millisecond
	case u == "m", strings.HasPrefix(u, "min"):
		unit = time.Minute
	}
	d := time.Duration(n * float64(unit))
	if d > maxRetryAfter {
		d = maxRetryAfter
	}
	return d, d > 0
}

// TextRule describes one rule of ClassifyText, for documentation and for
// tools that explain a classification.
type TextRule struct {
	Name       string  // the Classification.Rule it produces
	Code       Code    // the code it assigns
	Confidence float64 // its confidence
	Pattern    string  // the regular expression it matches (RE2 syntax)
}

// TextRules lists ClassifyText's rules in the order they are tried; the
// first that matches wins. When a rule whose confidence is below 0.75
// matches, an explicit HTTP status in the text ("status 503", "HTTP/1.1
// 429", "404 Not Found") is preferred to it.
func TextRules() []TextRule {
	out := make([]TextRule, len(textRuleSpecs))
	for i, r := range textRuleSpecs {
		out[i] = TextRule{Name: r.name, Code: r.code, Confidence: r.confidence, Pattern: r.pattern}
	}
	return out
}

// lazyRegexp returns a function that compiles pattern on its first call
// and returns the same expression after: a package-level expression that
// costs nothing at init.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
