package agui

import (
	"errors"
	"sync"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/sse"
)

// WriterOptions configures a Writer (see NewWriter); how a fault becomes
// events is configured per call by Options. A nil *WriterOptions is the
// zero value.
type WriterOptions struct {
	// EventLine writes an "event: TYPE" line before each data line, the
	// SSE shape seed 000 used ("event: RUN_ERROR"). The official client
	// reads only data lines, so it is harmless; it helps people reading
	// the stream and EventSource listeners registered per type. Defaults to
	// false: data lines only.
	EventLine bool

	// SkipVerify turns off the ordering checks. Defaults to false: the
	// Writer passes every event through a Verifier and refuses (writing
	// nothing) one that a 1.0 client would reject, so a RUN_FINISHED after
	// RUN_ERROR never reaches the wire, and it refuses every event after a
	// RUN_ERROR it wrote. Turn it off only for a stream that carries events
	// written elsewhere too; WriteError then writes its events as
	// EventsFrom returns them, since the Writer cannot know what is open.
	SkipVerify bool

	// Written, when set, is called with each event after its frame was
	// written to the stream (to a batch SSE Writer: taken into its batch,
	// sent at its next Flush; not for an event refused, nor one whose
	// write failed), in the order written, with the Writer's lock held:
	// it must not call the Writer. A server keeps an outline of a run's
	// stream with it (the run record's events).
	Written func(Event)
}

// Writer writes AG-UI events as Server-Sent Events: one frame per event,
// the event's JSON on one data line, flushed at once (on a batch SSE Writer,
// from sse.NewBatchWriter, at the next Flush). Its methods are safe
// for concurrent use, and events are written in the order they are
// verified.
//
// A Writer writes one stream, the response to one request: RUN_ERROR ends
// it. Unless SkipVerify is set, once it has written a RUN_ERROR it refuses
// every event, a new RUN_STARTED too (an error matching ErrOutOfOrder),
// although a 1.0 client would accept a new run there: a run's failure must
// be the last thing its stream says.
//
// A Writer checks events against the schema and the ordering rules; it does
// not sanitize them. What the caller built (an event's RawEvent, Metadata
// it supplied, a RUN_ERROR it made itself or decoded from an upstream) is
// written as given. Only WriteError, and events from RunErrorFrom and
// EventsFrom, carry a fault sanitized by package fault. To relay an
// upstream's RUN_ERROR, rebuild it rather than pass it through, so that its
// metadata is sanitized again and its debug output dropped:
//
//	w.WriteEvent(agui.RunErrorFrom(upstream.Fault(), opts))
//
// or w.WriteError(upstream.Fault(), opts).
type Writer struct {
	mu    sync.Mutex
	sse   *sse.Writer
	opts  WriterOptions
	v     Verifier
	ended bool   // a RUN_ERROR was written
	buf   []byte // the event being written, reused
}

// NewWriter returns a Writer on an SSE stream. The *sse.Writer may still be
// used directly for comments (heartbeats); frames never interleave.
func NewWriter(w *sse.Writer, opts *WriterOptions) *Writer {
	aw := &Writer{sse: w}
	if opts != nil {
		aw.opts = *opts
	}
	return aw
}

// WriteEvent writes e. It writes nothing and returns an error matching
// ErrInvalidEvent for an event a 1.0 consumer's schema would reject, or one
// matching ErrOutOfOrder for an event out of order or after a RUN_ERROR
// (unless SkipVerify). It writes e alone: a RUN_ERROR written with
// WriteEvent ends no open text message, which WriteError does. The Writer
// keeps no reference to e: the caller may reuse it for the next event.
func (w *Writer) WriteEvent(e Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.write(e)
}

// WriteError ends the run with err's RUN_ERROR (see RunErrorFrom), always
// the last event of the stream. Before it, when a run is in progress:
//
//  1. every open text message is ended (TEXT_MESSAGE_END), the most
//     recently opened first, so that the text already streamed stands as a
//     finished message;
//  2. the backward-compatible text message of EventsFrom is written, when
//     Options.TextMessageID asks for it and can be written: it is left out
//     when its id is one the run already has (an open or earlier message,
//     whose text the client would append to) or the Writer refuses it.
//     The fallback text is optional; it never prevents the RUN_ERROR.
//
// Open tool calls are left open: TOOL_CALL_END says a call's arguments are
// complete, and the official client then hands the call to the application
// (onToolCallEndEvent, onNewToolCall), which might run a frontend tool with
// the truncated arguments of a call the failure interrupted. RUN_ERROR is
// accepted with calls, steps and messages open; active steps are left so,
// since they did not finish.
//
// Without a run in progress (no RUN_STARTED was written, or the last run
// has ended) WriteError writes the RUN_ERROR alone, which a 1.0 client
// accepts anywhere but after another RUN_ERROR. After a RUN_ERROR the
// Writer wrote, WriteError writes nothing and returns an error matching
// ErrOutOfOrder. With SkipVerify the Writer knows none of this, and writes
// the events of EventsFrom as they are.
//
// WriteError returns an error only when the RUN_ERROR was not written (the
// stream failed, or a RUN_ERROR was written before).
//
// A nil err is written as INTERNAL_ERROR: writing a failure for no error is
// a programming mistake of the caller's, and the run must still end as
// failed rather than seem to hang.
func (w *Writer) WriteError(err error, opts *Options) error {
	if err == nil {
		err = fault.New(fault.InternalError, "")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	events := EventsFrom(err, opts)
	if w.opts.SkipVerify {
		for _, e := range events {
			if err := w.write(e); err != nil {
				return err
			}
		}
		return nil
	}
	runError, fallback := events[len(events)-1], events[:len(events)-1]
	if w.ended || !w.v.Running() {
		return w.write(runError)
	}
	// What comes before the RUN_ERROR is optional: an event refused is
	// left out (with the rest of the fallback); only a failed stream stops.
	for _, id := range w.v.openMessages() {
		end := &TextMessageEnd{MessageID: id, BaseEvent: BaseEvent{Timestamp: runError.Base().Timestamp}}
		if err := w.write(end); err != nil && !refused(err) {
			return err
		}
	}
	if len(fallback) > 0 && !w.v.knownMessage(opts.TextMessageID) {
		for _, e := range fallback {
			if err := w.write(e); err != nil {
				if !refused(err) {
					return err
				}
				break
			}
		}
	}
	return w.write(runError)
}

// refused reports whether a write failed because the Writer refused the
// event, not because the stream failed.
func refused(err error) bool { return errors.Is(err, ErrOutOfOrder) || errors.Is(err, ErrInvalidEvent) }

func (w *Writer) write(e Event) error {
	data, err := AppendMarshal(w.buf[:0], e)
	if err != nil {
		return err
	}
	w.buf = data
	if !w.opts.SkipVerify {
		if w.ended {
			return &SequenceError{Index: w.v.n, Type: e.Type(),
				Reason: "The stream has ended with 'RUN_ERROR': this Writer writes nothing after it."}
		}
		if err := w.v.Verify(e); err != nil {
			return err
		}
		w.ended = e.Type() == TypeRunError
	}
	var event string
	if w.opts.EventLine {
		event = string(e.Type())
	}
	if err := w.sse.WriteData(event, data); err != nil {
		return err
	}
	if w.opts.Written != nil {
		w.opts.Written(e)
	}
	return nil
}

// Flush flushes the events the SSE Writer holds, when it is a batch Writer
// (sse.NewBatchWriter); with any other it does nothing.
func (w *Writer) Flush() error { return w.sse.Flush() }
