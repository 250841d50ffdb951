package policy

import (
	"github.com/triage-go/triage"
	"github.com/triage-go/triage/classify"
	"github.com/triage-go/triage/fault"
)

// Input is what a recovery policy's conditions and message templates
// see about one report.
type Input struct {
	Report         *triage.Report
	Classification classify.Result
	Cause          triage.RootCause
	// Attempt counts the reports for this query and error code, this one
	// included (1 for the first).
	Attempt int
	// Fault is the report's fault: data.fault, or one derived from its
	// error code and message; never nil.
	Fault *fault.Error
}
