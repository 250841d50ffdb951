package policy

import (
	_ "embed"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// The CEL environment: the variables a condition sees. The report, the
// classification, the cause and the fault are typed objects, so a
// misspelt field (cause.cuase) fails at load; the context is a map of
// dyn, as agents send it.

type celReport struct {
	AgentID   string         `cel:"agent_id"`
	ErrorType string         `cel:"error_type"`
	ErrorCode string         `cel:"error_code"`
	Message   string         `cel:"message"`
	QueryID   string         `cel:"query_id"`
	Context   map[string]any `cel:"context"`
}

type celClassification struct {
	Type       string  `cel:"type"`
	Confidence float64 `cel:"confidence"`
	Method     string  `cel:"method"`
	Rule       string  `cel:"rule"`
}

type celCause struct {
	Cause      string   `cel:"cause"`
	Confidence float64  `cel:"confidence"`
	Evidence   []string `cel:"evidence"`
}

type celFault struct {
	Code         string `cel:"code"`
	Retryable    bool   `cel:"retryable"`
	RetryAfter   int64  `cel:"retry_after"` // whole seconds, rounded up
	HTTPStatus   int64  `cel:"http_status"`
	Category     string `cel:"category"`
	Domain       string `cel:"domain"`
	SessionValid bool   `cel:"session_valid"`
}

var celEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		ext.NativeTypes(
			ext.ParseStructTags(true),
			cel.NativeTypeFor[celReport](cel.NativeTypeAlias("triage.Report")),
			cel.NativeTypeFor[celClassification](cel.NativeTypeAlias("triage.Classification")),
			cel.NativeTypeFor[celCause](cel.NativeTypeAlias("triage.Cause")),
			cel.NativeTypeFor[celFault](cel.NativeTypeAlias("triage.Fault")),
		),
		ext.Strings(),
		cel.OptionalTypes(),
		cel.CrossTypeNumericComparisons(true),
		cel.Variable("report", cel.ObjectType("triage.Report")),
		cel.Variable("error_type", cel.StringType),
		cel.Variable("error_code", cel.StringType),
		cel.Variable("message", cel.StringType),
		cel.Variable("context", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("classification", cel.ObjectType("triage.Classification")),
		cel.Variable("cause", cel.ObjectType("triage.Cause")),
		cel.Variable("attempt", cel.IntType),
		cel.Variable("max_attempts", cel.IntType),
		cel.Variable("fault", cel.ObjectType("triage.Fault")),
	)
})

// vars is one input, as the conditions and the templates see it.
type vars struct {
	in          *Input
	maxAttempts int
	context     map[string]any
	report      celReport
	class       celClassification
	cause       celCause
	fault       celFault
	act         activation
}

// noContext stands in for a report without a context. Nothing writes
// to it.
var noContext = map[string]any{}

func newVars(in *Input, maxAttempts int) *vars {
	v := &vars{in: in, maxAttempts: maxAttempts}
	r := in.Report
	if r == nil {
		r = &triage.Report{}
	}
	v.context = r.Data.Context
	if v.context == nil {
		v.context = noContext
	}
	v.report = celReport{AgentID: r.AgentID, ErrorType: string(r.Data.ErrorType), ErrorCode: r.Data.ErrorCode,
		Message: r.Data.Message, QueryID: r.Data.QueryID, Context: v.context}
	v.class = celClassification{Type: string(in.Classification.Type), Confidence: in.Classification.Confidence,
		Method: in.Classification.Method, Rule: in.Classification.Rule}
	if v.class.Type == "" {
		v.class.Type = string(r.Data.ErrorType)
	}
	evidence := in.Cause.Evidence
	if evidence == nil {
		evidence = []string{}
	}
	v.cause = celCause{Cause: in.Cause.Cause, Confidence: in.Cause.Confidence, Evidence: evidence}
	if f := in.Fault; f != nil {
		v.fault = celFault{Code: string(f.Code), Retryable: f.Retryable, RetryAfter: fault.Seconds(f.RetryAfter),
			HTTPStatus: int64(f.HTTPStatus()), Category: string(f.Category), Domain: string(f.Domain), SessionValid: f.SessionValid}
	}
	v.act = activation{v: v}
	return v
}

// activation resolves the variables of a condition, adapting each to
// CEL once per Decide however many rules read it.
type activation struct {
	v                                    *vars
	report, context, class, cause, fault ref.Val
	errorType, errorCode, message        ref.Val
	attempt, maxAttempts                 ref.Val
}

func (a *activation) ResolveName(name string) (any, bool) {
	var slot *ref.Val
	switch name {
	case "report":
		slot = &a.report
	case "error_type":
		slot = &a.errorType
	case "error_code":
		slot = &a.errorCode
	case "message":
		slot = &a.message
	case "context":
		slot = &a.context
	case "classification":
		slot = &a.class
	case "cause":
		slot = &a.cause
	case "attempt":
		slot = &a.attempt
	case "max_attempts":
		slot = &a.maxAttempts
	case "fault":
		slot = &a.fault
	default:
		return nil, false
	}
	if *slot == nil {
		*slot = a.adapt(name)
	}
	return *slot, true
}

func (a *activation) adapt(name string) ref.Val {
	v := a.v
	switch name {
	case "error_type":
		return types.String(v.class.Type)
	case "error_code":
		return types.String(v.report.ErrorCode)
	case "message":
		return types.String(v.report.Message)
	case "attempt":
		return types.Int(v.in.Attempt)
	case "max_attempts":
		return types.Int(v.maxAttempts)
	}
	env, _ := celEnv() // built, or no policy would have compiled
	adapter := env.CELTypeAdapter()
	switch name {
	case "report":
		return adapter.NativeToValue(&v.report)
	case "context":
		return adapter.NativeToValue(v.context)
	case "classification":
		return adapter.NativeToValue(&v.class)
	case "cause":
		return adapter.NativeToValue(&v.cause)
	default: // "fault"
		return adapter.NativeToValue(&v.fault)
	}
}

func (a *activation) Parent() interpreter.Activation { return nil }
