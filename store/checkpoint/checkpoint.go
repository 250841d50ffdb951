package checkpoint

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/store"
)

// New returns the durable graph.Checkpointer of a tenant's graph runs, c
// (a Tenant of store/sqlite or store/postgres): give it to
// graph.Config.Checkpointer, and Resume continues a failed run from the
// store, in this process or in another one that opens the same database
// later (one tenant cannot load another's run):
//
//	cfg := &graph.Config[State]{Checkpointer: checkpoint.New[State](st.Tenant("acme"))}
//
// The state and the branches' results are stored as JSON, so S must
// round-trip through encoding/json: what is lost in encoding (unexported
// fields, a time's monotonic reading, the concrete types behind interface
// fields) is lost to a resumed run. A state that fails to encode (a
// channel, a function, a NaN, a MarshalJSON that fails or panics) is an
// error of Save, never a panic, and the run's previous checkpoint stays; a
// stored state that no longer decodes into S (the type changed) is an error
// of Load. A checkpoint over store.MaxCheckpointSize encoded is not saved
// (store.ErrCheckpointTooLarge), nor one whose names are not UTF-8 text (see
// store.Checkpoints.SaveCheckpoint). Load of a run the tenant has no checkpoint
// for returns an error wrapping graph.ErrNoCheckpoint.
//
// Checkpoints expire (Expire of the store, store.Retention): a finished run's after a
// day, an unfinished one's a week after it was last saved, by default.
func New[S any](c store.Checkpoints) graph.Checkpointer[S] {
	return checkpointer[S]{c}
}

// checkpointer is New's graph.Checkpointer.
type checkpointer[S any] struct{ c store.Checkpoints }

// Save encodes cp and saves it.
func (k checkpointer[S]) Save(ctx context.Context, cp graph.Checkpoint[S]) error {
	enc := store.Checkpoint{RunID: cp.RunID, Step: cp.Step, Node: cp.Node, AtExit: cp.AtExit,
		Path: cp.Path, Done: cp.Done, Err: cp.Err}
	var err error
	if enc.State, err = encodeState(cp.State); err != nil {
		return fmt.Errorf("store: save checkpoint of run %q: encode the state: %w", cp.RunID, err)
	}
	if cp.Branches != nil {
		enc.Branches = make(map[string]json.RawMessage, len(cp.Branches))
		for name, s := range cp.Branches {
			if enc.Branches[name], err = encodeState(s); err != nil {
				return fmt.Errorf("store: save checkpoint of run %q: encode the result of branch %q: %w", cp.RunID, name, err)
			}
		}
	}
	return k.c.SaveCheckpoint(ctx, enc)
}

// Load loads a run's checkpoint and decodes it.
func (k checkpointer[S]) Load(ctx context.Context, runID string) (graph.Checkpoint[S], error) {
	var cp graph.Checkpoint[S]
	enc, found, err := k.c.LoadCheckpoint(ctx, runID)
	if err != nil {
		return cp, err
	}
	if !found {
		return cp, fmt.Errorf("store: no checkpoint for run %q: %w", runID, graph.ErrNoCheckpoint)
	}
	cp = graph.Checkpoint[S]{RunID: enc.RunID, Step: enc.Step, Node: enc.Node, AtExit: enc.AtExit,
		Path: enc.Path, Done: enc.Done, Err: enc.Err}
	if err := json.Unmarshal(enc.State, &cp.State); err != nil {
		return graph.Checkpoint[S]{}, fmt.Errorf("store: load checkpoint of run %q: decode the state: %w", runID, err)
	}
	if enc.Branches != nil {
		cp.Branches = make(map[string]S, len(enc.Branches))
		for name, doc := range enc.Branches {
			var s S
			if err := json.Unmarshal(doc, &s); err != nil {
				return graph.Checkpoint[S]{}, fmt.Errorf("store: load checkpoint of run %q: decode the result of branch %q: %w", runID, name, err)
			}
			cp.Branches[name] = s
		}
	}
	return cp, nil
}

// encodeState is s as JSON; a MarshalJSON that panics is an error.
func encodeState[S any](s S) (doc json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			doc, err = nil, fmt.Errorf("panic: %v", p)
		}
	}()
	return json.Marshal(s)
}
