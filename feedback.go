package triage

import (
	"time"

	"github.com/triage-go/triage/fault"
)

// RootCause is what the analysis found: a cause, how sure it is, and the
// evidence it used.
type RootCause struct {
	// Cause is one of the causes the analyser knows: "scope" (the query
	// asks for too much), "schema_drift" (a field was renamed: a synonym
	// exists), "missing_field", "persistent" (the same agent and code keep
	// failing), "transient", "outage" (a service or provider is down),
	// "chart_data_mismatch", "ambiguous_input", "invalid_value" or
	// "unknown".
	Cause      string   `json:"cause"`
	Confidence float64  `json:"confidence"`
	Evidence   []string `json:"evidence"`
}

// The causes RootCause.Cause takes.
const (
	CauseScope             = "scope"
	CauseSchemaDrift       = "schema_drift"
	CauseMissingField      = "missing_field"
	CausePersistent        = "persistent"
	CauseTransient         = "transient"
	CauseOutage            = "outage"
	CauseChartDataMismatch = "chart_data_mismatch"
	CauseAmbiguousInput    = "ambiguous_input"
	CauseInvalidValue      = "invalid_value"
	CauseUnknown           = "unknown"
)

// Outcome is what one action did.
type Outcome struct {
	// Action is the action's name ("retry", "use_cache", …).
	Action string `json:"action"`
	// Status is "done", "skipped" (nothing to do, or a duplicate report)
	// or "failed".
	Status string `json:"status"`
	// Detail is the machine-readable summary that goes into the feedback's
	// automated_actions ("retry:2", "use_cache:true").
	Detail string `json:"detail"`
	// Note is a sentence for the user, appended to the message ("I can
	// show cached results from 2 hours ago."), when the action has one.
	Note string `json:"note,omitempty"`
	// Suggestions are recovery suggestions the action found.
	Suggestions []string `json:"suggestions,omitempty"`
	// Retry is the retry action's plan, when it planned one.
	Retry *RetryPlan `json:"retry,omitempty"`
	// Job is the work the action asks for once the report is committed
	// (a retry for a callback, an escalation), if any; not recorded.
	Job *Job `json:"-"`
	// Error is why the action failed; it never reaches the user message.
	Error string `json:"error,omitempty"`
	// Data holds what the action found, for the record.
	Data map[string]any `json:"data,omitempty"`
}

// The outcome statuses.
const (
	OutcomeDone    = "done"
	OutcomeSkipped = "skipped"
	OutcomeFailed  = "failed"
)

// Feedback is the handler's answer: seed 004's output object exactly, plus
// the root cause, the attempt number and the fault's facets.
type Feedback struct {
	ErrorID             string     `json:"error_id"`
	ErrorType           ErrorType  `json:"error_type"`
	ErrorSource         string     `json:"error_source"`
	Severity            Severity   `json:"severity"`
	Confidence          float64    `json:"confidence"`
	UserMessage         string     `json:"user_message"`
	RecoverySuggestions []string   `json:"recovery_suggestions"`
	AutomatedActions    []string   `json:"automated_actions"`
	ContextPreserved    bool       `json:"context_preserved"`
	QueryID             string     `json:"query_id"`
	Timestamp           time.Time  `json:"timestamp"`
	NextAction          NextAction `json:"next_action"`

	RootCause RootCause `json:"root_cause"`
	Attempt   int       `json:"attempt"`
	// Retry is the retry planned for this query, when one is: the attempt
	// it will be, its delay, and by whom. "caller" means nothing will call
	// the pipeline back (its agent has no callback URL): the pipeline
	// retries itself, no sooner than the delay. automated_actions says
	// "retry:N" for it.
	Retry *RetryPlan `json:"retry,omitempty"`
	Fault FaultInfo  `json:"fault"`
	// Context is the report's context, preserved so the pipeline can
	// resume; ContextRef names a checkpoint when the pipeline has one.
	Context    map[string]any `json:"context,omitempty"`
	ContextRef string         `json:"context_ref,omitempty"`
	// Duplicate is true when this report was seen before: the feedback is
	// the one given then, and no action ran again.
	Duplicate bool `json:"duplicate,omitempty"`
	// Outcomes are the actions' outcomes in full (automated_actions has
	// their details), for a service to record; not part of the feedback's
	// JSON, and empty for a duplicate.
	Outcomes []Outcome `json:"-"`
}

// FaultInfo is the fault's facets in the feedback.
type FaultInfo struct {
	Code       fault.Code `json:"code"`
	HTTPStatus int        `json:"http_status"`
	Retryable  bool       `json:"retryable"`
	RetryAfter int64      `json:"retry_after,omitempty"` // whole seconds
}
