package fault

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxRetryAfter bounds every delay parsed from a peer (headers, text,
// documents): a broken or hostile server must not park a client for years.
const MaxRetryAfter = 24 * time.Hour

const maxRetryAfter = MaxRetryAfter

// ParseRetryAfter reads the delay a response asks for from its headers, in
// this order: Retry-After-Ms (milliseconds, as OpenAI and Anthropic send it),
// then Retry-After as delay-seconds or as an HTTP-date (RFC 9110 §10.2.3),
// measured from now. It reports false when no header gives a usable delay. A
// date in the past is a zero delay, reported true; delays are capped at 24
// hours.
func ParseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && ms >= 0 && !math.IsInf(ms, 0) {
			if ms >= float64(maxRetryAfter/time.Millisecond) {
				return maxRetryAfter, true
			}
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	return parseRetryAfterValue(h.Get("Retry-After"), now)
}

// parseRetryAfterValue parses one Retry-After value: delay-seconds (a
// non-negative integer) or an HTTP-date, measured from now.
func parseRetryAfterValue(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		n, err := strconv.ParseInt(v, 10, 64)
		if errors.Is(err, strconv.ErrRange) && strings.Trim(v, "0123456789") == "" {
			return maxRetryAfter, true // more digits than an int64 holds: capped
		}
		if err != nil || n < 0 {
			return 0, false
		}
		if n > int64(maxRetryAfter/time.Second) {
			return maxRetryAfter, true
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	switch {
	case d < 0:
		return 0, true
	case d > maxRetryAfter:
		return maxRetryAfter, true
	}
	return d, true
}

// RetryDelay reads the delay a response asks for from every header that can
// carry one, in this order: Retry-After-Ms and Retry-After (see
// ParseRetryAfter); then the IETF RateLimit header fields draft, both its
// current structured form (RateLimit: "default";r=0;t=30, the delay being
// the t of an exhausted quota, r=0) and its earlier forms (RateLimit:
// limit=100, remaining=0, reset=30, and RateLimit-Remaining: 0 with
// RateLimit-Reset: 30); and finally the common X-RateLimit-Remaining: 0 with
// X-RateLimit-Reset as seconds or as a Unix time. A quota that is not
// exhausted asks for no delay. Delays are capped at MaxRetryAfter.
func RetryDelay(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if d, ok := ParseRetryAfter(h, now); ok {
		return d, true
	}
	for _, v := range h.Values("RateLimit") {
		if d, ok := parseRateLimitField(v); ok {
			return capDelay(d), true
		}
	}
	if isZero(h.Get("RateLimit-Remaining")) {
		if d, ok := parseRetryAfterValue(h.Get("RateLimit-Reset"), now); ok {
			return d, true
		}
	}
	if isZero(h.Get("X-RateLimit-Remaining")) {
		if n, err := strconv.ParseInt(strings.TrimSpace(h.Get("X-RateLimit-Reset")), 10, 64); err == nil && n >= 0 {
			if n > 1_000_000_000 { // a Unix time, as GitHub sends it
				return capDelay(max(0, time.Unix(n, 0).Sub(now))), true
			}
			return capDelay(time.Duration(n) * time.Second), true
		}
	}
	return 0, false
}

func isZero(v string) bool { return strings.TrimSpace(v) == "0" }

func capDelay(d time.Duration) time.Duration { return min(max(d, 0), maxRetryAfter) }

// parseRateLimitField reads one RateLimit field value: the current draft's
// structured list ("default";r=0;t=30, "burst";r=5;t=1) or the earlier
// dictionary (limit=100, remaining=0, reset=30). It returns the longest
// reset among exhausted quotas.
func parseRateLimitField(v string) (time.Duration, bool) {
	var (
		found bool
		delay time.Duration
	)
	// The earlier form is one dictionary; the current one a list of items
	// whose parameters follow semicolons. Both split the same way: items by
	// commas (current) or one item of comma-separated members (earlier).
	if strings.Contains(v, "remaining=") || strings.Contains(v, "reset=") {
		params := map[string]string{}
		for member := range strings.SplitSeq(v, ",") {
			k, val, _ := strings.Cut(strings.TrimSpace(member), "=")
			params[strings.ToLower(k)] = strings.TrimSpace(val)
		}
		if params["remaining"] == "0" {
			if n, err := strconv.ParseInt(params["reset"], 10, 64); err == nil && n >= 0 {
				return time.Duration(min(n, int64(maxRetryAfter/time.Second))) * time.Second, true
			}
		}
		return 0, false
	}
	for item := range strings.SplitSeq(v, ",") {
		var r, t string
		for i, p := range strings.Split(item, ";") {
			if i == 0 {
				continue // the quota's name
			}
			k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
			switch k {
			case "r":
				r = val
			case "t":
				t = val
			}
		}
		if r != "0" {
			continue
		}
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil || n < 0 {
			continue
		}
		found = true
		delay = max(delay, time.Duration(min(n, int64(maxRetryAfter/time.Second)))*time.Second)
	}
	return delay, found
}
