package triagelangchaingo

import (
	"errors"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"

	"github.com/triage-go/triage/fault"
)

func init() {
	fault.Register(Classify)
}

// llmCodes maps LangChainGo's standard error codes (llms.ErrorCode) to
// Triage's, as the provider packages map their SDKs' answers.
var llmCodes = map[llms.ErrorCode]fault.Code{
	llms.ErrCodeAuthentication:      fault.ProviderAuthFailed,
	llms.ErrCodeRateLimit:           fault.RateLimited,
	llms.ErrCodeInvalidRequest:      fault.UpstreamError,
	llms.ErrCodeResourceNotFound:    fault.CapabilityNotFound,
	llms.ErrCodeTimeout:             fault.Timeout,
	llms.ErrCodeCanceled:            fault.Cancelled,
	llms.ErrCodeQuotaExceeded:       fault.QuotaExhausted,
	llms.ErrCodeContentFilter:       fault.ContentRefused,
	llms.ErrCodeTokenLimit:          fault.PayloadTooLarge,
	llms.ErrCodeProviderUnavailable: fault.ServiceUnavailable,
	llms.ErrCodeNotImplemented:      fault.CapabilityNotFound,
}

// sentinels maps LangChainGo's chain and agent errors to Triage's codes,
// with the rule's name.
var sentinels = []struct {
	err  error
	code fault.Code
	rule string
}{
	// A chain's inputs: what the caller passed.
	{chains.ErrMissingInputValues, fault.InvalidRequest, "missing_input_values"},
	{chains.ErrInputValuesWrongType, fault.InvalidRequest, "input_values_wrong_type"},
	{chains.ErrMissingMemoryKeyValues, fault.InvalidRequest, "missing_memory_key_values"},
	{chains.ErrMemoryValuesWrongType, fault.InvalidRequest, "memory_values_wrong_type"},
	{chains.ErrInvalidInputValues, fault.InvalidRequest, "invalid_input_values"},
	// A chain or agent put together wrong.
	{chains.ErrInvalidOutputValues, fault.ConfigError, "invalid_output_values"},
	{chains.ErrMultipleInputsInRun, fault.ConfigError, "multiple_inputs_in_run"},
	{chains.ErrMultipleOutputsInRun, fault.ConfigError, "multiple_outputs_in_run"},
	{chains.ErrWrongOutputTypeInRun, fault.ConfigError, "wrong_output_type_in_run"},
	{chains.ErrOutputNotStringInPredict, fault.ConfigError, "output_not_string_in_predict"},
	{chains.ErrMultipleOutputsInPredict, fault.ConfigError, "multiple_outputs_in_predict"},
	{chains.ErrChainInitialization, fault.ConfigError, "chain_initialization"},
	{agents.ErrExecutorInputNotString, fault.ConfigError, "executor_input_not_string"},
	{agents.ErrUnknownAgentType, fault.ConfigError, "unknown_agent_type"},
	{agents.ErrInvalidOptions, fault.ConfigError, "invalid_options"},
	{agents.ErrInvalidChainReturnType, fault.ConfigError, "invalid_chain_return_type"},
	// The model's answer did not follow the agent's format.
	{agents.ErrUnableToParseOutput, fault.ProtocolError, "unable_to_parse_output"},
	{agents.ErrAgentNoReturn, fault.ProtocolError, "agent_no_return"},
	// The agent went round without finishing.
	{agents.ErrNotFinished, fault.AgentExecutionError, "not_finished"},
}

// Classify turns LangChainGo's own errors into faults (see the package
// documentation's table), and reports false for any other error, which
// fault.From then classifies by its own rules. An *llms.Error with the
// code ErrCodeUnknown is declined too, so that fault.From classifies its
// cause.
//
// Importing the package registers Classify with fault.Register, so
// fault.From applies it; call it directly to classify without that side
// effect.
func Classify(err error) (*fault.Error, bool) {
	if err == nil {
		return nil, false
	}
	if e, ok := errors.AsType[*llms.Error](err); ok && e != nil {
		code, known := llmCodes[e.Code]
		if !known {
			return nil, false
		}
		opts := []fault.Option{fault.WithCause(err)}
		if e.Provider != "" {
			opts = append(opts, fault.WithSource(e.Provider), fault.WithDetail("providerId", e.Provider))
		}
		f := fault.New(code, "", opts...)
		f.Classification = fault.Classification{Method: fault.MethodClassifier, Rule: "langchaingo:llms." + string(e.Code), Confidence: 0.9}
		return f, true
	}
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			f := fault.New(s.code, "", fault.WithSource("langchaingo"), fault.WithCause(err))
			f.Classification = fault.Classification{Method: fault.MethodClassifier, Rule: "langchaingo:" + s.rule, Confidence: 0.9}
			return f, true
		}
	}
	return nil, false
}
