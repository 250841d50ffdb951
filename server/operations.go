package server

import (
	"github.com/triage-go/triage"
	"github.com/triage-go/triage/internal/apidoc"
	"github.com/triage-go/triage/store"
)

// operations are the API's operations, each with its handler: the routes
// the server serves (/mcp's only when it runs agents) and what
// cmd/openapigen writes of them to openapi.json. The MCP bridge over
// streamable HTTP (MCP 2025-06-18) comes first.
var operations = []route{
	{api: (*Server).serveMCP, Operation: apidoc.Operation{
		Method: "POST", Path: "/mcp", ID: "mcpPost",
		Summary:     "Send MCP messages (streamable HTTP)",
		Description: "The MCP bridge's tools (seed 002) over the streamable HTTP transport of MCP 2025-06-18, behind the API keys: a JSON-RPC 2.0 request, notification or response, or a batch of them where the session's protocol version has batches (at most MCPMaxBatch messages, each counted against the tenant's rate limit). Begin with an initialize request without Mcp-Session-Id; its answer's Mcp-Session-Id header names the session for every later request. A request is answered with one JSON-RPC response (application/json) or an SSE stream (text/event-stream) of the server's messages that ends with it, as the Accept header allows; notifications and responses alone are accepted with 202. A tool's failure is a result with isError and the fault; a malformed message is a JSON-RPC error (-32700 … -32603). See docs/service.md.",
		Params:      opMCPParams,
		Body:        &apidoc.Media{ContentType: "application/json", Schema: apidoc.Obj{"oneOf": apidoc.List{apidoc.Ref("JSONRPCMessage"), apidoc.Obj{"type": "array", "items": apidoc.Ref("JSONRPCMessage")}}}},
		OK: []apidoc.Answer{
			{Status: 200, Description: "The JSON-RPC response(s) to the request(s), as JSON or as an SSE stream of JSON-RPC messages (data: one message per event; id: its position, for Last-Event-ID).", Content: []apidoc.Media{
				{ContentType: "application/json", Schema: apidoc.Obj{"oneOf": apidoc.List{apidoc.Ref("JSONRPCResponse"), apidoc.Obj{"type": "array", "items": apidoc.Ref("JSONRPCResponse")}}}},
				{ContentType: "text/event-stream", Schema: apidoc.Obj{"type": "string"}},
			}},
			{Status: 202, Description: "Notifications or responses only: accepted, no body.", Content: nil},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "Malformed JSON, an invalid message, ids the transport would alter, or a batch where the session has none or over the bound: a JSON-RPC error response with id null (application/json), or a problem (INVALID_REQUEST).", RPC: true},
			opNoKey,
			{Status: 403, Description: "A wrong API key (TENANT_UNAUTHORIZED), a browser's request from another origin, or a Host that is not the loopback address the request came to (INVALID_REQUEST)."},
			{Status: 404, Description: "No such session for this tenant: it expired, was closed or never existed (SESSION_NOT_FOUND); initialize a new one."},
			{Status: 406, Description: "The Accept header allows neither application/json nor text/event-stream (INVALID_REQUEST)."},
			opBodyTimeout,
			{Status: 413, Description: "The body is over the /mcp limit (PAYLOAD_TOO_LARGE)."},
			{Status: 415, Description: "The body is not JSON (INVALID_REQUEST)."},
			opRateLimited,
			opBusy,
		},
	}},
	{api: (*Server).serveMCP, Operation: apidoc.Operation{
		Method: "GET", Path: "/mcp", ID: "mcpStream",
		Summary:     "Listen to an MCP session (streamable HTTP)",
		Description: "The session's stream of server-initiated messages (SSE: data is a JSON-RPC message), or, with Last-Event-ID, the resumption of a stream that broke, within the event store's bounds.",
		Params:      append(opMCPParams, apidoc.Param{Name: "Last-Event-ID", In: "header", Description: "The id of the last event received: the stream resumes after it.", Schema: apidoc.Obj{"type": "string"}}),
		OK: []apidoc.Answer{
			{Status: 200, Description: "An SSE stream of JSON-RPC messages.", Content: []apidoc.Media{{ContentType: "text/event-stream", Schema: apidoc.Obj{"type": "string"}}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "No Mcp-Session-Id, or an event id the session did not send (INVALID_REQUEST)."},
			opNoKey,
			{Status: 403, Description: "A wrong API key (TENANT_UNAUTHORIZED), or a browser's request from another origin (INVALID_REQUEST)."},
			{Status: 404, Description: "No such session for this tenant (SESSION_NOT_FOUND)."},
			{Status: 405, Description: "The transport serves no stream here (INVALID_REQUEST)."},
			{Status: 406, Description: "The Accept header does not allow text/event-stream (INVALID_REQUEST)."},
			{Status: 409, Description: "Another request is reading this stream now (SESSION_BUSY); retry after Retry-After."},
			opRateLimited,
			opBusy,
		},
	}},
	{api: (*Server).serveMCP, Operation: apidoc.Operation{
		Method: "DELETE", Path: "/mcp", ID: "mcpClose",
		Summary: "Close an MCP session",
		Params:  opMCPParams,
		OK: []apidoc.Answer{
			{Status: 204, Description: "The session is closed."},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "No Mcp-Session-Id (INVALID_REQUEST)."},
			opNoKey,
			{Status: 403, Description: "A wrong API key (TENANT_UNAUTHORIZED), or a browser's request from another origin (INVALID_REQUEST)."},
			{Status: 404, Description: "No such session for this tenant (SESSION_NOT_FOUND)."},
			opRateLimited,
			opBusy,
		},
	}},
	{api: (*Server).postError, Operation: apidoc.Operation{
		Method: "POST", Path: "/v1/errors", ID: "reportError",
		Summary: "Report an error",
		Params: []apidoc.Param{
			{Name: "Idempotency-Key", In: "header", Description: "draft-ietf-httpapi-idempotency-key-header: a repeat with the same key and body returns the stored response; another body is a 422; a repeat while the first is in flight is a 409.", Schema: apidoc.Obj{
				"type":      "string",
				"minLength": 1,
				"maxLength": 255,
			}},
		},
		Body: &apidoc.Media{ContentType: "application/json", Schema: apidoc.Of[triage.Report]()},
		OK: []apidoc.Answer{
			{Status: 200, Description: "A duplicate delivery: the feedback given before (duplicate: true); nothing re-executed.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.Feedback]()}}},
			{Status: 201, Description: "A new error: its feedback. The record is committed, and the jobs its actions enqueued (retries, escalations) with it, in the same transaction.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.Feedback]()}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "Malformed JSON (INVALID_REQUEST)."},
			opNoKey,
			opWrongKey,
			opBodyTimeout,
			{Status: 409, Description: "The same report, or the same Idempotency-Key, is still being handled (SESSION_BUSY); retry after Retry-After."},
			{Status: 413, Description: "The body is over the limit (PAYLOAD_TOO_LARGE)."},
			{Status: 415, Description: "The body is not JSON (INVALID_REQUEST)."},
			{Status: 422, Description: "An invalid report (INVALID_REQUEST); errors lists every field error, a string that is not Unicode text (not UTF-8, or an escaped UTF-16 surrogate without its pair) among them, by its path."},
			opRateLimited,
			opBusy,
		},
	}},
	{api: (*Server).listErrors, Operation: apidoc.Operation{
		Method: "GET", Path: "/v1/errors", ID: "listErrors",
		Summary: "List error records (summaries)",
		Params: []apidoc.Param{
			{Name: "query_id", In: "query", Description: "Only this query's errors.", Schema: apidoc.Ref("Identifier")},
			{Name: "agent_id", In: "query", Description: "Only this agent's errors.", Schema: apidoc.Ref("Identifier")},
			{Name: "error_type", In: "query", Description: "Only this type.", Schema: apidoc.Of[triage.ErrorType]()},
			{Name: "severity", In: "query", Description: "Only this severity.", Schema: apidoc.Of[triage.Severity]()},
			{Name: "status", In: "query", Description: "Only the errors of this status as it reads now: an ignored error whose time has passed is unresolved.", Schema: apidoc.Of[triage.Status]()},
			{Name: "environment", In: "query", Description: "Only the errors last seen in this environment: the latest occurrence to name an environment named it (last_environment).", Schema: apidoc.Obj{
				"type": "string", "maxLength": triage.MaxEnvironment,
			}},
			{Name: "release", In: "query", Description: "Only the errors first or last seen in this release: the first or the latest occurrence to name a release named it (first_release, last_release; a record keeps those two, not the releases in between).", Schema: apidoc.Obj{
				"type": "string", "maxLength": triage.MaxRelease,
			}},
			{Name: "session_id", In: "query", Description: "Only the errors with an occurrence whose report names this session (data.context.session_id: an MCP session's failed tool calls, GET /v1/sessions/{session_id}, or a framework adapter's session), among at most 10,000 of the tenant's occurrences (store.MaxSessionScan): of a recorded MCP session, the first received from its opening to two hours after its end; of another id, the tenant's latest, so that an older occurrence is not found. No index of sessions is kept per report.", Schema: apidoc.Obj{
				"type": "string", "maxLength": store.MaxSessionIDBytes,
			}},
			{Name: "since", In: "query", Description: "Only errors last seen at or after this time.", Schema: apidoc.Obj{
				"type":   "string",
				"format": "date-time",
			}},
			{Name: "q", In: "query", Description: "Full-text search: the records whose title, code, agent or query have a word beginning with each word of q (words are the runs of letters and digits, case ignored; every other character separates them and none is syntax: \"DB_TIMEOUT\" is db and timeout, \"plan\" finds the agent planner-v2). At most 200 bytes and 8 words.", Schema: apidoc.Obj{
				"type":      "string",
				"maxLength": store.MaxSearchBytes,
			}},
			{Name: "sort", In: "query", Description: "last_seen (the default): the most recently seen first; first_seen: the most recently created first; count: the most occurrences first (all of them, or with window those in it).", Schema: apidoc.Obj{
				"type":    "string",
				"enum":    apidoc.List{store.SortLastSeen, store.SortFirstSeen, store.SortCount},
				"default": store.SortLastSeen,
			}},
			{Name: "window", In: "query", Description: "With sort=count: count the occurrences of the hours that began within it (the current hour and those before it; 24h is the current hour and the 23 before), from the hourly counts; only the records seen in it are listed, each with its window_count. Whole hours (1h to 720h) or days (1d to 30d). A cursor keeps its first page's hours.", Schema: apidoc.Obj{
				"type":    "string",
				"pattern": "^[1-9][0-9]*[hd]$",
			}},
			opLimit,
			{Name: "cursor", In: "query", Description: "next_cursor of the previous page, with the same sort (and window).", Schema: apidoc.Obj{
				"type": "string",
			}},
		},
		OK: []apidoc.Answer{
			{Status: 200, Description: "A page of record summaries in the sort asked for, each with its title (its latest report's code and message), and total, how many records the filters select (counted up to 100,000: total_capped past that): no report or feedback (GET /v1/errors/{error_id} has them), so a page is a few hundred bytes per record whatever the reports' size.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.Page]()}}},
		},
		Problems: opListProblems,
	}},
	{api: (*Server).getError, Operation: apidoc.Operation{
		Method: "GET", Path: "/v1/errors/{error_id}", ID: "getError",
		Summary: "An error record",
		Params: []apidoc.Param{
			{Name: "error_id", In: "path", Required: true, Schema: apidoc.Obj{
				"type": "string",
			}},
		},
		OK: []apidoc.Answer{
			{Status: 200, Description: "The record: its latest report and feedback, its latest occurrences (the latest received first, at most 20, and no more than fit in 4 MiB of documents with the record's own, but always one; occurrences_next_cursor continues on /v1/errors/{error_id}/occurrences) and its latest 20 jobs with their attempts (more_jobs when there are older ones, and jobs_next_cursor, which GET /v1/errors/{error_id}/jobs continues with).", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.Record]()}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "The query string is malformed (INVALID_REQUEST)."},
			opNoKey,
			opWrongKey,
			{Status: 404, Description: "No such error for this tenant (NOT_FOUND)."},
			opRateLimited,
			opBusy,
		},
	}},
	{api: (*Server).patchError, Operation: apidoc.Operation{
		Method: "PATCH", Path: "/v1/errors/{error_id}", ID: "changeError",
		Summary:     "Change an error record's status or assignee",
		Description: "Resolve (now, in a release, or in the next release), ignore (for good, for a time, until N more occurrences or N within a window), set back to unresolved, or assign a record, with an optional note: the transition is kept in its history (GET /v1/errors/{error_id}/history) with who made it (the API key's name, or operator on a service without keys) and when. Asking for what the record already is changes nothing and leaves no transition. regressed is the service's: a resolved record occurring again (in a later release than the fix's, or in none) regresses.",
		Params: []apidoc.Param{
			{Name: "error_id", In: "path", Required: true, Schema: apidoc.Obj{
				"type": "string",
			}},
		},
		Body: &apidoc.Media{ContentType: "application/json", Schema: apidoc.Of[triage.Change]()},
		OK: []apidoc.Answer{
			{Status: 200, Description: "The record's summary after the change.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.RecordSummary]()}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "Malformed JSON (INVALID_REQUEST)."},
			opNoKey,
			opWrongKey,
			{Status: 404, Description: "No such error for this tenant (NOT_FOUND)."},
			opBodyTimeout,
			{Status: 409, Description: "A resolution in the next release when the tenant has reported no release yet (INVALID_REQUEST, errors names resolution.in_next_release)."},
			{Status: 413, Description: "The body is over the limit."},
			{Status: 415, Description: "The body is not JSON."},
			{Status: 422, Description: "An invalid change (INVALID_REQUEST): an unknown member, regressed asked for, a resolution or ignore condition without its status, bounds; errors lists every member at fault."},
			opRateLimited,
			opBusy,
		},
	}},
	{api: (*Server).changeErrors, Operation: apidoc.Operation{
		Method: "POST", Path: "/v1/errors/changes", ID: "changeErrors",
		Summary:     "Change many error records at once (bulk)",
		Description: "One change (as PATCH /v1/errors/{error_id} takes) applied to every record the filter selects (the listing's filters, and error_ids), in batches of 500 records per write: a change interrupted midway keeps the batches written. A record already as asked is not changed nor counted. An invalid change is refused before any record is changed.",
		Body:        &apidoc.Media{ContentType: "application/json", Schema: apidoc.Of[triage.RecordsChange]()},
		OK: []apidoc.Answer{
			{Status: 200, Description: "How many records changed.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.RecordsChanged]()}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "Malformed JSON (INVALID_REQUEST)."},
			opNoKey,
			opWrongKey,
			opBodyTimeout,
			{Status: 409, Description: "A resolution in the next release when the tenant has reported no release yet (INVALID_REQUEST)."},
			{Status: 413, Description: "The body is over the limit."},
			{Status: 415, Description: "The body is not JSON."},
			{Status: 422, Description: "An invalid change or filter (INVALID_REQUEST); errors lists every member at fault."},
			opRateLimited,
			opBusy,
		},
	}},
	{api: (*Server).errorHistory, Operation: apidoc.Operation{
		Method: "GET", Path: "/v1/errors/{error_id}/history", ID: "errorHistory",
		Summary: "An error record's history: its transitions",
		Params: []apidoc.Param{
			{Name: "error_id", In: "path", Required: true, Schema: apidoc.Obj{
				"type": "string",
			}},
			opLimit,
			opCursor,
		},
		OK: []apidoc.Answer{
			{Status: 200, Description: "The record's transitions, the latest first: each with who made it (an API key's name, operator, or triage for the service's own: a regression, an ignore that lapsed), when, the workflow before and after, and the note.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.TransitionPage]()}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "An invalid parameter or cursor; errors lists every parameter."},
			opNoKey,
			opWrongKey,
			{Status: 404, Description: "No such error for this tenant (NOT_FOUND)."},
			opRateLimited,
			opBusy,
		},
	}},
	{api: (*Server).listOccurrences, Operation: apidoc.Operation{
		Method: "GET", Path: "/v1/errors/{error_id}/occurrences", ID: "listOccurrences",
		Summary: "A page of an error record's occurrences",
		Params: []apidoc.Param{
			{Name: "error_id", In: "path", Required: true, Schema: apidoc.Obj{
				"type": "string",
			}},
			{Name: "limit", In: "query", Description: "Page size; a page also ends before the occurrence that would take its documents past 4 MiB (but has at least one).", Schema: apidoc.Obj{
				"type":    "integer",
				"minimum": 1,
				"maximum": 100,
				"default": 20,
			}},
			{Name: "cursor", In: "query", Description: "next_cursor of the previous page, or the record's occurrences_next_cursor.", Schema: apidoc.Obj{
				"type": "string",
			}},
		},
		OK: []apidoc.Answer{
			{Status: 200, Description: "Occurrences, the latest received first, each with its report, feedback and actions.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.OccurrencePage]()}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "An invalid filter or cursor; errors lists every parameter."},
			opNoKey,
			opWrongKey,
			{Status: 404, Description: "No such error for this tenant (NOT_FOUND)."},
			opRateLimited,
			opBusy,
		},
	}},
	{api: (*Server).listJobs, Operation: apidoc.Operation{
		Method: "GET", Path: "/v1/errors/{error_id}/jobs", ID: "listErrorJobs",
		Summary:     "A page of an error record's jobs",
		Description: "The retries and escalations the record's occurrences scheduled, with their state (River's) and attempts, the latest (the highest id) first: without a cursor the record's latest, the ones GET /v1/errors/{error_id} carries; with its jobs_next_cursor, the older ones. River keeps a finished job for a while only (see docs/service.md): older ones are gone.",
		Params: []apidoc.Param{
			{Name: "error_id", In: "path", Required: true, Schema: apidoc.Obj{
				"type": "string",
			}},
			{Name: "limit", In: "query", Description: "Page size.", Schema: apidoc.Obj{
				"type":    "integer",
				"minimum": 1,
				"maximum": store.MaxJobLimit,
				"default": store.RecordJobs,
			}},
			{Name: "cursor", In: "query", Description: "next_cursor of the previous page, or the record's jobs_next_cursor.", Schema: apidoc.Obj{
				"type": "string",
			}},
		},
		OK: []apidoc.Answer{
			{Status: 200, Description: "Jobs, the latest first, each with its attempts.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.JobPage]()}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "An invalid parameter or cursor; errors lists every parameter."},
			opNoKey,
			opWrongKey,
			{Status: 404, Description: "No such error for this tenant (NOT_FOUND)."},
			opRateLimited,
			opBusy,
		},
	}},
	{api: (*Server).getErrorCounts, Operation: apidoc.Operation{
		Method: "GET", Path: "/v1/errors/{error_id}/counts", ID: "getErrorCounts",
		Summary:     "An error record's occurrences over time",
		Description: "The record's occurrences per hour or day (UTC), from the counts kept as its reports are saved (kept 30 days by default: store.Retention.Counts): one series, zero-filled (a count per bucket).",
		Params: append([]apidoc.Param{
			{Name: "error_id", In: "path", Required: true, Schema: apidoc.Obj{
				"type": "string",
			}},
		}, opCountParams...),
		OK: []apidoc.Answer{
			{Status: 200, Description: "The record's series (by record, key its error_id).", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.Counts]()}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "An invalid parameter, or a range of more than 744 buckets; errors lists every parameter."},
			opNoKey,
			opWrongKey,
			{Status: 404, Description: "No such error for this tenant (NOT_FOUND)."},
			opRateLimited,
			opBusy,
		},
	}},
	{api: (*Server).getCounts, Operation: apidoc.Operation{
		Method: "GET", Path: "/v1/counts", ID: "getCounts",
		Summary:     "Occurrences over time, by record, agent or code",
		Description: "The tenant's occurrences per hour or day (UTC), by record, agent or code, from the counts kept as reports are saved (one row per record and hour, with its agent and code; kept 30 days by default: store.Retention.Counts): the series with most occurrences in the range first, each zero-filled (a count per bucket).",
		Params: append([]apidoc.Param{
			{Name: "by", In: "query", Description: "What a series counts.", Schema: apidoc.Obj{
				"type":    "string",
				"enum":    apidoc.List{store.CountByRecord, store.CountByAgent, store.CountByCode},
				"default": store.CountByRecord,
			}},
			{Name: "error_id", In: "query", Description: "With by=record: only these records (repeat it, at most 100), as a listing's sparklines ask for its page's.", Schema: apidoc.Obj{
				"type": "array", "items": apidoc.Ref("Identifier"), "maxItems": store.MaxCountSeries,
			}},
			{Name: "limit", In: "query", Description: "How many series: those with most occurrences in the range (default 20, or as many as error_id gives).", Schema: apidoc.Obj{
				"type":    "integer",
				"minimum": 1,
				"maximum": store.MaxCountSeries,
				"default": store.DefaultCountSeries,
			}},
		}, opCountParams...),
		OK: []apidoc.Answer{
			{Status: 200, Description: "The series.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.Counts]()}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "An invalid parameter, or a range of more than 744 buckets; errors lists every parameter."},
			opNoKey,
			opWrongKey,
			opRateLimited,
			opBusy,
		},
	}},
	{api: (*Server).getRunTotals, Operation: apidoc.Operation{
		Method: "GET", Path: "/v1/counts/runs", ID: "getRunTotals",
		Summary:     "AG-UI runs in a range, by agent, outcome and code: the agents' failure rates",
		Description: "The tenant's runs (POST /v1/agents/{agent_id}/runs) started in the range, counted by agent and outcome, and the failed ones by their fault's code. An agent's failure rate is failed over its ended runs (runs - running). At most 20,000 runs are read, the latest started: capped says the range held more, and since is then the earliest counted run's start, so the answer's cost is bounded whatever the range holds. Runs are kept 7 days after they started (store.Retention.Runs): a longer range counts those kept.",
		Params: []apidoc.Param{
			{Name: "since", In: "query", Description: "The range's start: the runs started at or after it. Default: a day before until.", Schema: apidoc.Obj{
				"type":   "string",
				"format": "date-time",
			}},
			{Name: "until", In: "query", Description: "The range's end: the runs started at or before it. Default: now.", Schema: apidoc.Obj{
				"type":   "string",
				"format": "date-time",
			}},
			{Name: "limit", In: "query", Description: "How many agents, and how many codes: those with most failed runs (then most runs).", Schema: apidoc.Obj{
				"type":    "integer",
				"minimum": 1,
				"maximum": store.MaxCountSeries,
				"default": store.DefaultCountSeries,
			}},
		},
		OK: []apidoc.Answer{
			{Status: 200, Description: "The totals: agents with most failed runs first, then most runs; codes with most failed runs first.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.RunTotals]()}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "An invalid parameter, or a range that ends before it starts; errors lists every parameter."},
			opNoKey,
			opWrongKey,
			opRateLimited,
			opBusy,
		},
	}},
	{api: (*Server).streamEvents, Operation: apidoc.Operation{
		Method: "GET", Path: "/v1/events", ID: "streamEvents",
		Summary:     "Server-Sent Events of each new feedback",
		Description: "One `feedback` event per new feedback of the tenant, saved by any instance sharing the store, in the order they were committed (data: the Feedback JSON; id: its position in the stream, an integer that grows: on SQLite the occurrence's ID, on PostgreSQL the ID of the transaction that saved it); a keep-alive comment every 15 s; a `shutdown` event when the service stops, after which the stream ends. A client that reconnects with `Last-Event-ID` is first sent the feedback saved since that event, at most 1,000 events; when it missed more, a `truncated` event (id: the position the stream goes on after) and the stream goes on from there: catch up with `GET /v1/errors?since=`. On PostgreSQL an event waits until the write transactions that began before it have ended (see docs/service.md). Besides, a `run` event (data: the Run record, as GET /v1/runs/{run_id} returns it) for each AG-UI run of the tenant that ends while the stream is open, on any instance sharing the store, in the order they ended: live only, without an id, never replayed after Last-Event-ID.",
		Params: []apidoc.Param{
			{Name: "Last-Event-ID", In: "header", Description: "The id of the last event received: the stream replays the feedback saved after it.", Schema: apidoc.Obj{
				"type":    "string",
				"pattern": "^[0-9]+$",
			}},
		},
		OK: []apidoc.Answer{
			{Status: 200, Description: "The event stream.", Content: []apidoc.Media{{ContentType: "text/event-stream", Schema: apidoc.Obj{
				"type": "string",
			}}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "A Last-Event-ID that is not an event id (INVALID_REQUEST)."},
			opNoKey,
			opWrongKey,
			opRateLimited,
			opBusy,
		},
	}},
	{api: (*Server).putSchema, Operation: apidoc.Operation{
		Method: "PUT", Path: "/v1/schemas/{source}", ID: "putSchema",
		Summary: "Set a data source's schema inventory (for map_synonym)",
		Params: []apidoc.Param{
			{Name: "source", In: "path", Required: true, Description: "The data source (the report context's source).", Schema: apidoc.Ref("Identifier")},
		},
		Body: &apidoc.Media{ContentType: "application/json", Schema: apidoc.Of[triage.SchemaInfo]()},
		OK: []apidoc.Answer{
			{Status: 200, Description: "Stored.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Ref("SchemaStored")}}},
		},
		Problems: opPutProblems,
	}},
	{api: (*Server).putCache, Operation: apidoc.Operation{
		Method: "PUT", Path: "/v1/cache/{query_id}", ID: "putCached",
		Summary: "Store a query's last good result (for use_cache)",
		Params: []apidoc.Param{
			{Name: "query_id", In: "path", Required: true, Description: "The query.", Schema: apidoc.Ref("Identifier")},
		},
		Body: &apidoc.Media{ContentType: "application/json", Schema: apidoc.Of[triage.CachedResult]()},
		OK: []apidoc.Answer{
			{Status: 200, Description: "Stored.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Ref("CachedStored")}}},
		},
		Problems: opPutProblems,
	}},
	{api: (*Server).listAgents, Operation: apidoc.Operation{
		Method: "GET", Path: "/v1/agents", ID: "listAgents",
		Summary:     "The agents AG-UI runs and /mcp serve",
		Description: "The agent registry (--agents FILE, or the default one script agent, echo), in its order: the agents POST /v1/agents/{agent_id}/runs runs and /mcp delegates to. Empty when the service runs no agents. Takes no query parameters. Not the pipeline agents of PUT /v1/callbacks/{agent_id}, which report errors.",
		OK: []apidoc.Answer{
			{Status: 200, Description: "The registry.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Ref("AgentList")}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "A query parameter, or a malformed query string (INVALID_REQUEST)."},
			opNoKey,
			opWrongKey,
			opRateLimited,
			opBusy,
		},
	}},
	{api: (*Server).putCallback, Operation: apidoc.Operation{
		Method: "PUT", Path: "/v1/callbacks/{agent_id}", ID: "putCallback",
		Summary:     "Register a pipeline agent's retry callback URL",
		Description: "Where the retries the handler plans for the agent's queries are POSTed (a retry job's JSON) when they are due. A pipeline agent reports errors; it is not an agent of the registry (GET /v1/agents).",
		Params: []apidoc.Param{
			{Name: "agent_id", In: "path", Required: true, Description: "The agent.", Schema: apidoc.Ref("Identifier")},
		},
		Body: &apidoc.Media{ContentType: "application/json", Schema: apidoc.Ref("Callback")},
		OK: []apidoc.Answer{
			{Status: 200, Description: "Stored: the agent's callback.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[store.Agent]()}}},
		},
		Problems: opPutProblems,
	}},
	{api: (*Server).putAgentCallback, Operation: apidoc.Operation{
		Method: "PUT", Path: "/v1/agents/{agent_id}", ID: "putAgentCallback",
		Summary:     "Register a pipeline agent's retry callback URL (deprecated)",
		Description: "Deprecated: PUT /v1/callbacks/{agent_id} does the same; this path stays as its alias. /v1/agents is the agent registry (GET /v1/agents, POST /v1/agents/{agent_id}/runs); a pipeline agent's callback is another noun. The answer carries Deprecation (RFC 9745) and a Link to its successor-version.",
		Deprecated:  true,
		Params: []apidoc.Param{
			{Name: "agent_id", In: "path", Required: true, Description: "The agent.", Schema: apidoc.Ref("Identifier")},
		},
		Body: &apidoc.Media{ContentType: "application/json", Schema: apidoc.Ref("Callback")},
		OK: []apidoc.Answer{
			{Status: 200, Description: "Stored: the agent's callback, with the Deprecation and Link headers.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[store.Agent]()}},
				Headers: apidoc.Obj{
					"Deprecation": apidoc.Obj{"description": "When the path was deprecated (RFC 9745): @1796169600, 2026-12-02.", "schema": apidoc.Obj{"type": "string"}},
					"Link":        apidoc.Obj{"description": "The path to use instead: </v1/callbacks/{agent_id}>; rel=\"successor-version\".", "schema": apidoc.Obj{"type": "string"}},
				}},
		},
		Problems: opPutProblems,
	}},
	{api: (*Server).listAlertRules, Operation: apidoc.Operation{
		Method: "GET", Path: "/v1/alerts/rules", ID: "listAlertRules",
		Summary:     "The tenant's alert rules",
		Description: "When a record is worth telling someone about: new, regressed, passing a frequency (count occurrences within window_seconds), an agent's failure rate, or the handler's escalation; each throttled to one notification per record (or agent) and target per throttle_seconds, the next (or a digest once the interval has passed) counting what was held. source is \"file\" when the service's alerts file (--alerts) defines them: read-only here. Takes no query parameters. See docs/service.md, Alerts.",
		OK: []apidoc.Answer{
			{Status: 200, Description: "The rules, in their order.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.AlertRuleList]()}}},
		},
		Problems: opNoParamsProblems,
	}},
	{api: (*Server).putAlertRule, Operation: apidoc.Operation{
		Method: "PUT", Path: "/v1/alerts/rules/{rule_id}", ID: "putAlertRule",
		Summary:     "Add or replace an alert rule",
		Description: "The rule named by the path (its id member may be left out). The tenant's rules and targets are checked whole: a rule names targets the tenant has (PUT /v1/alerts/targets/{target} first).",
		Params: []apidoc.Param{
			{Name: "rule_id", In: "path", Required: true, Description: "The rule: 1 to 64 of a-z, 0-9, '-' and '_'.", Schema: apidoc.Obj{"type": "string"}},
		},
		Body: &apidoc.Media{ContentType: "application/json", Schema: apidoc.Of[triage.AlertRule]()},
		OK: []apidoc.Answer{
			{Status: 200, Description: "Stored: the rule.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.AlertRule]()}}},
		},
		Problems: opAlertPutProblems,
	}},
	{api: (*Server).deleteAlertRule, Operation: apidoc.Operation{
		Method: "DELETE", Path: "/v1/alerts/rules/{rule_id}", ID: "deleteAlertRule",
		Summary: "Delete an alert rule",
		Params: []apidoc.Param{
			{Name: "rule_id", In: "path", Required: true, Description: "The rule.", Schema: apidoc.Obj{"type": "string"}},
		},
		OK: []apidoc.Answer{
			{Status: 204, Description: "Deleted."},
		},
		Problems: opAlertDeleteProblems,
	}},
	{api: (*Server).listAlertTargets, Operation: apidoc.Operation{
		Method: "GET", Path: "/v1/alerts/targets", ID: "listAlertTargets",
		Summary:     "The tenant's alert targets, without their credentials",
		Description: "Where the rules' notifications go: a generic webhook (JSON signed as Standard Webhooks sign), a Slack incoming webhook, or PagerDuty Events API v2. Credentials are write-only: a webhook's signing secret, a PagerDuty routing key and a Slack webhook URL are never returned (signed and has_routing_key say they are set). Takes no query parameters.",
		OK: []apidoc.Answer{
			{Status: 200, Description: "The targets.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.AlertTargetList]()}}},
		},
		Problems: opNoParamsProblems,
	}},
	{api: (*Server).putAlertTarget, Operation: apidoc.Operation{
		Method: "PUT", Path: "/v1/alerts/targets/{target}", ID: "putAlertTarget",
		Summary:     "Add or replace an alert target",
		Description: "The target named by the path (its name member may be left out), written whole, credentials included. Its URL must not be localhost or a loopback, private or link-local address (unless the service runs with --private-callbacks); the jobs refuse such an address again as they connect.",
		Params: []apidoc.Param{
			{Name: "target", In: "path", Required: true, Description: "The target: 1 to 64 of a-z, 0-9, '-' and '_'.", Schema: apidoc.Obj{"type": "string"}},
		},
		Body: &apidoc.Media{ContentType: "application/json", Schema: apidoc.Of[triage.AlertTarget]()},
		OK: []apidoc.Answer{
			{Status: 200, Description: "Stored: the target, without its credentials.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.AlertTargetView]()}}},
		},
		Problems: opAlertPutProblems,
	}},
	{api: (*Server).deleteAlertTarget, Operation: apidoc.Operation{
		Method: "DELETE", Path: "/v1/alerts/targets/{target}", ID: "deleteAlertTarget",
		Summary:     "Delete an alert target",
		Description: "A target a rule names is not deleted (422 naming the rule's targets member).",
		Params: []apidoc.Param{
			{Name: "target", In: "path", Required: true, Description: "The target.", Schema: apidoc.Obj{"type": "string"}},
		},
		OK: []apidoc.Answer{
			{Status: 204, Description: "Deleted."},
		},
		Problems: append(opAlertDeleteProblems[:len(opAlertDeleteProblems):len(opAlertDeleteProblems)],
			apidoc.Problem{Status: 422, Description: "A rule names the target; errors names it."}),
	}},
	{api: (*Server).postRun, Operation: apidoc.Operation{
		Method: "POST", Path: "/v1/agents/{agent_id}/runs", ID: "postRun",
		Summary:     "Run an agent for an AG-UI client (HttpAgent), streamed as AG-UI events",
		Description: "The body is AG-UI 1.0's RunAgentInput. The answer is a Server-Sent Events stream of AG-UI events: RUN_STARTED, STEP_STARTED/STEP_FINISHED per graph node, TEXT_MESSAGE_START/CONTENT/END, CUSTOM user_error notices, then RUN_FINISHED or RUN_ERROR (the fault's code, with retryable, retry_after and the other facets in metadata), always last. A request that is not a run is a problem before the stream starts, as is a runId the tenant used already (409). The client going away cancels the run. The service shutting down cancels it too, at once: the stream ends with RUN_ERROR SERVICE_UNAVAILABLE (retryable, metadata.retry_after 5, details.reason shutting_down), or a CAP stream with its error packet. The run is recorded before the stream starts and its outcome once it ends: GET /v1/runs/{run_id}, and a `run` event on GET /v1/events.",
		Params: []apidoc.Param{
			{Name: "agent_id", In: "path", Required: true, Description: "The agent (see the agents file; the default is echo).", Schema: apidoc.Ref("Identifier")},
		},
		Body: &apidoc.Media{ContentType: "application/json", Schema: apidoc.Obj{
			"type":        "object",
			"description": "AG-UI RunAgentInput",
			"required":    apidoc.List{"threadId", "runId", "messages"},
			"properties": apidoc.Obj{
				"threadId": apidoc.Obj{
					"type": "string",
				},
				"runId": apidoc.Obj{
					"type": "string",
				},
				"parentRunId": apidoc.Obj{
					"type": "string",
				},
				"messages": apidoc.Obj{
					"type":        "array",
					"description": "AG-UI messages (id, role, content, …).",
					"items":       apidoc.AnyObject,
				},
				"tools": apidoc.Obj{
					"type":        "array",
					"description": "The tools the frontend offers (name, description, parameters).",
					"items":       apidoc.AnyObject,
				},
				"context": apidoc.Obj{
					"type":        "array",
					"description": "AG-UI context entries (description, value).",
					"items":       apidoc.AnyObject,
				},
				"state":          apidoc.Obj{"description": "The agent's state: any JSON value."},
				"forwardedProps": apidoc.Obj{"description": "Any JSON value, passed on."},
			},
		}},
		OK: []apidoc.Answer{
			{Status: 200, Description: "The run, as AG-UI events over SSE.", Content: []apidoc.Media{{ContentType: "text/event-stream", Schema: apidoc.Obj{
				"type": "string",
			}}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "Not a RunAgentInput: malformed JSON, or invalid members (errors lists each by path); a runId or threadId holding a NUL character."},
			opNoKey,
			opWrongKey,
			{Status: 404, Description: "No agent has this id (CAPABILITY_NOT_FOUND)."},
			opBodyTimeout,
			{Status: 409, Description: "The runId is already the id of a run of this tenant, running or ended (INVALID_REQUEST, not retryable: send a new runId; details.runId)."},
			{Status: 413, Description: "The body is over the limit."},
			{Status: 415, Description: "The body is not JSON."},
			{Status: 429, Description: "The tenant's rate limit or share of requests in progress."},
			{Status: 503, Description: "The service is busy, is shutting down (details.reason shutting_down, Retry-After: 5), or the storage failed before the run started (SERVICE_UNAVAILABLE, with Retry-After)."},
		},
	}},
	{api: (*Server).listRuns, Operation: apidoc.Operation{
		Method: "GET", Path: "/v1/runs", ID: "listRuns",
		Summary:     "List AG-UI agent runs",
		Description: "The tenant's run records (POST /v1/agents/{agent_id}/runs), the latest started first, as GET /v1/runs/{run_id} returns each. Kept 7 days after the run started (store.Retention.Runs).",
		Params: []apidoc.Param{
			{Name: "agent_id", In: "query", Description: "Only this agent's runs.", Schema: apidoc.Ref("Identifier")},
			{Name: "outcome", In: "query", Description: "Only the runs that ended so (running: not ended).", Schema: apidoc.Obj{
				"type": "string",
				"enum": apidoc.List{"running", "finished", "failed", "disconnected", "shutdown"},
			}},
			{Name: "code", In: "query", Description: "Only the failed runs whose fault has this code.", Schema: apidoc.Ref("Identifier")},
			{Name: "since", In: "query", Description: "Only runs started at or after this time.", Schema: apidoc.Obj{
				"type":   "string",
				"format": "date-time",
			}},
			opLimit,
			opCursor,
		},
		OK: []apidoc.Answer{
			{Status: 200, Description: "A page of run records, the latest started first.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.RunPage]()}}},
		},
		Problems: opListProblems,
	}},
	{api: (*Server).getRun, Operation: apidoc.Operation{
		Method: "GET", Path: "/v1/runs/{run_id}", ID: "getRun",
		Summary:     "An AG-UI agent run's record",
		Description: "The tenant's record of the run with this runId (POST /v1/agents/{agent_id}/runs): its thread and agent, when it started and finished, its outcome and, for a failed run, its fault. Kept 7 days after the run started (store.Retention.Runs).",
		Params: []apidoc.Param{
			{Name: "run_id", In: "path", Required: true, Description: "The RunAgentInput's runId.", Schema: apidoc.Obj{
				"type": "string",
			}},
		},
		OK: []apidoc.Answer{
			{Status: 200, Description: "The run's record.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.Run]()}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "The query string is malformed (INVALID_REQUEST)."},
			opNoKey,
			opWrongKey,
			{Status: 404, Description: "No such run for this tenant: never started, expired, or another tenant's (NOT_FOUND)."},
			opRateLimited,
			opBusy,
		},
	}},
	{api: (*Server).listSessions, Operation: apidoc.Operation{
		Method: "GET", Path: "/v1/sessions", ID: "listSessions",
		Summary:     "List MCP sessions",
		Description: "The tenant's records of the MCP sessions opened at /mcp, the latest opened first, as GET /v1/sessions/{session_id} returns each. Kept 7 days after the session opened (store.Retention.Sessions).",
		Params: []apidoc.Param{
			{Name: "outcome", In: "query", Description: "Only the sessions that ended so (open: not ended).", Schema: apidoc.Obj{
				"type": "string",
				"enum": apidoc.List{"open", "closed", "expired", "evicted", "shutdown"},
			}},
			{Name: "since", In: "query", Description: "Only sessions opened at or after this time.", Schema: apidoc.Obj{
				"type":   "string",
				"format": "date-time",
			}},
			opLimit,
			opCursor,
		},
		OK: []apidoc.Answer{
			{Status: 200, Description: "A page of MCP session records, the latest opened first.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.MCPSessionPage]()}}},
		},
		Problems: opListProblems,
	}},
	{api: (*Server).getSession, Operation: apidoc.Operation{
		Method: "GET", Path: "/v1/sessions/{session_id}", ID: "getSession",
		Summary:     "An MCP session's record",
		Description: "The tenant's record of the MCP session with this Mcp-Session-Id: its client (initialize's clientInfo), protocol version, when it opened and ended, how it ended (closed by its client's DELETE, expired after 30 minutes unused, evicted to make room for another of the tenant's, or shutdown), and its tool calls and failed ones, written with its end (an open session's are those the answering instance counted so far, when it holds the session). GET /v1/errors?session_id= lists the records its failed calls became. Kept 7 days after the session opened (store.Retention.Sessions).",
		Params: []apidoc.Param{
			{Name: "session_id", In: "path", Required: true, Description: "The session's Mcp-Session-Id.", Schema: apidoc.Obj{
				"type": "string",
			}},
		},
		OK: []apidoc.Answer{
			{Status: 200, Description: "The session's record.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Of[triage.MCPSession]()}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "The query string is malformed (INVALID_REQUEST)."},
			opNoKey,
			opWrongKey,
			{Status: 404, Description: "No such MCP session for this tenant: never recorded, expired, or another tenant's (NOT_FOUND)."},
			opRateLimited,
			opBusy,
		},
	}},
	{h: (*Server).healthz, Operation: apidoc.Operation{
		Method: "GET", Path: "/healthz", ID: "healthz",
		Summary: "Liveness",
		OK: []apidoc.Answer{
			{Status: 200, Description: "The process serves: {\"status\":\"ok\"}.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Ref("Status")}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "The query string is malformed (INVALID_REQUEST)."},
		},
	}},
	{h: (*Server).readyz, Operation: apidoc.Operation{
		Method: "GET", Path: "/readyz", ID: "readyz",
		Summary: "Readiness: a report can be committed now",
		OK: []apidoc.Answer{
			{Status: 200, Description: "Ready: {\"status\":\"ready\"}.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.Ref("Status")}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "The query string is malformed (INVALID_REQUEST)."},
			{Status: 503, Description: "The storage cannot commit a report now, or an ingress is down (SERVICE_UNAVAILABLE); details.reason says why: unreachable, disk_full, read_only, io_error, corrupt or write_failed; nats_down while the NATS ingress (serve --nats) is down."},
		},
	}},
	{h: (*Server).metricsHandler, Operation: apidoc.Operation{
		Method: "GET", Path: "/metrics", ID: "metrics",
		Summary:     "Prometheus metrics",
		Description: "Open without a key unless API keys and an operator key (TRIAGE_OPERATOR_KEY) are set: then the operator key, as the password of HTTP Basic authentication, a Bearer token or X-API-Key; a tenant's key does not open it. With API keys and no operator key, the reporting agents are all counted as \"(other)\".",
		Security:    apidoc.List{apidoc.Obj{}, apidoc.Obj{"bearer": apidoc.List{}}, apidoc.Obj{"apiKey": apidoc.List{}}},
		OK: []apidoc.Answer{
			{Status: 200, Description: "The text exposition format.", Content: []apidoc.Media{{ContentType: "text/plain", Schema: apidoc.Obj{
				"type": "string",
			}}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "The query string is malformed (INVALID_REQUEST)."},
			{Status: 401, Description: "API keys and an operator key are set, and the request has no key (TENANT_REQUIRED)."},
			{Status: 403, Description: "The key is not the operator key (TENANT_UNAUTHORIZED)."},
			{Status: 429, Description: "Too many failed authentications from this address (RATE_LIMITED)."},
		},
	}},
	{h: (*Server).openAPI, Operation: apidoc.Operation{
		Method: "GET", Path: "/openapi.json", ID: "openapi",
		Summary: "This document",
		OK: []apidoc.Answer{
			{Status: 200, Description: "OpenAPI 3.1: this document.", Content: []apidoc.Media{{ContentType: "application/json", Schema: apidoc.AnyObject}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "The query string is malformed (INVALID_REQUEST)."},
		},
	}},
	{h: (*Server).problemTypes, Operation: apidoc.Operation{
		Method: "GET", Path: "/errors", ID: "problemTypes",
		Summary: "The problem types: every code of the taxonomy",
		OK: []apidoc.Answer{
			{Status: 200, Description: "HTML, or JSON when Accept prefers application/json.", Content: []apidoc.Media{{ContentType: "text/html", Schema: apidoc.Obj{
				"type": "string",
			}}, {ContentType: "application/json", Schema: apidoc.Obj{
				"type":  "array",
				"items": apidoc.Ref("ProblemType"),
			}}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "The query string is malformed (INVALID_REQUEST)."},
		},
	}},
	{h: (*Server).problemType, Operation: apidoc.Operation{
		Method: "GET", Path: "/errors/{type}", ID: "problemType",
		Summary: "One problem type's page: what a problem's type URI resolves to",
		Params: []apidoc.Param{
			{Name: "type", In: "path", Required: true, Description: "The last segment of the type, as in /errors/rate-limited.", Schema: apidoc.Obj{
				"type": "string",
			}},
		},
		OK: []apidoc.Answer{
			{Status: 200, Description: "HTML, or JSON when Accept prefers application/json.", Content: []apidoc.Media{{ContentType: "text/html", Schema: apidoc.Obj{
				"type": "string",
			}}, {ContentType: "application/json", Schema: apidoc.Ref("ProblemType")}}},
		},
		Problems: []apidoc.Problem{
			{Status: 400, Description: "The query string is malformed (INVALID_REQUEST)."},
			{Status: 404, Description: "No such problem type (NOT_FOUND)."},
		},
	}},
}
