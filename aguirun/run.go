package aguirun

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/wire/agui"
	"github.com/triage-go/triage/wire/present"
)

// Text is output a node streams as part of a text message (send it with
// graph.Emit): the first Text of a MessageID opens the message
// (TEXT_MESSAGE_START, with Role, assistant when empty), each Delta is a
// TEXT_MESSAGE_CONTENT, and the message is closed (TEXT_MESSAGE_END) by an
// EndText or when the node that opened it finishes.
type Text struct {
	MessageID string
	Role      agui.Role
	Delta     string
}

// EndText closes a text message before its node finishes.
type EndText struct {
	MessageID string
}

// Options say how a run is written.
type Options[S any] struct {
	// ThreadID and RunID name the run (RUN_STARTED, RUN_FINISHED); both
	// are required. ParentRunID is optional.
	ThreadID, RunID, ParentRunID string
	// Input is echoed in RUN_STARTED (the RunAgentInput); nil leaves it out.
	Input any
	// Snapshot, when set, gives the state to send as a STATE_SNAPSHOT
	// after each node finishes (nil from it sends none for that node).
	Snapshot func(S) any
	// Result, when set, gives RUN_FINISHED's result.
	Result func(S) any
	// Errors configures the RUN_ERROR of a failed run (debug details, the
	// optional fallback text for old frontends).
	Errors *agui.Options
	// Now tells the time of the events' timestamps (default time.Now).
	Now func() time.Time
	// Ready, when set, is called once RUN_STARTED is written and flushed,
	// before the graph starts: the graph runs once it returns nil, and an
	// error from it ends the run with that error's RUN_ERROR, the graph
	// never started. A server waits in it for the run's record to be
	// committed, while the client already reads RUN_STARTED.
	Ready func() error
}

// ErrStream is the error Run returns when the stream itself failed (the
// client went away): the run was stopped, and nothing more can be written.
// An event the Writer refuses (out of order, invalid) is not a failed
// stream: the run ends with an INTERNAL_ERROR RUN_ERROR.
var ErrStream = errors.New("aguirun: the stream failed")

// Run runs r from state and writes the run as AG-UI events on w:
// RUN_STARTED; for each node STEP_STARTED, its streamed text
// (TEXT_MESSAGE_START, _CONTENT, _END) and notices (a CUSTOM "user_error"
// event carrying seed 001's payload, which does not end the run),
// STATE_SNAPSHOT when Options.Snapshot says so, STEP_FINISHED; then
// RUN_FINISHED, or RUN_ERROR, always the last event.
//
// Events are written in the order the graph produced them, which is the
// order the nodes ran (graph.Stream keeps each node's output between its
// node_started and node_finished). A failure at any point — a node, a
// router, a branch, a panic, the context, an event the Writer refuses as
// out of order or invalid (INTERNAL_ERROR) — ends the run with the fault's
// RUN_ERROR (see agui.Writer.WriteError): text already streamed stays, an
// open message is ended first, nothing follows. A run stopped by ctx ends
// with CANCELLED, unless ctx was cancelled with a *fault.Error as its cause
// (context.WithCancelCause): then that fault is the RUN_ERROR, so that a
// server shutting down can tell its clients why the run stopped and when
// to come back (SERVICE_UNAVAILABLE with a retry delay, say).
//
// Run returns the final state and the run's failure as a *fault.Error (nil
// when it finished), or an error matching ErrStream when the stream itself
// failed, after which the run was stopped.
//
// On a batch SSE Writer (sse.NewBatchWriter) Run flushes after RUN_STARTED,
// when the graph has no event ready (graph.WhenIdle) and after the last
// event: a burst of events goes out with one write, and none waits for
// the next.
func Run[S any](ctx context.Context, w *agui.Writer, r *graph.Runnable[S], state S, opts Options[S]) (S, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	x := &writer[S]{ctx: ctx, w: w, opts: opts, open: map[string]string{}, steps: map[string]int{}}
	final, err := x.run(r, state)
	if ferr := w.Flush(); ferr != nil && !errors.Is(err, ErrStream) {
		err = errors.Join(ErrStream, ferr)
	}
	return final, err
}

