package sqlite

import (
	"context"
	"errors"

	"github.com/triage-go/triage/store/internal/sqlstore"
)

// errLeaderPanicked answers the writes of a batch whose leader panicked
// outside their fns (in the driver, say) before it answered them.
var errLeaderPanicked = errors.New("sqlite: the write batch's leader panicked")

// lead runs fn as write does, but in the caller's goroutine, when the
// writer is idle: nothing queued and no batch running (mu free). The
// caller then leads: it takes the writer's connection under mu, as the
// loop does, and runs the batch of its write (and of any queued since it
// looked) itself. A write alone (one client) so skips the two hand-offs
// to and from the writer's goroutine. The writes that arrive meanwhile
// queue as they would behind any batch: the loop takes them once the
// leader lets go of mu. ok is false when the writer was not idle, or is
// stopping: the caller then sends its write as before.
//
// Every guarantee of write holds: the answer comes once the transaction
// committed (or failed to), with the same disk-full and read-only
// recovery (settle), and ctx ends nothing once fn started (the batch runs
// on the writer's context). A panic of fn is answered, as the loop
// answers it; a panic outside the fns (the driver's, say) rolls the
// transaction back, answers the batch's writes with errLeaderPanicked,
// lets go of mu and is raised again in the leader: the writer goes on.
func (w *writer) lead(ctx context.Context, fn func(sqlstore.Querier) error) (res result, ok bool) {
	if len(w.reqs) != 0 || !w.mu.TryLock() {
		return result{}, false
	}
	select {
	case <-w.quit:
		w.mu.Unlock() // the loop drains; send answers ErrClosed
		return result{}, false
	default:
	}
	if err := ctx.Err(); err != nil {
		w.mu.Unlock()
		return result{err: err}, true
	}
	r := &request{ctx: ctx, fn: fn, done: make(chan result, 1)}
	batch := w.take(append(make([]*request, 0, 1), r))
	w.runLed(batch)
	w.leads.Add(1)
	if w.dirty.Load() {
		w.signal() // the loop sets its idle catch-up (see loop)
	}
	select {
	case res = <-r.done:
	default:
		res = result{err: errLeaderPanicked} // cannot happen: run answers every write
	}
	return res, true
}

// runLed runs batch under mu, which the caller holds, and lets go of it,
// even when it panics (see lead).
func (w *writer) runLed(batch []*request) {
	defer func() {
		v := recover()
		if v == nil {
			w.mu.Unlock()
			return
		}
		if w.open != nil {
			_ = w.open.Rollback() // ErrTxDone when it had ended
		}
		w.open = nil
		for _, r := range batch {
			r.state.CompareAndSwap(queued, started)
			select {
			case r.done <- result{err: errLeaderPanicked}:
			default: // answered already
			}
		}
		w.mu.Unlock()
		panic(v)
	}()
	w.run(batch)
	w.open = nil
}

// readIdle runs fn, one short read, on the writer's connection when the
// writer is idle (nothing queued, no batch running: mu free), under mu, and
// tells whether it ran. A reader's connection drops every page it cached
// at its first read after any commit of the writer (WAL mode: the
// wal-index changed), and then reads each page it needs again from the
// operating system; the writer's connection keeps its pages through its
// own commits. A report's peek read alone after the previous report's
// commit (one client) took ~65 µs on a reader and ~22 µs on a connection
// whose cache holds: see docs/service.md. A write that arrives while fn
// runs queues, or waits for mu, as behind a batch.
func (w *writer) readIdle(ctx context.Context, fn func(sqlstore.Querier) error) (bool, error) {
	if w.noIdleReads || len(w.reqs) != 0 || !w.mu.TryLock() {
		return false, nil
	}
	defer w.mu.Unlock()
	select {
	case <-w.quit:
		return false, nil // the loop drains: the readers answer
	default:
	}
	w.idleReads.Add(1)
	return true, fn(dbQuerier{w.db, w.stmts})
}
