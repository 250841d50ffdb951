// Package triageeino reports the failures of CloudWeGo Eino graphs,
// chains, workflows and agents (github.com/cloudwego/eino) to Triage's
// Error Handler service, and classifies Eino's own errors into Triage
// faults.
//
// It is a module of its own, github.com/triage-go/triage/contrib/eino, so
// that Triage's module never depends on Eino.
//
//	c, err := client.New("https://triage.internal", client.Config{APIKey: os.Getenv("TRIAGE_API_KEY")})
//	…
//	h, err := triageeino.NewHandler(triageeino.Config{AgentID: "support_agent", Client: c})
//	…
//	defer h.Close(context.Background())
//
//	out, err := runnable.Invoke(triageeino.WithQuery(ctx, queryID), in, compose.WithCallbacks(h))
//	f := fault.From(err) // a *fault.Error: its Code, Retryable, RetryAfter
//
// or callbacks.AppendGlobalHandlers(h) once, at start, for every run.
//
// # What is reported
//
// Handler is an Eino callbacks.Handler. A failure passes through every
// level of a run (the chat model's node, the graph, the graph around it),
// and Eino calls OnError at each; the handler reports it once, when the
// run's outermost level fails, with the innermost level's component
// ("ChatModel", "Tool", "ToolsNode", "Lambda"), node name and error text,
// before Eino wrapped it in its node path. An error inside the output
// stream of a streamed run (Stream, Transform) is reported too: the handler
// reads its copy of the outermost level's stream. An interrupt
// (compose.Interrupt and its kin) is a pause, not a failure, and is not
// reported. A failure that a level handles (a graph that recovers from a
// node's error) is not the run's, and is not reported either. ADK agents
// (package adk) deliver their failures as events: report them with
// Handler.Report.
//
// The report's agent_id is Config.AgentID; its query_id the context's
// (WithQuery), else "eino:" and the outermost graph's name
// (compose.WithGraphName), else "eino:run"; its data.context the
// framework, component, node, the session and run ids of the context
// (WithSession, WithRun), the trace_id and traceparent of the context's
// OpenTelemetry span when it has one, and how the fault was classified.
// Its error_code is the fault's code and data.fault the fault.
//
// Reports go in the background (one goroutine, a bounded queue, each
// report within Config.Timeout with the client's retries): a callback
// never waits for the service, and a report that fails or finds the queue
// full is logged, never the run's error. Close the handler before the
// program exits.
//
// # Classification
//
// Importing the package registers Classify with fault.Register, so that
// fault.From classifies Eino's errors wherever they are met:
//
//	adk.RetryExhaustedError            the last error's fault, details.attempts
//	compose.ErrExceedMaxSteps          AGENT_EXECUTION_ERROR  not retryable
//	adk.ErrExceedMaxIterations         AGENT_EXECUTION_ERROR  not retryable
//	compose.ErrGraphCompiled,
//	  ErrChainCompiled, DAGInvalidLoopErr  CONFIG_ERROR       not retryable
//	schema.ErrRecvAfterClosed          INTERNAL_ERROR         not retryable
//	"tool … not found in toolsNode
//	  indexes" (text, confidence 0.7)  CAPABILITY_NOT_FOUND   not retryable
//	"unexpected input/output type"
//	  (text, confidence 0.7)           CONFIG_ERROR           not retryable
//
// Everything else is fault.From's: Eino wraps a node's error with %w-like
// Unwrap, so a provider's error (with its provider package imported), a
// context error, a network error or a *fault.Error the component returned
// is classified as it would be without Eino.
package triageeino
