package agui

import (
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

	// SkipVerify turns off the ordering check. Defaults to false: the
	// Writer passes every event through a Verifier and refuses (writing
	// nothing) one that a 1.0 client would reject, so a RUN_FINISHED after
	// RUN_ERROR never reaches the wire. Turn it off only for a stream that
	// carries events written elsewhere too.
	SkipVerify bool
}

// Writer writes AG-UI events as Server-Sent Events: one frame per event,
// the event's JSON on one data line, flushed at once. Its methods are safe
// for concurrent use, and events are written in the order they are
// verified.
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
	mu   sync.Mutex
	sse  *sse.Writer
	opts WriterOptions
	v    Verifier
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
// matching ErrOutOfOrder for an event out of order (unless SkipVerify).
func (w *Writer) WriteEvent(e Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.write(e)
}

// WriteError reports err: the events of EventsFrom, RUN_ERROR last. If no
// run is in progress (no RUN_STARTED was written, or the last run has
// ended) the text message is left out, since a 1.0 client accepts a text
// message only inside a run but RUN_ERROR anywhere but after another
// RUN_ERROR. With SkipVerify the Writer does not know, and writes them all.
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
	if !w.opts.SkipVerify && !w.v.Running() {
		events = events[len(events)-1:]
	}
	for _, e := range events {
		if err := w.write(e); err != nil {
			return err
		}
	}
	return nil
}

func (w *Writer) write(e Event) error {
	data, err := Marshal(e)
	if err != nil {
		return err
	}
	if !w.opts.SkipVerify {
		if err := w.v.Verify(e); err != nil {
			return err
		}
	}
	f := sse.Frame{Data: string(data)}
	if w.opts.EventLine {
		f.Event = string(e.Type())
	}
	return w.sse.WriteFrame(f)
}
