package classify

import "github.com/triage-go/triage"

// Result is what a classifier settled on: a report's canonical type, how
// it was found and how sure it is. (A fault's own code carries its
// provenance in fault.Classification; Result is about the report's type.)
type Result struct {
	Type       triage.ErrorType `json:"type"`
	Confidence float64          `json:"confidence"`
	// Method is how the type was found: "reported" (the agent said so),
	// "error_code", "fault", "message" (a message rule), "model" (the
	// statistical classifier) or "default" (nothing decided).
	Method string `json:"method"`
	// Rule names the rule or the code that decided, when there is one.
	Rule string `json:"rule,omitempty"`
}

// The methods a Result names, in the order the chain tries them.
const (
	MethodReported  = "reported"
	MethodErrorCode = "error_code"
	MethodFault     = "fault"
	MethodMessage   = "message"
	MethodModel     = "model"
	MethodDefault   = "default"
)