func (x *writer[S]) run(r *graph.Runnable[S], state S) (S, error) {
	ctx, opts := x.ctx, x.opts
	var zero S
	if err := x.write(&agui.RunStarted{ThreadID: opts.ThreadID, RunID: opts.RunID, ParentRunID: opts.ParentRunID, Input: opts.Input}); err != nil {
		return zero, x.stop(err)
	}
	// The first event goes out at once, not with the graph's first
	// burst: the client hears the run started while the graph starts.
	if err := x.w.Flush(); err != nil {
		return zero, errors.Join(ErrStream, err)
	}
	if opts.Ready != nil {
		if err := opts.Ready(); err != nil {
			return zero, x.fail(err)
		}
	}
	// A flush's failure is the stream's: the next event's write returns
	// it, as its own write would have failed.
	idle := graph.WhenIdle(func() {
		if x.flushErr == nil {
			x.flushErr = x.w.Flush()
		}
	})
	final := state
	for ev, err := range r.Stream(ctx, state, graph.WithRunID(opts.RunID), graph.ErrorEvents(), idle) {
		if err != nil {
			return final, x.fail(err)
		}
		if x.flushErr != nil {
			return final, errors.Join(ErrStream, x.flushErr)
		}
		switch ev.Type {
		case graph.EventNodeStarted:
			err = x.write(&agui.StepStarted{StepName: ev.Node})
			x.steps[ev.Node]++
		case graph.EventOutput:
			err = x.output(ev.Node, ev.Output)
		case graph.EventNotice:
			err = x.write(&agui.Custom{Name: "user_error", Value: x.userError(ev.Notice)})
		case graph.EventNodeFinished:
			err = x.finishNode(ev.Node, ev.State)
		case graph.EventErrorRouted:
			// A node's failure comes before its node_finished; a router's
			// after it, when the step is already finished.
			err = x.closeNode(ev.Node)
			if err == nil && x.steps[ev.Node] > 0 {
				err = x.endStep(ev.Node)
			}
		case graph.EventError:
			return ev.State, x.fail(ev.Err)
		case graph.EventEnd:
			final = ev.State
			var result any
			if opts.Result != nil {
				result = opts.Result(ev.State)
			}
			return final, x.stop(x.write(&agui.RunFinished{ThreadID: opts.ThreadID, RunID: opts.RunID, Result: result}))
		}
		if err != nil {
			return final, x.stop(err)
		}
	}
	return final, nil
}

// stop ends the run on a write's error: one the Writer refused ends it
// with an INTERNAL_ERROR RUN_ERROR; a failed stream is returned as it is.
func (x *writer[S]) stop(err error) error {
	var refused *refusedEvent
	if errors.As(err, &refused) {
		return x.fail(fault.Wrap(refused.err, fault.InternalError, "The agent's output broke the AG-UI protocol; the run was stopped."))
	}
	return err
}

// writer is one run's writing state.
type writer[S any] struct {
	ctx   context.Context // the run's: its cause, once cancelled, may be the run's failure
	w     *agui.Writer
	opts  Options[S]
	open  map[string]string // open text messages → the node that opened them
	steps map[string]int    // open steps, by node
	// flushErr is the failure of a flush between events (see Run).
	flushErr error
	content  agui.TextMessageContent // the delta being written
}

func (x *writer[S]) write(e agui.Event) error {
	e.Base().Timestamp = x.opts.Now().UnixMilli()
	err := x.w.WriteEvent(e)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, agui.ErrOutOfOrder) || errors.Is(err, agui.ErrInvalidEvent):
		// Refused, not written: the stream still works, and the run ends
		// with a RUN_ERROR rather than a stream that stops without one.
		return &refusedEvent{err: err}
	}
	return errors.Join(ErrStream, err)
}

