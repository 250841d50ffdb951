package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Checkpoint is a graph run's checkpoint as a store keeps it: a
// graph.Checkpoint whose state and branches' states are JSON documents.
// Package store/checkpoint encodes and decodes them.
type Checkpoint struct {
	// RunID identifies the run within its tenant: one checkpoint per
	// tenant and run.
	RunID string
	// Step, Node, AtExit, Path, Done and Err are graph.Checkpoint's.
	Step   int
	Node   string
	AtExit bool
	Path   []string
	Done   bool
	Err    string
	// State is the state's JSON document.
	State json.RawMessage
	// Branches are the JSON documents of the results of the branches that
	// completed, by branch name; nil when there are none.
	Branches map[string]json.RawMessage
	// SavedAt is when the checkpoint was saved, by the store's clock; set
	// by LoadCheckpoint, ignored by SaveCheckpoint. Retention's
	// Checkpoints and FinishedCheckpoints count from it.
	SavedAt time.Time
}

// Size is the checkpoint's size as MaxCheckpointSize bounds it: the bytes
// of its JSON documents (the state and the branches') and of its strings
// (the run id, the node, the path's nodes, the branches' names, the
// error).
func (c Checkpoint) Size() int {
	n := len(c.RunID) + len(c.Node) + len(c.Err) + len(c.State)
	for _, p := range c.Path {
		n += len(p)
	}
	for name, doc := range c.Branches {
		n += len(name) + len(doc)
	}
	return n
}

// MaxCheckpointSize bounds a checkpoint's Size, in bytes (4 MiB): a run's
// state, with the results of the branches of a fan-out, is saved at every
// step, and on SQLite each save holds the one writer while it is written.
// A checkpoint over it is not saved: SaveCheckpoint (and so the
// graph.Checkpointer's Save, which fails the run) returns ErrCheckpointTooLarge.
const MaxCheckpointSize = 4 << 20

// ErrCheckpointTooLarge is what SaveCheckpoint wraps for a checkpoint
// whose Size is over MaxCheckpointSize.
var ErrCheckpointTooLarge = errors.New("store: checkpoint too large")

// Checkpoints keeps one tenant's graph checkpoints: every Tenant has them.
// checkpoint.New (package store/checkpoint) makes a graph.Checkpointer of
// them.
type Checkpoints interface {
	// SaveCheckpoint replaces the checkpoint of run cp.RunID (whatever its
	// step: a run started again under its id starts again from 0). It
	// refuses a checkpoint without a run id; one whose State or Branches
	// are not JSON documents in UTF-8; one whose run id, node, path or
	// branch names are not UTF-8 text without NULs (which PostgreSQL's
	// TEXT cannot hold); and one over MaxCheckpointSize
	// (ErrCheckpointTooLarge). In Err, a failure's message, invalid UTF-8
	// and NULs are saved as U+FFFD, so that the failure is recorded.
	SaveCheckpoint(ctx context.Context, cp Checkpoint) error
	// LoadCheckpoint returns the checkpoint of a run, and false when the
	// tenant has none for it (never saved, expired, or another tenant's).
	LoadCheckpoint(ctx context.Context, runID string) (Checkpoint, bool, error)
}
