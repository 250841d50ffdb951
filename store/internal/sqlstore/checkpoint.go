package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/triage-go/triage/store"
)

// SaveCheckpoint replaces the checkpoint of run cp.RunID, in one
// statement: an upsert on (tenant, run_id).
func (t *tenant) SaveCheckpoint(ctx context.Context, cp store.Checkpoint) error {
	if err := t.saveCheckpoint(ctx, cp); err != nil {
		return t.s.errorf("save checkpoint", err)
	}
	return nil
}

func (t *tenant) saveCheckpoint(ctx context.Context, cp store.Checkpoint) error {
	if cp.RunID == "" {
		return errors.New("a checkpoint needs a run id")
	}
	if n := cp.Size(); n > store.MaxCheckpointSize {
		return fmt.Errorf("%w: run %q is %d bytes encoded, over the limit of %d (store.MaxCheckpointSize)",
			store.ErrCheckpointTooLarge, cp.RunID, n, store.MaxCheckpointSize)
	}
	// PostgreSQL's TEXT holds UTF-8 without NULs: names that are not are
	// refused on both stores, and the failure's message, which is for
	// people to read and must not keep its checkpoint from being saved,
	// is made so.
	for _, name := range append([]string{cp.RunID, cp.Node}, cp.Path...) {
		if !isText(name) {
			return fmt.Errorf("%q is not UTF-8 text without NULs", name)
		}
	}
	cp.Err = strings.ReplaceAll(strings.ToValidUTF8(cp.Err, "\uFFFD"), "\x00", "\uFFFD")
	if !json.Valid(cp.State) || !utf8.Valid(cp.State) {
		return errors.New("the state is not a JSON document in UTF-8")
	}
	var branches, path []byte
	if cp.Branches != nil {
		var err error
		// Marshal checks each branch's document, and the names.
		if branches, err = json.Marshal(cp.Branches); err != nil {
			return err
		}
		for name := range cp.Branches {
			if !isText(name) {
				return fmt.Errorf("branch %q: the name is not UTF-8 text without NULs", name)
			}
		}
		if !utf8.Valid(branches) {
			return errors.New("the branches' results are not in UTF-8")
		}
	}
	if cp.Path != nil {
		var err error
		if path, err = json.Marshal(cp.Path); err != nil {
			return err
		}
	}
	_, err := t.s.db.Writer().Exec(ctx, `
		INSERT INTO checkpoints (tenant, run_id, step, node, at_exit, done, error, state, branches, path, saved_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT (tenant, run_id) DO UPDATE SET step = excluded.step, node = excluded.node,
			at_exit = excluded.at_exit, done = excluded.done, error = excluded.error, state = excluded.state,
			branches = excluded.branches, path = excluded.path, saved_at = excluded.saved_at`,
		t.id, cp.RunID, cp.Step, cp.Node, cp.AtExit, cp.Done, cp.Err, string(cp.State), text(branches), text(path),
		nanos(t.s.now()))
	return err
}

// isText reports whether s is UTF-8 without NULs, as PostgreSQL's TEXT
// holds it.
func isText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// LoadCheckpoint returns the checkpoint of a run.
func (t *tenant) LoadCheckpoint(ctx context.Context, runID string) (store.Checkpoint, bool, error) {
	cp := store.Checkpoint{RunID: runID}
	var (
		state          string
		branches, path *string
		saved          int64
	)
	err := t.s.db.Reader().QueryRow(ctx, `
		SELECT step, node, at_exit, done, error, state, branches, path, saved_at
		FROM checkpoints WHERE tenant = $1 AND run_id = $2`,
		t.id, runID).Scan(&cp.Step, &cp.Node, &cp.AtExit, &cp.Done, &cp.Err, &state, &branches, &path, &saved)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Checkpoint{}, false, nil
	}
	if err == nil && branches != nil {
		err = json.Unmarshal([]byte(*branches), &cp.Branches)
	}
	if err == nil && path != nil {
		err = json.Unmarshal([]byte(*path), &cp.Path)
	}
	if err != nil {
		return store.Checkpoint{}, false, t.s.errorf("load checkpoint", err)
	}
	cp.State, cp.SavedAt = json.RawMessage(state), fromNanos(saved)
	return cp, true, nil
}

// checkpointChunk is how many checkpoints one write of expireCheckpoints
// deletes: fewer than expireChunk records, as a checkpoint may be large
// (up to store.MaxCheckpointSize) and a write holds SQLite's writer.
const checkpointChunk = 50

// expireCheckpoints deletes the checkpoints, finished (done) or not,
// saved before cutoff, checkpointChunk at a time. The statement checks the
// age again on the row it deletes, so that a checkpoint saved anew
// meanwhile (on PostgreSQL, between the subquery and the delete) stays.
func (s *Store) expireCheckpoints(ctx context.Context, done bool, cutoff int64) (int64, error) {
	var total int64
	for {
		n, err := s.db.Writer().Exec(ctx, `DELETE FROM checkpoints WHERE done = $1 AND saved_at < $2
			AND (tenant, run_id) IN (SELECT tenant, run_id FROM checkpoints WHERE done = $1 AND saved_at < $2 LIMIT $3)`,
			done, cutoff, checkpointChunk)
		total += n
		if err != nil || n < checkpointChunk {
			return total, err
		}
	}
}
