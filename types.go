package triage

// ErrorType is a report's canonical type (seed 004).
type ErrorType string

// The canonical error types, and Unknown, which asks the handler to decide.
const (
	InputError      ErrorType = "input_error"      // the user's request is ambiguous or unusable
	SchemaError     ErrorType = "schema_error"     // a field, metric or table the query needs is missing
	QueryError      ErrorType = "query_error"      // the query failed or timed out
	ChartError      ErrorType = "chart_error"      // the chart asked for does not fit the data
	SystemError     ErrorType = "system_error"     // a service or provider is down or failing
	ValidationError ErrorType = "validation_error" // a value failed a check (a date range, a limit)
	Unknown         ErrorType = "unknown"          // not known to the reporting agent: classify it
)

// ErrorTypes lists the six canonical types.
func ErrorTypes() []ErrorType {
	return []ErrorType{InputError, SchemaError, QueryError, ChartError, SystemError, ValidationError}
}

// Valid reports whether t is one of the six canonical types.
func (t ErrorType) Valid() bool {
	switch t {
	case InputError, SchemaError, QueryError, ChartError, SystemError, ValidationError:
		return true
	}
	return false
}

// Severity grades a failure for the people who watch the pipeline.
type Severity string

// The severities.
const (
	SeverityLow      Severity = "low"
	SeverityMedium   Severity = "medium"
	SeverityHigh     Severity = "high"
	SeverityCritical Severity = "critical"
)

// Valid reports whether s is a known severity.
func (s Severity) Valid() bool {
	switch s {
	case SeverityLow, SeverityMedium, SeverityHigh, SeverityCritical:
		return true
	}
	return false
}

// NextAction tells the pipeline how to proceed (seed 004).
type NextAction string

// The next actions.
const (
	Resume    NextAction = "resume"     // continue the pipeline (from its checkpoint)
	AwaitUser NextAction = "await_user" // ask the user and wait
	Escalate  NextAction = "escalate"   // hand over to the operators
)

// Valid reports whether a is a known next action.
func (a NextAction) Valid() bool {
	switch a {
	case Resume, AwaitUser, Escalate:
		return true
	}
	return false
}
