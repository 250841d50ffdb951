// Package aguirun writes a graph run as a live AG-UI stream (seed 000): the
// bridge between package graph and package wire/agui that any Go program
// can put behind its own http.Handler, and that `triage serve` uses for
// its run endpoint.
//
// Run maps the graph's events onto AG-UI's, in the order the nodes ran:
//
//	graph                        AG-UI
//	(start)                      RUN_STARTED
//	node_started                 STEP_STARTED {stepName: node}
//	graph.Emit(ctx, Text{…})     TEXT_MESSAGE_START (first), TEXT_MESSAGE_CONTENT
//	graph.Emit(ctx, EndText{…})  TEXT_MESSAGE_END
//	graph.Emit(ctx, agui event)  that event, as given
//	graph.Notify(ctx, notice)    CUSTOM {name: "user_error", value: seed 001's user_error
//	                             of the notice}; the run goes on
//	node_finished                TEXT_MESSAGE_END for the node's open messages,
//	                             STATE_SNAPSHOT (Options.Snapshot), STEP_FINISHED
//	error_routed                 STEP_FINISHED; the error route's node runs next
//	end                          RUN_FINISHED
//	error (any path)             RUN_ERROR, the last event
//
// A run stopped by its context ends with CANCELLED, or with the fault the
// context was cancelled with (context.WithCancelCause), which is how
// `triage serve` tells a run's client that the service is shutting down.
//
// AgentGraph makes an agent of package agent (script, provider, ACP
// worker) a graph, so that every agent is run the same way.
package aguirun
