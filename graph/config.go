package graph

import (
	"context"
	"log/slog"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/resilience"
)

// DefaultMaxSteps is what the default step limit allows beyond the graph's
// size: when Config.MaxSteps is zero, a run may take DefaultMaxSteps steps
// plus one per node, so any graph without cycles completes and a cycle may
// go round about a hundred times.
const DefaultMaxSteps = 100

// Config configures a compiled graph. A nil *Config, and every zero field,
// means the documented default.
type Config[S any] struct {
	// MaxSteps bounds the node executions of one run (branches included),
	// so a cycle that never exits fails with ErrStepLimit instead of
	// running forever. Defaults to DefaultMaxSteps (100) plus the number of
	// nodes.
	MaxSteps int

	// Clone copies the state for each branch of a fan-out, and for each
	// checkpoint. Defaults to the state's own Clone() S method when it has
	// one, and otherwise to assignment, which copies a struct's fields but
	// shares its maps, slices and pointers: give Clone when branches
	// change such fields.
	Clone func(S) S

	// WaitForAllBranches makes a fan-out wait for every branch when one
	// fails, so the error lists every failure. Defaults to false: fail fast,
	// the first failure cancelling its siblings' contexts.
	WaitForAllBranches bool

	// ErrorState puts a node's error into the state handed to its error
	// route (see OnError). Required when a node has an error route. If it
	// panics, the route is not taken: the node fails, with a *PanicError.
	ErrorState func(state S, err *NodeError) S

	// Checkpointer saves each step, so that Resume can continue a failed
	// run. Defaults to nil: no checkpoints, and Resume fails. A Save that
	// fails or panics fails the node the run stands before (or at the exit
	// of); the failure's own checkpoint is then tried, and logged if it
	// cannot be saved either.
	Checkpointer Checkpointer[S]

	// Logger logs each failure at Error level, and each failure handed to
	// an error route at Warn level, with the node, the path, the run id and
	// the fault. Defaults to nil: no logs. A handler that panics loses its
	// record, not the run.
	Logger *slog.Logger

	// OnNotice receives the notices nodes send with Notify, when the run is
	// not streamed (a stream yields them as events instead). Defaults to
	// nil: such notices are dropped.
	OnNotice func(ctx context.Context, node string, notice *fault.Error)

	// OnOutput receives the output nodes send with Emit, when the run is
	// not streamed (a stream yields it as events instead): the node, its
	// call's Step, and the output, on the goroutine that called Emit and
	// with its context, before Emit returns; every call for a node call
	// returns before that node call ends. It may be called concurrently:
	// by the branches of a parallel fan-out, by goroutines a node started.
	// Defaults to nil: such output is dropped. If it panics, the panic is
	// Emit's: in a node, the node's failure.
	OnOutput func(ctx context.Context, node string, step int, output any)

	// Debug keeps a recovered panic's stack in its PanicError. Defaults to
	// false.
	Debug bool
}

// NodeOption configures one node.
type NodeOption func(*nodeOptions)

type nodeOptions struct {
	onError string
	retry   *retrySpec
}

type retrySpec struct {
	policy *resilience.Policy
	op     resilience.Operation
}

// OnError routes the node's failure to handler instead of stopping the run:
// the handler runs next, with the state the failing node received and the
// NodeError put into it by Config.ErrorState. This is how a pipeline hands
// its errors to the Error Handler agent. A failure of the node's router is
// routed the same way; a failure in the branches of the node's fan-out is
// not (give the branch nodes their own error routes).
func OnError(handler string) NodeOption {
	return func(o *nodeOptions) { o.onError = handler }
}

// WithRetry runs the node under a resilience policy, so that a failure its
// fault says to retry is retried (never before its RetryAfter) before the
// node is said to have failed.
func WithRetry(policy *resilience.Policy, op resilience.Operation) NodeOption {
	return func(o *nodeOptions) { o.retry = &retrySpec{policy: policy, op: op} }
}
