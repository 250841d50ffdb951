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
// Every constructor from an error (problem.From, agui.RunErrorFrom,
// jsonrpc.From, present.UserErrorFrom, present.StreamErrorFrom, …) returns
// nil for a nil one; a writer given a nil error (problem.Write,
// agui.Writer.WriteError) writes INTERNAL_ERROR. Reading a peer's document
// back into a fault trusts its text as the fault's message only under a
// code the code table knows; otherwise the text is debug output.
//
// # Names
//
// The subpackages spell each kind of thing one way:
//
//   - A constructor from an error is From when it builds the package's main
//     type, and <Type>From otherwise: problem.From (a *Problem),
//     jsonrpc.From (an *Error), jsonrpc.DataFrom, jsonrpc.ToolResultFrom,
//     agui.RunErrorFrom, agui.EventsFrom (the events that report an error),
//     present.UserErrorFrom, present.EventFrom (a user_error event) and
//     present.StreamErrorFrom. New<Name> is kept for constructors that do
//     not take an error: jsonrpc.NewMethodNotFound(method),
//     jsonrpc.NewErrorResponse(id, e), present.NewUserErrorEvent(u, opts),
//     agui.NewWriter(w, opts).
//   - A reader of bytes is Parse for the main type and Parse<Type>
//     otherwise: problem.Parse, jsonrpc.Parse, agui.Parse (an Event),
//     jsonrpc.ParseResponse, jsonrpc.ParseToolResult (the fault of an MCP
//     isError result), present.ParsePacket, present.ParseEvent,
//     present.ParseUserError and present.ParseStreamError. Fuzz targets
//     named after them, with seeds in their package's testdata/fuzz, cover
//     every one (present's FuzzParsePacket and FuzzParseEvent reach the
//     stream error's and the user_error data's decoders).
//     problem.ReadResponse reads an *http.Response, not bytes.
//   - An encoder's options are a pointer to a struct named Options, nil
//     meaning every default: problem.Options, agui.Options and
//     present.Options. A second set, for one type, is named after that type:
//     agui.WriterOptions, for NewWriter, and jsonrpc.ToolResultOptions,
//     whose ToolResult method builds a tool result (a nil one is
//     ToolResultFrom's shape). jsonrpc has no Options.
//
// The main types are problem.Problem, jsonrpc.Error and agui.Event. present
// has none: its packet, event, user_error data and stream error stand side
// by side, so each of its names says which it builds or reads.
package wire
