package triage

import (
	"encoding/json"
	"time"
)

// The records the service keeps of the errors it handled, as its API
// returns them (GET /v1/errors, /v1/errors/{error_id} and its
// occurrences): the stores save them, the server sends them, the client
// reads them. The JSON documents of a record (a report, its feedback, the
// actions' outcomes, a job's payload) are kept as the service saved them:
// decode a Report or a Feedback from them with encoding/json.

// RecordSummary is what a listing says of an error (all occurrences of
// one fingerprint): no document, so that a page of them is small whatever
// the reports' size.
type RecordSummary struct {
	ErrorID   string    `json:"error_id"`
	QueryID   string    `json:"query_id"`
	AgentID   string    `json:"agent_id"`
	ErrorType string    `json:"error_type"`
	Severity  string    `json:"severity"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	Count     int       `json:"occurrence_count"`
	// NextAction is the latest occurrence's feedback's next_action (empty
	// for a record saved before records pointed at their latest
	// occurrence).
	NextAction string `json:"next_action,omitempty"`
	// Workflow is where the team stands on the error: its status (as it
	// reads when the record was read, Workflow.StatusAt: an ignored record
	// whose time passed reads unresolved, its ignore condition kept until
	// its next occurrence wakes it), resolution or ignore condition and
	// assignee.
	Workflow
	// FirstRelease and LastRelease are the releases of the record's first
	// and latest occurrences that named one; LastEnvironment the latest
	// environment named.
	FirstRelease    string `json:"first_release,omitempty"`
	LastRelease     string `json:"last_release,omitempty"`
	LastEnvironment string `json:"last_environment,omitempty"`
	// Title is the latest report's code and message (Report.Title), or,
	// for a record saved before records kept it, its error type; Code is
	// that report's code (empty then).
	Title string `json:"title"`
	Code  string `json:"code,omitempty"`
	// WindowCount is the record's occurrences in the window of a listing
	// sorted by the count in a window (ListSort), by the hour: 0 otherwise.
	WindowCount int64 `json:"window_count,omitempty"`
}

// Record is an error with its latest report and feedback and, as the
// service returns one, the first page of its occurrences and its latest
// jobs.
type Record struct {
	RecordSummary
	// Report and Feedback are the latest occurrence's documents: a Report
	// and a Feedback as JSON.
	Report   json.RawMessage `json:"report"`
	Feedback json.RawMessage `json:"feedback"`
	// Occurrences are the latest received first, a page of them;
	// OccurrencesNext, when not empty, is the cursor of the next page.
	Occurrences     []Occurrence `json:"occurrences,omitempty"`
	OccurrencesNext string       `json:"occurrences_next_cursor,omitempty"`
	// Jobs are the latest jobs the record's occurrences started, by ID;
	// MoreJobs tells that there are older ones, and JobsNext is the cursor
	// of GET /v1/errors/{error_id}/jobs that continues with them.
	Jobs     []JobRecord `json:"jobs,omitempty"`
	MoreJobs bool        `json:"more_jobs,omitempty"`
	JobsNext string      `json:"jobs_next_cursor,omitempty"`
}

// JobPage is a page of an error's jobs, the latest (the highest ID)
// first; Next, when not empty, is the cursor of the next page.
type JobPage struct {
	Jobs []JobRecord `json:"jobs"`
	Next string      `json:"next_cursor,omitempty"`
}

// Occurrence is one handled delivery of a report.
type Occurrence struct {
	// ID numbers the tenant's occurrences in the order they were saved;
	// set by the stores' reads, ignored when saving.
	ID          int64  `json:"-"`
	DeliveryKey string `json:"-"`
	ErrorID     string `json:"error_id"`
	QueryID     string `json:"query_id"`
	AgentID     string `json:"agent_id"`
	ErrorType   string `json:"error_type"`
	Severity    string `json:"severity"`
	NextAction  string `json:"next_action"`
	Attempt     int    `json:"attempt"`
	// Release and Environment are the report's, given to the save: the
	// record keeps its first and last release (and the releases' order,
	// for its workflow). The stored report holds them; reads leave them
	// empty.
	Release     string    `json:"-"`
	Environment string    `json:"-"`
	ReportedAt  time.Time `json:"reported_at"` // the report's timestamp
	ReceivedAt  time.Time `json:"received_at"` // when the service took it
	// Report and Feedback are the JSON documents: a Report and a Feedback.
	Report   json.RawMessage `json:"report"`
	Feedback json.RawMessage `json:"feedback"`
	// Actions are the recovery actions' outcomes (a JSON array of
	// Outcome), when known.
	Actions json.RawMessage `json:"actions,omitempty"`
	// Jobs are enqueued with the occurrence (the retries and escalations
	// its handling decided), so that they exist exactly when it does.
	Jobs []NewJob `json:"-"`
	// Code and Title are the report's (Report.Title): saved on its record
	// when it is the latest, not with the occurrence.
	Code  string `json:"-"`
	Title string `json:"-"`
}

// OccurrencePage is a page of an error's occurrences, the latest received
// first; Next, when not empty, is the cursor of the next page.
type OccurrencePage struct {
	Occurrences []Occurrence `json:"occurrences"`
	Next        string       `json:"next_cursor,omitempty"`
}

// Page is one page of record summaries; Next, when not empty, is the
// cursor of the next page.
type Page struct {
	Records []RecordSummary `json:"records"`
	Next    string          `json:"next_cursor,omitempty"`
	// Total is how many records the filter selects, every page's; when
	// TotalCapped, there are more than Total (the count stopped there).
	Total       int  `json:"total"`
	TotalCapped bool `json:"total_capped,omitempty"`
}

// TransitionPage is one page of a record's history, the latest change
// first; Next, when not empty, is the cursor of the next page.
type TransitionPage struct {
	Transitions []Transition `json:"transitions"`
	Next        string       `json:"next_cursor,omitempty"`
}

// RecordsChange is one change asked of many records: those Filter
// selects (POST /v1/errors/changes).
type RecordsChange struct {
	Change Change        `json:"change"`
	Filter RecordsFilter `json:"filter"`
}

// RecordsFilter selects the records of a bulk change: the listing's
// filters (GET /v1/errors), and a list of records. Zero fields select
// everything.
type RecordsFilter struct {
	// ErrorIDs, when not empty, keeps these records only (at most
	// MaxBulkIDs).
	ErrorIDs  []string   `json:"error_ids,omitempty"`
	QueryID   string     `json:"query_id,omitempty"`
	AgentID   string     `json:"agent_id,omitempty"`
	ErrorType ErrorType  `json:"error_type,omitempty"`
	Severity  Severity   `json:"severity,omitempty"`
	Since     *time.Time `json:"since,omitempty"`
	// Status keeps the records of this status, as it reads now
	// (Workflow.StatusAt).
	Status Status `json:"status,omitempty"`
	// Environment keeps the records last seen in this environment (their
	// LastEnvironment); Release those first or last seen in this release
	// (their FirstRelease or LastRelease).
	Environment string `json:"environment,omitempty"`
	Release     string `json:"release,omitempty"`
}

// MaxBulkIDs bounds RecordsFilter.ErrorIDs.
const MaxBulkIDs = 10_000

// RecordsChanged is what a bulk change did: how many records it changed
// (a record already as asked is not counted).
type RecordsChanged struct {
	Changed int `json:"changed"`
}

// RunPage is one page of run records, the latest started first; Next,
// when not empty, is the cursor of the next page.
type RunPage struct {
	Runs []Run  `json:"runs"`
	Next string `json:"next_cursor,omitempty"`
}

// NewJob is a durable job to enqueue.
type NewJob struct {
	Kind    string          `json:"kind"`
	ErrorID string          `json:"error_id"`
	Payload json.RawMessage `json:"payload"`
	// RunAt is when the job is due; zero is now.
	RunAt time.Time `json:"run_at"`
	// MaxAttempts bounds the attempts; 0 means the store's default.
	MaxAttempts int `json:"max_attempts"`
	// Trace is the W3C trace context of the work that enqueued the job
	// (its "traceparent", and "tracestate" when there is one), kept with
	// the job so that its attempts, on whichever instance, continue that
	// trace. nil: none. Never shown by the API.
	Trace map[string]string `json:"-"`
	// Throttle, for an escalation (Kind "escalation"), is its rule's
	// throttle (EscalationRule, one notification per Throttle for its
	// ErrorID): a store's Report that finds the throttle holding firings
	// back already (a notification sent less than Throttle ago, and
	// firings held since) counts this one held, as the job's run would,
	// instead of enqueueing the job. 0: the job is enqueued.
	Throttle time.Duration `json:"-"`
}

// JobRecord is a durable job with its attempts: a retry posted to an
// agent's callback URL, or an escalation posted to the operators.
type JobRecord struct {
	ID          int64           `json:"id"`
	Tenant      string          `json:"tenant"`
	Kind        string          `json:"kind"`
	ErrorID     string          `json:"error_id"`
	Payload     json.RawMessage `json:"payload"`
	State       string          `json:"state"`
	RunAt       time.Time       `json:"run_at"`
	Attempt     int             `json:"attempt"` // attempts made so far (while running: this one)
	MaxAttempts int             `json:"max_attempts"`
	// Attempts are the failed attempts, then, for a completed job, the
	// one that succeeded.
	Attempts []JobAttempt `json:"attempts,omitempty"`
	// Trace is the trace context it was enqueued with (NewJob.Trace).
	Trace map[string]string `json:"-"`
	// Deferred is how many times a worker put it off.
	Deferred int `json:"-"`
}

// JobAttempt is one attempt at a job.
type JobAttempt struct {
	Attempt int `json:"attempt"`
	// At is when a failed attempt failed, or when the successful one
	// began.
	At time.Time `json:"at"`
	// Duration is the successful attempt's (a failed one's is not kept).
	Duration time.Duration `json:"duration_ns,omitempty"`
	// Error is empty for a successful attempt.
	Error string `json:"error,omitempty"`
}

// Run is the record of an AG-UI agent run (POST /v1/agents/{agent_id}/runs): who
// ran what, when, and how it ended. It holds no prompt, answer or state.
type Run struct {
	// RunID is the RunAgentInput's runId: one run per tenant and id.
	RunID string `json:"run_id"`
	// ThreadID is the RunAgentInput's threadId (may be empty).
	ThreadID string `json:"thread_id"`
	// AgentID is the agent that ran.
	AgentID string `json:"agent_id"`
	// Outcome is "running", "finished", "failed", "disconnected" or
	// "shutdown" (the store package's Run… constants say what each means).
	Outcome string `json:"outcome"`
	// StartedAt and FinishedAt are by the store's clock. FinishedAt is
	// zero while the run is running.
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at,omitzero"`
	// Fault is a failed run's fault as a JSON object (a fault.Payload,
	// without debug output: never the cause's text); nil otherwise.
	Fault json.RawMessage `json:"fault,omitempty"`
	// AnswerBytes is the length, in bytes, of a finished run's answer
	// text; 0 for the other outcomes.
	AnswerBytes int64 `json:"answer_bytes"`
	// ErrorID is the error record a failed run's failure became an
	// occurrence of, once it is recorded (a job does it after the run's
	// end: until then, and for a run whose agent records no failures,
	// it is empty). The occurrence's report names the run back
	// (data.context.run_id).
	ErrorID string `json:"error_id,omitempty"`
	// Events outline the run's AG-UI stream, oldest first, as the service
	// wrote it (see RunEvent): only a run's own read has them (not a list
	// of runs, nor the event stream's run events), and only once it ended
	// (a run streamed as CAP packets, or one stored before the service
	// kept them, has none). A long stream keeps its first and its last
	// events; EventsOmitted is how many between them were not kept.
	Events []RunEvent `json:"events,omitempty"`
	// EventsOmitted is the number of the stream's events left out of
	// Events, all between its first half and its second.
	EventsOmitted int `json:"events_omitted,omitempty"`
}

