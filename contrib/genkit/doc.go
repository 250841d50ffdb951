// Package triagegenkit reports the failures of Firebase Genkit for Go
// models and flows (github.com/firebase/genkit/go) to Triage's Error
// Handler service, and classifies Genkit's own errors into Triage faults.
//
// It is a module of its own, github.com/triage-go/triage/contrib/genkit, so
// that Triage's module never depends on Genkit.
//
//	c, err := client.New("https://triage.internal", client.Config{APIKey: os.Getenv("TRIAGE_API_KEY")})
//	…
//	rep, err := triagegenkit.New(triagegenkit.Config{AgentID: "travel_agent", Client: c})
//	…
//	defer rep.Close(context.Background())
//
//	flow := genkit.DefineFlow(g, "plan_trip", triagegenkit.Flow(rep, "plan_trip",
//		func(ctx context.Context, city string) (string, error) {
//			return genkit.GenerateText(ctx, g, ai.WithModelName("googleai/gemini-2.5-flash"),
//				ai.WithPrompt("Plan a day in %s", city),
//				ai.WithMiddleware(rep.ModelMiddleware("googleai/gemini-2.5-flash")))
//		}))
//	out, err := flow.Run(triagegenkit.WithQuery(ctx, queryID), "Lisbon")
//	f := fault.From(err) // a *fault.Error: its Code, Retryable, RetryAfter
//
// # What is reported
//
// Genkit's extension point is middleware: ModelMiddleware is a model
// middleware (ai.WithMiddleware), Flow wraps a flow's function
// (genkit.DefineFlow), and Middleware is the generic form of both, for any
// streaming function (genkit.DefineStreamingFlow). Each watches the
// function it wraps and returns its result and its error unchanged. They
// nest: a model's failure inside a flow is reported once, by the
// outermost (the flow), with the innermost's component ("Model"), name
// and error text. A flow whose function recovers from a model's error is
// not a failure and is not reported.
//
// The report's agent_id is Config.AgentID; its query_id the context's
// (WithQuery), else "genkit:" and the outermost's name ("genkit:plan_trip"),
// else "genkit:run"; its data.context the framework, component, node, the
// session and run ids of the context (WithSession, WithRun), the trace_id
// and traceparent of Genkit's OpenTelemetry span (Genkit traces each
// action, so a flow's reports carry its trace), and how the fault was
// classified. Its error_code is the fault's code and data.fault the fault.
//
// Reports go in the background (one goroutine, a bounded queue, each
// report within Config.Timeout with the client's retries): the flow never
// waits for the service, and a report that fails or finds the queue full
// is logged, never the flow's error. With Config.Synchronous the report is
// posted before the middleware returns, and with Config.ReportErrors as
// well a failed report's error is joined to the flow's (errors.Join).
// Close the reporter before the program exits.
//
// # Classification
//
// Importing the package registers Classify with fault.Register, so that
// fault.From classifies Genkit's errors (*core.GenkitError, and
// *core.UserFacingError from core.NewPublicError) by their status:
//
//	CANCELLED                          CANCELLED             not retryable
//	INVALID_ARGUMENT, OUT_OF_RANGE     INVALID_REQUEST       not retryable
//	DEADLINE_EXCEEDED                  TIMEOUT               retryable
//	NOT_FOUND, UNIMPLEMENTED           CAPABILITY_NOT_FOUND  not retryable
//	ALREADY_EXISTS, FAILED_PRECONDITION  CONFIG_ERROR        not retryable
//	PERMISSION_DENIED, UNAUTHENTICATED PROVIDER_AUTH_FAILED  not retryable
//	RESOURCE_EXHAUSTED                 RATE_LIMITED          retryable
//	ABORTED (Genkit: too many tool
//	  turns)                           AGENT_EXECUTION_ERROR not retryable
//	UNAVAILABLE                        SERVICE_UNAVAILABLE   retryable
//	INTERNAL_SERVER_ERROR, DATA_LOSS   INTERNAL_ERROR        not retryable
//	UNKNOWN                            fault.From's own rules
//
// The fault's message is Triage's, never Genkit's, and a GenkitError's
// details (which hold a stack trace) are not copied; details.genkitStatus
// keeps the status. Everything else is fault.From's (a plugin's provider
// error, with that provider's package imported; context and network
// errors).
//
// # Building
//
// Genkit v1.4.0 depends on github.com/google/dotprompt/go, which is built
// against github.com/invopop/jsonschema v0.13.0 and does not compile with
// v0.14.0, the version Triage's module selects. A program that uses this
// package adds to its go.mod:
//
//	replace github.com/invopop/jsonschema => github.com/invopop/jsonschema v0.13.0
//
// The Anthropic SDK (anthropic-sdk-go v1.84.0, which Triage's
// provider/anthropic uses) needs v0.14.0 in turn: one program cannot hold
// both Genkit v1.4.0 and Triage's provider/anthropic until dotprompt moves
// to v0.14.0.
package triagegenkit
