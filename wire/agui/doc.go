// Package agui speaks AG-UI 1.0, the protocol between agent backends and
// their user interfaces, as the official @ag-ui/core 1.0.0 package defines
// it: the request that starts a run (RunAgentInput, read and checked by
// ParseRunAgentInput), and the events of a run: its lifecycle
// (RUN_STARTED, RUN_FINISHED, RUN_ERROR), streamed text messages, tool
// calls and their results, steps, state snapshots and deltas, message
// snapshots and custom events, with the exact member names of the schemas;
// their encoding as Server-Sent Events (on package sse); Parse, which
// checks an event as the schema does; and a Verifier that enforces the
// official client's ordering rules.
//
// Its centre is the mapping of a Triage fault onto RUN_ERROR:
//
//	aw := agui.NewWriter(sse.NewWriter(w), nil)
//	aw.WriteEvent(&agui.RunStarted{ThreadID: thread, RunID: run})
//	…
//	if err != nil {
//		aw.WriteError(err, &agui.Options{TextMessageID: "msg-err-" + run})
//	}
//
// writes
//
//	data: {"type":"TEXT_MESSAGE_START","messageId":"msg-err-r1","role":"assistant",…}
//	data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-err-r1","delta":"Too many requests. Please wait.",…}
//	data: {"type":"TEXT_MESSAGE_END","messageId":"msg-err-r1",…}
//	data: {"type":"RUN_ERROR","message":"Too many requests. Please wait.","code":"RATE_LIMITED",
//	       "timestamp":…,"metadata":{"category":"UPSTREAM","details":{},"domain":"client",
//	       "http_status":429,"retry_after":60,"retryable":true,"session_valid":true}}
//
// (each a frame of its own). See RunErrorFrom for every member, and
// docs/agui.md for the whole decision.
//
// # Why the error facets live in metadata
//
// Seed 000 put http_status, retry_after, details and retryable beside code
// and message at the top of RUN_ERROR. In AG-UI 1.0 that data never reaches
// an application, and metadata is where it survives. What 1.0.0 really does,
// checked against the published packages:
//
//   - @ag-ui/core 1.0.0 defines every event with zod's looseObject, which
//     neither rejects nor strips unknown members: EventSchemas.parse keeps a
//     top-level http_status. Validation alone would not lose it.
//   - @ag-ui/client 1.0.0 runs an enforcement stage (enforceEvents, after
//     its middleware and before verification, subscribers and the
//     application) that deep-strips every member the schema does not
//     describe, with a console warning ("Removed unrecognised material at
//     '/http_status' on RUN_ERROR"). That is where top-level extras are
//     lost.
//   - metadata is an opaque object in the schema (z.custom: any object, not
//     null, not an array), so the stripper passes it whole, nested members
//     included; the key "ag-ui" inside it is reserved for the protocol.
//
// So code (a string member the schema defines) stays at the top, and every
// other facet goes into metadata. The conformance test (see docs/agui.md)
// runs these events through the real EventSchemas and, when
// @ag-ui/client is installed too, through enforceEvents and verifyEvents,
// and checks that metadata arrives intact.
//
// # Debug output
//
// Debug details (the fault's Debug facet, and seed 000's error_type in
// metadata.details) appear only when Options.Debug is set. Details
// are sanitized and the debug facet redacted either way (see
// fault.SanitizeDetails and fault.Redact): no token, API key,
// authorization header or stack trace reaches the wire, debug or not.
//
// # Reading and relaying
//
// (*RunError).Fault turns a RUN_ERROR back into a fault. A peer's message
// is not known to be safe for end users: it becomes the fault's Message
// only under a code the code table knows, and otherwise goes, redacted, to
// Debug.Cause while the Message is the code's default. Delays are capped at
// fault.MaxRetryAfter.
//
// A Writer checks events, it does not sanitize them: an event's RawEvent,
// Metadata the caller supplied and a RUN_ERROR decoded from an upstream are
// written as given. Relay an upstream's RUN_ERROR by rebuilding it,
// RunErrorFrom(upstream.Fault(), opts), which sanitizes its metadata again
// and drops its debug output unless opts asks for debug output.
//
// RunErrorFrom and EventsFrom return nil for a nil error; Writer.WriteError
// writes a nil error as INTERNAL_ERROR, since reporting a failure for no
// error is a programming mistake.
//
// # Order
//
// RUN_ERROR is terminal: a 1.0 client accepts nothing after it but a new
// RUN_STARTED, and a Writer, which writes one run's stream, nothing at all.
// A backward-compatible text message therefore goes before RUN_ERROR
// (EventsFrom), never after it, and RUN_FINISHED never follows RUN_ERROR;
// a Writer refuses events out of order (see Verifier for the rules, taken
// from @ag-ui/client 1.0.0's verifyEvents).
//
// Writer.WriteError ends a run that fails mid-stream: it ends every open
// text message, so the text already streamed stands; writes the optional
// fallback text only when it can (never at the cost of the RUN_ERROR);
// leaves open tool calls open, since ending one would hand its truncated
// arguments to the application; and writes the RUN_ERROR last.
//
// # Requests
//
// ParseRunAgentInput reads the body the official client's HttpAgent POSTs
// to start a run, checks it as RunAgentInputSchema does, and bounds what a
// hostile client can make a server hold (MaxInputMessages, MaxInputItems,
// MaxInputIDBytes, MaxInputDepth). An invalid body is a *ValidationError
// listing every invalid member by its JSON path, which fault.From turns
// into an INVALID_REQUEST: answer it with a problem before the stream
// starts, as HttpAgent reports a failed request through onRunFailed.
package agui
