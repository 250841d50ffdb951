// Package problem writes faults as RFC 9457 problem details
// (application/problem+json) and reads them back.
//
// A server writes any error with Write, or returns it from a HandlerFunc:
//
//	http.Handle("/v1/runs/{id}", problem.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
//		run, err := runs.Get(r.Context(), r.PathValue("id"))
//		if err != nil {
//			return err // classified by fault.From and written as a problem
//		}
//		return json.NewEncoder(w).Encode(run)
//	}))
//
// A client reads one with ReadResponse (or Parse) and turns it back into a
// fault:
//
//	p, err := problem.ReadResponse(resp)
//	if err != nil {
//		return fault.FromResponse(resp) // not a problem document
//	}
//	return p.Fault()
//
// # The document
//
// The members RFC 9457 defines come from the fault's code and its Payload:
// type is the code's type URI ("/errors/rate-limited", resolved against
// Options.BaseURI when one is set), title the code's title, status the
// fault's HTTP status, detail the fault's Message, instance the request's
// path (credentials in it redacted by fault.Redact). Triage adds the
// extension members code, category, domain, retryable, retry_after (whole
// seconds, rounded up, only when there is a delay), session_valid, details
// (sanitized by fault.SanitizeDetails), errors (the fault's FieldErrors, as
// [{"field", "message"}]) and, only when Options.Debug is set, debug (the
// fault's Debug, redacted by fault.Redact). Nothing else of the fault is
// written; its Cause never is.
//
// From returns nil for a nil error. Write, given a nil error, writes an
// INTERNAL_ERROR: writing a failure for no error is a programming mistake.
//
// # Invariants
//
// The status a response is written with always equals its status member,
// and a response whose problem has a retry_after carries the same number of
// seconds in its Retry-After header. Without Options.Debug, no text of a
// fault reaches the client but its Message, its field errors and its
// sanitized details.
//
// # Reading
//
// Parse fails only for a document that is not a JSON object. As RFC 9457
// §3.1 asks, a member whose value has the wrong type is ignored, a missing
// type is "about:blank", and members this package does not know are kept in
// Extensions and written again unchanged. A retry_after is capped at
// fault.MaxRetryAfter.
//
// A peer's text is never trusted to be safe for end users: (*Problem).Fault
// takes detail as the fault's Message only when the document's code is one
// the code table knows, and otherwise keeps the code's default message and
// puts the peer's text, redacted, in Debug.Cause.
package problem
