package graph

import (
	"context"
	"sync"

	"github.com/triage-go/triage/fault"
)

// Emit sends output from a node to its run: text an LLM streams, a tool
// call, a change of state, anything the caller knows how to show. A
// streamed run yields it as an EventOutput of the node and its Step, in
// the order of the run's other events: for every node call the stream is
// its node_started, then its outputs and notices in the order they were
// sent, then its node_finished (or its failure: an error_routed event or
// the run's error). Invoke hands it to Config.OnOutput, or drops it when
// that is nil.
//
// Emit may be called from goroutines the node starts, with the node's
// context (or one derived from it). It delivers output while the node
// call is open: from the moment the node is called until it returns,
// retries under WithRetry included, so the outputs of a failed attempt are
// delivered (they have been streamed already) and the retried attempt's
// follow them. An Emit that began before the call returned completes
// before its node_finished; output sent after the call returned is
// dropped, as is output sent with a context that belongs to no node call
// (outside a run, or in a router). A graph run inside a node, with that
// node's context, is within that node's call: its routers' output goes to
// the node, and so does its nodes' unless that run delivers output itself
// (it is streamed, or has OnOutput or OnNotice).
//
// In a streamed run, Emit returns once the output is in the stream, which
// holds a few events (16) for the loop to read: a node that emits faster
// than the loop reads blocks until it catches up. Once the loop has stopped
// reading (it returned, broke or panicked), Emit drops the output and
// returns at once. The run's context ending drops nothing: while the loop
// reads, output is delivered, as node events are; a node that should stop
// emitting when its context ends checks ctx itself.
func Emit(ctx context.Context, output any) {
	if c, ok := ctx.Value(callKey{}).(*nodeCall); ok && c.enter() {
		defer c.leave()
		c.sink.output(ctx, c.node, c.step, output)
	}
}

// Notify sends a non-fatal notice from a node: a failure the node reports
// while it carries on (a source it could not reach, a fallback it took),
// which the run's caller shows as seed 001's user_error (package aguirun
// writes it as an AG-UI CUSTOM event, with wire/present's EventFrom). The
// run goes on. A streamed run yields it as an EventNotice, ordered as
// Emit's output is; otherwise Config.OnNotice receives it, or it is dropped
// when that is nil. A nil notice is dropped.
//
// Notify may be called from goroutines the node starts, with the node's
// context; like Emit's output, a notice sent after its node call returned,
// or outside a node call, is dropped.
func Notify(ctx context.Context, notice *fault.Error) {
	if notice == nil {
		return
	}
	if c, ok := ctx.Value(callKey{}).(*nodeCall); ok && c.enter() {
		defer c.leave()
		c.sink.notice(ctx, c.node, c.step, notice)
	}
}

// callKey is the context key of the node call that Emit and Notify send
// through.
type callKey struct{}

// sink is where a node call's output and notices go: its run.
type sink interface {
	output(ctx context.Context, node string, step int, output any)
	notice(ctx context.Context, node string, step int, notice *fault.Error)
}

// nodeCall is one node call, retries included, as Emit and Notify see it:
// open while the node runs, closed once it has returned. Closing waits for
// the deliveries in flight, so that none comes after the node's
// node_finished; deliveries are not made under the lock, so that an
// OnOutput that emits again does not deadlock.
type nodeCall struct {
	node string
	step int
	sink sink

	mu     sync.Mutex
	idle   sync.Cond // signalled when the last delivery ends after the call closed
	active int       // deliveries in flight
	closed bool
}

func newNodeCall(node string, step int, s sink) *nodeCall {
	c := &nodeCall{node: node, step: step, sink: s}
	c.idle.L = &c.mu
	return c
}

// enter starts a delivery: false once the call has closed.
func (c *nodeCall) enter() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.active++
	return true
}

// leave ends a delivery, even one that panicked (OnOutput's panic is the
// node's failure).
func (c *nodeCall) leave() {
	c.mu.Lock()
	c.active--
	if c.active == 0 && c.closed {
		c.idle.Broadcast()
	}
	c.mu.Unlock()
}

// close ends the call: later deliveries are dropped, and those in flight
// are waited for.
func (c *nodeCall) close() {
	c.mu.Lock()
	c.closed = true
	for c.active > 0 {
		c.idle.Wait()
	}
	c.mu.Unlock()
}