// refusedEvent is an event the Writer refused (out of order, invalid): a
// fault of the run's own, which Run ends as INTERNAL_ERROR.
type refusedEvent struct{ err error }

func (r *refusedEvent) Error() string { return r.err.Error() }
func (r *refusedEvent) Unwrap() error { return r.err }

func (x *writer[S]) output(node string, out any) error {
	switch o := out.(type) {
	case Text:
		if _, ok := x.open[o.MessageID]; !ok {
			role := o.Role
			if role == "" {
				role = agui.RoleAssistant
			}
			if err := x.write(&agui.TextMessageStart{MessageID: o.MessageID, Role: role}); err != nil {
				return err
			}
			x.open[o.MessageID] = node
		}
		if o.Delta == "" {
			return nil // TEXT_MESSAGE_CONTENT must not be empty
		}
		// The Writer keeps no event it wrote: one struct serves each delta.
		x.content = agui.TextMessageContent{MessageID: o.MessageID, Delta: o.Delta}
		return x.write(&x.content)
	case EndText:
		if _, ok := x.open[o.MessageID]; !ok {
			return nil
		}
		delete(x.open, o.MessageID)
		return x.write(&agui.TextMessageEnd{MessageID: o.MessageID})
	case agui.Event:
		return x.write(o)
	}
	return nil // output of a kind AG-UI has no event for
}

// closeNode ends the text messages node opened, in the order of their ids.
func (x *writer[S]) closeNode(node string) error {
	var ids []string
	for id, n := range x.open {
		if n == node {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		delete(x.open, id)
		if err := x.write(&agui.TextMessageEnd{MessageID: id}); err != nil {
			return err
		}
	}
	return nil
}

func (x *writer[S]) finishNode(node string, state S) error {
	if err := x.closeNode(node); err != nil {
		return err
	}
	if x.opts.Snapshot != nil {
		if snap := x.opts.Snapshot(state); snap != nil {
			if err := x.write(&agui.StateSnapshot{Snapshot: snap}); err != nil {
				return err
			}
		}
	}
	return x.endStep(node)
}

func (x *writer[S]) endStep(node string) error {
	if x.steps[node]--; x.steps[node] <= 0 {
		delete(x.steps, node)
	}
	return x.write(&agui.StepFinished{StepName: node})
}

// fail writes the run's RUN_ERROR and returns its fault (see failure),
// which names the node that failed in details.node.
func (x *writer[S]) fail(err error) error {
	f := failure(x.ctx, err)
	var ne *graph.NodeError
	if errors.As(err, &ne) {
		if f.Details == nil {
			f.Details = map[string]any{}
		}
		f.Details["node"] = ne.Node
	}
	// End the open messages with this run's clock (WriteError would end
	// them too), then the RUN_ERROR, stamped by the same clock.
	var ids []string
	for id := range x.open {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		delete(x.open, id)
		if werr := x.write(&agui.TextMessageEnd{MessageID: id}); werr != nil {
			return werr
		}
	}
	opts := agui.Options{}
	if x.opts.Errors != nil {
		opts = *x.opts.Errors
	}
	if opts.Now == nil {
		opts.Now = x.opts.Now
	}
	if werr := x.w.WriteError(f, &opts); werr != nil {
		return errors.Join(ErrStream, werr)
	}
	return f
}

// failure is the fault a run that failed with err ends with, a copy the
// caller may change: the fault ctx was cancelled with (its cause, when it
// is a *fault.Error), else err's.
func failure(ctx context.Context, err error) *fault.Error {
	if ctx.Err() != nil {
		if f, ok := fault.As(context.Cause(ctx)); ok {
			return f.Clone()
		}
	}
	return fault.From(err).Clone()
}

// userError is seed 001's user_error event of a node's notice, stamped by
// the run's clock to the millisecond, as JavaScript's Date keeps it.
func (x *writer[S]) userError(notice *fault.Error) *present.Event {
	return present.EventFrom(notice, &present.Options{Now: func() time.Time { return x.opts.Now().Truncate(time.Millisecond) }})
}
