package main

import (
	"encoding/json"
	"reflect"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

var info = obj{
	"title":       "Triage Error Handler",
	"version":     "1",
	"description": "Pipeline agents POST their errors; the service validates, classifies, finds the root cause, runs recovery and answers with an actionable message and a next_action. Every error response is application/problem+json (RFC 9457) with a Triage code. See docs/service.md. This document is generated (go generate ./server) from the Go types of the API.",
	"license":     obj{"name": "Apache-2.0", "identifier": "Apache-2.0"},
}

var securitySchemes = obj{
	"bearer": obj{"type": "http", "scheme": "bearer"},
	"apiKey": obj{"type": "apiKey", "in": "header", "name": "X-API-Key"},
}

// responses are the components' responses: the problems every API route
// may answer.
func (g *generator) responses() obj {
	integer, text := obj{"schema": obj{"type": "integer"}}, obj{"schema": obj{"type": "string"}}
	problemContent := obj{"application/problem+json": obj{"schema": ref("Problem")}}
	return obj{
		"RateLimited": obj{
			"description": "Too many requests (RATE_LIMITED), with Retry-After: the tenant's rate limit (with the RateLimit header fields), the tenant's share of the requests in progress (details.max_in_progress), the event streams it holds open (details.max_streams, on /v1/events), or, instead of a 401 or 403, the failed authentications of the client's address.",
			"headers":     obj{"Retry-After": integer, "RateLimit": text, "RateLimit-Policy": text},
			"content":     problemContent,
		},
		"Busy": obj{
			"description": "Too many requests in progress (SERVICE_UNAVAILABLE), with Retry-After.",
			"headers":     obj{"Retry-After": integer},
			"content":     problemContent,
		},
		"BodyTimeout": obj{
			"description": "The request body did not arrive in time (TIMEOUT): not within the body timeout after the headers, or more slowly than the minimum rate. Nothing was handled; retry. The connection is closed.",
			"headers":     obj{"Retry-After": integer},
			"content":     problemContent,
		},
	}
}

// typeSchemas are the schemas of Go types whose JSON is not what
// jsonschema.For infers from their fields.
var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[time.Time](): {Type: "string", Format: "date-time"},
	// A document kept as the service saved it: each field that is one
	// says what it holds (a patch).
	reflect.TypeFor[json.RawMessage](): {},
	// A fault's JSON is its Payload.
	reflect.TypeFor[fault.Error](): {Ref: "#/components/schemas/Fault"},
}

