package handler

import (
	"regexp"
	"strings"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// codeSpec is what an error code the pipeline's agents use says: its
// canonical type and the fault it amounts to.
type codeSpec struct {
	Type  triage.ErrorType
	Fault fault.Code
}

// errorCodes are the error codes the handler knows. Seed 004 names
// DB_TIMEOUT, FIELD_NOT_FOUND, INCOMPATIBLE_CHART_TYPE, AMBIGUOUS_INPUT and
// SERVICE_DOWN; the rest are their common siblings.
var errorCodes = map[string]codeSpec{
	"DB_TIMEOUT":       {triage.QueryError, fault.Timeout},
	"QUERY_TIMEOUT":    {triage.QueryError, fault.Timeout},
	"QUERY_FAILED":     {triage.QueryError, fault.UpstreamError},
	"SQL_SYNTAX_ERROR": {triage.QueryError, fault.UpstreamError},
	"DEADLOCK":         {triage.QueryError, fault.ServiceUnavailable},
	"TOO_MANY_ROWS":    {triage.QueryError, fault.PayloadTooLarge},
	"RESULT_TOO_LARGE": {triage.QueryError, fault.PayloadTooLarge},

	"FIELD_NOT_FOUND":  {triage.SchemaError, fault.InvalidRequest},
	"COLUMN_NOT_FOUND": {triage.SchemaError, fault.InvalidRequest},
	"UNKNOWN_FIELD":    {triage.SchemaError, fault.InvalidRequest},
	"UNKNOWN_METRIC":   {triage.SchemaError, fault.InvalidRequest},
	"TABLE_NOT_FOUND":  {triage.SchemaError, fault.InvalidRequest},
	"SCHEMA_MISMATCH":  {triage.SchemaError, fault.InvalidRequest},

	"INCOMPATIBLE_CHART_TYPE": {triage.ChartError, fault.InvalidRequest},
	"UNSUPPORTED_CHART":       {triage.ChartError, fault.InvalidRequest},
	"TOO_MANY_SERIES":         {triage.ChartError, fault.InvalidRequest},
	"CHART_RENDER_FAILED":     {triage.ChartError, fault.AgentExecutionError},

	"AMBIGUOUS_INPUT":   {triage.InputError, fault.InvalidRequest},
	"INCOMPLETE_INPUT":  {triage.InputError, fault.InvalidRequest},
	"EMPTY_INPUT":       {triage.InputError, fault.InvalidRequest},
	"UNPARSEABLE_INPUT": {triage.InputError, fault.InvalidRequest},
	"UNKNOWN_INTENT":    {triage.InputError, fault.InvalidRequest},

	"SERVICE_DOWN":        {triage.SystemError, fault.ServiceUnavailable},
	"SERVICE_UNAVAILABLE": {triage.SystemError, fault.ServiceUnavailable},
	"CONNECTION_REFUSED":  {triage.SystemError, fault.TransportError},
	"CONNECTION_ERROR":    {triage.SystemError, fault.TransportError},
	"UPSTREAM_ERROR":      {triage.SystemError, fault.UpstreamError},
	"RATE_LIMITED":        {triage.SystemError, fault.RateLimited},
	"INTERNAL_ERROR":      {triage.SystemError, fault.InternalError},
	"OUT_OF_MEMORY":       {triage.SystemError, fault.InternalError},

	"INVALID_DATE_RANGE":   {triage.ValidationError, fault.InvalidRequest},
	"INVALID_VALUE":        {triage.ValidationError, fault.InvalidRequest},
	"VALUE_OUT_OF_RANGE":   {triage.ValidationError, fault.InvalidRequest},
	"INVALID_FILTER":       {triage.ValidationError, fault.InvalidRequest},
	"INVALID_LIMIT":        {triage.ValidationError, fault.InvalidRequest},
	"VALIDATION_FAILED":    {triage.ValidationError, fault.InvalidRequest},
	"MISSING_PARAMETER":    {triage.ValidationError, fault.InvalidRequest},
	"UNSUPPORTED_CURRENCY": {triage.ValidationError, fault.InvalidRequest},
}

// messageRules classify a message when neither the report's type nor its
// codes decide.
var messageRules = []struct {
	name string
	re   *regexp.Regexp
	typ  triage.ErrorType
}{
	{"ambiguous", regexp.MustCompile(`(?i)\bambiguous\b|\bunclear\b|could mean|which (?:one|metric|field) did you mean|did you mean|too vague|incomplete (?:request|question)`), triage.InputError},
	{"missing_field", regexp.MustCompile(`(?i)(?:field|column|metric|dimension|table)\s+["'\x60]?[\w.]+["'\x60]?\s+(?:not found|does not exist|is unknown|missing)|unknown (?:field|column|metric|dimension|table)|no such (?:field|column|table)`), triage.SchemaError},
	{"chart", regexp.MustCompile(`(?i)(?:pie|bar|line|scatter|area|map|heat ?map)\s+chart|chart type|cannot (?:render|display|plot)|not (?:suitable|supported) for (?:this|the) (?:chart|data)`), triage.ChartError},
	{"query", regexp.MustCompile(`(?i)\b(?:query|sql|statement)\b.*(?:timed? ?out|timeout|failed|error)|deadlock|syntax error (?:at|near)|\bdb timeout\b|database timeout`), triage.QueryError},
	{"outage", regexp.MustCompile(`(?i)service (?:is )?(?:down|unavailable)|temporarily unavailable|connection refused|\boutage\b|\b50[23]\b|no healthy upstream|could not connect`), triage.SystemError},
	{"invalid_value", regexp.MustCompile(`(?i)\binvalid (?:date|range|value|filter|limit|currency|format)\b|out of range|must be (?:positive|between|before|after|a valid)|end date (?:is )?before`), triage.ValidationError},
}

// faultTypes map a fault's code to the canonical type its report most
// likely has, when nothing more specific decides.
func faultType(f *fault.Error, agentID string) (triage.ErrorType, bool) {
	switch f.Code {
	case fault.InvalidRequest, fault.PayloadTooLarge:
		return triage.ValidationError, true
	case fault.Timeout:
		if strings.Contains(strings.ToLower(agentID), "query") {
			return triage.QueryError, true
		}
		return triage.SystemError, true
	case fault.ContentRefused:
		return triage.InputError, true
	case fault.AgentExecutionError:
		return "", false // says nothing of the type
	}
	return triage.SystemError, true
}

// modelThreshold is the probability from which the model's answer is
// taken.
const modelThreshold = 0.6

// Predictor is a statistical text classifier: the canonical type a text
// most likely has, and the probability of that.
type Predictor func(text string) (triage.ErrorType, float64)

// classify settles a report's canonical type: the type the agent reported;
// else its error code; else its fault; else the message rules; else the
// statistical model; else system_error with a low confidence.
func classify(r *triage.Report, f *fault.Error, model Predictor) triage.Classification {
	code := strings.ToUpper(r.Data.ErrorCode)
	spec, codeKnown := errorCodes[code]
	if t := r.Data.ErrorType; t.Valid() {
		c := triage.Classification{Type: t, Confidence: 0.95, Method: "reported"}
		if codeKnown && spec.Type == t {
			c.Confidence, c.Rule = 0.99, code
		}
		return c
	}
	if codeKnown {
		return triage.Classification{Type: spec.Type, Confidence: 0.97, Method: "error_code", Rule: code}
	}
	if r.Data.Fault != nil {
		if t, ok := faultType(r.Data.Fault, r.AgentID); ok {
			return triage.Classification{Type: t, Confidence: 0.85, Method: "fault", Rule: string(r.Data.Fault.Code)}
		}
	}
	text := r.Data.Message
	if code != "" {
		text = code + ": " + text
	}
	for _, rule := range messageRules {
		if rule.re.MatchString(text) {
			return triage.Classification{Type: rule.typ, Confidence: 0.75, Method: "message", Rule: rule.name}
		}
	}
	if model != nil {
		// The model is over-confident (docs/text-classifier.md): it decides
		// only when fairly sure, and never with the certainty of a rule.
		if t, p := model(text); t.Valid() && p >= modelThreshold {
			return triage.Classification{Type: t, Confidence: round2(0.7 * p), Method: "model"}
		}
	}
	if t, ok := faultType(f, r.AgentID); ok {
		return triage.Classification{Type: t, Confidence: 0.4, Method: "fault", Rule: string(f.Code)}
	}
	return triage.Classification{Type: triage.SystemError, Confidence: 0.2, Method: "default"}
}

// reportFault is the fault a report amounts to: data.fault when the agent
// sent one; else the fault its error code means; else what fault's text
// rules make of its code and message.
func reportFault(r *triage.Report) *fault.Error {
	if r.Data.Fault != nil {
		return r.Data.Fault
	}
	if spec, ok := errorCodes[strings.ToUpper(r.Data.ErrorCode)]; ok {
		f := fault.New(spec.Fault, "", fault.WithSource(r.AgentID))
		f.Classification = fault.Classification{Method: fault.MethodWire, Rule: "error_code:" + r.Data.ErrorCode, Confidence: 0.97}
		return f
	}
	text := r.Data.Message
	if r.Data.ErrorCode != "" {
		text = r.Data.ErrorCode + ": " + text
	}
	f := fault.ClassifyText(text)
	f.Source = r.AgentID
	return f
}

// round2 rounds a confidence to two decimals.
func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }
