package graph

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
)

// fanOut runs a fan-out's branches (in parallel, or in order for a
// sequential one) and returns their results in declaration order, and by
// branch name when checkpoints need them. done holds results of branches
// that completed in an earlier run. Its failure is the first failed
// branch's NodeError, as that branch's node reported it (its node, path and
// state, however deep in the branch), with Branches listing every failure.
func (x *run[S]) fanOut(ctx context.Context, spec *nodeSpec[S], state S, path []string, top bool, done map[string]S) ([]S, map[string]S, *NodeError) {
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
		// runs only the others. Every branch has returned: completed is
		// this goroutine's alone.
		x.failedWith(ctx, position{node: spec.name, atExit: true}, state, path, f.completed, &head)
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

// branch runs branch i to the fan-in node. Its failure is the NodeError of
// the node in the branch that failed; the failures of the branch's own
// steps (copying the state, saving the checkpoint after it) are its first
// node's, with the state it was to receive.
func (f *fan[S]) branch(i int) {
	b := f.spec.branches[i]
	bstate, err := f.clone()
	if err != nil {
		// The branch's node never ran: it fails with the fan-out's state,
		// which its copy was to be made from.
		f.fail(i, nodeError(b, f.path, f.state, err))
		return
	}
	out, _, ne := f.x.walk(f.bctx, position{node: b}, f.spec.join, bstate, f.path, nil)
	if ne != nil {
		f.fail(i, ne)
		return
	}
	f.results[i] = out
	if f.checkpoints {
		f.mu.Lock()
		f.completed[b] = out
		completed := maps.Clone(f.completed)
		f.mu.Unlock()
		// A failed save is reported after the fan-out, as the branch's
		// failure.
		if err := f.x.save(f.ctx, position{node: f.spec.name, atExit: true}, f.state, f.path, completed, ""); err != nil {
			f.fail(i, nodeError(b, f.path, bstate, fmt.Errorf("save checkpoint: %w", err)))
		}
	}
}

// clone copies the fan-out's state for a branch. A Clone that panics, on
// a branch's goroutine, would take the process down: it is the branch's
// failure instead.
func (f *fan[S]) clone() (s S, err error) {
	defer f.x.recoverPanic(&err)
	return f.x.r.clone(f.state), nil
}

func (f *fan[S]) fail(i int, ne *NodeError) {
	f.errs[i] = ne
	if !f.x.r.cfg.WaitForAllBranches {
		f.cancel()
	}
}
