package classify

import (
	"strings"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// Config configures a Chain. Every zero field means the documented
// default.
type Config struct {
	// Codes are the agent error codes the chain knows. Defaults to
	// DefaultCodes(); a policy's Codes() are the defaults merged with its
	// codes: section.
	Codes Codes
	// Model classifies the reports that no code and no rule decides.
	// Defaults to nil: no model (the handler passes DefaultModel).
	Model Predictor
}

// Chain settles a report's canonical type with a chain of small
// classifiers, tried in order; the first that decides wins:
//
//  1. reported: the type the agent reported (confidence 0.95, or 0.99 when
//     its error code says the same);
//  2. error_code: the report's error code, looked up in Codes (0.97);
//  3. fault: the fault the agent sent in data.fault (0.85);
//  4. message: the message rules, regular expressions over the error code
//     and the message (0.75);
//  5. model: the statistical text classifier, when at least 60 % sure
//     (0.7 × its probability);
//  6. fault: the type the report's derived fault most likely has (0.4);
//  7. default: system_error (0.2).
//
// A Chain is immutable and safe for concurrent use.
type Chain struct {
	codes Codes
	links []link
}

// link is one classifier of the chain: it settles the type of the report
// in, or passes it on.
type link struct {
	name     string
	text     bool // whether it reads input.text
	classify func(in input) (Result, bool)
}

// input is what a link sees of one report.
type input struct {
	report *triage.Report
	fault  *fault.Error // the report's fault (Chain.Fault); never nil
	code   string       // the error code in upper case
	spec   CodeSpec     // what the code says, when known
	known  bool         // whether Codes has the code
	text   string       // "CODE: message", or the message; set for the links that read it
}

// New returns the chain of cfg.
func New(cfg Config) *Chain {
	codes := cfg.Codes
	if codes == nil {
		codes = defaultCodes
	}
	c := &Chain{codes: codes, links: []link{
		{MethodReported, false, byReportedType},
		{MethodErrorCode, false, byCode},
		{MethodFault, false, bySentFault},
		{MethodMessage, true, byMessage},
	}}
	if cfg.Model != nil {
		c.links = append(c.links, link{MethodModel, true, byModel(cfg.Model)})
	}
	c.links = append(c.links, link{MethodFault, false, byDerivedFault})
	return c
}

// Steps names the chain's classifiers in the order they are tried, the
// fallback ("default") last.
func (c *Chain) Steps() []string {
	names := make([]string, 0, len(c.links)+1)
	for _, l := range c.links {
		names = append(names, l.name)
	}
	return append(names, MethodDefault)
}

// Classify settles r's canonical type; f is r's fault (see Fault). It
// always returns a result: system_error with confidence 0.2 when no
// classifier decides.
func (c *Chain) Classify(r *triage.Report, f *fault.Error) Result {
	in := input{report: r, fault: f, code: strings.ToUpper(r.Data.ErrorCode)}
	in.spec, in.known = c.codes[in.code]
	hasText := false
	for _, l := range c.links {
		// The text costs an allocation: made for the first link that
		// reads it, when the links before it have not decided.
		if l.text && !hasText {
			in.text, hasText = r.Data.Message, true
			if in.code != "" {
				in.text = in.code + ": " + in.text
			}
		}
		if res, ok := l.classify(in); ok {
			return res
		}
	}
	return Result{Type: triage.SystemError, Confidence: 0.2, Method: MethodDefault}
}

// Fault is the fault r amounts to: data.fault when the agent sent one;
// else the fault its error code means (method wire, confidence 0.97);
// else what fault.ClassifyText makes of its code and message. It is never
// nil.
func (c *Chain) Fault(r *triage.Report) *fault.Error {
	if r.Data.Fault != nil {
		return r.Data.Fault
	}
	if spec, ok := c.codes.Lookup(r.Data.ErrorCode); ok {
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

// byReportedType takes the type the agent reported, surer when its code
// says the same.
func byReportedType(in input) (Result, bool) {
	t := in.report.Data.ErrorType
	if !t.Valid() {
		return Result{}, false
	}
	res := Result{Type: t, Confidence: 0.95, Method: MethodReported}
	if in.known && in.spec.Type == t {
		res.Confidence, res.Rule = 0.99, in.code
	}
	return res, true
}

// byCode takes the type the report's error code says.
func byCode(in input) (Result, bool) {
	if !in.known {
		return Result{}, false
	}
	return Result{Type: in.spec.Type, Confidence: 0.97, Method: MethodErrorCode, Rule: in.code}, true
}

// bySentFault takes the type the fault the agent sent most likely has.
func bySentFault(in input) (Result, bool) {
	f := in.report.Data.Fault
	if f == nil {
		return Result{}, false
	}
	t, ok := faultType(f, in.report.AgentID)
	if !ok {
		return Result{}, false
	}
	return Result{Type: t, Confidence: 0.85, Method: MethodFault, Rule: string(f.Code)}, true
}

// byMessage tries the message rules on the code and the message.
func byMessage(in input) (Result, bool) {
	for _, rule := range messageRules {
		if rule.re.MatchString(in.text) {
			return Result{Type: rule.typ, Confidence: 0.75, Method: MethodMessage, Rule: rule.name}, true
		}
	}
	return Result{}, false
}

// byModel asks the model. The model is over-confident
// (docs/text-classifier.md): it decides only when fairly sure, and never
// with the certainty of a rule.
func byModel(model Predictor) func(in input) (Result, bool) {
	return func(in input) (Result, bool) {
		t, p := model(in.text)
		if !t.Valid() || p < modelThreshold {
			return Result{}, false
		}
		return Result{Type: t, Confidence: round2(0.7 * p), Method: MethodModel}, true
	}
}

// byDerivedFault guesses the type from the report's fault, derived from
// its code or text when the agent sent none.
func byDerivedFault(in input) (Result, bool) {
	t, ok := faultType(in.fault, in.report.AgentID)
	if !ok {
		return Result{}, false
	}
	return Result{Type: t, Confidence: 0.4, Method: MethodFault, Rule: string(in.fault.Code)}, true
}

// faultType maps a fault's code to the canonical type its report most
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

// round2 rounds a confidence to two decimals.
func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }
