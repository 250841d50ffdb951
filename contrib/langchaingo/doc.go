// Package triagelangchaingo reports the failures of LangChainGo models,
// chains, agents and tools (github.com/tmc/langchaingo) to Triage's Error
// Handler service, and classifies LangChainGo's own errors into Triage
// faults.
//
// It is a module of its own, github.com/triage-go/triage/contrib/langchaingo,
// so that Triage's module never depends on LangChainGo.
//
//	c, err := client.New("https://triage.internal", client.Config{APIKey: os.Getenv("TRIAGE_API_KEY")})
//	…
//	h, err := triagelangchaingo.NewHandler(triagelangchaingo.Config{AgentID: "research_agent", Client: c})
//	…
//	defer h.Close(context.Background())
//
//	llm, err := openai.New(openai.WithCallback(h))
//	chain := chains.NewLLMChain(llm, prompt, chains.WithCallback(h))
//	out, err := chains.Call(triagelangchaingo.WithQuery(ctx, queryID), chain, inputs)
//	f := fault.From(err) // a *fault.Error: its Code, Retryable, RetryAfter
//
// # What is reported
//
// Handler is a LangChainGo callbacks.Handler: HandleLLMError,
// HandleChainError and HandleToolError report the failure they are given
// (the others do nothing). A failure passes through several callbacks (the
// model's HandleLLMError, then HandleChainError of each chain around it,
// with the same error or one wrapping it); LangChainGo's callbacks return
// no context to follow a run by, so the handler reports the first and
// drops an error that is, or wraps (errors.Is), one it reported under the
// same query less than 10 seconds before. One consequence: a chain that
// fails twice within 10 seconds with the very same error value (an
// unwrapped sentinel such as agents.ErrNotFinished) under the same query
// is reported once; name each query (WithQuery) to keep them apart.
//
// The report's agent_id is Config.AgentID; its query_id the context's
// (WithQuery), else "langchaingo:run"; its data.context the framework,
// the component ("LLM", "Chain" or "Tool"), the session and run ids of the
// context (WithSession, WithRun), the trace_id and traceparent of the
// context's OpenTelemetry span when it has one, and how the fault was
// classified. Its error_code is the fault's code and data.fault the fault.
//
// Reports go in the background (one goroutine, a bounded queue, each
// report within Config.Timeout with the client's retries): a callback
// never waits for the service, and a report that fails or finds the queue
// full is logged, never the chain's error. Close the handler before the
// program exits.
//
// # Classification
//
// Importing the package registers Classify with fault.Register, so that
// fault.From classifies LangChainGo's errors wherever they are met. An
// *llms.Error, the standard error LangChainGo's providers return, is
// classified by its code (its provider becomes the fault's Source and
// details.providerId):
//
//	authentication                       PROVIDER_AUTH_FAILED  not retryable
//	rate_limit                           RATE_LIMITED          retryable
//	invalid_request                      UPSTREAM_ERROR        not retryable
//	resource_not_found, not_implemented  CAPABILITY_NOT_FOUND  not retryable
//	timeout                              TIMEOUT               retryable
//	canceled                             CANCELLED             not retryable
//	quota_exceeded                       QUOTA_EXHAUSTED       not retryable
//	content_filter                       CONTENT_REFUSED       not retryable
//	token_limit                          PAYLOAD_TOO_LARGE     not retryable
//	provider_unavailable                 SERVICE_UNAVAILABLE   retryable
//	unknown                              its cause's, by fault.From
//
// The chains' and agents' errors:
//
//	chains.ErrInvalidInputValues, ErrMissingInputValues,
//	  ErrInputValuesWrongType, ErrMissingMemoryKeyValues,
//	  ErrMemoryValuesWrongType                         INVALID_REQUEST
//	chains.ErrInvalidOutputValues, ErrMultipleInputsInRun,
//	  ErrMultipleOutputsInRun, ErrWrongOutputTypeInRun,
//	  ErrOutputNotStringInPredict, ErrMultipleOutputsInPredict,
//	  ErrChainInitialization; agents.ErrExecutorInputNotString,
//	  ErrUnknownAgentType, ErrInvalidOptions,
//	  ErrInvalidChainReturnType                        CONFIG_ERROR
//	agents.ErrUnableToParseOutput, ErrAgentNoReturn    PROTOCOL_ERROR
//	agents.ErrNotFinished                              AGENT_EXECUTION_ERROR
//
// none of them retryable. Everything else is fault.From's (context,
// network and HTTP status errors, a *fault.Error a tool returned).
package triagelangchaingo
