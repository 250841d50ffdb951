// Package service is the pipeline every door of Triage calls: HTTP
// (POST /v1/errors), NATS JetStream, and the doors to come. A door hands
// Accept a tenant and a report's bytes; the service decodes, validates and
// redacts the report once, claims its delivery and counts its attempt in
// the tenant's store, runs the Error Handler engine (handler.Decide, which
// stores and sends nothing), and commits what the engine decided — the
// occurrence, its record, the jobs (retries for callbacks, escalations)
// and the delivery's feedback — in one transaction, then wakes the
// tenant's event streams. A door translates the Answer, or the
// *fault.Error of a refusal, into its own format.
//
// Request-scoped data travels as arguments: the tenant is a Submission's
// field, never a context value; a context carries only its deadline and
// its trace.
package service
