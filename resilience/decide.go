package resilience

import "github.com/triage-go/triage/fault"

// Classification rules of the faults a Policy raises itself, when it rejects
// a call before sending it.
const (
	RuleCircuitOpen  = "circuit_open"
	RuleBulkheadFull = "bulkhead_full"
)

// ShouldRetry reports whether a call that failed with f may be repeated.
//
// Only a retryable fault is retried. An idempotent operation is retried on
// any retryable fault. A non-idempotent one (creating a session, sending a
// prompt) is retried only when the fault proves the request was not
// processed, so that repeating it cannot do the work twice:
//
//   - the connection was refused, so nothing was sent;
//   - the upstream rate-limited it (RATE_LIMITED: a 429 is answered before
//     the work starts);
//   - the upstream was unavailable and said when to come back
//     (SERVICE_UNAVAILABLE with a RetryAfter: a 503 with Retry-After);
//   - this process rejected it before sending it (an open circuit breaker,
//     a full bulkhead).
//
// A timeout, a reset connection or a 5xx is not proof: the upstream may
// have done the work before failing, so a non-idempotent call is not
// retried on them.
func ShouldRetry(f *fault.Error, idempotent bool) bool {
	if f == nil || !f.Retryable {
		return false
	}
	return idempotent || NotProcessed(f)
}

// NotProcessed reports whether f proves that the request it answers was
// never processed (see ShouldRetry).
func NotProcessed(f *fault.Error) bool {
	switch rule := f.Classification.Rule; {
	case rule == fault.RuleConnectionRefused, rule == RuleCircuitOpen, rule == RuleBulkheadFull:
		return true
	case f.Code == fault.RateLimited, f.Code == fault.SessionBusy:
		return true // refused before the work: too many, or the session is busy with another
	case f.Code == fault.ServiceUnavailable && f.RetryAfter > 0:
		return true
	}
	return false
}

// unhealthy reports whether f counts against its source's circuit breaker:
// failures that say the source is down or failing, not that the request
// was wrong or too frequent.
func unhealthy(f *fault.Error) bool {
	switch f.Code {
	case fault.TransportError, fault.Timeout, fault.ServiceUnavailable:
		return f.Classification.Rule != RuleCircuitOpen && f.Classification.Rule != RuleBulkheadFull
	case fault.UpstreamError:
		return f.Retryable
	}
	return false
}
