// Package present writes and reads the messages of CAP, the Coreason Agent
// Protocol, that carry errors to a user interface: seed 001's user_error
// presentation event, the stream packet that carries it, and the stream
// error that ends a stream.
//
// # user_error versus a stream error
//
// The two answer different questions, and a stream may carry both.
//
// A user_error event is a notice: the agent is healthy, one sub-task failed
// (a tool was unavailable, a search timed out), and the user should be told
// gracefully while the conversation goes on. It travels as an event packet,
// and more packets follow it:
//
//	{"op": "event", "p": {"id": "…", "timestamp": "…", "type": "user_error",
//	  "data": {"message": "The search tool is unavailable.", "code": 503,
//	           "domain": "tool", "retryable": true, "retry_after": 10}}}
//
// A stream error is a system exception: the stream itself is broken or the
// agent crashed, so nothing useful follows. It travels as an error packet,
// and its severity tells the client whether to retry the whole stream
// (transient) or give up (fatal):
//
//	{"op": "error", "p": {"code": "RATE_LIMITED", "message": "…",
//	  "severity": "transient", "details": {"retry_after": 30}}}
//
// EventFrom (or UserErrorFrom, for the data alone) and StreamErrorFrom
// build either from the same error, as problem.From and jsonrpc.From do;
// the caller decides which the failure is. Given a nil error, each returns
// nil. The package has no one main type, so every constructor and parser
// names the type it returns (EventFrom, ParsePacket; see package wire for
// the convention).
//
// # user_error
//
// The event is {"id", "timestamp", "type": "user_error", "data"}; id is a
// UUID (by default a random version 4 one, from crypto/rand) and timestamp
// an RFC 3339 date-time in UTC, both stamped by an Options whose clock and
// id source tests replace. The data follows seed 001: message is required
// and must not be blank; code is an optional HTTP-like status from 100 to
// 599, null by default; domain is one of client, system, llm, tool and
// security, system by default; retryable is false by default. From a
// fault, code is its HTTP status and domain, retryable and message are its
// own.
//
// Triage extends the data with retry_after, whole seconds before a retry
// may succeed, written only when it is positive (from a fault, when it has
// a delay), so that a user interface can say when to retry. Seed 001's data
// is a dictionary, so the extra key is allowed, and data without it reads
// as before: no delay.
//
// Other presentation event types (thought_trace, citation_block, …) are
// read and written with their data kept as raw JSON.
//
// # Stream packets
//
// A packet is {"op", "p"}: op delta carries a string, event a presentation
// event, error a StreamError, close null. A later version of CAP adds the
// optional members stream_id (a string) and seq (a non-negative integer);
// they are accepted when present, kept, and written again.
//
// A stream error from a fault has the Triage code as its code, severity
// transient when the fault is retryable and fatal otherwise, and the fault's
// sanitized details plus retry_after (seconds) when it has a delay. Nothing
// of the fault's Debug or Cause is written, and messages pass through
// fault.Redact.
//
// # Reading
//
// ParsePacket, ParseEvent, ParseUserError and ParseStreamError check every
// rule above and fail with a *ValidationError naming the member at fault
// ("p.data.domain") and the rule it breaks; an unknown domain's error lists
// the five allowed. A user_error's retry_after and a stream error's numeric
// details.retry_after are capped at fault.MaxRetryAfter, as every delay
// Triage parses. Whatever they accept marshals again and parses to the
// same value.
package present
