package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/resilience"
)

// Runnable is a compiled graph. It is safe for concurrent use: each Invoke,
// Stream or Resume is a run of its own. Changing the Graph after Compile
// does not change it.
type Runnable[S any] struct {
	nodes map[string]*nodeSpec[S]
	entry string
	cfg   Config[S]
	clone func(S) S
}

// Compile checks the graph and returns it ready to run. Every problem found
// (unknown nodes in edges, unreachable nodes, a fan-out without a fan-in
// node, a fan-in node reached from outside its fan-out, a branch that can
// end the run, duplicate names, a node without a way out, an error route
// without Config.ErrorState, a fan-out over a state that branches would
// share without a Clone) is reported at once, joined; a graph that compiles
// does not fail at run time for its shape.
func (g *Graph[S]) Compile(cfg *Config[S]) (*Runnable[S], error) {
	var c Config[S]
	if cfg != nil {
		c = *cfg
	}
	err := g.validate()
	hasFanOut := false
	for _, name := range g.order {
		spec := g.nodes[name]
		if spec.onError != "" && c.ErrorState == nil {
			err = errors.Join(err, fmt.Errorf("node %q has an error route but Config.ErrorState is nil", name))
		}
		hasFanOut = hasFanOut || spec.branches != nil
	}
	clone := c.Clone
	if clone == nil {
		var ok bool
		clone, ok = defaultClone[S]()
		if !ok && hasFanOut {
			err = errors.Join(err, fmt.Errorf("the state type %v holds maps, slices or pointers that fan-out branches would share: give it a Clone() method or set Config.Clone",
				reflect.TypeFor[S]()))
		}
	}
	if c.MaxSteps < 0 {
		err = errors.Join(err, fmt.Errorf("Config.MaxSteps %d is negative", c.MaxSteps))
	}
	if err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	if c.MaxSteps == 0 {
		c.MaxSteps = DefaultMaxSteps + len(g.order)
	}
	// The Runnable owns copies of the nodes: a Graph changed after Compile
	// changes nothing that runs.
	nodes := make(map[string]*nodeSpec[S], len(g.nodes))
	for name, spec := range g.nodes {
		cp := *spec
		cp.targets = slices.Clone(spec.targets)
		cp.branches = slices.Clone(spec.branches)
		nodes[name] = &cp
	}
	return &Runnable[S]{nodes: nodes, entry: g.entry, cfg: c, clone: clone}, nil
}

// defaultClone decides once how to copy an S: its Clone method (on S or on
// *S) when its type has one; assignment when S holds no references (maps,
// slices, pointers, channels, functions or interfaces), so that a copy
// shares nothing. It reports false when neither applies. An interface type
// is asked at each copy, since its dynamic type decides.
func defaultClone[S any]() (func(S) S, bool) {
	t := reflect.TypeFor[S]()
	cloner := reflect.TypeFor[interface{ Clone() S }]()
	switch {
	case t.Kind() == reflect.Interface:
		return func(s S) S {
			if cl, ok := any(s).(interface{ Clone() S }); ok {
				return cl.Clone()
			}
			return s
		}, true
	case t.Implements(cloner):
		return func(s S) S { return any(s).(interface{ Clone() S }).Clone() }, true
	case reflect.PointerTo(t).Implements(cloner):
		return func(s S) S { return any(&s).(interface{ Clone() S }).Clone() }, true
	}
	return func(s S) S { return s }, !holdsReferences(t, map[reflect.Type]bool{})
}

