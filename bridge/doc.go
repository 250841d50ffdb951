// Package bridge is Triage's MCP agentic bridge (seed 002): an MCP server,
// on the official go-sdk, through which an MCP client discovers agents,
// opens sessions with them, prompts them, cancels and delegates, and gets
// every failure back as a precise fault.
//
// The tools, with their MCP annotations (seed 002's idempotent operations
// are idempotentHint; the read-only ones readOnlyHint):
//
//	bridge_health     readiness, the caller's load and calls   read-only, idempotent
//	agents_discover   the agents and their capabilities        read-only, idempotent
//	sessions_create   open a session with an agent             not idempotent
//	sessions_prompt   prompt it; the answer streams as progress not idempotent
//	sessions_status   a session's state                        read-only, idempotent
//	sessions_cancel   stop the running prompt                  destructive, not idempotent
//	sessions_close    close it (silent when already closed)    destructive, idempotent
//	tasks_delegate    create, prompt and close in one call     not idempotent
//
// ServeErrors adds the error store's tools, over an Errors (a tenant's
// records: in-process on /mcp, ServiceErrors over the Go client for
// `triage bridge --service`):
//
//	errors_search     the records, filtered and paged           read-only, idempotent
//	errors_get        one, with its latest analysis and report  read-only, idempotent
//	errors_report     report an error, get its analysis         not idempotent
//	errors_update     change its status, assignee, with a note idempotent
//
// Their answers are bounded whatever a report's size (errors_get shows at
// most MaxShownMessage bytes of a message and MaxShownContext of a
// context, and says what it cut), and their text content is written for a
// model or a person, the JSON being in structuredContent.
//
// An answer that ends in calls to the client's tools (stopReason
// "tool_call") carries them in the result's toolCalls, each with its name
// and its arguments' JSON text (at most 16 calls, 64 KiB of arguments
// each: longer arguments are cut and marked truncated), so that a client
// that asked for no progress sees them.
//
// # Failures
//
// The MCP specification wins where it differs from seed 002: a failed tool
// call (the agent's failure, a limit, invalid arguments) is a
// CallToolResult with isError set. Its text is the failure in seed 002's
// words, for a model or a person:
//
//	Failed to submit prompt to session 'abc-123':
//	Session not found: abc-123 (UPSTREAM, not retryable, session not valid)
//
//	The session may have expired, been closed, or lost its worker. You can:
//	1. Create a new session with sessions_create
//	2. Check available agents with agents_discover
//
// Its first line names the agent or session the call was about: the
// fault's, or, when the call failed before its arguments were read (a
// prompt too large, arguments the schema refuses), the id they carried,
// redacted, with control and format characters replaced and cut to 128
// characters; or it says that none was sent ("session (no sessionId was
// sent)"). Its structuredContent is {"error": Failure}: the category (type),
// message, code, retryable, retryAfter, sessionValid, details and the
// recovery options. Every tool's output schema declares that "error"
// member (anyOf the tool's own required members or "error"), because
// clients check structuredContent against the output schema even on an
// error. Protocol failures (an unknown tool, a malformed request) are
// JSON-RPC errors with the standard codes.
//
// ErrorsAsJSONRPC is seed 002's mode instead: a failed call is a JSON-RPC
// error with the category's code (CONFIG -32004, AUTH -32003, UPSTREAM
// -32002, TIMEOUT -32001, TRANSPORT -32000, INTERNAL -32603) and the
// Failure as data. It is not the default: MCP reserves -32020…-32099 and
// asks new implementations not to emit -32000…-32019, -32002 was MCP's
// resource-not-found code, and the go-sdk's own client reads -32004 and
// -32003 as "server is closing" and "client is closing" and drops the
// connection. Use it only for a client written for seed 002.
//
// # Limits
//
// A prompt over MaxPromptBytes or metadata over MaxMetadataBytes is
// refused (UPSTREAM, PAYLOAD_TOO_LARGE); beyond MaxConcurrent calls (or an
// owner's share of them) a call fails as "Server overloaded" (TRANSPORT,
// retryable after 1s). bridge_health, sessions_cancel and sessions_close
// are never held back, so a bridge full of hanging prompts can still be
// inspected and relieved. bridge_health counts the caller's owner's
// sessions and calls only (over stdio, all of them): a tenant must not
// read another's activity. Every call but a prompt ends at RequestTimeout;
// a prompt at the Manager's PromptTimeout.
//
// # Shutdown
//
// Shutdown (which Run calls when its context ends: `triage bridge` on
// SIGTERM or SIGINT) cancels every call in flight with ErrShutdown, and
// the agent's prompt it runs with it (an ACP worker is sent
// session/cancel), and answers each, unless it completed first, with
//
//	SERVICE_UNAVAILABLE "The bridge is shutting down" (TRANSPORT, retryable
//	after ShutdownRetryAfter, 5s; session not valid: the sessions end with
//	the server), details.agentId and sessionId of the call's session
//
// as an isError result (or seed 002's JSON-RPC error); a call that arrives
// later gets the same answer at once. It returns once every answer has
// been written, or at its context's deadline (Run: Config.ShutdownTimeout,
// 5s by default). Only then does Run close the connection: the go-sdk drops
// the answer of a call still running when its connection closes. The
// agents are the Manager's to stop (Manager.Shutdown, after it: an ACP
// pool waits for its workers' answers to session/cancel, then closes their
// input and kills those that linger). A server that serves the bridge over
// HTTP calls Shutdown before Disconnect.
package bridge
