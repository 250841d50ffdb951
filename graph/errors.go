package graph

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// ErrStepLimit is the cause of a run stopped by its step limit (see
// Config.MaxSteps): most often a cycle that never exits.
var ErrStepLimit = errors.New("step limit reached")

// ErrNoRoute is the cause when a router names a node that is not among its
// declared targets.
var ErrNoRoute = errors.New("no valid next node")

// NodeError is the one shape every failure of a run takes: in a node, a
// router, a parallel branch, a fan-in node, a panic, a cancellation, the
// step limit. Its message is `error in node "X": cause`.
//
// Unwrap returns Err, so errors.As and fault.From classify a NodeError by
// the cause of the node it names, and by nothing else. When several branches
// of a fan-out failed, the others do not change that answer (a sibling's
// RATE_LIMITED must not make a bug look retryable): they stay in Branches
// (and Failures), each a NodeError to classify on its own. errors.Is also
// finds each other failed branch's cause, except the context's errors
// (context.Canceled, context.DeadlineExceeded, os.ErrDeadlineExceeded): a
// cancellation or a timeout classifies a failure, so, as for fault.From,
// only the named failure answers for them.
type NodeError struct {
	// Node is the node that failed (for a fan-out, the first failed branch's
	// failing node in declaration order).
	Node string
	// Path lists the nodes that completed before the failure, in order; a
	// branch's path continues the path that led to its fan-out.
	Path []string
	// State is the state the failing node received (a copy, for a branch).
	State any
	// Err is the cause.
	Err error
	// Branches lists every branch of a fan-out that failed, in declaration
	// order; empty for a failure outside a fan-out. The first is this error's
	// own Node, Path and Err; the others are reported beside it, but do not
	// classify it (see Failures).
	Branches []*NodeError
	// RunID identifies the run, and the checkpoint Resume continues from
	// when the run has a Checkpointer; empty otherwise.
	RunID string
}

func (e *NodeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "error in node %q: %v", e.Node, e.Err)
	for _, br := range e.Branches[min(1, len(e.Branches)):] {
		fmt.Fprintf(&b, "; error in node %q: %v", br.Node, br.Err)
	}
	return b.String()
}

// Unwrap returns the cause of the failure the error names, and only that:
// errors.As and fault.From follow it alone. The other failed branches of a
// fan-out are in Branches.
func (e *NodeError) Unwrap() error { return e.Err }

// Is reports whether another failed branch's cause is target, so that
// errors.Is finds every branch's cause (errors.Is reaches the named
// failure's own cause through Unwrap). The context's errors are not
// looked for among the other branches: whether a failure is a cancellation
// or a timeout is its classification, which only the named failure gives
// (fault.From asks Is for them).
func (e *NodeError) Is(target error) bool {
	if len(e.Branches) < 2 || classifies(target) {
		return false
	}
	for _, br := range e.Branches[1:] {
		if errors.Is(br.Err, target) {
			return true
		}
	}
	return false
}

// classifies reports whether target is one of the errors fault.From asks
// Is about to classify a failure.
func classifies(target error) bool {
	return target == context.Canceled || target == context.DeadlineExceeded || target == os.ErrDeadlineExceeded
}

// Failures returns every failure the error reports, in declaration order:
// for a fan-out, Branches, whose first is the failure the error names;
// otherwise the error itself. Each is a NodeError of its own, for
// fault.From to classify.
func (e *NodeError) Failures() []*NodeError {
	if len(e.Branches) > 0 {
		return e.Branches
	}
	return []*NodeError{e}
}

// PanicError is the cause of a node or router that panicked, or of a hook
// the run calls (a Clone, ErrorState, a Checkpointer, OnNotice): the run
// recovers, and the panic follows the same contract as an error, failing
// the node being run or exited. Stack is set only when Config.Debug is on.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic's value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

func nodeError[S any](node string, path []string, state S, err error) *NodeError {
	return &NodeError{Node: node, Path: slices.Clone(path), State: state, Err: err}
}
