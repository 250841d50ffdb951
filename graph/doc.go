// Package graph is a StateGraph executor for agent pipelines in which every
// failure reaches the caller in one shape.
//
// A Graph[S] has typed state S and nodes, functions of a context and the
// state that return the new state or an error. Edges join nodes; a router
// picks among declared targets (AddConditionalEdges); a fan-out runs
// branches in parallel, each on its own copy of the state, until they
// converge on a fan-in node that merges their results in declaration order
// (AddFanOut, AddFanIn). Compile checks the shape (unknown nodes, unreachable
// nodes, a fan-out without a fan-in, duplicate names, nodes without a way
// out) and reports every problem at once. Cycles are allowed, bounded by
// Config.MaxSteps (by default DefaultMaxSteps, 100, plus one per node).
//
//	g := graph.New[State]().
//		AddNode("retrieve", retrieve).
//		AddNode("answer", answer).
//		AddEdge("retrieve", "answer").
//		AddEdge("answer", graph.End).
//		SetEntry("retrieve")
//	r, err := g.Compile(nil)
//	out, err := r.Invoke(ctx, State{Query: q})
//
// # The error contract
//
// Every failure is a *NodeError: the node, the path of nodes completed
// before it, the state the failing node received, and the cause, which
// errors.Is, errors.As and fault.From reach. Its message is
// `error in node "X": cause`. Execution stops after it, unless the node has
// an error route (OnError). Invoke returns it; Stream reports it in one of
// seed 003's two modes: raised (the iterator's error value, then the end) or,
// with ErrorEvents, as a last event of type EventError whose JSON is
// {"type":"error","node":…,"error":…,"state":…}. Before the failure, a
// Stream delivers every event of the nodes that ran, their output
// included, even when the failure is the caller's context ending: only a
// loop that stops reading loses events.
//
//	path                       NodeError.Node        cause                             Invoke, Stream    Stream with ErrorEvents
//	a node returns an error    the node              the error                         *NodeError        last event EventError
//	a router returns an error  the node routed from  "router: " + the error            *NodeError        last event EventError
//	a router names a node      the node routed from  ErrNoRoute: no valid next node    *NodeError        last event EventError
//	  not among its targets                          from "X"
//	a branch of a fan-out      the branch's node     the error; Branches lists every   *NodeError        last event EventError
//	  (at any depth in it)       that failed         failed branch in order
//	the fan-in node            the fan-in node       the error                         *NodeError        last event EventError
//	a node or router panics    the node              *PanicError (stack only with      *NodeError        last event EventError
//	                                                 Config.Debug)
//	a Clone, ErrorState,       the node being run    *PanicError, wrapped for          *NodeError        last event EventError
//	  Checkpointer, OnNotice     or exited then      ErrorState and a checkpoint
//	  or OnOutput panics                             (see below)
//	the context is cancelled   the next node (in a   context.Canceled                  *NodeError        last event EventError
//	  or its deadline passes     fan-out, each       / DeadlineExceeded
//	                             branch's)
//	the step limit             the next node         ErrStepLimit                      *NodeError        last event EventError
//	a checkpoint cannot be     the next node; the    "save checkpoint: " (the final    *NodeError        last event EventError
//	  saved                      node exited, for    one: "save the final
//	                             the save at a       checkpoint: ") + the
//	                             router's or fan-    Checkpointer's error
//	                             out's exit and the
//	                             final one
//
// A failing branch cancels its siblings' contexts (fail fast) unless
// Config.WaitForAllBranches is set; a sibling stopped by that cancellation
// is not reported as failed. Branches that completed keep their results in
// the checkpoint. The failures are listed in declaration order; which
// siblings had failed before the cancellation reached them depends on
// timing, so the list is the same on every run only with
// WaitForAllBranches.
//
// When several branches failed, the NodeError is the first one's: its
// Node, Path, State and Err, and its classification. errors.As and
// fault.From follow that failure only, so that a bug beside a sibling's
// RATE_LIMITED is not retried; the others are in Branches (or Failures),
// each a NodeError to classify on its own. errors.Is finds every branch's
// cause, except the context's errors, which classify a failure and so
// answer for the first one only.
//
// On failure Invoke returns, besides the error, the state the failing node
// received: NodeError.State, the state of the error event, whatever the
// path, a node however deep in a fan-out's branch included. A node that may
// fail should not change the state it received in place (a map, a slice):
// return a changed copy, so that the state in the error and in the
// checkpoint is the one the node was given.
//
// A panic outside a node or router is recovered where it happens and fails
// the node being run or exited then, as an error there would: its
// NodeError has the path so far and that node's state, its cause is a
// *PanicError, which fault.From classifies as it does a node's panic
// (AGENT_EXECUTION_ERROR, not retryable), and the checkpoint records the
// failure. A panic in ErrorState fails the node whose failure it was
// handed, the route not taken, with a cause that names the route and keeps
// that failure's message; one in a Clone or in a Checkpointer's Save is a
// checkpoint that cannot be saved. A Checkpointer that keeps panicking
// cannot record the failure either: that is logged, and the last
// checkpoint it saved still holds. A Load that panics fails Resume with its
// *PanicError, as a Load that fails does. A Logger whose handler panics
// loses the record, not the run.
//
// # Streaming
//
// Stream yields a run as events: node_started and node_finished for every
// node call, error_routed, and the end or the failure. A node streams its
// own output (text chunks from an LLM, tool calls, changes of state) with
// Emit, and its non-fatal notices with Notify; both may be called from
// goroutines the node starts, with its context. They reach the stream
// through the same ordered channel as the node events, so the events come
// in the order the nodes ran: for every node call, its node_started, then
// its outputs and notices in the order they were sent, then its
// node_finished, or its failure (error_routed, or the run's error, last).
// The branches of a parallel fan-out interleave, each branch node's events
// still between its own node_started and node_finished, and each call has
// its own Step. What a node sends after its call returned is dropped;
// under WithRetry the call lasts until the last attempt returns, so a
// failed attempt's outputs (already streamed) are followed by the next
// attempt's. The stream holds 16 events for the loop: a node that emits
// faster than the loop reads blocks in Emit, and Emit returns at once when
// the loop has stopped reading. Without a stream, Config.OnOutput and
// Config.OnNotice receive what nodes send.
//
//	what a node does                    Stream                                      Invoke
//	(is called)                         node_started {node, step}                   -
//	Emit(ctx, output)                   EventOutput {"type":"output","node":…,      Config.OnOutput(ctx, node, step, output),
//	                                      "step":…,"output":…}                        or dropped
//	Notify(ctx, notice)                 EventNotice {"type":"notice","node":…,      Config.OnNotice(ctx, node, notice),
//	                                      "notice":{"code":…,"message":…}}            or dropped
//	(returns)                           node_finished {node, step, state}           -
//	(fails, with an error route)        error_routed, then the route's node         the route's node runs
//	(fails)                             EventError, or the iterator's error         *NodeError
//	Emit or Notify after it returned,   dropped                                     dropped
//	  or outside a node call
//
// # Recovery
//
// A node may declare an error route (OnError): its failure goes into the
// state (Config.ErrorState) and the run continues at the handler — how a
// pipeline hands its errors to the Error Handler agent. A node may retry
// under a resilience policy (WithRetry), which retries only what the fault
// says is retryable, never before its RetryAfter. A node may send non-fatal
// notices with Notify, each a *fault.Error its caller shows as seed 001's
// user_error: the run goes on (see Streaming for where they go).
//
// With a Checkpointer (MemoryCheckpointer here; store/checkpoint.New is the
// durable one, on a tenant of store/sqlite or store/postgres, which stores
// the state as JSON), each step is saved: the state, where the run stands,
// and the results of a fan-out's completed branches. Resume continues a
// failed run from where it stopped: the node that failed runs again with
// the state it received (after a router's failure, only the router), the
// branches of a fan-out that completed do not, and a fan-in node gets its
// branches' results again. This is what the Error Handler's next_action
// "resume" means. A checkpoint whose node this graph no longer has is
// refused.
//
// # Copying state
//
// A fan-out gives each branch a copy of the state made by Config.Clone, or
// by the state's own Clone() S method, or else by assignment, which shares
// maps, slices and pointers: state with such fields that branches change
// needs a Clone. Checkpoints store copies made the same way.
package graph
