package triagegenkit

import (
	"errors"

	"github.com/firebase/genkit/go/core"

	"github.com/triage-go/triage/fault"
)

func init() {
	fault.Register(Classify)
}

// statusCodes maps Genkit's status names (gRPC's canonical codes) to
// Triage's codes. UNKNOWN and OK are not here: an error with either is
// classified by fault.From's own rules.
var statusCodes = map[core.StatusName]fault.Code{
	core.CANCELLED:           fault.Cancelled,
	core.INVALID_ARGUMENT:    fault.InvalidRequest,
	core.OUT_OF_RANGE:        fault.InvalidRequest,
	core.DEADLINE_EXCEEDED:   fault.Timeout,
	core.NOT_FOUND:           fault.CapabilityNotFound,
	core.UNIMPLEMENTED:       fault.CapabilityNotFound,
	core.ALREADY_EXISTS:      fault.ConfigError,
	core.FAILED_PRECONDITION: fault.ConfigError,
	core.PERMISSION_DENIED:   fault.ProviderAuthFailed,
	core.UNAUTHENTICATED:     fault.ProviderAuthFailed,
	core.RESOURCE_EXHAUSTED:  fault.RateLimited,
	core.ABORTED:             fault.AgentExecutionError,
	core.UNAVAILABLE:         fault.ServiceUnavailable,
	core.INTERNAL:            fault.InternalError,
	core.DATA_LOSS:           fault.InternalError,
}

// Classify turns Genkit's own errors, *core.GenkitError and
// *core.UserFacingError, into faults by their status (see the package
// documentation's table), and reports false for any other error, and for
// a status of UNKNOWN, which fault.From then classifies by its own rules.
// The fault's message is the table's, never the error's (a GenkitError's
// details hold a stack trace; they are not copied).
//
// Importing the package registers Classify with fault.Register, so
// fault.From applies it; call it directly to classify without that side
// effect.
func Classify(err error) (*fault.Error, bool) {
	if err == nil {
		return nil, false
	}
	var status core.StatusName
	if e, ok := errors.AsType[*core.GenkitError](err); ok && e != nil {
		status = e.Status
	} else if e, ok := errors.AsType[*core.UserFacingError](err); ok && e != nil {
		status = e.Status
	}
	code, ok := statusCodes[status]
	if !ok {
		return nil, false
	}
	f := fault.New(code, "", fault.WithSource("genkit"), fault.WithCause(err), fault.WithDetail("genkitStatus", string(status)))
	f.Classification = fault.Classification{Method: fault.MethodClassifier, Rule: "genkit:" + string(status), Confidence: 0.9}
	return f, true
}
