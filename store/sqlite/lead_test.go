package sqlite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/store/internal/sqlstore"
)

// writeWithin is w.write, failing the test when it does not return within
// 10 seconds (the writer wedged).
func writeWithin(t *testing.T, w *writer, fn func(sqlstore.Querier) error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- w.write(context.Background(), fn) }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("a write did not return in 10 s: the writer is wedged")
		return nil
	}
}

// A write that finds the writer idle leads its batch; one sent while the
// leader runs queues, and the loop runs it once the leader committed.
func TestLoneWriteLeads(t *testing.T) {
	s, _ := openTest(t)
	w := s.writer
	leads, batches := w.leads.Load(), w.batches.Load()
	if err := w.write(t.Context(), insert("a")); err != nil || !stored(t, s, "a") {
		t.Fatalf("a lone write: %v, stored %v", err, stored(t, s, "a"))
	}
	if got := w.leads.Load() - leads; got != 1 {
		t.Errorf("a lone write led %d batches, want 1", got)
	}
	if got := w.batches.Load() - batches; got != 1 {
		t.Errorf("a lone write ran %d transactions, want 1", got)
	}

	// The blocker leads (the writer is idle): the writes sent meanwhile
	// queue behind it, and find its row committed.
	b := block(t, w)
	leads = w.leads.Load()
	errs := inOneBatch(t, w, b, insert("b"), func(q sqlstore.Querier) error {
		var n int
		if err := q.QueryRow(context.Background(), `SELECT count(*) FROM attempts WHERE tenant = 't' AND attempt_key = 'b'`).Scan(&n); err != nil {
			return err
		}
		if n != 1 {
			return errors.New("the write before it in its batch not seen")
		}
		return nil
	})
	if err := <-b.done; err != nil {
		t.Fatal(err)
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("queued write %d: %v", i, err)
		}
	}
	if got := w.leads.Load() - leads; got != 1 {
		t.Errorf("%d batches led, want the blocker's alone (the others queued)", got)
	}
}

// A lone write whose context ends before it starts never runs; one whose
// context ends while its fn runs is committed, and answered so.
func TestLeaderCancelled(t *testing.T) {
	s, _ := openTest(t)
	w := s.writer
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := w.write(ctx, insert("x")); err != context.Canceled || stored(t, s, "x") {
		t.Errorf("a write cancelled before it started: %v, stored %v", err, stored(t, s, "x"))
	}
	ctx, cancel = context.WithCancel(t.Context())
	leads := w.leads.Load()
	err := w.write(ctx, func(q sqlstore.Querier) error {
		cancel()
		return insert("y")(q)
	})
	if err != nil || !stored(t, s, "y") {
		t.Errorf("a write cancelled once started: %v, stored %v; want committed", err, stored(t, s, "y"))
	}
	if w.leads.Load() == leads {
		t.Error("the write did not lead: the test checks nothing of a leader")
	}
	if err := writeWithin(t, w, insert("z")); err != nil || !stored(t, s, "z") {
		t.Errorf("the write after: %v", err)
	}
}

// A lone write's panic is raised again in its caller, its effects rolled
// back; the writer goes on.
func TestLeaderFnPanics(t *testing.T) {
	s, _ := openTest(t)
	w := s.writer
	leads := w.leads.Load()
	v := func() (v any) {
		defer func() { v = recover() }()
		_ = w.write(t.Context(), func(q sqlstore.Querier) error {
			if err := insert("p")(q); err != nil {
				return err
			}
			panic("oops")
		})
		return nil
	}()
	if v != "oops" || stored(t, s, "p") {
		t.Errorf("recovered %v, stored p %v; want the fn's panic, nothing stored", v, stored(t, s, "p"))
	}
	if w.leads.Load() == leads {
		t.Error("the write did not lead: the test checks nothing of a leader")
	}
	if err := writeWithin(t, w, insert("a")); err != nil || !stored(t, s, "a") {
		t.Errorf("the write after the panic: %v", err)
	}
}

// A leader that panics outside the fns (here the health's reason, told of
// a COMMIT that failed) lets go of the writer's connection and of its
// exclusion, and panics in its caller: the writes after, led or queued,
// run.
func TestLeaderPanicsOutsideFn(t *testing.T) {
	s, _ := openTest(t)
	w := s.writer
	w.mu.Lock()
	health := w.health
	w.health = sqlstore.NewHealth(func(error) string { panic("reason") })
	w.mu.Unlock()
	dangling := func(q sqlstore.Querier) error { // the COMMIT fails
		_, err := q.Exec(context.Background(), `
			INSERT INTO occurrences (tenant, error_id, record_seq, query_id, agent_id, error_type, severity, next_action, attempt, reported_at, received_at)
			VALUES ('t', 'err_none', 0, 'q', 'a', 'x', 'low', 'resume', 1, 0, 0)`)
		return err
	}
	leads := w.leads.Load()
	v := func() (v any) {
		defer func() { v = recover() }()
		_ = w.write(t.Context(), dangling)
		return nil
	}()
	if v != "reason" {
		t.Errorf("recovered %v, want the leader's panic", v)
	}
	if w.leads.Load() != leads {
		t.Error("a leader that panicked counted as one that led")
	}
	w.mu.Lock()
	w.health = health
	w.mu.Unlock()
	if err := writeWithin(t, w, insert("a")); err != nil || !stored(t, s, "a") {
		t.Errorf("a lone write after the leader's panic: %v", err)
	}
	// Queued writes too: behind a blocker, then run by the loop.
	b := block(t, w)
	errs := inOneBatch(t, w, b, insert("b"), insert("c"))
	if err := <-b.done; err != nil {
		t.Fatal(err)
	}
	if errs[0] != nil || errs[1] != nil || !stored(t, s, "b") || !stored(t, s, "c") {
		t.Errorf("queued writes after the leader's panic: %v", errs)
	}
}

// Many clients, each one write after the other, leading or queued as
// they find the writer: every write is committed once answered, and each
// client's writes are in its order.
func TestLeadersAndQueueConcurrent(t *testing.T) {
	s, _ := openTest(t)
	w := s.writer
	const clients, each = 16, 40
	leads, batches := w.leads.Load(), w.batches.Load()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range each {
				key := fmt.Sprintf("k%d_%d", c, i)
				err := w.write(t.Context(), func(q sqlstore.Querier) error {
					if i > 0 { // the client's previous write is committed
						var n int
						if err := q.QueryRow(context.Background(), `SELECT count(*) FROM attempts WHERE tenant = 't' AND attempt_key = $1`, fmt.Sprintf("k%d_%d", c, i-1)).Scan(&n); err != nil {
							return err
						}
						if n != 1 {
							return errors.New("the previous write of this client is not there")
						}
					}
					return insert(key)(q)
				})
				if err != nil {
					t.Errorf("client %d write %d: %v", c, i, err)
					return
				}
				if !stored(t, s, key) {
					t.Errorf("client %d write %d answered, not committed", c, i)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d writes, %d transactions, %d led", clients*each, w.batches.Load()-batches, w.leads.Load()-leads)
	var n int
	if err := s.read.QueryRowContext(t.Context(), `SELECT count(*) FROM attempts WHERE tenant = 't'`).Scan(&n); err != nil || n != clients*each {
		t.Errorf("%d rows, %v; want %d", n, err, clients*each)
	}
}
