package graph

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"maps"
	"reflect"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/resilience"
	"github.com/triage-go/triage/wire/present"
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
}

// WithRunID names the run; its checkpoints are saved under this id.
// Defaults to a random UUID when the graph has a Checkpointer.
func WithRunID(id string) RunOption { return func(o *runOptions) { o.runID = id } }

// ErrorEvents makes Stream report a failure as its last event, of type
// EventError, instead of as the iterator's error value (seed 003's
// raise_exceptions=False).
func ErrorEvents() RunOption { return func(o *runOptions) { o.errorEvents = true } }

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
// node received.
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
func (r *Runnable[S]) Resume(ctx context.Context, runID string, opts ...RunOption) (S, error) {
	var zero S
	if r.cfg.Checkpointer == nil {
		return zero, errors.New("graph: Resume needs Config.Checkpointer")
	}
	cp, err := r.cfg.Checkpointer.Load(ctx, runID)
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

// Stream runs the graph and yields its events: each node started and
// finished, notices, errors handed to error routes, and finally the end (or
// the failure). A failure ends the stream either as the iterator's error
// value (the default) or, with ErrorEvents, as a last event of type
// EventError. Stopping the loop early cancels the run. Config.OnNotice is
// not called: notices are events.
func (r *Runnable[S]) Stream(ctx context.Context, state S, opts ...RunOption) iter.Seq2[Event[S], error] {
	return func(yield func(Event[S], error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		events := make(chan Event[S], 16)
		var (
			mu     sync.Mutex
			closed bool
		)
		// emit may be called from a branch, or from a goroutine a node
		// started, even after the run: once the stream is closed it does
		// nothing.
		emit := func(e Event[S]) {
			mu.Lock()
			defer mu.Unlock()
			if closed {
				return
			}
			select {
			case events <- e:
			case <-ctx.Done():
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
		for e := range events {
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

// run is one run's state.
type run[S any] struct {
	r       *Runnable[S]
	opts    runOptions
	emit    func(Event[S]) // nil when not streaming
	stopped atomic.Bool    // the stream's consumer stopped reading
	steps   atomic.Int64
	cur     string     // the top-level node last started, for a panic outside nodes (the run's goroutine only)
	cpMu    sync.Mutex // serialises checkpoints of concurrent branches
}

func (r *Runnable[S]) newRun(opts []RunOption, emit func(Event[S])) *run[S] {
	x := &run[S]{r: r, emit: emit}
	for _, o := range opts {
		o(&x.opts)
	}
	if x.opts.runID == "" && r.cfg.Checkpointer != nil {
		x.opts.runID = present.NewUUID()
	}
	return x
}

// notices reports whether the run delivers notices at all.
func (x *run[S]) notices() bool { return x.emit != nil || x.r.cfg.OnNotice != nil }

// run runs from pos to the end, checkpointing on the way.
func (x *run[S]) run(ctx context.Context, pos position, state S, path []string, done map[string]S) (out S, err error) {
	defer func() {
		// A panic outside a node or router (a Clone, ErrorState, a
		// Checkpointer, OnNotice) follows the same contract.
		if p := recover(); p != nil {
			node := pos.node
			if x.cur != "" {
				node = x.cur
			}
			out, err = state, x.finish(ctx, nodeError(node, path, state, x.panicError(p)))
		}
	}()
	out, path, err = x.walk(ctx, pos, "", state, path, done)
	if err != nil {
		var ne *NodeError
		if errors.As(err, &ne) {
			return out, x.finish(ctx, ne)
		}
		return out, err
	}
	if cp := x.r.cfg.Checkpointer; cp != nil {
		if err := cp.Save(ctx, Checkpoint[S]{RunID: x.opts.runID, Step: int(x.steps.Load()), State: x.r.clone(out),
			Path: slices.Clone(path), Done: true}); err != nil {
			last := ""
			if len(path) > 0 {
				last = path[len(path)-1]
			}
			return out, x.finish(ctx, nodeError(last, path[:max(0, len(path)-1)], out, fmt.Errorf("save the final checkpoint: %w", err)))
		}
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
func (x *run[S]) walk(ctx context.Context, pos position, stop string, state S, path []string, done map[string]S) (S, []string, error) {
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
			if x.steps.Add(1) > int64(x.r.cfg.MaxSteps) {
				return x.fail(ctx, top, here, hereBranches, cur, path, state, fmt.Errorf("%w: %d steps", ErrStepLimit, x.r.cfg.MaxSteps))
			}
			if top {
				x.cur = cur
				if err := x.save(ctx, here, state, path, hereBranches, ""); err != nil {
					return x.fail(ctx, top, here, hereBranches, cur, path, state, err)
				}
			}
			step := int(x.steps.Load())
			if x.emit != nil {
				x.emit(Event[S]{Type: EventNodeStarted, Node: cur, Step: step})
			}
			nctx := ctx
			if x.notices() {
				nctx = context.WithValue(ctx, noticeKey{}, notifier{node: cur, send: x.notice})
			}
			out, err := x.call(nctx, spec, state, branchResults)
			branchResults, fork, forkDone = nil, nil, nil
			if err != nil {
				if spec.onError == "" {
					return x.fail(ctx, top, here, hereBranches, cur, path, state, err)
				}
				ne := nodeError(cur, path, state, err)
				state, cur = x.route(ctx, ne, spec, state), spec.onError
				continue
			}
			state = out
			path = append(path, cur)
			if x.emit != nil {
				x.emit(Event[S]{Type: EventNodeFinished, Node: cur, Step: step, State: state})
			}
			if top && (spec.router != nil || spec.branches != nil) {
				if err := x.save(ctx, position{node: cur, atExit: true}, state, path, nil, ""); err != nil {
					ne := nodeError(cur, path, state, err)
					return state, path, ne
				}
			}
		}
		skipRun = false

		// Take the node's way out.
		switch {
		case spec.router != nil:
			next, err := x.routeFrom(ctx, spec, state)
			if err != nil {
				ne := nodeError(cur, path, state, err)
				if spec.onError == "" {
					if top {
						x.failedWith(ctx, position{node: cur, atExit: true}, state, path, nil, ne)
					}
					return state, path, ne
				}
				state, cur = x.route(ctx, ne, spec, state), spec.onError
				continue
			}
			cur = next
		case spec.branches != nil:
			results, byName, err := x.fanOut(ctx, spec, state, path, top, done)
			done = nil // only the first fan-out of a resumed run has results to reuse
			if err != nil {
				return state, path, err
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
// where the run stood before the node.
func (x *run[S]) fail(ctx context.Context, top bool, here position, branches map[string]S, node string, path []string, state S, err error) (S, []string, error) {
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

// route hands a failure to the node's error route, and records where the
// run continues.
func (x *run[S]) route(ctx context.Context, ne *NodeError, spec *nodeSpec[S], state S) S {
	ne.RunID = x.opts.runID
	x.log(ctx, slog.LevelWarn, "node failed; its error route runs next", ne, spec.onError)
	if x.emit != nil {
		x.emit(Event[S]{Type: EventErrorRouted, Node: ne.Node, Err: ne, Handler: spec.onError})
	}
	return x.r.cfg.ErrorState(state, ne)
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
		if l := x.r.cfg.Logger; l != nil {
			l.LogAttrs(ctx, slog.LevelError, "checkpoint of a failure not saved", slog.String("node", ne.Node),
				slog.String("run_id", x.opts.runID), slog.String("error", err.Error()))
		}
	}
}

// fanOut runs a fan-out's branches (in parallel, or in order for a
// sequential one) and returns their results in
// declaration order, and by branch name when checkpoints need them. done
// holds results of branches that completed in an earlier run.
func (x *run[S]) fanOut(ctx context.Context, spec *nodeSpec[S], state S, path []string, top bool, done map[string]S) ([]S, map[string]S, error) {
	n := len(spec.branches)
	f := &fan[S]{
		x: x, spec: spec, ctx: ctx, state: state,
		// A full slice expression: a branch's first append copies the path
		// instead of writing into its siblings' array.
		path:        path[:len(path):len(path)],
		checkpoints: top && x.r.cfg.Checkpointer != nil,
		results:     make([]S, n),
		errs:        make([]*NodeError, n),
	}
	if f.checkpoints {
		f.completed = make(map[string]S, n)
		for _, b := range spec.branches {
			if s, ok := done[b]; ok {
				f.completed[b] = s
			}
		}
	}
	f.bctx, f.cancel = context.WithCancel(ctx)
	defer f.cancel()
	// Every branch but the last runs on a goroutine of its own; the last
	// runs on this one, which would otherwise only wait. A sequential
	// fan-out runs them all on this one, in order, until one fails.
	last, stop := -1, false
	for i, b := range spec.branches {
		if s, ok := done[b]; ok {
			f.results[i] = s // completed in an earlier run
			continue
		}
		if spec.sequential {
			if !stop {
				f.branch(i)
				stop = f.errs[i] != nil && !x.r.cfg.WaitForAllBranches
			}
			continue
		}
		if last >= 0 {
			f.wg.Add(1)
			go f.branchAsync(last)
		}
		last = i
	}
	if last >= 0 {
		f.branch(last)
	}
	f.wg.Wait()

	// Every branch that failed, in declaration order. When one failure
	// cancelled its siblings (fail fast), a sibling that only stopped
	// because of that cancellation did not fail.
	siblingsCancelled := f.bctx.Err() != nil && ctx.Err() == nil
	var failed, cancelled []*NodeError
	for _, ne := range f.errs {
		switch {
		case ne == nil:
		case siblingsCancelled && errors.Is(ne.Err, context.Canceled):
			cancelled = append(cancelled, ne)
		default:
			failed = append(failed, ne)
		}
	}
	if len(failed) == 0 {
		failed = cancelled // cannot happen unless a node returned Canceled itself
	}
	if len(failed) == 0 {
		return f.results, f.completed, nil
	}
	// A branch that failed in a nested fan-out brings its own failed
	// branches: the list holds every failure, at any depth, in order.
	var flat []*NodeError
	for _, ne := range failed {
		if len(ne.Branches) > 0 {
			flat = append(flat, ne.Branches...)
		} else {
			flat = append(flat, ne)
		}
	}
	head := *flat[0]
	head.Branches = flat
	if top {
		// The checkpoint keeps the branches that completed, so that Resume
		// runs only the others.
		f.mu.Lock()
		snap := snapshot(x.r.clone, f.completed)
		f.mu.Unlock()
		x.failedWith(ctx, position{node: spec.name, atExit: true}, state, path, snap, &head)
	}
	return nil, nil, &head
}

// fan is one fan-out in progress: one allocation for its branches to share.
type fan[S any] struct {
	x           *run[S]
	spec        *nodeSpec[S]
	ctx, bctx   context.Context
	cancel      context.CancelFunc
	state       S
	path        []string
	checkpoints bool

	results   []S
	errs      []*NodeError
	wg        sync.WaitGroup
	mu        sync.Mutex   // guards completed
	completed map[string]S // by branch, for checkpoints
}

func (f *fan[S]) branchAsync(i int) {
	defer f.wg.Done()
	f.branch(i)
}

// branch runs branch i to the fan-in node.
func (f *fan[S]) branch(i int) {
	b := f.spec.branches[i]
	bstate := f.state
	defer func() {
		// A panic outside a node (a Clone, a Checkpointer) on this
		// goroutine would take the process down: it is the branch's
		// failure instead.
		if p := recover(); p != nil {
			f.fail(i, nodeError(b, f.path, bstate, f.x.panicError(p)))
		}
	}()
	bstate = f.x.r.clone(f.state)
	out, _, err := f.x.walk(f.bctx, position{node: b}, f.spec.join, bstate, f.path, nil)
	if err != nil {
		var ne *NodeError
		if !errors.As(err, &ne) {
			ne = nodeError(b, f.path, bstate, err)
		}
		f.fail(i, ne)
		return
	}
	f.results[i] = out
	if f.checkpoints {
		f.mu.Lock()
		f.completed[b] = out
		snap := snapshot(f.x.r.clone, f.completed)
		f.mu.Unlock()
		// A failed save is reported after the fan-out, as the branch's
		// failure.
		if err := f.x.save(f.ctx, position{node: f.spec.name, atExit: true}, f.state, f.path, snap, ""); err != nil {
			f.errs[i] = nodeError(b, f.path, bstate, err)
			f.cancel()
		}
	}
}

func (f *fan[S]) fail(i int, ne *NodeError) {
	f.errs[i] = ne
	if !f.x.r.cfg.WaitForAllBranches {
		f.cancel()
	}
}

// snapshot copies the completed branches' results for a checkpoint.
func snapshot[S any](clone func(S) S, completed map[string]S) map[string]S {
	out := make(map[string]S, len(completed))
	for k, v := range completed {
		out[k] = clone(v)
	}
	return out
}

// save writes a checkpoint, when the graph has a Checkpointer.
func (x *run[S]) save(ctx context.Context, pos position, state S, path []string, branches map[string]S, failure string) error {
	cp := x.r.cfg.Checkpointer
	if cp == nil {
		return nil
	}
	x.cpMu.Lock()
	defer x.cpMu.Unlock()
	err := cp.Save(ctx, Checkpoint[S]{
		RunID: x.opts.runID, Step: int(x.steps.Load()), Node: pos.node, AtExit: pos.atExit,
		State: x.r.clone(state), Branches: maps.Clone(branches), Path: slices.Clone(path), Err: failure,
	})
	if err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	return nil
}

// notice delivers a node's notice to the stream or to Config.OnNotice.
func (x *run[S]) notice(ctx context.Context, node string, n *present.Event) {
	if x.emit != nil {
		x.emit(Event[S]{Type: EventNotice, Node: node, Notice: n})
		return
	}
	x.r.cfg.OnNotice(ctx, node, n)
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
	l.LogAttrs(ctx, level, msg, attrs...)
}
