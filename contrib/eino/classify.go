package triageeino

import (
	"errors"
	"maps"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/triage-go/triage/fault"
)

func init() {
	fault.Register(Classify)
}

// Classify turns Eino's own errors into faults (see the package
// documentation's table), and reports false for any other error, which
// fault.From then classifies by its own rules and the other registered
// classifiers (a provider's, say) through Eino's wrapping. An interrupt
// (compose.Interrupt, compose.InterruptAndRerun) is not a failure: Classify
// declines it.
//
// Importing the package registers Classify with fault.Register, so
// fault.From applies it; call it directly to classify without that side
// effect.
func Classify(err error) (*fault.Error, bool) {
	if err == nil || IsInterrupt(err) {
		return nil, false
	}
	typed := func(code fault.Code, rule, message string) (*fault.Error, bool) {
		f := fault.New(code, message, fault.WithSource("eino"), fault.WithCause(err))
		f.Classification = fault.Classification{Method: fault.MethodClassifier, Rule: rule, Confidence: 0.9}
		return f, true
	}
	var exhausted *adk.RetryExhaustedError
	switch {
	case errors.As(err, &exhausted):
		// Its Unwrap returns adk.ErrExceedMaxRetries, not the last error:
		// the last error is the failure, after TotalRetries retries.
		attempts := exhausted.TotalRetries + 1
		if exhausted.LastErr == nil {
			return typed(fault.AgentExecutionError, "eino:retry_exhausted", "The model failed after its retries.")
		}
		f := fault.From(exhausted.LastErr).Clone()
		f.Details = maps.Clone(f.Details)
		if f.Details == nil {
			f.Details = map[string]any{}
		}
		f.Details["attempts"] = attempts
		f.Cause = err
		f.Classification.Rule = "eino:retry_exhausted:" + f.Classification.Rule
		return f, true
	case errors.Is(err, compose.ErrExceedMaxSteps):
		return typed(fault.AgentExecutionError, "eino:exceeds_max_steps", "The graph ran more steps than it may.")
	case errors.Is(err, adk.ErrExceedMaxIterations):
		return typed(fault.AgentExecutionError, "eino:exceeds_max_iterations", "The agent ran more iterations than it may.")
	case errors.Is(err, compose.ErrGraphCompiled), errors.Is(err, compose.ErrChainCompiled), errors.Is(err, compose.DAGInvalidLoopErr):
		return typed(fault.ConfigError, "eino:graph_definition", "The graph is not defined correctly.")
	case errors.Is(err, schema.ErrRecvAfterClosed):
		return typed(fault.InternalError, "eino:recv_after_closed", "A stream was read after it was closed.")
	}
	// Eino raises these with fmt.Errorf only: their text is all there is,
	// a lower confidence.
	text := err.Error()
	textRule := func(code fault.Code, rule, message string) (*fault.Error, bool) {
		f, ok := typed(code, rule, message)
		f.Classification = fault.Classification{Method: fault.MethodText, Rule: rule, Confidence: 0.7}
		return f, ok
	}
	switch {
	case strings.Contains(text, "not found in toolsNode indexes"):
		return textRule(fault.CapabilityNotFound, "eino:tool_not_found", "The model called a tool the agent does not have.")
	case strings.Contains(text, "unexpected input type"), strings.Contains(text, "unexpected output type"):
		return textRule(fault.ConfigError, "eino:type_mismatch", "A node received a value of a type it does not take.")
	}
	return nil, false
}

// IsInterrupt reports whether err is an Eino interrupt (compose.Interrupt,
// compose.StatefulInterrupt, compose.CompositeInterrupt, the deprecated
// compose.InterruptAndRerun, or a graph's interrupt before or after a
// node): a pause to resume from a checkpoint, not a failure.
func IsInterrupt(err error) bool {
	if _, ok := compose.ExtractInterruptInfo(err); ok {
		return true
	}
	_, ok := compose.IsInterruptRerunError(err)
	return ok
}
