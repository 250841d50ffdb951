// Package handler is the Error Handler agent of seed 004: pipeline agents
// report their errors to it; it validates the report, classifies it into a
// canonical type, finds the root cause, decides a recovery with a
// declarative policy, runs safe automated actions, and answers with an
// actionable message and a next_action (resume, await_user, escalate).
//
// # The pipeline
//
// A Handler is a graph (package graph), so its own failures follow the
// graph's error contract:
//
//		ingress → validate → dedupe ─┬─ replay ───────────────────────────────────────┐
//		                             └─ classify → analyze → policy ─┬─ act ─────┬─ format → telemetry
//		                                                             └─ message ─┘
//
//	  - ingress decodes the report (seed 004's standard input; a Triage fault
//	    may ride in data.fault) and validate checks it: every problem at once,
//	    as an INVALID_REQUEST fault whose field errors name each member
//	    (DecodeReport, Report.Validate). An invalid report records nothing.
//	  - dedupe claims the delivery: the same error (Fingerprint: a versioned
//	    hash over the agent, type, codes, query and normalized message) at the
//	    same timestamp is a duplicate, answered with the feedback given before
//	    (replay) and no action run again. The error_id is the same for every
//	    occurrence of an error.
//	  - classify settles the canonical type: the reported one, else the error
//	    code, the fault, the message rules, and last a small naive Bayes
//	    model (DefaultModel), each with its confidence.
//	  - analyze counts the attempt (per query and error code) and the recent
//	    failures of the agent, and finds the root cause with its evidence:
//	    scope, schema drift, missing field, outage, persistent, transient…
//	  - policy decides: the first rule of the policy.Policy (YAML,
//	    conditions in CEL; policy.Default is seed 004's scenario table) whose condition
//	    holds picks the actions, the next action, the severity and the
//	    message.
//	  - act runs the actions (clarify, map_synonym, suggest_chart, use_cache,
//	    reduce_scope, retry, escalate, and any given in Config.Actions) while
//	    message writes the user message; a failing action is recorded, never
//	    fatal.
//	  - format assembles the Feedback (seed 004's object, with the root
//	    cause, the attempt and the fault's facets) and stores it for
//	    duplicates; telemetry counts it (Prometheus), logs it (slog) and
//	    every node runs in an OpenTelemetry span carrying error_id and
//	    query_id.
//
// State lives behind the small interfaces of package triage (State,
// Synonyms, Cache, Scheduler, Notifier), with in-memory implementations in
// package memory; the service keeps them durably (package store).
package handler