func holdsReferences(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return holdsReferences(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsReferences(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// RunOption configures one run.
type RunOption func(*runOptions)

type runOptions struct {
	runID       string
	errorEvents bool
	idle        func()
}

// WithRunID names the run; its checkpoints are saved under this id.
// Defaults to a random UUID when the graph has a Checkpointer.
func WithRunID(id string) RunOption { return func(o *runOptions) { o.runID = id } }

// ErrorEvents makes Stream report a failure as its last event, of type
// EventError, instead of as the iterator's error value (seed 003's
// raise_exceptions=False).
func ErrorEvents() RunOption { return func(o *runOptions) { o.errorEvents = true } }

// WhenIdle makes Stream call f each time its loop has been given every
// event the run has sent so far and is about to wait for the next: the
// moment for a consumer that writes events to a network stream to flush
// what it has buffered, so that a burst of events costs one flush and a
// lone event is not held back. f is called on the loop's goroutine,
// between two of its iterations (never concurrently with the loop's body).
// Invoke does not call it.
func WhenIdle(f func()) RunOption { return func(o *runOptions) { o.idle = f } }

// position is where a run continues: a node to run, or a node's way out.
type position struct {
	node   string
	atExit bool
}

// StateOf returns the state a NodeError in err's chain carries, typed.
func StateOf[S any](err error) (S, bool) {
	var ne *NodeError
	if errors.As(err, &ne) {
		s, ok := ne.State.(S)
		return s, ok
	}
	var zero S
	return zero, false
}

// Invoke runs the graph from its entry point and returns the final state.
// On failure it returns a *NodeError, and with it the state the failing
// node received: the state the NodeError carries, wherever the node is (in
// a branch of a fan-out, however deep, too).
func (r *Runnable[S]) Invoke(ctx context.Context, state S, opts ...RunOption) (S, error) {
	x := r.newRun(opts, nil)
	return x.run(ctx, position{node: r.entry}, state, nil, nil)
}

// Resume continues the run whose checkpoint runID names, from where it
// stopped: the node that failed runs again, with the state it received (a
// router that failed runs again, its node does not); the branches of a
// fan-out that completed are not run again. It needs a Checkpointer. A
// finished run's result is returned as it is. Resuming one run twice at
// once runs its nodes twice: the caller owns that exclusion.
//
// Before the run continues, no node has run, so Resume's own failures are
// plain errors, not NodeErrors: no Checkpointer, a checkpoint Load does not
// return (a Load that panics returns its *PanicError), a checkpoint this
// graph cannot continue.
func (r *Runnable[S]) Resume(ctx context.Context, runID string, opts ...RunOption) (S, error) {
	var zero S
	if r.cfg.Checkpointer == nil {
		return zero, errors.New("graph: Resume needs Config.Checkpointer")
	}
	cp, err := r.load(ctx, runID)
	if err != nil {
		return zero, fmt.Errorf("graph: resume run %s: %w", runID, err)
	}
	if cp.Done {
		return cp.State, nil
	}
	if err := r.checkPosition(cp); err != nil {
		return zero, fmt.Errorf("graph: resume run %s: %w", runID, err)
	}
	x := r.newRun(append(slices.Clone(opts), WithRunID(runID)), nil)
	x.steps.Store(int64(cp.Step))
	return x.run(ctx, position{node: cp.Node, atExit: cp.AtExit}, cp.State, cp.Path, cp.Branches)
}

// load loads a run's checkpoint; a Checkpointer that panics fails the
// load with a *PanicError.
func (r *Runnable[S]) load(ctx context.Context, runID string) (cp Checkpoint[S], err error) {
	defer func() {
		if p := recover(); p != nil {
			pe := &PanicError{Value: p}
			if r.cfg.Debug {
				pe.Stack = debug.Stack()
			}
			err = fmt.Errorf("load checkpoint: %w", pe)
		}
	}()
	return r.cfg.Checkpointer.Load(ctx, runID)
}

// checkPosition refuses a checkpoint this graph cannot continue: one saved
// by a graph whose nodes have since changed.
func (r *Runnable[S]) checkPosition(cp Checkpoint[S]) error {
	spec := r.nodes[cp.Node]
	if spec == nil {
		return fmt.Errorf("the checkpoint continues at node %q, which this graph does not have", cp.Node)
	}
	for b := range cp.Branches {
		if !slices.Contains(spec.branches, b) {
			return fmt.Errorf("the checkpoint keeps a result for branch %q, which node %q does not fan out to", b, cp.Node)
		}
	}
	return nil
}

// run is one run's state.
type run[S any] struct {
	r       *Runnable[S]
	opts    runOptions
	emit    func(Event[S]) // nil when not streaming
	stopped atomic.Bool    // the stream's consumer stopped reading
	steps   atomic.Int64
	cpMu    sync.Mutex // serialises checkpoints of concurrent branches
}

func (r *Runnable[S]) newRun(opts []RunOption, emit func(Event[S])) *run[S] {
	x := &run[S]{r: r, emit: emit}
	for _, o := range opts {
		o(&x.opts)
	}
	if x.opts.runID == "" && r.cfg.Checkpointer != nil {
		x.opts.runID = uuid.NewString()
	}
	return x
}

// delivers reports whether the run delivers its nodes' output or notices
// at all: when it does not, nodes run with the context they are given.
func (x *run[S]) delivers() bool {
	return x.emit != nil || x.r.cfg.OnOutput != nil || x.r.cfg.OnNotice != nil
}

// run runs from pos to the end, checkpointing on the way. On failure it
// returns the state the failing node received, which its NodeError
// carries: on every path (a node, a router, a branch however deep, a
// fan-in node, a checkpoint), that is the one answer.
//
// A panic outside a node or router (a Clone, ErrorState, a Checkpointer,
// OnNotice or OnOutput) is recovered where it happens, so that it fails the node being
// run or exited, as an error there would.
func (x *run[S]) run(ctx context.Context, pos position, state S, path []string, done map[string]S) (S, error) {
	out, path, ne := x.walk(ctx, pos, "", state, path, done)
	if ne != nil {
		out, _ = ne.State.(S) // always an S: nodeError made it from one
		return out, x.finish(ctx, ne)
	}
	// The final checkpoint: a failure to save it fails the last node, at
	// its exit, where a resumed run continues.
	if err := x.save(ctx, atEnd, out, path, nil, ""); err != nil {
		last := position{atExit: true}
		if len(path) > 0 {
			last.node = path[len(path)-1]
		}
		ne := nodeError(last.node, path, out, fmt.Errorf("save the final checkpoint: %w", err))
		x.failedWith(ctx, last, out, path, nil, ne)
		return out, x.finish(ctx, ne)
	}
	return out, nil
}

// finish stamps a run's failure with its id and logs it.
func (x *run[S]) finish(ctx context.Context, ne *NodeError) *NodeError {
	ne.RunID = x.opts.runID
	if x.stopped.Load() {
		x.log(ctx, slog.LevelInfo, "run stopped: the stream's consumer stopped reading", ne, "")
	} else {
		x.log(ctx, slog.LevelError, "node failed", ne, "")
	}
	return ne
}

// walk runs from pos until it reaches stop (a fan-in node, for a branch) or
// End. It returns the state, the path, and the failure.
func (x *run[S]) walk(ctx context.Context, pos position, stop string, state S, path []string, done map[string]S) (S, []string, *NodeError) {
	top := stop == ""
	cur := pos.node
	skipRun := pos.atExit
	var (
		branchResults []S          // the results a fan-in node is about to merge
		fork          *nodeSpec[S] // the fan-out they come from
		forkDone      map[string]S // the same, by branch, for a checkpoint
	)
	for cur != End && cur != stop {
		spec := x.r.nodes[cur]
		if !skipRun {
			// Where the run stands before this node: for a fan-in node,
			// the fan-out's exit with every branch done, so that a resumed
			// run hands it the branches' results again.
			here, hereBranches := position{node: cur}, map[string]S(nil)
			if fork != nil {
				here, hereBranches = position{node: fork.name, atExit: true}, forkDone
			}
			if err := ctx.Err(); err != nil {
				return x.fail(ctx, top, here, hereBranches, cur, path, state, err)
			}
			// The step is this call's own number: concurrent branches each
			// get theirs (reading the counter again could see a sibling's).
			n := x.steps.Add(1)
			if n > int64(x.r.cfg.MaxSteps) {
				return x.fail(ctx, top, here, hereBranches, cur, path, state, fmt.Errorf("%w: %d steps", ErrStepLimit, x.r.cfg.MaxSteps))
			}
			if top {
				if err := x.save(ctx, here, state, path, hereBranches, ""); err != nil {
					return x.fail(ctx, top, here, hereBranches, cur, path, state, fmt.Errorf("save checkpoint: %w", err))
				}
			}
			step := int(n)
			if x.emit != nil {
				x.emit(Event[S]{Type: EventNodeStarted, Node: cur, Step: step})
			}
			// The node's output and notices go through its call, open from
			// here until the node returns: closing it waits for those in
			// flight, so that none follows the node's next event.
			nctx, nc := ctx, (*nodeCall)(nil)
			if x.delivers() {
				nc = newNodeCall(cur, step, x)
				nctx = context.WithValue(ctx, callKey{}, nc)
			}
			out, err := x.call(nctx, spec, state, branchResults)
			if nc != nil {
				nc.close()
			}
			branchResults, fork, forkDone = nil, nil, nil
			if err != nil {
				if spec.onError != "" {
					routed, rerr := x.route(ctx, nodeError(cur, path, state, err), spec, state)
					if rerr == nil {
						state, cur = routed, spec.onError
						continue
					}
					err = rerr // ErrorState panicked: the node fails as if it had no route
				}
				return x.fail(ctx, top, here, hereBranches, cur, path, state, err)
			}
			state = out
			path = append(path, cur)
			if x.emit != nil {
				x.emit(Event[S]{Type: EventNodeFinished, Node: cur, Step: step, State: state})
			}
			if top && (spec.router != nil || spec.branches != nil) {
				if err := x.save(ctx, position{node: cur, atExit: true}, state, path, nil, ""); err != nil {
					return x.fail(ctx, top, position{node: cur, atExit: true}, nil, cur, path, state, fmt.Errorf("save checkpoint: %w", err))
				}
			}
		}
		skipRun = false

		// Take the node's way out.
		switch {
		case spec.router != nil:
			next, err := x.routeFrom(ctx, spec, state)
			if err != nil {
				if spec.onError != "" {
					routed, rerr := x.route(ctx, nodeError(cur, path, state, err), spec, state)
					if rerr == nil {
						state, cur = routed, spec.onError
						continue
					}
					err = rerr
				}
				return x.fail(ctx, top, position{node: cur, atExit: true}, nil, cur, path, state, err)
			}
			cur = next
		case spec.branches != nil:
			results, byName, ne := x.fanOut(ctx, spec, state, path, top, done)
			done = nil // only the first fan-out of a resumed run has results to reuse
			if ne != nil {
				return state, path, ne
			}
			branchResults, fork, forkDone = results, spec, byName
			cur = spec.join
		default:
			cur = spec.next
		}
	}
	return state, path, nil
}

// fail ends a walk with a node's failure, recorded in the checkpoint at
// here: where the run stood before the node, or at its exit for a failure
// in its way out.
func (x *run[S]) fail(ctx context.Context, top bool, here position, branches map[string]S, node string, path []string, state S, err error) (S, []string, *NodeError) {
	ne := nodeError(node, path, state, err)
	if top {
		x.failedWith(ctx, here, state, path, branches, ne)
	}
	return state, path, ne
}

// call runs a node (or a fan-in node, with the branches' results), turning
// a panic into a PanicError and applying the node's retries.
func (x *run[S]) call(ctx context.Context, spec *nodeSpec[S], state S, results []S) (S, error) {
	if spec.retry == nil {
		return x.attempt(ctx, spec, state, results)
	}
	return x.callRetry(ctx, spec, state, results)
}

// callRetry runs a node under its resilience policy. It is a function of
// its own because the closure captures the state: in call, that capture
// would move every node's state to the heap, retry or not.
//
//go:noinline
func (x *run[S]) callRetry(ctx context.Context, spec *nodeSpec[S], state S, results []S) (S, error) {
	return resilience.Do(ctx, spec.retry.policy, spec.retry.op, func(ctx context.Context) (S, error) {
		return x.attempt(ctx, spec, state, results)
	})
}

// attempt calls a node once. The recovery is written out here rather than
// through a closure: a closure per node would cost an allocation per step.
func (x *run[S]) attempt(ctx context.Context, spec *nodeSpec[S], state S, results []S) (out S, err error) {
	defer x.recoverPanic(&err)
	if spec.fanIn != nil {
		return spec.fanIn(ctx, state, results)
	}
	return spec.fn(ctx, state)
}

// routeFrom runs a node's router and checks its answer.
func (x *run[S]) routeFrom(ctx context.Context, spec *nodeSpec[S], state S) (string, error) {
	next, err := x.callRouter(ctx, spec, state)
	if err != nil {
		return "", fmt.Errorf("router: %w", err)
	}
	if !slices.Contains(spec.targets, next) {
		return "", fmt.Errorf("%w from %q: the router chose %q, not one of %q", ErrNoRoute, spec.name, next, spec.targets)
	}
	return next, nil
}

func (x *run[S]) callRouter(ctx context.Context, spec *nodeSpec[S], state S) (next string, err error) {
	defer x.recoverPanic(&err)
	return spec.router(ctx, state)
}

// recoverPanic, deferred, turns a panic into a *PanicError in *err.
func (x *run[S]) recoverPanic(err *error) {
	if p := recover(); p != nil {
		*err = x.panicError(p)
	}
}

func (x *run[S]) panicError(p any) *PanicError {
	pe := &PanicError{Value: p}
	if x.r.cfg.Debug {
		pe.Stack = debug.Stack()
	}
	return pe
}

// route hands a failure to the node's error route: Config.ErrorState puts
// it into the state the route's node runs with. When ErrorState panics, the
// route does not run: route returns the panic, with the failure it was
// handed, for the node to fail with.
func (x *run[S]) route(ctx context.Context, ne *NodeError, spec *nodeSpec[S], state S) (S, error) {
	ne.RunID = x.opts.runID
	routed, err := x.errorState(state, ne)
	if err != nil {
		return state, fmt.Errorf("error route %q: Config.ErrorState: %w (the failure it was given: %v)", spec.onError, err, ne.Err)
	}
	x.log(ctx, slog.LevelWarn, "node failed; its error route runs next", ne, spec.onError)
	if x.emit != nil {
		x.emit(Event[S]{Type: EventErrorRouted, Node: ne.Node, Err: ne, Handler: spec.onError})
	}
	return routed, nil
}

// errorState calls Config.ErrorState, turning a panic into a *PanicError.
func (x *run[S]) errorState(state S, ne *NodeError) (out S, err error) {
	defer x.recoverPanic(&err)
	return x.r.cfg.ErrorState(state, ne), nil
}

// failedWith records a failure in the checkpoint: where the run continues,
// and the failure's message.
func (x *run[S]) failedWith(ctx context.Context, pos position, state S, path []string, branches map[string]S, ne *NodeError) {
	// The run's context may be what failed, so the save does not depend on
	// it. A failure to save is logged: the failure itself is the run's
	// answer, and the checkpoint saved before the node still holds.
	failure := ne.Error()
	if x.stopped.Load() {
		failure = "stopped: the stream's consumer stopped reading"
	}
	if err := x.save(context.WithoutCancel(ctx), pos, state, path, branches, failure); err != nil {
		x.logAttrs(ctx, slog.LevelError, "checkpoint of a failure not saved", slog.String("node", ne.Node),
			slog.String("run_id", x.opts.runID), slog.String("error", "save checkpoint: "+err.Error()))
	}
}

// atEnd is where a finished run stands: its checkpoint is Done.
var atEnd = position{node: End}

// save writes a checkpoint, when the graph has a Checkpointer: the run
// stands at pos (atEnd: it has finished, with state as its result), after
// path, with the results of the branches of pos's fan-out that completed.
// The checkpoint gets copies of the state and of the branches' results.
//
// A Clone or a Checkpointer that panics is a checkpoint that cannot be
// saved: its *PanicError is save's error, for the caller to fail with as
// with any other.
func (x *run[S]) save(ctx context.Context, pos position, state S, path []string, branches map[string]S, failure string) (err error) {
	cp := x.r.cfg.Checkpointer
	if cp == nil {
		return nil
	}
	defer x.recoverPanic(&err)
	x.cpMu.Lock()
	defer x.cpMu.Unlock()
	c := Checkpoint[S]{
		RunID: x.opts.runID, Step: int(x.steps.Load()), Node: pos.node, AtExit: pos.atExit,
		State: x.r.clone(state), Branches: snapshot(x.r.clone, branches), Path: slices.Clone(path), Err: failure,
	}
	if pos == atEnd {
		c.Node, c.Done = "", true
	}
	return cp.Save(ctx, c)
}

// snapshot copies branches' results for a checkpoint.
func snapshot[S any](clone func(S) S, branches map[string]S) map[string]S {
	if branches == nil {
		return nil
	}
	out := make(map[string]S, len(branches))
	for k, v := range branches {
		out[k] = clone(v)
	}
	return out
}

// output delivers a node call's output to the stream or to
// Config.OnOutput.
func (x *run[S]) output(ctx context.Context, node string, step int, v any) {
	if x.emit != nil {
		x.emit(Event[S]{Type: EventOutput, Node: node, Step: step, Output: v})
	} else if f := x.r.cfg.OnOutput; f != nil {
		f(ctx, node, step, v)
	}
}

// notice delivers a node call's notice to the stream or to
// Config.OnNotice.
func (x *run[S]) notice(ctx context.Context, node string, step int, n *fault.Error) {
	if x.emit != nil {
		x.emit(Event[S]{Type: EventNotice, Node: node, Step: step, Notice: n})
	} else if f := x.r.cfg.OnNotice; f != nil {
		f(ctx, node, n)
	}
}

// log records a failure.
func (x *run[S]) log(ctx context.Context, level slog.Level, msg string, ne *NodeError, handler string) {
	l := x.r.cfg.Logger
	if l == nil {
		return
	}
	attrs := []slog.Attr{
		slog.String("node", ne.Node),
		slog.Any("path", ne.Path),
		slog.String("run_id", ne.RunID),
		slog.Any("fault", fault.From(ne.Err)),
	}
	if handler != "" {
		attrs = append(attrs, slog.String("handler", handler))
	}
	if len(ne.Branches) > 1 {
		failed := make([]string, len(ne.Branches))
		for i, b := range ne.Branches {
			failed[i] = b.Node
		}
		attrs = append(attrs, slog.Any("failed_branches", failed))
	}
	x.logAttrs(ctx, level, msg, attrs...)
}

// logAttrs writes a record to Config.Logger. A handler that panics loses
// the record, not the run: logging is the one hook whose panic is not a
// failure.
func (x *run[S]) logAttrs(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	l := x.r.cfg.Logger
	if l == nil {
		return
	}
	defer func() { _ = recover() }()
	l.LogAttrs(ctx, level, msg, attrs...)
}
