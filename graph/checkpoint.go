package graph

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
)

// Checkpoint is where a run stands after a step: enough to continue it.
type Checkpoint[S any] struct {
	// RunID identifies the run.
	RunID string
	// Step counts the node executions so far.
	Step int
	// Node is where the run continues: the node to run next, or, when
	// AtExit is true, the node that has run and whose way out (edge,
	// router or fan-out) is to be taken next.
	Node   string
	AtExit bool
	// State is the state Node continues from.
	State S
	// Branches holds the results of the branches of Node's fan-out that
	// have completed, by branch name, so a resumed run does not run them
	// again.
	Branches map[string]S
	// Path lists the nodes that have completed.
	Path []string
	// Done is true when the run has finished; State is then its result.
	Done bool
	// Err is the message of the failure that stopped the run, if any.
	Err string
}

// Checkpointer stores checkpoints. Save replaces the checkpoint of its run;
// Load returns the latest one, or an error wrapping ErrNoCheckpoint. The
// executor recovers a panic in either: a Save's fails the run as a
// checkpoint that cannot be saved, a Load's fails Resume, each with a
// *PanicError.
type Checkpointer[S any] interface {
	Save(ctx context.Context, cp Checkpoint[S]) error
	Load(ctx context.Context, runID string) (Checkpoint[S], error)
}

// ErrNoCheckpoint is what Load wraps when it has no checkpoint for a run.
var ErrNoCheckpoint = errors.New("no checkpoint")

// MemoryCheckpointer keeps checkpoints in memory; it is safe for concurrent
// use. The zero value is ready.
type MemoryCheckpointer[S any] struct {
	mu  sync.Mutex
	cps map[string]Checkpoint[S]
}

// Save stores cp (its slices and map are copied; the state is stored as the
// executor cloned it).
func (m *MemoryCheckpointer[S]) Save(_ context.Context, cp Checkpoint[S]) error {
	cp.Path = slices.Clone(cp.Path)
	cp.Branches = maps.Clone(cp.Branches)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cps == nil {
		m.cps = map[string]Checkpoint[S]{}
	}
	m.cps[cp.RunID] = cp
	return nil
}

// Load returns the run's latest checkpoint.
func (m *MemoryCheckpointer[S]) Load(_ context.Context, runID string) (Checkpoint[S], error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cp, ok := m.cps[runID]
	if !ok {
		return cp, errNoCheckpoint(runID)
	}
	cp.Path = slices.Clone(cp.Path)
	cp.Branches = maps.Clone(cp.Branches)
	return cp, nil
}

func errNoCheckpoint(runID string) error {
	return &checkpointError{runID: runID}
}

type checkpointError struct{ runID string }

func (e *checkpointError) Error() string { return "graph: no checkpoint for run " + e.runID }
func (e *checkpointError) Unwrap() error { return ErrNoCheckpoint }
