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
// The service also runs the jobs (Work: River, through the store): each
// retry is posted to its agent's callback, through a client that refuses
// private addresses unless Jobs.PrivateCallbacks (RefusesCallback checks
// a URL's host before it is registered), and each escalation to the
// operators' webhook, both through package webhook, which triage handle
// posts its escalations with too. And it keeps the AG-UI run records: a
// door tells it that a run started (StartRun) and how it ended
// (FinishRun), in the door's own terms of its stream.
//
// Request-scoped data travels as arguments: the tenant is a Submission's
// field, never a context value; a context carries only its deadline and
// its trace.
package service
