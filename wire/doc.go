// Package wire is the home of Triage's wire formats: each subpackage writes a
// *fault.Error in one format agents and their clients speak, and reads it
// back.
//
//   - wire/problem: RFC 9457 problem details (application/problem+json) for
//     HTTP APIs, with the Retry-After header.
//   - wire/agui: AG-UI 1.0 events, RUN_ERROR among them, for agent user
//     interfaces; wire/sse frames them as Server-Sent Events.
//   - wire/jsonrpc: JSON-RPC 2.0 error objects with seed 002's category
//     codes, and MCP isError tool results.
//   - wire/present: user_error presentation events, the non-fatal notice,
//     and CAP stream packets carrying them or a stream error (severity
//     transient or fatal).
//
// Every format takes its facts from the fault (its code, status, category,
// domain, retryability, delay and session validity) and so from the code
// table; none restates a mapping. Every format sanitizes details and emits
// debug output only when asked (JSON-RPC never), so no token, header, body
// or stack trace reaches a client.
//
// Every constructor takes an error (problem.From, agui.NewRunError,
// jsonrpc.From, present.UserErrorFrom, present.StreamErrorFrom) and returns
// nil for a nil one; a writer given a nil error (problem.Write,
// agui.Writer.WriteError) writes INTERNAL_ERROR. Reading a peer's document
// back into a fault trusts its text as the fault's message only under a
// code the code table knows; otherwise the text is debug output.
package wire
