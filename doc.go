// Package triage is Triage's domain vocabulary: the nouns every other
// package shares, in the manner of benbjohnson/wtf's root package.
//
//   - Report is what a pipeline agent sends when it fails (seed 004's
//     standard input), with DecodeReport and Report.Validate, which check
//     every member and report every problem at once as an INVALID_REQUEST
//     fault. IsIdentifier is the rule of agent ids, query ids and codes.
//   - Feedback is the Error Handler's answer: the ErrorType it settled on
//     (with its confidence; package classify settles it), the Severity, the RootCause and its
//     evidence, the Outcome of each automated action, the user message and
//     the NextAction (resume, await_user, escalate).
//   - Fingerprint groups the occurrences of one error; ErrorID names the
//     group and DeliveryKey one delivery of a report, so that a duplicate
//     is answered once.
//   - State (Attempts, History and Deliveries, claimed, counted and
//     recorded at once by Start), Synonyms, Cache, Scheduler and Notifier
//     are the small interfaces the engine (package handler) keeps its state
//     behind. Package memory implements them in the process; package store
//     durably, on SQLite or PostgreSQL.
//
// The root imports only the standard library and package fault: a client,
// a store or a tool that speaks Triage's types pulls in nothing of the
// engine (its CEL policies, its metrics or its tracing).
package triage
