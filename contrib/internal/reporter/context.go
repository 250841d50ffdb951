package reporter

import (
	"context"
	"sync"
)

// IDs are what links a failure to the work it interrupted: the user's
// query (data.query_id), the session and the run (data.context's
// session_id and run_id). Empty means none.
type IDs struct {
	Query, Session, Run string
}

type idsKey struct{}

// WithIDs returns ctx carrying ids, over those ctx carries: an empty member
// keeps the one ctx has.
func WithIDs(ctx context.Context, ids IDs) context.Context {
	cur := IDsOf(ctx)
	if ids.Query != "" {
		cur.Query = ids.Query
	}
	if ids.Session != "" {
		cur.Session = ids.Session
	}
	if ids.Run != "" {
		cur.Run = ids.Run
	}
	return context.WithValue(ctx, idsKey{}, cur)
}

// IDsOf returns the IDs ctx carries.
func IDsOf(ctx context.Context) IDs {
	ids, _ := ctx.Value(idsKey{}).(IDs)
	return ids
}

// Frame is one level of a run (a graph, a node, a flow, a model call), kept
// in the context from the level's start to its end, so that a failure
// announced at every level is reported once: by the outermost, with the
// innermost's component and error. Its methods are safe for concurrent
// use (a graph's parallel nodes share their run's frames).
type Frame struct {
	parent *Frame
	name   string
	run    *run
}

// run is what a run's frames share.
type run struct {
	mu       sync.Mutex
	first    *Failure
	reported bool
}

type frameKey struct{}

// Enter begins a level named name (the component's or node's name; "" for
// none) inside the frame ctx carries, if any, and returns ctx carrying it.
func Enter(ctx context.Context, name string) (context.Context, *Frame) {
	parent := FrameOf(ctx)
	f := &Frame{parent: parent, name: name}
	if parent != nil {
		f.run = parent.run
	} else {
		f.run = new(run)
	}
	return context.WithValue(ctx, frameKey{}, f), f
}

// FrameOf returns the frame ctx carries, or nil.
func FrameOf(ctx context.Context) *Frame {
	f, _ := ctx.Value(frameKey{}).(*Frame)
	return f
}

// Outermost reports whether f began its run.
func (f *Frame) Outermost() bool { return f.parent == nil }

// Fail records a failure of f's level. The run keeps the first failure
// recorded, the innermost (a level fails before those around it). It
// returns the run's failure and true when f is the outermost level and the
// run has not been reported yet: the caller reports it. The failure's
// Outer is the outermost level's name.
func (f *Frame) Fail(fl Failure) (Failure, bool) {
	r := f.run
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.first == nil {
		r.first = &fl
	}
	if !f.Outermost() || r.reported {
		return Failure{}, false
	}
	r.reported = true
	out := *r.first
	out.Outer = f.name
	return out, true
}
