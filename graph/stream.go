package graph

import (
	"context"
	"errors"
	"iter"
	"sync"
)

// streamBuffer is how many events a streamed run may be ahead of the loop
// that reads it: a node that emits (or a run that steps) faster than the
// loop reads blocks once that many wait.
const streamBuffer = 16

// Stream runs the graph and yields its events: each node started and
// finished, the output nodes send (Emit) and their notices (Notify), errors
// handed to error routes, and finally the end (or the failure). A failure
// ends the stream either as the iterator's error value (the default) or,
// with ErrorEvents, as a last event of type EventError. Config.OnNotice and
// Config.OnOutput are not called: notices and output are events.
//
// Events come in the order the nodes ran. For every node call, the stream
// holds its node_started, then its outputs and notices in the order they
// were sent (from the node or from goroutines it started), then its
// node_finished, or its failure: an error_routed event before its error
// route's node starts, or the run's error, last. (A router runs after its
// node's node_finished: its failure follows that, the same two ways.)
// Nodes run one after the other, so their events do not mix, except in a parallel fan-out, where
// the events of concurrent branches interleave, each branch node's still
// between its own node_started and node_finished (and its Step, the node
// call's number, tells calls apart). What a node sends after its call
// returned is dropped (see Emit).
//
// While the loop reads, every event of the run is delivered, in order,
// even once ctx has ended: the nodes that finished before the run noticed
// report it, and then the failure (a cancellation) ends the stream. Only
// stopping the loop early (break, return, a panic) drops the events not
// yet read, and cancels the run. At most 16 events wait for the loop:
// beyond that, a node's Emit (and the run) blocks until the loop catches
// up.
func (r *Runnable[S]) Stream(ctx context.Context, state S, opts ...RunOption) iter.Seq2[Event[S], error] {
	return func(yield func(Event[S], error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		events := make(chan Event[S], streamBuffer)
		// gone is closed when the loop is no longer there to read: an
		// event sent after that is dropped. The caller's context ending is
		// not the loop going: it still reads.
		gone := make(chan struct{})
		defer close(gone)
		var (
			mu     sync.Mutex
			closed bool
		)
		// emit is called by the run's goroutines, a node's too when it
		// emits, one at a time: the channel's order is the order the events
		// were sent. Once the stream is closed it does nothing.
		emit := func(e Event[S]) {
			mu.Lock()
			defer mu.Unlock()
			if closed {
				return
			}
			select {
			case events <- e:
			case <-gone:
			}
		}
		x := r.newRun(opts, emit)
		var (
			final S
			err   error
		)
		go func() {
			final, err = x.run(ctx, position{node: r.entry}, state, nil, nil)
			mu.Lock()
			closed = true
			close(events)
			mu.Unlock()
		}()
		for {
			e, ok := next(events, x.opts.idle)
			if !ok {
				break
			}
			if !yield(e, nil) {
				x.stopped.Store(true)
				cancel()
				for range events {
				}
				return
			}
		}
		if err == nil {
			yield(Event[S]{Type: EventEnd, State: final}, nil)
			return
		}
		var ne *NodeError
		if x.opts.errorEvents && errors.As(err, &ne) {
			st, _ := ne.State.(S)
			yield(Event[S]{Type: EventError, Node: ne.Node, State: st, Err: ne}, nil)
			return
		}
		yield(Event[S]{}, err)
	}
}

// next receives the stream's next event; when none is waiting it first
// calls idle (WhenIdle), if set.
func next[S any](events <-chan Event[S], idle func()) (Event[S], bool) {
	if idle != nil {
		select {
		case e, ok := <-events:
			return e, ok
		default:
			idle()
		}
	}
	e, ok := <-events
	return e, ok
}
