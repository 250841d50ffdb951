package main

import (
	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// operations are the API's operations, in the order of the server's route
// table: the one description of its paths.
var operations = []operation{
	{
		method: "POST", path: "/v1/errors", id: "reportError",
		summary: "Report an error",
		params: []param{
			{name: "Idempotency-Key", in: "header", description: "draft-ietf-httpapi-idempotency-key-header: a repeat with the same key and body returns the stored response; another body is a 422; a repeat while the first is in flight is a 409.", schema: obj{
				"type":      "string",
				"minLength": 1,
				"maxLength": 255,
			}},
		},
		body: &media{"application/json", of[triage.Report]()},
		ok: []answer{
			{status: 200, description: "A duplicate delivery: the feedback given before (duplicate: true); nothing re-executed.", content: []media{{"application/json", of[triage.Feedback]()}}},
			{status: 201, description: "A new error: its feedback. The record is committed, and the jobs its actions enqueued (retries, escalations) with it, in the same transaction.", content: []media{{"application/json", of[triage.Feedback]()}}},
		},
		problems: []problem{
			{status: 400, description: "Malformed JSON (INVALID_REQUEST)."},
			noKey,
			wrongKey,
			bodyTimeout,
			{status: 409, description: "The same report, or the same Idempotency-Key, is still being handled (SESSION_BUSY); retry after Retry-After."},
			{status: 413, description: "The body is over the limit (PAYLOAD_TOO_LARGE)."},
			{status: 415, description: "The body is not JSON (INVALID_REQUEST)."},
			{status: 422, description: "An invalid report (INVALID_REQUEST); errors lists every field error, a string that is not Unicode text (not UTF-8, or an escaped UTF-16 surrogate without its pair) among them, by its path."},
			rateLimited,
			busy,
		},
	},
	{
		method: "GET", path: "/v1/errors", id: "listErrors",
		summary: "List error records (summaries)",
		params: []param{
			{name: "query_id", in: "query", description: "Only this query's errors.", schema: ref("Identifier")},
			{name: "agent_id", in: "query", description: "Only this agent's errors.", schema: ref("Identifier")},
			{name: "error_type", in: "query", description: "Only this type.", schema: of[triage.ErrorType]()},
			{name: "severity", in: "query", description: "Only this severity.", schema: of[triage.Severity]()},
			{name: "since", in: "query", description: "Only errors last seen at or after this time.", schema: obj{
				"type":   "string",
				"format": "date-time",
			}},
			{name: "limit", in: "query", description: "Page size.", schema: obj{
				"type":    "integer",
				"minimum": 1,
				"maximum": 500,
				"default": 50,
			}},
			{name: "cursor", in: "query", description: "next_cursor of the previous page.", schema: obj{
				"type": "string",
			}},
		},
		ok: []answer{
			{status: 200, description: "A page of record summaries, the most recently first seen first: no report or feedback (GET /v1/errors/{error_id} has them), so a page is a few hundred bytes per record whatever the reports' size.", content: []media{{"application/json", of[triage.Page]()}}},
		},
		problems: []problem{
			{status: 400, description: "An invalid filter or cursor; errors lists every parameter."},
			noKey,
			wrongKey,
			rateLimited,
			busy,
		},
	},
	{
		method: "GET", path: "/v1/errors/{error_id}", id: "getError",
		summary: "An error record",
		params: []param{
			{name: "error_id", in: "path", required: true, schema: obj{
				"type": "string",
			}},
		},
		ok: []answer{
			{status: 200, description: "The record: its latest report and feedback, its latest occurrences (the latest received first, at most 20, and no more than fit in 4 MiB of documents with the record's own, but always one; occurrences_next_cursor continues on /v1/errors/{error_id}/occurrences) and its latest 20 jobs with their attempts (more_jobs when there are older ones).", content: []media{{"application/json", of[triage.Record]()}}},
		},
		problems: []problem{
			{status: 400, description: "The query string is malformed (INVALID_REQUEST)."},
			noKey,
			wrongKey,
			{status: 404, description: "No such error for this tenant (NOT_FOUND)."},
			rateLimited,
			busy,
		},
	},
	{
		method: "GET", path: "/v1/errors/{error_id}/occurrences", id: "listOccurrences",
		summary: "A page of an error record's occurrences",
		params: []param{
			{name: "error_id", in: "path", required: true, schema: obj{
				"type": "string",
			}},
			{name: "limit", in: "query", description: "Page size; a page also ends before the occurrence that would take its documents past 4 MiB (but has at least one).", schema: obj{
				"type":    "integer",
				"minimum": 1,
				"maximum": 100,
				"default": 20,
			}},
			{name: "cursor", in: "query", description: "next_cursor of the previous page, or the record's occurrences_next_cursor.", schema: obj{
				"type": "string",
			}},
		},
		ok: []answer{
			{status: 200, description: "Occurrences, the latest received first, each with its report, feedback and actions.", content: []media{{"application/json", of[triage.OccurrencePage]()}}},
		},
		problems: []problem{
			{status: 400, description: "An invalid filter or cursor; errors lists every parameter."},
			noKey,
			wrongKey,
			{status: 404, description: "No such error for this tenant (NOT_FOUND)."},
			rateLimited,
			busy,
		},
	},
	{
		method: "GET", path: "/v1/events", id: "streamEvents",
		summary:     "Server-Sent Events of each new feedback",
		description: "One `feedback` event per new feedback of the tenant, saved by any instance sharing the store, in the order they were committed (data: the Feedback JSON; id: its position in the stream, an integer that grows: on SQLite the occurrence's ID, on PostgreSQL the ID of the transaction that saved it); a keep-alive comment every 15 s; a `shutdown` event when the service stops, after which the stream ends. A client that reconnects with `Last-Event-ID` is first sent the feedback saved since that event, at most 1,000 events; when it missed more, a `truncated` event (id: the position the stream goes on after) and the stream goes on from there: catch up with `GET /v1/errors?since=`. On PostgreSQL an event waits until the write transactions that began before it have ended (see docs/service.md). Besides, a `run` event (data: the Run record, as GET /v1/runs/{run_id} returns it) for each AG-UI run of the tenant that ends while the stream is open, on any instance sharing the store, in the order they ended: live only, without an id, never replayed after Last-Event-ID.",
		params: []param{
			{name: "Last-Event-ID", in: "header", description: "The id of the last event received: the stream replays the feedback saved after it.", schema: obj{
				"type":    "string",
				"pattern": "^[0-9]+$",
			}},
		},
		ok: []answer{
			{status: 200, description: "The event stream.", content: []media{{"text/event-stream", obj{
				"type": "string",
			}}}},
		},
		problems: []problem{
			{status: 400, description: "A Last-Event-ID that is not an event id (INVALID_REQUEST)."},
			noKey,
			wrongKey,
			rateLimited,
			busy,
		},
	},
	{
		method: "PUT", path: "/v1/schemas/{source}", id: "putSchema",
		summary: "Set a data source's schema inventory (for map_synonym)",
		params: []param{
			{name: "source", in: "path", required: true, description: "The data source (the report context's source).", schema: ref("Identifier")},
		},
		body: &media{"application/json", of[triage.SchemaInfo]()},
		ok: []answer{
			{status: 200, description: "Stored.", content: []media{{"application/json", of[schemaStored]()}}},
		},
		problems: putProblems,
	},
	{
		method: "PUT", path: "/v1/cache/{query_id}", id: "putCached",
		summary: "Store a query's last good result (for use_cache)",
		params: []param{
			{name: "query_id", in: "path", required: true, description: "The query.", schema: ref("Identifier")},
		},
		body: &media{"application/json", of[triage.CachedResult]()},
		ok: []answer{
			{status: 200, description: "Stored.", content: []media{{"application/json", of[cachedStored]()}}},
		},
		problems: putProblems,
	},
	{
		method: "GET", path: "/v1/agents", id: "listAgents",
		summary:     "The agents AG-UI runs and /mcp serve",
		description: "The agent registry (--agents FILE, or the default one script agent, echo), in its order: the agents POST /v1/agents/{agent_id}/runs runs and /mcp delegates to. Empty when the service runs no agents. Takes no query parameters. Not the pipeline agents of PUT /v1/callbacks/{agent_id}, which report errors.",
		ok: []answer{
			{status: 200, description: "The registry.", content: []media{{"application/json", of[agentList]()}}},
		},
		problems: []problem{
			{status: 400, description: "A query parameter, or a malformed query string (INVALID_REQUEST)."},
			noKey,
			wrongKey,
			rateLimited,
			busy,
		},
	},
	{
		method: "PUT", path: "/v1/callbacks/{agent_id}", id: "putCallback",
		summary:     "Register a pipeline agent's retry callback URL",
		description: "Where the retries the handler plans for the agent's queries are POSTed (a retry job's JSON) when they are due. A pipeline agent reports errors; it is not an agent of the registry (GET /v1/agents).",
		params: []param{
			{name: "agent_id", in: "path", required: true, description: "The agent.", schema: ref("Identifier")},
		},
		body: &media{"application/json", of[callback]()},
		ok: []answer{
			{status: 200, description: "Stored: the agent's callback.", content: []media{{"application/json", of[store.Agent]()}}},
		},
		problems: putProblems,
	},
	{
		method: "PUT", path: "/v1/agents/{agent_id}", id: "putAgentCallback",
		summary:     "Register a pipeline agent's retry callback URL (deprecated)",
		description: "Deprecated: PUT /v1/callbacks/{agent_id} does the same; this path stays as its alias. /v1/agents is the agent registry (GET /v1/agents, POST /v1/agents/{agent_id}/runs); a pipeline agent's callback is another noun. The answer carries Deprecation (RFC 9745) and a Link to its successor-version.",
		deprecated:  true,
		params: []param{
			{name: "agent_id", in: "path", required: true, description: "The agent.", schema: ref("Identifier")},
		},
		body: &media{"application/json", of[callback]()},
		ok: []answer{
			{status: 200, description: "Stored: the agent's callback, with the Deprecation and Link headers.", content: []media{{"application/json", of[store.Agent]()}},
				headers: obj{
					"Deprecation": obj{"description": "When the path was deprecated (RFC 9745): @1796169600, 2026-12-02.", "schema": obj{"type": "string"}},
					"Link":        obj{"description": "The path to use instead: </v1/callbacks/{agent_id}>; rel=\"successor-version\".", "schema": obj{"type": "string"}},
				}},
		},
		problems: putProblems,
	},
	{
		method: "POST", path: "/v1/agents/{agent_id}/runs", id: "postRun",
		summary:     "Run an agent for an AG-UI client (HttpAgent), streamed as AG-UI events",
		description: "The body is AG-UI 1.0's RunAgentInput. The answer is a Server-Sent Events stream of AG-UI events: RUN_STARTED, STEP_STARTED/STEP_FINISHED per graph node, TEXT_MESSAGE_START/CONTENT/END, CUSTOM user_error notices, then RUN_FINISHED or RUN_ERROR (the fault's code, with retryable, retry_after and the other facets in metadata), always last. A request that is not a run is a problem before the stream starts, as is a runId the tenant used already (409). The client going away cancels the run. The service shutting down cancels it too, at once: the stream ends with RUN_ERROR SERVICE_UNAVAILABLE (retryable, metadata.retry_after 5, details.reason shutting_down), or a CAP stream with its error packet. The run is recorded before the stream starts and its outcome once it ends: GET /v1/runs/{run_id}, and a `run` event on GET /v1/events.",
		params: []param{
			{name: "agent_id", in: "path", required: true, description: "The agent (see the agents file; the default is echo).", schema: ref("Identifier")},
		},
		body: &media{"application/json", obj{
			"type":        "object",
			"description": "AG-UI RunAgentInput",
			"required":    list{"threadId", "runId", "messages"},
			"properties": obj{
				"threadId": obj{
					"type": "string",
				},
				"runId": obj{
					"type": "string",
				},
				"parentRunId": obj{
					"type": "string",
				},
				"messages": obj{
					"type":        "array",
					"description": "AG-UI messages (id, role, content, …).",
					"items":       anyObject,
				},
				"tools": obj{
					"type":        "array",
					"description": "The tools the frontend offers (name, description, parameters).",
					"items":       anyObject,
				},
				"context": obj{
					"type":        "array",
					"description": "AG-UI context entries (description, value).",
					"items":       anyObject,
				},
				"state":          obj{"description": "The agent's state: any JSON value."},
				"forwardedProps": obj{"description": "Any JSON value, passed on."},
			},
		}},
		ok: []answer{
			{status: 200, description: "The run, as AG-UI events over SSE.", content: []media{{"text/event-stream", obj{
				"type": "string",
			}}}},
		},
		problems: []problem{
			{status: 400, description: "Not a RunAgentInput: malformed JSON, or invalid members (errors lists each by path); a runId or threadId holding a NUL character."},
			noKey,
			wrongKey,
			{status: 404, description: "No agent has this id (CAPABILITY_NOT_FOUND)."},
			bodyTimeout,
			{status: 409, description: "The runId is already the id of a run of this tenant, running or ended (INVALID_REQUEST, not retryable: send a new runId; details.runId)."},
			{status: 413, description: "The body is over the limit."},
			{status: 415, description: "The body is not JSON."},
			{status: 429, description: "The tenant's rate limit or share of requests in progress."},
			{status: 503, description: "The service is busy, is shutting down (details.reason shutting_down, Retry-After: 5), or the storage failed before the run started (SERVICE_UNAVAILABLE, with Retry-After)."},
		},
	},
	{
		method: "GET", path: "/v1/runs/{run_id}", id: "getRun",
		summary:     "An AG-UI agent run's record",
		description: "The tenant's record of the run with this runId (POST /v1/agents/{agent_id}/runs): its thread and agent, when it started and finished, its outcome and, for a failed run, its fault. Kept 7 days after the run started (store.Retention.Runs).",
		params: []param{
			{name: "run_id", in: "path", required: true, description: "The RunAgentInput's runId.", schema: obj{
				"type": "string",
			}},
		},
		ok: []answer{
			{status: 200, description: "The run's record.", content: []media{{"application/json", of[triage.Run]()}}},
		},
		problems: []problem{
			{status: 400, description: "The query string is malformed (INVALID_REQUEST)."},
			noKey,
			wrongKey,
			{status: 404, description: "No such run for this tenant: never started, expired, or another tenant's (NOT_FOUND)."},
			rateLimited,
			busy,
		},
	},
	{
		method: "GET", path: "/healthz", id: "healthz",
		summary: "Liveness",
		public:  true,
		ok: []answer{
			{status: 200, description: "The process serves: {\"status\":\"ok\"}.", content: []media{{"application/json", of[status]()}}},
		},
		problems: []problem{
			{status: 400, description: "The query string is malformed (INVALID_REQUEST)."},
		},
	},
	{
		method: "GET", path: "/readyz", id: "readyz",
		summary: "Readiness: a report can be committed now",
		public:  true,
		ok: []answer{
			{status: 200, description: "Ready: {\"status\":\"ready\"}.", content: []media{{"application/json", of[status]()}}},
		},
		problems: []problem{
			{status: 400, description: "The query string is malformed (INVALID_REQUEST)."},
			{status: 503, description: "The storage cannot commit a report now, or an ingress is down (SERVICE_UNAVAILABLE); details.reason says why: unreachable, disk_full, read_only, io_error, corrupt or write_failed; nats_down while the NATS ingress (serve --nats) is down."},
		},
	},
	{
		method: "GET", path: "/metrics", id: "metrics",
		summary:     "Prometheus metrics",
		description: "Open without a key unless API keys and an operator key (TRIAGE_OPERATOR_KEY) are set: then the operator key, as the password of HTTP Basic authentication, a Bearer token or X-API-Key; a tenant's key does not open it. With API keys and no operator key, the reporting agents are all counted as \"(other)\".",
		security:    list{obj{}, obj{"bearer": list{}}, obj{"apiKey": list{}}},
		ok: []answer{
			{status: 200, description: "The text exposition format.", content: []media{{"text/plain", obj{
				"type": "string",
			}}}},
		},
		problems: []problem{
			{status: 400, description: "The query string is malformed (INVALID_REQUEST)."},
			{status: 401, description: "API keys and an operator key are set, and the request has no key (TENANT_REQUIRED)."},
			{status: 403, description: "The key is not the operator key (TENANT_UNAUTHORIZED)."},
			{status: 429, description: "Too many failed authentications from this address (RATE_LIMITED)."},
		},
	},
	{
		method: "GET", path: "/openapi.json", id: "openapi",
		summary: "This document",
		public:  true,
		ok: []answer{
			{status: 200, description: "OpenAPI 3.1: this document.", content: []media{{"application/json", anyObject}}},
		},
		problems: []problem{
			{status: 400, description: "The query string is malformed (INVALID_REQUEST)."},
		},
	},
	{
		method: "GET", path: "/errors", id: "problemTypes",
		summary: "The problem types: every code of the taxonomy",
		public:  true,
		ok: []answer{
			{status: 200, description: "HTML, or JSON when Accept prefers application/json.", content: []media{{"text/html", obj{
				"type": "string",
			}}, {"application/json", obj{
				"type":  "array",
				"items": of[problemType](),
			}}}},
		},
		problems: []problem{
			{status: 400, description: "The query string is malformed (INVALID_REQUEST)."},
		},
	},
	{
		method: "GET", path: "/errors/{type}", id: "problemType",
		summary: "One problem type's page: what a problem's type URI resolves to",
		public:  true,
		params: []param{
			{name: "type", in: "path", required: true, description: "The last segment of the type, as in /errors/rate-limited.", schema: obj{
				"type": "string",
			}},
		},
		ok: []answer{
			{status: 200, description: "HTML, or JSON when Accept prefers application/json.", content: []media{{"text/html", obj{
				"type": "string",
			}}, {"application/json", of[problemType]()}}},
		},
		problems: []problem{
			{status: 400, description: "The query string is malformed (INVALID_REQUEST)."},
			{status: 404, description: "No such problem type (NOT_FOUND)."},
		},
	},
}

// mcpOperations are /mcp's: the MCP bridge over streamable HTTP (MCP
// 2025-06-18), served when the service runs agents.
var mcpOperations = []operation{
	{
		method: "POST", path: "/mcp", id: "mcpPost",
		summary:     "Send MCP messages (streamable HTTP)",
		description: "The MCP bridge's tools (seed 002) over the streamable HTTP transport of MCP 2025-06-18, behind the API keys: a JSON-RPC 2.0 request, notification or response, or a batch of them where the session's protocol version has batches (at most MCPMaxBatch messages, each counted against the tenant's rate limit). Begin with an initialize request without Mcp-Session-Id; its answer's Mcp-Session-Id header names the session for every later request. A request is answered with one JSON-RPC response (application/json) or an SSE stream (text/event-stream) of the server's messages that ends with it, as the Accept header allows; notifications and responses alone are accepted with 202. A tool's failure is a result with isError and the fault; a malformed message is a JSON-RPC error (-32700 … -32603). See docs/service.md.",
		params:      mcpParams,
		body:        &media{"application/json", obj{"oneOf": list{ref("JSONRPCMessage"), obj{"type": "array", "items": ref("JSONRPCMessage")}}}},
		ok: []answer{
			{status: 200, description: "The JSON-RPC response(s) to the request(s), as JSON or as an SSE stream of JSON-RPC messages (data: one message per event; id: its position, for Last-Event-ID).", content: []media{
				{"application/json", obj{"oneOf": list{ref("JSONRPCResponse"), obj{"type": "array", "items": ref("JSONRPCResponse")}}}},
				{"text/event-stream", obj{"type": "string"}},
			}},
			{status: 202, description: "Notifications or responses only: accepted, no body.", content: nil},
		},
		problems: []problem{
			{status: 400, description: "Malformed JSON, an invalid message, ids the transport would alter, or a batch where the session has none or over the bound: a JSON-RPC error response with id null (application/json), or a problem (INVALID_REQUEST).", rpc: true},
			noKey,
			{status: 403, description: "A wrong API key (TENANT_UNAUTHORIZED), a browser's request from another origin, or a Host that is not the loopback address the request came to (INVALID_REQUEST)."},
			{status: 404, description: "No such session for this tenant: it expired, was closed or never existed (SESSION_NOT_FOUND); initialize a new one."},
			{status: 406, description: "The Accept header allows neither application/json nor text/event-stream (INVALID_REQUEST)."},
			bodyTimeout,
			{status: 413, description: "The body is over the /mcp limit (PAYLOAD_TOO_LARGE)."},
			{status: 415, description: "The body is not JSON (INVALID_REQUEST)."},
			rateLimited,
			busy,
		},
	},
	{
		method: "GET", path: "/mcp", id: "mcpStream",
		summary:     "Listen to an MCP session (streamable HTTP)",
		description: "The session's stream of server-initiated messages (SSE: data is a JSON-RPC message), or, with Last-Event-ID, the resumption of a stream that broke, within the event store's bounds.",
		params:      append(mcpParams, param{name: "Last-Event-ID", in: "header", description: "The id of the last event received: the stream resumes after it.", schema: obj{"type": "string"}}),
		ok: []answer{
			{status: 200, description: "An SSE stream of JSON-RPC messages.", content: []media{{"text/event-stream", obj{"type": "string"}}}},
		},
		problems: []problem{
			{status: 400, description: "No Mcp-Session-Id, or an event id the session did not send (INVALID_REQUEST)."},
			noKey,
			{status: 403, description: "A wrong API key (TENANT_UNAUTHORIZED), or a browser's request from another origin (INVALID_REQUEST)."},
			{status: 404, description: "No such session for this tenant (SESSION_NOT_FOUND)."},
			{status: 405, description: "The transport serves no stream here (INVALID_REQUEST)."},
			{status: 406, description: "The Accept header does not allow text/event-stream (INVALID_REQUEST)."},
			{status: 409, description: "Another request is reading this stream now (SESSION_BUSY); retry after Retry-After."},
			rateLimited,
			busy,
		},
	},
	{
		method: "DELETE", path: "/mcp", id: "mcpClose",
		summary: "Close an MCP session",
		params:  mcpParams,
		ok: []answer{
			{status: 204, description: "The session is closed."},
		},
		problems: []problem{
			{status: 400, description: "No Mcp-Session-Id (INVALID_REQUEST)."},
			noKey,
			{status: 403, description: "A wrong API key (TENANT_UNAUTHORIZED), or a browser's request from another origin (INVALID_REQUEST)."},
			{status: 404, description: "No such session for this tenant (SESSION_NOT_FOUND)."},
			rateLimited,
			busy,
		},
	},
}

// The problems every authenticated route shares.
var (
	noKey       = problem{status: 401, description: "No API key (TENANT_REQUIRED)."}
	wrongKey    = problem{status: 403, description: "A wrong API key (TENANT_UNAUTHORIZED)."}
	bodyTimeout = problem{status: 408, shared: "BodyTimeout"}
	rateLimited = problem{status: 429, shared: "RateLimited"}
	busy        = problem{status: 503, shared: "Busy"}
)

// putProblems are the problems of a PUT of one JSON document.
var putProblems = []problem{
	{status: 400, description: "Malformed JSON or an invalid path parameter."},
	noKey,
	wrongKey,
	bodyTimeout,
	{status: 413, description: "The body is over the limit."},
	{status: 415, description: "The body is not JSON."},
	{status: 422, description: "The document is invalid; errors lists every field."},
	rateLimited,
	busy,
}

// mcpParams are the headers of every /mcp request.
var mcpParams = []param{
	{name: "Mcp-Session-Id", in: "header", description: "The session, from the initialize response's Mcp-Session-Id header; absent on initialize.", schema: obj{"type": "string"}},
	{name: "MCP-Protocol-Version", in: "header", description: "The protocol version the session negotiated (2025-06-18, say); when absent or another supported one, the session's is used.", schema: obj{"type": "string"}},
}
