// Package reporter is the machinery the Go agent framework adapters
// (contrib/eino, contrib/langchaingo, contrib/genkit) share: a Reporter that
// turns an agent's failure into a report and posts it to the Error Handler
// service with the Go client, in the background, and the context values
// that say which query, session and run a failure belongs to.
//
// # Reporting in the background
//
// Report never blocks the agent: it builds the report at once (the fault,
// the query, the trace, from the context) and queues it; one goroutine
// posts the queue through client.Client.Report, each report bounded by
// Config.Timeout. A full queue drops the report and logs it; a report that
// fails is logged (and passed to Config.OnReport), never returned to the
// agent. Close waits for the queue to drain. With Config.Synchronous, Report
// posts the report itself and returns the client's error.
//
// # One failure, one report
//
// Frameworks announce a failure at every level it passes through: the
// model's node, the graph around it, the graph around that. A Frame, kept in
// the context by the adapter at each level's start, holds them together:
// the innermost failure is the one recorded (its component, its own error
// text, before the framework wrapped it), and the outermost level reports
// it, once. Where a framework gives its callbacks no context to keep a
// frame in (LangChainGo), Seen drops a failure that wraps one reported
// moments before under the same query.
//
// # The report
//
// A failure becomes seed 004's report: agent_id the adapter's agent;
// data.query_id the query of the context (WithQuery), else
// "<framework>:<name>" of the outermost component, else "<framework>:run";
// data.error_code the fault's code and data.fault the fault (without debug
// output); data.message the failing component's error text, redacted
// (fault.Redact) and on one line; data.context the framework, component,
// node, session_id and run_id of the context, trace_id and traceparent of
// its span, and how the fault was classified; a tag "framework".
package reporter
