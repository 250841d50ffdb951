package aguirun

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/wire/present"
)

// CAPOptions say how RunCAP writes a run.
type CAPOptions struct {
	// StreamID names the stream in every packet; empty leaves it out.
	StreamID string
	// Flush, when set, is called after each packet (an http.Flusher's).
	Flush func() error
}

// RunCAP runs r from state and writes the run as CAP packets (package
// wire/present), one JSON packet a line (NDJSON), for clients that speak
// seed 001's protocol instead of AG-UI: each piece of text a node emits is
// a delta packet, each notice an event packet carrying the user_error (the
// run goes on), and the run ends with a close packet, or with an error
// packet carrying the fault as a stream error (severity transient when it
// is retryable, fatal otherwise), which is the last packet. Steps have no
// CAP packet and are left out. Packets are numbered from 0 (seq). A run
// stopped by ctx ends as Run's does: with the fault ctx was cancelled with,
// when its cause is one, else CANCELLED.
//
// RunCAP returns what Run returns: the final state and the run's
// *fault.Error, or an error matching ErrStream when writing failed.
func RunCAP[S any](ctx context.Context, w io.Writer, r *graph.Runnable[S], state S, opts CAPOptions) (S, error) {
	c := &capWriter{ctx: ctx, w: w, opts: opts}
	final := state
	for ev, err := range r.Stream(ctx, state, graph.ErrorEvents()) {
		if err != nil {
			return final, c.fail(err)
		}
		switch ev.Type {
		case graph.EventOutput:
			if t, ok := ev.Output.(Text); ok && t.Delta != "" {
				err = c.write(present.DeltaPacket(t.Delta))
			}
		case graph.EventNotice:
			err = c.write(present.EventPacket(present.EventFrom(ev.Notice, nil)))
		case graph.EventNodeFinished:
			final = ev.State
		case graph.EventError:
			return ev.State, c.fail(ev.Err)
		case graph.EventEnd:
			return ev.State, c.write(present.ClosePacket())
		}
		if err != nil {
			return final, err
		}
	}
	return final, nil
}

type capWriter struct {
	ctx  context.Context
	mu   sync.Mutex
	w    io.Writer
	opts CAPOptions
	seq  int64
}

func (c *capWriter) write(p *present.Packet) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	p.StreamID = c.opts.StreamID
	seq := c.seq
	p.Seq = &seq
	data, err := json.Marshal(p)
	if err != nil {
		return errors.Join(ErrStream, err)
	}
	c.seq++
	if _, err := c.w.Write(append(data, '\n')); err != nil {
		return errors.Join(ErrStream, err)
	}
	if c.opts.Flush != nil {
		if err := c.opts.Flush(); err != nil {
			return errors.Join(ErrStream, err)
		}
	}
	return nil
}

func (c *capWriter) fail(err error) error {
	f := failure(c.ctx, err)
	if werr := c.write(present.ErrorPacket(present.StreamErrorFrom(f))); werr != nil {
		return werr
	}
	return f
}