// RunEvent is one event of a run's AG-UI stream, in outline: its type,
// time, the step, tool or custom event it names and its ids, never what it
// carries (no message text, tool arguments or results, state, input or
// error message: they may hold what is not the service's to keep). A
// stretch of TEXT_MESSAGE_CONTENT events of one message, or of
// TOOL_CALL_ARGS of one call, is one RunEvent whose Count says how many.
type RunEvent struct {
	// Type is the AG-UI event type (RUN_STARTED, STEP_STARTED, …).
	Type string `json:"type"`
	// At is the event's timestamp (the first of a stretch).
	At time.Time `json:"at"`
	// Count is the number of events this one stands for: 1, or more for a
	// stretch of content or argument events.
	Count int `json:"count"`
	// StepName is a STEP_STARTED's or STEP_FINISHED's step.
	StepName string `json:"step_name,omitempty"`
	// ToolCallName is a TOOL_CALL_START's tool.
	ToolCallName string `json:"tool_call_name,omitempty"`
	// Name is a CUSTOM event's name.
	Name string `json:"name,omitempty"`
	// Code is a RUN_ERROR's code.
	Code string `json:"code,omitempty"`
	// MessageID, ToolCallID, Role: the ids of a text message or tool
	// call event, and a TEXT_MESSAGE_START's role.
	MessageID  string `json:"message_id,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	Role       string `json:"role,omitempty"`
}
