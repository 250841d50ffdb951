// Package handler is the Error Handler agent of seed 004: pipeline agents
// report their errors to it; it validates the report, classifies it into a
// canonical type, finds the root cause, decides a recovery with a
// declarative policy, runs safe automated actions, and answers with an
// actionable message and a next_action (resume, await_user, escalate).
//
// # The pipeline
//
// Decide is the engine: a valid report and what the caller's store knows
// of it (its delivery started: a first one with its attempt and recent
// failures, or a repeat) in, a Result out — the feedback and the jobs the
// actions ask for (a retry for an agent with a callback URL, an
// escalation). It stores nothing and sends nothing; it reads only through
// the Input's read-only interfaces (Synonyms, Cache, Callbacks). Its steps
// are plain functions run in order, each in an OpenTelemetry span carrying
// error_id and query_id:
//
//		(a repeat) replay
//		(a first delivery) classify → analyze → policy → act → message → format
//
//	  - replay answers a repeat with the feedback given before, duplicate
//	    set, no action run again; SESSION_BUSY while the first is in flight.
//	  - classify settles the canonical type: the reported one, else the error
//	    code, the fault, the message rules, and last a small naive Bayes
//	    model (classify.DefaultModel), each with its confidence: one
//	    classify.Chain, whose agent codes are the policy's (policy.Codes).
//	  - analyze finds the root cause with its evidence: scope, schema drift,
//	    missing field, outage, persistent (the recent failures the start
//	    counted), transient…
//	  - policy decides: the first rule of the policy.Policy (YAML, conditions
//	    in CEL; policy.Default is seed 004's scenario table) whose condition
//	    holds picks the actions, the next action, the severity and the
//	    message.
//	  - act runs the actions (clarify, map_synonym, suggest_chart, use_cache,
//	    reduce_scope, retry, escalate, and any given in Config.Actions); a
//	    failing action is recorded, never fatal.
//	  - message writes the user message and format assembles the Feedback
//	    (seed 004's object, with the root cause, the attempt, the retry plan
//	    and the fault's facets); the report is counted (Prometheus) and
//	    logged (slog).
//
// Prepare says what to start before Decide: the report's error_id
// (Fingerprint: a versioned hash over the agent, type, codes, query and
// normalized message; the same for every occurrence of an error), its
// delivery key (the same error at the same timestamp is one delivery) and
// the State.Start request that claims the delivery and counts the attempt
// (per query and error code).
//
// The service (package service) runs Decide around its durable store, and
// commits the Result in one transaction. Handle and HandleReport run it in
// the process: they decode and validate the report (every problem at once,
// as an INVALID_REQUEST fault), start and complete the delivery in
// Config's State (package memory by default), and tell Config's Notifier
// the escalations.
package handler