// component is a schema of the components: a Go type's, as jsonschema.For
// infers it with the patches, or schema when it is set.
type component struct {
	name string
	typ  reflect.Type
	// schema, when set, is the component's schema; typ, if set too,
	// refers to it.
	schema obj
	// closed keeps additionalProperties false: a request body the service
	// decodes strictly.
	closed bool
	// patch sets members of the inferred schema, by path (see patch): a
	// nil member is removed.
	patch map[string]obj
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// The shapes the server writes from values of its own (a map, an
// unexported type): their JSON, described once here; the server's tests
// hold its answers to the members these require.
type (
	problemDoc struct {
		Type         string             `json:"type"`
		Title        string             `json:"title"`
		Status       int                `json:"status"`
		Detail       string             `json:"detail"`
		Instance     string             `json:"instance,omitempty"`
		Code         fault.Code         `json:"code"`
		Category     fault.Category     `json:"category"`
		Domain       fault.Domain       `json:"domain"`
		Retryable    bool               `json:"retryable"`
		RetryAfter   int64              `json:"retry_after,omitempty" jsonschema:"Whole seconds before a retry may succeed (the Retry-After header says the same)."`
		SessionValid bool               `json:"session_valid"`
		Details      map[string]any     `json:"details,omitempty" jsonschema:"Safe structured metadata: every dynamic value of the detail, by name."`
		Errors       []fault.FieldError `json:"errors,omitempty" jsonschema:"The field-level validation failures, each by its path."`
		Debug        *fault.Debug       `json:"debug,omitempty" jsonschema:"Only when the service runs in debug mode: the cause's type and text (redacted)."`
	}
	schemaStored struct {
		Source   string            `json:"source"`
		Fields   []string          `json:"fields"`
		Synonyms map[string]string `json:"synonyms"`
	}
	cachedStored struct {
		QueryID string `json:"query_id"`
		triage.CachedResult
	}
	callback struct {
		CallbackURL string `json:"callback_url"`
	}
	agentList struct {
		Agents []agent.Info `json:"agents"`
	}
	problemType struct {
		Type         string             `json:"type"`
		Title        string             `json:"title"`
		Code         fault.Code         `json:"code"`
		Status       int                `json:"status"`
		Category     fault.Category     `json:"category"`
		Domain       fault.Domain       `json:"domain"`
		Retryable    bool               `json:"retryable"`
		SessionValid bool               `json:"session_valid"`
		JSONRPC      int                `json:"jsonrpc_code"`
		Summary      string             `json:"summary"`
		Message      string             `json:"message"`
		StatusCases  []fault.StatusCase `json:"status_cases,omitempty" jsonschema:"The statuses the code carries in particular cases, besides status."`
	}
	// faultInput is a fault as a report may carry it: the code, and any
	// facets (fault.Error's UnmarshalJSON), the others the code's
	// defaults.
	faultInput struct {
		Code         fault.Code         `json:"code"`
		Message      string             `json:"message,omitempty"`
		HTTPStatus   int                `json:"http_status,omitempty"`
		Category     fault.Category     `json:"category,omitempty"`
		Domain       fault.Domain       `json:"domain,omitempty"`
		Retryable    bool               `json:"retryable,omitempty"`
		RetryAfter   float64            `json:"retry_after,omitempty"`
		SessionValid bool               `json:"session_valid,omitempty"`
		Source       string             `json:"source,omitempty"`
		Details      map[string]any     `json:"details,omitempty"`
		Errors       []fault.FieldError `json:"errors,omitempty"`
	}
	// jsonrpcMessage is a JSON-RPC 2.0 message of /mcp: a request (id and
	// method), a notification (method, no id) or a response (id, and
	// result or error).
	jsonrpcMessage struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id,omitempty"`
		Method  string         `json:"method,omitempty"`
		Params  map[string]any `json:"params,omitempty"`
		Result  any            `json:"result,omitempty"`
		Error   *jsonrpcError  `json:"error,omitempty"`
	}
	jsonrpcResponse struct {
		JSONRPC string        `json:"jsonrpc"`
		ID      any           `json:"id"`
		Result  any           `json:"result,omitempty"`
		Error   *jsonrpcError `json:"error,omitempty"`
	}
	jsonrpcError struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data,omitempty" jsonschema:"What the error says besides: for a Triage fault, its type (category), code, retryable, sessionValid, retryAfter, httpStatus, domain, details and errors."`
	}
	// status is what /healthz and /readyz answer.
	status struct {
		Status string `json:"status"`
	}
)

