package gemini

import (
	"strings"
	"time"

	"github.com/triage-go/triage/fault"
)

// details is what Triage reads from the google.rpc error details of an
// APIError (https://cloud.google.com/apis/design/errors#error_details).
type details struct {
	// RetryInfo.retryDelay, which the SDK itself ignores.
	retryDelay    time.Duration
	hasRetryDelay bool

	// ErrorInfo.reason: API_KEY_INVALID, …
	reason string

	// QuotaFailure (or ErrorInfo metadata): the first violated quota's id
	// and metric, and whether any violated quota cannot recover within a
	// retry budget (a per-day quota, or a quota of 0).
	quotaID     string
	quotaMetric string
	exhausted   bool
}

// maxDetails bounds how many details and violations are read: an answer is
// not trusted to be small.
const maxDetails = 32

// parseDetails reads the details it knows and ignores the rest, whatever
// their shape.
func parseDetails(ds []map[string]any) details {
	var d details
	for i, m := range ds {
		if i == maxDetails {
			break
		}
		typ, _ := m["@type"].(string)
		switch {
		case strings.HasSuffix(typ, "google.rpc.RetryInfo"):
			if s, ok := m["retryDelay"].(string); ok {
				d.retryDelay, d.hasRetryDelay = parseRetryDelay(s)
			}
		case strings.HasSuffix(typ, "google.rpc.ErrorInfo"):
			if s, ok := m["reason"].(string); ok && d.reason == "" {
				d.reason = s
			}
			// Older and Vertex AI answers name the quota in the ErrorInfo's
			// metadata instead of a QuotaFailure.
			md, _ := m["metadata"].(map[string]any)
			limit, _ := md["quota_limit"].(string)
			value, _ := md["quota_limit_value"].(string)
			if strings.Contains(limit, "PerDay") || strings.TrimSpace(value) == "0" {
				d.exhausted = true
			}
			if d.quotaID == "" && limit != "" {
				d.quotaID = limit
				d.quotaMetric, _ = md["quota_metric"].(string)
			}
		case strings.HasSuffix(typ, "google.rpc.QuotaFailure"):
			vs, _ := m["violations"].([]any)
			for j, v := range vs {
				if j == maxDetails {
					break
				}
				q, _ := v.(map[string]any)
				id, _ := q["quotaId"].(string)
				metric, _ := q["quotaMetric"].(string)
				value, _ := q["quotaValue"].(string)
				if d.quotaID == "" {
					d.quotaID, d.quotaMetric = id, metric
				}
				if strings.Contains(id, "PerDay") || strings.TrimSpace(value) == "0" {
					d.exhausted = true
				}
			}
		}
	}
	return d
}

// parseRetryDelay parses a google.protobuf.Duration in its JSON form, as
// RetryInfo.retryDelay carries it: seconds with up to nine fractional
// digits and an "s" suffix ("17s", "0.5s", "17.372986s"). A negative or
// malformed value is no delay; a delay beyond fault.MaxRetryAfter is capped
// there. The form is checked here (time.ParseDuration would also take "1m",
// "+1s" or ".5s"); time.ParseDuration does the arithmetic.
func parseRetryDelay(s string) (time.Duration, bool) {
	s, ok := strings.CutSuffix(strings.TrimSpace(s), "s")
	whole, frac, dot := strings.Cut(s, ".")
	if !ok || !digits(whole) || dot && (len(frac) > 9 || !digits(frac)) {
		return 0, false
	}
	if len(strings.TrimLeft(whole, "0")) > len("86400") {
		return fault.MaxRetryAfter, true // more seconds than ParseDuration may hold
	}
	d, err := time.ParseDuration(s + "s")
	if err != nil {
		return 0, false
	}
	return min(d, fault.MaxRetryAfter), true
}

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
