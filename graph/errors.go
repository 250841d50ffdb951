package graph

import (
	"errors"
	"fmt"
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
// errors.Is and errors.As reach Err (and, for a fan-out, every failed
// branch's cause), so fault.From classifies a NodeError by its cause.
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
	// own Node, Path and Err.
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

// Unwrap returns the cause, and for a fan-out every other failed branch's
// NodeError (which unwraps in turn, so a nested fan-out's causes are
// reached too).
func (e *NodeError) Unwrap() []error {
	errs := []error{e.Err}
	for _, br := range e.Branches[min(1, len(e.Branches)):] {
		errs = append(errs, br)
	}
	return errs
}

// PanicError is the cause of a node or router that panicked: the run
// recovers, and the panic follows the same contract as an error. Stack is
// set only when Config.Debug is on.
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