func enumOf[S ~string](values []S) list {
	out := make(list, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

func codes() list {
	var out list
	for _, s := range fault.Codes() {
		out = append(out, string(s.Code))
	}
	return out
}

var components = []component{
	{name: "Identifier", schema: obj{"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"}},
	{name: "ErrorType", typ: typeOf[triage.ErrorType](), schema: obj{"type": "string",
		"enum": append(enumOf(triage.ErrorTypes()), string(triage.Unknown))}},
	{name: "Severity", typ: typeOf[triage.Severity](), schema: obj{"type": "string",
		"enum": list{"low", "medium", "high", "critical"}}},
	{name: "NextAction", typ: typeOf[triage.NextAction](), schema: obj{"type": "string",
		"enum": list{"resume", "await_user", "escalate"}}},
	{name: "Code", typ: typeOf[fault.Code](), schema: obj{"type": "string", "enum": codes(),
		"description": "A Triage error code (see GET /errors and docs/taxonomy.md)."}},
	{name: "Category", typ: typeOf[fault.Category](), schema: obj{"type": "string", "enum": enumOf(fault.Categories())}},
	{name: "Domain", typ: typeOf[fault.Domain](), schema: obj{"type": "string", "enum": enumOf(fault.Domains())}},
	{name: "Report", typ: typeOf[triage.Report](), patch: map[string]obj{
		"agent_id":        ref("Identifier"),
		"status":          {"const": "error"},
		"data.error_code": ref("Identifier"),
		"data.query_id":   ref("Identifier"),
		"data.message":    {"maxLength": 8192},
		"data.context":    {"description": "The agent's state, returned in the feedback. Redacted as it is decoded: members named for credentials, headers, raw requests or responses or stack traces are dropped, and every string is redacted (credentials become [REDACTED], stack traces are cut, strings past 1 KiB truncated)."},
		"data.fault":      ref("FaultInput"),
		"environment": {"maxLength": 64, "pattern": "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$",
			"description": "Where the error happened (production, staging)."},
		"release": {"minLength": 1, "maxLength": 200, "pattern": "^[^\\s/\\\\]+$",
			"description": "The build the error happened in (planner@1.4.0); '.' and '..' are refused."},
		"tags": {"maxProperties": 50, "propertyNames": obj{"maxLength": 32, "pattern": "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,31}$"},
			"additionalProperties": obj{"type": "string", "minLength": 1, "maxLength": 200},
			"description":          "Free labels to search and filter by; values are redacted as the context is."},
	}},
	{name: "Fault", typ: typeOf[fault.Payload](), patch: map[string]obj{
		"":            {"description": "A Triage fault: its code and facets (fault.Payload)."},
		"details":     {"description": "Safe structured metadata: every dynamic value of the message, by name."},
		"retry_after": {"description": "Whole seconds, rounded up."},
		"debug":       {"description": "Only in debug output."},
	}},
	{name: "RootCause", typ: typeOf[triage.RootCause](), patch: map[string]obj{
		"evidence": {"type": list{"array", "null"}},
	}},
	{name: "Feedback", typ: typeOf[triage.Feedback](), patch: map[string]obj{
		"context":     {"description": "The report's context, preserved so that the pipeline can resume."},
		"context_ref": {"description": "A checkpoint of the pipeline, when it has one."},
		"duplicate":   {"description": "True when the report was seen before: the feedback is the one given then, and no action ran again."},
	}},
	{name: "RetryPlan", typ: typeOf[triage.RetryPlan](), patch: map[string]obj{
		"":   {"description": "The retry planned for the query: the attempt it will be, its delay after the report was received, and who makes it. `callback`: the service posts the retry to the agent's callback URL when it is due; `caller`: nothing calls the pipeline back (the agent has no callback URL), it retries itself no sooner than the delay."},
		"by": {"enum": list{string(triage.RetryByCallback), string(triage.RetryByCaller)}},
	}},
	{name: "Outcome", typ: typeOf[triage.Outcome](), patch: map[string]obj{
		"":       {"description": "What one recovery action did."},
		"status": {"enum": list{triage.OutcomeDone, triage.OutcomeSkipped, triage.OutcomeFailed}},
		"data":   {"description": "What the action found, for the record."},
	}},
	{name: "Problem", typ: typeOf[problemDoc](), patch: map[string]obj{
		"": {"description": "RFC 9457 problem details with Triage's members."},
	}},
	{name: "Occurrence", typ: typeOf[triage.Occurrence](), patch: map[string]obj{
		"report":   ref("Report"),
		"feedback": ref("Feedback"),
		"actions":  {"type": "array", "items": ref("Outcome"), "description": "Each recovery action's outcome."},
	}},
	{name: "Job", typ: typeOf[triage.JobRecord](), patch: map[string]obj{
		"":       {"description": "A durable job an occurrence enqueued: a retry posted to the agent's callback URL, or an escalation posted to the ops webhook. Jobs run on River (riverqueue); River deletes completed and cancelled jobs 7 days after they finish and discarded ones after 30 days, and a record lists only the jobs still kept."},
		"id":     {"description": "River's job id."},
		"tenant": {"description": "The tenant the job belongs to: always the caller's own."},
		"kind":   {"enum": list{store.JobRetry, store.JobEscalation}},
		"payload": {"type": "object", "additionalProperties": obj{},
			"description": "What the job posts: a retry's error_id, query_id, agent_id, attempt and at, or an escalation's record."},
		"state": {"enum": list{store.JobAvailable, store.JobScheduled, store.JobPending, store.JobRunning, store.JobRetryable, store.JobCompleted, store.JobCancelled, store.JobDiscarded},
			"description": "River's job state: available (due, waiting for a worker), scheduled (waiting for run_at), pending (not yet ready to be scheduled), running (an attempt is in progress), retryable (an attempt failed; the next one is at run_at), completed (an attempt succeeded), cancelled (an attempt failed for good: a 4xx answer other than 408, 409 and 429, or an agent without a callback URL), discarded (its max_attempts are spent). completed, cancelled and discarded are final."},
		"run_at":       {"description": "When the job is due: its next attempt while it is scheduled or retryable."},
		"attempt":      {"description": "The attempts made so far; while running, the one in progress."},
		"max_attempts": {"description": "At most this many attempts (5 by default); then the job is discarded."},
		"attempts":     {"description": "The failed attempts, by number, then, for a completed job, the one that succeeded. A job moved over from the service's earlier queue (migration 0010) may have made attempts not listed here."},
	}},
	{name: "JobAttempt", typ: typeOf[triage.JobAttempt](), patch: map[string]obj{
		"":            {"description": "One attempt at a job."},
		"attempt":     {"description": "The attempt's number, from 1."},
		"at":          {"description": "When a failed attempt failed, or when the successful one began."},
		"duration_ns": {"description": "How long the successful attempt took, in nanoseconds. Absent for a failed attempt (River does not keep its duration)."},
		"error":       {"description": "Why the attempt failed (secrets redacted). Absent for the successful attempt."},
	}},
	{name: "Record", typ: typeOf[triage.Record](), patch: map[string]obj{
		"":                        {"description": "An error record: its latest report and feedback, the first page of its occurrences and its latest jobs."},
		"report":                  ref("Report"),
		"feedback":                ref("Feedback"),
		"next_action":             {"description": "The latest occurrence's next_action (absent for a record saved before records pointed at their latest occurrence)."},
		"occurrences":             {"description": "The latest received first: at most 20, and no more than fit in 4 MiB of documents with the record's report and feedback, but always one."},
		"occurrences_next_cursor": {"description": "When there are more occurrences: the cursor of GET /v1/errors/{error_id}/occurrences."},
		"jobs":                    {"description": "The latest 20 jobs, by id."},
		"more_jobs":               {"description": "True when the record has older jobs than those listed."},
	}},
	{name: "RecordSummary", typ: typeOf[triage.RecordSummary](), patch: map[string]obj{
		"":            {"description": "What a listing says of an error record: no document."},
		"next_action": {"description": "The latest occurrence's next_action (absent for a record saved before records pointed at their latest occurrence)."},
		"status":      {"description": "As it reads now: an ignored record whose time has passed is unresolved (its ignore condition is kept until its next occurrence wakes it)."},
	}},
	{name: "Page", typ: typeOf[triage.Page]()},
	{name: "RecordStatus", typ: typeOf[triage.Status](), schema: obj{"type": "string", "enum": enumOf(triage.Statuses),
		"description": "unresolved (new, or set back), resolved (fixed: now, in a release, or in the next one), ignored (for good, for a time, until N more occurrences or N within a window), regressed (resolved, and occurred again: set by the service only)."}},
	{name: "Change", typ: typeOf[triage.Change](), closed: true, patch: map[string]obj{
		"":                      {"description": "A change asked of a record: a status (with its resolution or ignore condition), an assignee, or both, with a note kept in its history."},
		"status":                {"enum": list{string(triage.StatusUnresolved), string(triage.StatusResolved), string(triage.StatusIgnored)}, "description": "Absent keeps the status; regressed is the service's to set."},
		"resolution":            {"description": "With status resolved: the release of the fix (in_release), or the next release after the latest the tenant reported (in_next_release; 409 when none was). Absent: fixed now, any later occurrence regresses."},
		"ignore":                {"description": "With status ignored: for seconds (1 to a year), or until count more occurrences (1 to 1,000,000), within window_seconds (60 s to 30 days) when given. Absent: for good."},
		"assignee":              {"maxLength": 200, "description": "Replaces the assignee (\"\" unassigns)."},
		"note":                  {"maxLength": triage.MaxNoteLength},
		"resolution.in_release": {"maxLength": 200},
	}},
	{name: "RecordsChange", typ: typeOf[triage.RecordsChange](), closed: true, patch: map[string]obj{
		"":                 {"description": "One change applied to every record the filter selects.", "required": list{"change", "filter"}},
		"change":           ref("Change"),
		"filter":           {"description": "The listing's filters (GET /v1/errors; status as it reads now), and error_ids. An empty filter selects every record of the tenant."},
		"filter.error_ids": {"maxItems": triage.MaxBulkIDs},
	}},
	{name: "RecordsChanged", typ: typeOf[triage.RecordsChanged]()},
	{name: "TransitionPage", typ: typeOf[triage.TransitionPage]()},
	{name: "OccurrencePage", typ: typeOf[triage.OccurrencePage]()},
	{name: "Schema", typ: typeOf[triage.SchemaInfo](), closed: true, patch: map[string]obj{
		"":         {"required": list{"fields"}},
		"synonyms": {"description": "missing name → one of fields"},
	}},
	{name: "SchemaStored", typ: typeOf[schemaStored](), patch: map[string]obj{
		"": {"required": list{"source", "fields"}},
	}},
	{name: "Cached", typ: typeOf[triage.CachedResult](), closed: true, patch: map[string]obj{
		"":          {"required": nil},
		"summary":   {"maxLength": 1024},
		"stored_at": {"description": "defaults to now"},
		"data":      {"description": "The query's result, as the pipeline keeps it."},
	}},
	{name: "CachedStored", typ: typeOf[cachedStored]()},
	{name: "Callback", typ: typeOf[callback](), closed: true, patch: map[string]obj{
		"callback_url": {"format": "uri", "description": "An absolute http or https URL without credentials, at most 2048 bytes, where the agent's retries are POSTed. When the service has API keys and does not run with --private-callbacks, a host that is localhost or a loopback, private, link-local (169.254.169.254 too), unspecified or multicast IP address is refused (422), and a name resolving to one is refused when the retry connects (the job is cancelled)."},
	}},
	{name: "StoredCallback", typ: typeOf[store.Agent](), patch: map[string]obj{
		"": {"description": "A pipeline agent's callback, as stored (store.Agent)."},
	}},
	{name: "AgentInfo", typ: typeOf[agent.Info](), patch: map[string]obj{
		"":            {"description": "An agent of the registry, as discovery shows it (agent.Info)."},
		"id":          {"description": "The agent_id of POST /v1/agents/{agent_id}/runs."},
		"kind":        {"enum": list{"script", "openai", "anthropic", "gemini", "acp", "team"}},
		"executor":    {"enum": list{agent.ExecutorInProcess, agent.ExecutorWorker}},
		"maxSessions": {"minimum": 0, "description": "How many sessions the agent holds at once."},
		"model":       {"description": "A provider agent's model."},
		"members":     {"description": "A team's agents, in order."},
	}},
	{name: "AgentList", typ: typeOf[agentList]()},
	{name: "ProblemType", typ: typeOf[problemType](), patch: map[string]obj{
		"": {"description": "One problem type of the code table (see docs/taxonomy.md)."},
	}},
	{name: "Run", typ: typeOf[triage.Run](), patch: map[string]obj{
		"":       {"description": "The record of an AG-UI agent run: no prompt, answer or state."},
		"run_id": {"description": "The RunAgentInput's runId: one run per tenant and id."},
		"outcome": {"enum": list{store.RunRunning, store.RunFinished, store.RunFailed, store.RunDisconnected, store.RunShutdown},
			"description": "running: not ended (or its instance stopped before recording the outcome); finished: RUN_FINISHED; failed: RUN_ERROR; disconnected: the client went away or stopped reading; shutdown: the service stopped the run as it shut down, and told its client (RUN_ERROR SERVICE_UNAVAILABLE, retryable)."},
		"finished_at": {"description": "Absent while running."},
		"fault": {"$ref": "#/components/schemas/Fault",
			"description": "A failed run's fault, as RUN_ERROR carried it: code, message, http_status, category, domain, retryable, retry_after, session_valid, details (details.node: the node that failed), errors. Never debug output, even in debug mode."},
		"answer_bytes": {"minimum": 0, "description": "A finished run's answer length, in bytes; 0 otherwise."},
		"error_id":     {"description": "The error record (GET /v1/errors/{error_id}) a failed run's failure became an occurrence of, once recorded (a job does it just after the run ends); absent before, and for a run whose agent opted out (recordFailures: false). The occurrence's report names the run back in data.context.run_id."},
		"events": {"maxItems": store.MaxRunEvents,
			"description": "An outline of the run's AG-UI stream, oldest first, kept with its end: each event's type, time, step, tool or custom name and ids, never its content (no message text, tool arguments or results, state or input). GET /v1/runs/{run_id} only (absent in lists and feed events); absent while running, for a CAP stream, and for a run ended before the service kept them. A long stream keeps its first and last 100."},
		"events_omitted": {"minimum": 0,
			"description": "How many of the stream's events were not kept: all between the first 100 of events and the rest. Absent for none."},
	}},
	{name: "RunEvent", typ: typeOf[triage.RunEvent](), patch: map[string]obj{
		"":               {"description": "One event of a run's AG-UI stream, in outline: what it is and names, never what it carries."},
		"type":           {"description": "The AG-UI event type: RUN_STARTED, STEP_STARTED, TEXT_MESSAGE_CONTENT, TOOL_CALL_START, CUSTOM, RUN_FINISHED, RUN_ERROR, …"},
		"at":             {"description": "The event's timestamp (the first of a stretch)."},
		"count":          {"minimum": 1, "description": "The events this one stands for: 1, or more for a stretch of TEXT_MESSAGE_CONTENT of one message or TOOL_CALL_ARGS of one call."},
		"step_name":      {"description": "A STEP_STARTED's or STEP_FINISHED's step."},
		"tool_call_name": {"description": "A TOOL_CALL_START's tool."},
		"name":           {"description": "A CUSTOM event's name (user_error: a notice the run goes on after)."},
		"code":           {"description": "A RUN_ERROR's code."},
		"message_id":     {"description": "The message a text message or tool call event belongs to."},
		"tool_call_id":   {"description": "The tool call a tool call event belongs to."},
		"role":           {"description": "A TEXT_MESSAGE_START's role."},
	}},
	{name: "MCPSession", typ: typeOf[triage.MCPSession](), patch: map[string]obj{
		"":           {"description": "The record of an MCP session opened at /mcp: its client, protocol version, times, how it ended and its counts of tool calls; no call's arguments or answers."},
		"session_id": {"description": "The session's Mcp-Session-Id: one session per tenant and id."},
		"client_name": {"maxLength": store.MaxSessionIDBytes,
			"description": "initialize's clientInfo.name (may be empty)."},
		"client_version": {"maxLength": store.MaxSessionIDBytes,
			"description": "initialize's clientInfo.version (may be empty)."},
		"protocol_version": {"description": "The MCP protocol version the session negotiated."},
		"outcome": {"enum": list{store.SessionOpen, store.SessionClosed, store.SessionExpired, store.SessionEvicted, store.SessionShutdown},
			"description": "open: not ended (or its instance stopped before recording the end; it stays so until it expires); closed: its client sent DELETE /mcp; expired: unused for 30 minutes; evicted: closed to make room for another session of the tenant's, past its bound; shutdown: the service shut down."},
		"ended_at":     {"description": "Absent while open."},
		"calls":        {"minimum": 0, "description": "Its tool calls (tools/call), written with its end; while open, those the answering instance counted so far when it holds the session, else 0."},
		"failed_calls": {"minimum": 0, "description": "Those of its calls that failed: a result with isError, or a JSON-RPC error. Each recorded failure is an occurrence whose report names the session (GET /v1/errors?session_id=)."},
	}},
	{name: "MCPSessionPage", typ: typeOf[triage.MCPSessionPage]()},
	{name: "Status", typ: typeOf[status]()},
	{name: "FaultInput", typ: typeOf[faultInput](), patch: map[string]obj{
		"":            {"description": "A Triage fault as a report carries it (json.Marshal of *fault.Error): the code is required, and the facets left out take the code's defaults."},
		"retry_after": {"minimum": 0, "description": "Seconds; may be fractional."},
		"http_status": {"minimum": 400, "maximum": 599},
	}},
	{name: "JSONRPCMessage", typ: typeOf[jsonrpcMessage](), patch: map[string]obj{
		"":        {"description": "A JSON-RPC 2.0 message: a request (id and method), a notification (method, no id) or a response (id, and result or error). MCP's methods and their params are the MCP specification's (2025-06-18)."},
		"jsonrpc": {"const": "2.0"},
		"id":      {"type": list{"string", "integer"}},
		"result":  {"description": "A response's result: any JSON value."},
	}},
	{name: "JSONRPCResponse", typ: typeOf[jsonrpcResponse](), patch: map[string]obj{
		"":        {"description": "A JSON-RPC 2.0 response: result or error. A tool's failure is a result with isError true and the fault in structuredContent."},
		"jsonrpc": {"const": "2.0"},
		"id":      {"type": list{"string", "integer", "null"}},
		"result":  {"description": "Any JSON value."},
	}},
}
