package sqlite

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/triage-go/triage/store/internal/sqlstore"
)

// earlyInOneBatch is inOneBatch for writeEarly's: it returns each one's
// error, and the error of its commit when it was answered early (ok).
func earlyInOneBatch(t *testing.T, w *writer, b *blocker, fns ...func(sqlstore.Querier) error) (errs, commits []error, early []bool) {
	t.Helper()
	errs, commits, early = make([]error, len(fns)), make([]error, len(fns)), make([]bool, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() {
			commit, err := w.writeEarly(t.Context(), fn)
			errs[i] = err
			if commit != nil {
				early[i] = true
				commits[i] = commit()
			}
		})
		waitQueued(t, w, i+1)
	}
	b.release()
	wg.Wait()
	return errs, commits, early
}

// A write answered early whose batch then fails to commit hears of it
// from commit, and its row is not stored; a write whose own statement
// fails is not answered early; the others are, and are stored once their
// commit returns.
func TestWriteEarly(t *testing.T) {
	s, _ := openTest(t)
	w := s.writer
	dangling := func(q sqlstore.Querier) error { // breaks a deferred foreign key: the COMMIT fails
		_, err := q.Exec(context.Background(), `
			INSERT INTO occurrences (tenant, error_id, record_seq, query_id, agent_id, error_type, severity, next_action, attempt, reported_at, received_at)
			VALUES ('t', 'err_none', 0, 'q', 'a', 'x', 'low', 'resume', 1, 0, 0)`)
		return err
	}
	errs, commits, early := earlyInOneBatch(t, w, block(t, w), insert("a"), dangling)
	for i := range errs {
		if errs[i] != nil || !early[i] || commits[i] == nil || !strings.Contains(commits[i].Error(), "FOREIGN KEY") {
			t.Errorf("write %d of the batch that fails to commit: %v, early %v, commit %v; want an early answer and the COMMIT's error", i, errs[i], early[i], commits[i])
		}
	}
	if stored(t, s, "a") {
		t.Error("row a stored, though its COMMIT failed")
	}

	// A failed write (a second "b") makes the batch run again, each write
	// in a savepoint: the others are answered early once, and committed.
	errs, commits, early = earlyInOneBatch(t, w, block(t, w), insert("b"), insert("b"), insert("c"))
	if errs[0] != nil || !early[0] || commits[0] != nil {
		t.Errorf("b: %v, early %v, commit %v", errs[0], early[0], commits[0])
	}
	if errs[1] == nil || early[1] {
		t.Errorf("the second b: %v, early %v; want its own error, not answered early", errs[1], early[1])
	}
	if errs[2] != nil || !early[2] || commits[2] != nil {
		t.Errorf("c: %v, early %v, commit %v", errs[2], early[2], commits[2])
	}
	if !stored(t, s, "b") || !stored(t, s, "c") {
		t.Error("rows b and c not both stored after their commits")
	}
}

// A writeEarly whose context ends before the writer starts it never runs.
func TestWriteEarlyCancelled(t *testing.T) {
	s, _ := openTest(t)
	w := s.writer
	b := block(t, w)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		commit, err := w.writeEarly(ctx, insert("x"))
		if commit != nil {
			err = commit()
		}
		done <- err
	}()
	waitQueued(t, w, 1)
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("writeEarly cancelled before it started: %v, want context.Canceled", err)
	}
	b.release()
	if err := <-b.done; err != nil {
		t.Fatal(err)
	}
	if stored(t, s, "x") {
		t.Error("a write cancelled before it started ran")
	}
}

// A writeEarly that succeeds always returns a commit, even when its
// caller hears of the commit's end before it hears the write ran.
func TestWriteEarlyAlwaysCommits(t *testing.T) {
	s, _ := openTest(t)
	w := s.writer
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			commit, err := w.writeEarly(t.Context(), insert(fmt.Sprint("k", i)))
			if err != nil || commit == nil {
				t.Errorf("write %d: %v, commit %v", i, err, commit != nil)
				return
			}
			if err := commit(); err != nil {
				t.Errorf("write %d's commit: %v", i, err)
			}
		})
	}
	wg.Wait()
}
