// Package fault is Triage's taxonomy of agent failures: one error value,
// *Error, with a stable Code and the facets every consumer needs (HTTP
// status, Category, Domain, Retryable, RetryAfter, SessionValid), one code
// table from which every mapping derives, and classification of any Go error
// (From) or free text (ClassifyText) into it.
//
// # Invariants
//
// From never returns nil for a non-nil error, and never invents a retryable
// fault: an error nothing recognises is AGENT_EXECUTION_ERROR, not retryable,
// with a generic message. Nor does it panic: an error whose methods panic (a
// typed nil pointer, most often) is classified as unknown. Message and Details
// are safe for clients by contract, and every encoder redacts them anyway;
// Debug (the Go type, the cause text) is emitted only when an encoder is
// asked for debug output, and redacted even then (see Redact). No encoder
// ever emits Cause, and neither does Error: its text is "CODE: message",
// because error strings reach clients and models (an MCP SDK shows a tool
// handler's err.Error() to the model). The cause stays reachable through
// Unwrap (errors.Is, errors.As), Debug and LogValue, which operators' logs
// use.
//
// # The code table
//
// Codes returns the table: for each code its HTTP status, Category, Domain,
// default retryability and session validity, JSON-RPC code and RFC 9457
// problem type. docs/taxonomy.md is generated from it (go generate ./fault).
// Seed 000's ten codes keep their names, values and statuses exactly;
// the others cover what seed 002's bridge and providers raise.
//
// # Classification
//
// From tries, in order: an *Error anywhere in the chain; classifiers that
// provider packages add with Register; context.Canceled and
// context.DeadlineExceeded; network errors; HTTP status carriers; JSON and
// validation errors; and finally the AGENT_EXECUTION_ERROR fallback. Each
// result's Classification names the method and rule that matched and a
// confidence between 0 and 1. ClassifyText applies text rules to log lines
// and foreign messages, with lower confidence.
//
// # Retrying
//
// Retryable and RetryAfter are advice the resilience package follows: retry
// only what is retryable, never before RetryAfter. ParseRetryAfter reads
// Retry-After (seconds or HTTP-date) and Retry-After-Ms headers.
package fault
