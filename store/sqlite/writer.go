package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/triage-go/triage/store/internal/sqlstore"
)

// MaxBatch bounds the writes one transaction of the writer commits.
const MaxBatch = 128

// ErrClosed is the error of a write to a closed store.
var ErrClosed = errors.New("sqlite: store closed")

// The savepoint each write of a batch runs in. The writes of a batch run
// one after the other, so one name serves.
const (
	savepointSQL  = `SAVEPOINT batch_write`
	releaseSQL    = `RELEASE batch_write`
	rollbackToSQL = `ROLLBACK TO batch_write`
)

// A write's states: queued, then either started (its fn runs; the caller
// waits for the commit) or cancelled (its caller went away first; its fn
// never runs).
const (
	queued int32 = iota
	started
	cancelled
)

// request is one Write waiting for the writer.
type request struct {
	ctx   context.Context
	fn    func(sqlstore.Querier) error
	state atomic.Int32
	done  chan result // buffered: the writer never blocks on it
	// ran, when not nil, hears (buffered, once) that fn ran without error
	// in a transaction the writer is about to commit (see writeEarly).
	ran chan struct{}

	// Set by the writer while it runs fn.
	err      error
	panicked bool
	panicVal any
}

// result answers a request.
type result struct {
	err      error
	panicked bool
	panicVal any
}

// writer is group commit: every write of the store goes to one goroutine,
// which takes the writes waiting (up to MaxBatch), runs them in one
// transaction, each in its own savepoint, and commits once. A caller hears
// of its write only once the transaction is committed (or failed to), so
// a write that succeeded is durable, as with a transaction of its own,
// while a batch of them costs one fsync. A write whose fn fails is rolled
// back to its savepoint: the others of its batch do not see the failure.
// A write that finds the writer idle runs its batch itself (see lead).
type writer struct {
	db     *sql.DB
	ctx    context.Context // the writer's, never cancelled: a caller's end must not interrupt a batch
	reqs   chan *request
	quit   chan struct{} // closed by stop
	exited chan struct{} // closed when loop returns
	stmts  *stmtCache

	// mu is held while a batch runs, by the writer's goroutine or by a
	// write that leads (see lead): one batch at a time on the writer's
	// connection. Once the loop exits it keeps mu: no batch runs after.
	mu sync.Mutex
	// open is the transaction of the batch running (under mu): a leader
	// that panics outside its fn rolls it back (see lead).
	open *sql.Tx
	// wake (buffered, one) tells the loop that writes were queued, or that
	// a leader left records behind the search index (see lead): the loop
	// takes the queued writes under mu, so that a write queued while a
	// batch runs stays queued until the next batch takes it.
	wake chan struct{}

	stopOnce sync.Once

	// health hears of every transaction's outcome (see settle).
	health *sqlstore.Health
	// readers are the store's readers, whose connections reconnect
	// closes too (nil: none).
	readers *sql.DB

	// The transactions committed (or failed to), and the writes they ran;
	// the connections dropped (see reconnect); the transactions rolled
	// back because a write failed, to be run again with savepoints (see
	// runTx); the batches a write led (see lead).
	batches, writes, reconnects, optimisticRollbacks, leads atomic.Int64
	// idleReads counts the reads run on the writer's connection while it
	// was idle (see readIdle); noIdleReads sends them all to the readers
	// (a benchmark's comparison).
	idleReads   atomic.Int64
	noIdleReads bool

	// indexing is set once the store's migrations made
	// records_fts_behind: the writer then catches the search index up
	// with the records (see catchUp). dirty is set while records may be
	// behind it; catchUps counts the catch-ups that indexed.
	indexing, dirty atomic.Bool
	catchUps        atomic.Int64
	// unchecked counts the writes of the batches run since one looked how
	// far the search index is behind (see catchUpBatch); under mu.
	unchecked int
	// every and idle are indexEvery and indexIdle as the writer began.
	every int64
	idle  time.Duration
}

func newWriter(db *sql.DB) *writer {
	w := &writer{
		db:     db,
		health: sqlstore.NewHealth(reason),
		ctx:    context.Background(),
		reqs:   make(chan *request, MaxBatch),
		quit:   make(chan struct{}),
		exited: make(chan struct{}),
		wake:   make(chan struct{}, 1),
		stmts:  newStmtCache(db),
		every:  indexEvery,
		idle:   indexIdle,
	}
	for _, q := range []string{savepointSQL, releaseSQL, rollbackToSQL} {
		w.stmts.prepare(w.ctx, q) // else on first use
	}
	go w.loop()
	return w
}

// write runs fn in the writer's next transaction, in a savepoint of its
// own: the effects of fn are committed when it returns nil, and rolled
// back otherwise. It returns once the transaction is committed, with the
// error of fn, or of the commit. When ctx ends before fn starts, fn never
// runs and write returns ctx.Err(); once fn started, write waits for the
// commit. The ctx fn's statements are given does not interrupt them.
// A panic of fn is raised again in the caller.
func (w *writer) write(ctx context.Context, fn func(sqlstore.Querier) error) error {
	if res, ok := w.lead(ctx, fn); ok {
		return w.answer(res)
	}
	r, err := w.send(ctx, fn, false)
	if err != nil {
		return err
	}
	return w.await(ctx, r)
}

// writeEarly is write answered early: it returns, with commit, as soon as
// fn has run without error in a transaction whose every write ran and
// which the writer is about to commit; commit waits for that commit and
// returns what write would have (nil once it is durable; the commit's
// error, or ErrClosed, otherwise). Until commit returns nil, fn's effects
// are not durable, and are lost if the commit fails; but no later write
// of this store runs before the commit ends, so none can see them and
// then find them gone. When fn fails, or the write never ran, writeEarly
// waits for the answer as write does and returns its error, with commit
// nil. The caller must call commit: the writer answers it.
func (w *writer) writeEarly(ctx context.Context, fn func(sqlstore.Querier) error) (commit func() error, err error) {
	r, err := w.send(ctx, fn, true)
	if err != nil {
		return nil, err
	}
	select {
	case <-r.ran:
		// fn ran and its transaction is committing: the writer answers
		// every request it started, whatever the caller's ctx.
		return func() error { return w.answer(<-r.done) }, nil
	case res := <-r.done:
		return w.settled(res)
	case <-ctx.Done():
		if r.state.CompareAndSwap(queued, cancelled) {
			return nil, ctx.Err()
		}
		select {
		case <-r.ran:
			return func() error { return w.answer(<-r.done) }, nil
		case res := <-r.done:
			return w.settled(res)
		}
	case <-w.exited:
		select {
		case <-r.ran:
			return func() error { return w.answer(<-r.done) }, nil
		case res := <-r.done:
			return w.settled(res)
		default:
			if !r.state.CompareAndSwap(queued, cancelled) {
				return w.settled(<-r.done) // cannot happen: the writer took it
			}
			return nil, ErrClosed
		}
	}
}

// settled is writeEarly's answer when the write's outcome came before the
// caller heard that it ran (both may be ready at once): its error, or a
// commit with nothing left to wait for.
func (w *writer) settled(res result) (func() error, error) {
	if err := w.answer(res); err != nil {
		return nil, err
	}
	return func() error { return nil }, nil
}

// send queues fn for the writer (with a ran channel when early).
func (w *writer) send(ctx context.Context, fn func(sqlstore.Querier) error, early bool) (*request, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case <-w.quit:
		return nil, ErrClosed
	default:
	}
	r := &request{ctx: ctx, fn: fn, done: make(chan result, 1)}
	if early {
		r.ran = make(chan struct{}, 1)
	}
	select {
	case w.reqs <- r:
		w.signal()
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-w.quit:
		return nil, ErrClosed
	}
}

// answer returns res's error, raising its panic again.
func (w *writer) answer(res result) error {
	if res.panicked {
		panic(res.panicVal)
	}
	return res.err
}

// await waits for r's answer, or for ctx to end before r started.
func (w *writer) await(ctx context.Context, r *request) error {
	var res result
	select {
	case res = <-r.done:
	case <-ctx.Done():
		if r.state.CompareAndSwap(queued, cancelled) {
			return ctx.Err()
		}
		// fn started: its outcome is the commit's. The writer answers
		// every request it started before it exits.
		res = <-r.done
	case <-w.exited:
		// The writer answers before it exits: a request it did not
		// answer was never taken.
		select {
		case res = <-r.done:
		default:
			if !r.state.CompareAndSwap(queued, cancelled) {
				res = <-r.done // cannot happen: the writer took it
				break
			}
			return ErrClosed
		}
	}
	return w.answer(res)
}

// stop makes the writer run the writes queued and exit, and waits for it.
// Writes after stop fail with ErrClosed.
func (w *writer) stop() {
	w.stopOnce.Do(func() { close(w.quit) })
	<-w.exited
}

// signal wakes the loop (see wake).
func (w *writer) signal() {
	select {
	case w.wake <- struct{}{}:
	default: // a wake is pending: the loop takes what is queued after it
	}
}

func (w *writer) loop() {
	defer close(w.exited)
	defer w.stmts.close()
	batch := make([]*request, 0, MaxBatch)
	idle := time.NewTimer(w.idle)
	defer idle.Stop()
	for {
		var idled <-chan time.Time
		if w.dirty.Load() {
			idle.Reset(w.idle)
			idled = idle.C
		}
		select {
		case <-w.wake:
			// The writes queued, taken under mu: a leader may have taken
			// them, or be running its batch (they then wait for it).
			w.mu.Lock()
			w.run(w.take(batch[:0]))
			w.mu.Unlock()
		case <-idled:
			w.mu.Lock()
			w.catchUpIdle()
			w.mu.Unlock()
		case <-w.quit:
			// Drain: run what is queued. A request sent after the last
			// receive is answered ErrClosed by its caller. Then what is
			// behind is indexed. mu stays held: no leader runs after.
			w.mu.Lock()
			for {
				batch = w.take(batch[:0])
				if len(batch) == 0 {
					w.catchUpIdle()
					return
				}
				w.run(batch)
			}
		}
	}
}

// take appends to batch the requests queued, up to MaxBatch in all.
func (w *writer) take(batch []*request) []*request {
	for len(batch) < MaxBatch {
		select {
		case r := <-w.reqs:
			batch = append(batch, r)
		default:
			return batch
		}
	}
	return batch
}

// run runs batch, in as many transactions as it takes: the requests of a
// transaction that broke before they started run in the next.
func (w *writer) run(batch []*request) {
	for len(batch) > 0 {
		batch = w.runTx(batch)
	}
}

// runTx runs the requests of batch in one transaction and answers them,
// but those it could not start because the transaction broke (an error
// SQLite rolls a whole transaction back for, such as an I/O error): it
// returns those, for another transaction.
//
// It runs them first without savepoints: a savepoint per write costs the
// writer a tenth of its time (two statements, and a copy of each page a
// write changes first into the savepoint's journal), and writes rarely
// fail. When one does, the transaction is rolled back, its effects with
// the others', and the writes it ran are run again, each in a savepoint
// of its own (runCareful), so that the failure is its own: what the
// callers see is as if every write had had its savepoint. A write's fn
// may so run twice, the first time with no effect: fns are database work
// only, and set what they return afresh each time they run.
func (w *writer) runTx(batch []*request) (rest []*request) {
	live := batch[:0:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			if r.state.CompareAndSwap(queued, cancelled) {
				r.done <- result{err: err}
			}
			continue
		}
		if r.state.Load() == queued {
			live = append(live, r)
		}
	}
	if len(live) == 0 {
		return nil
	}
	tx, err := w.db.BeginTx(w.ctx, nil) // BEGIN IMMEDIATE (_txlock)
	w.open = tx
	if err != nil {
		w.settle(err) // before the callers hear, so that Ready knows as soon as they do
		for _, r := range live {
			if r.state.CompareAndSwap(queued, started) {
				r.done <- result{err: err}
			}
		}
		return nil
	}
	q := newTxQuerier(tx, w.stmts, true)
	ran := live[:0:0]
	for i, r := range live {
		if !r.state.CompareAndSwap(queued, started) {
			continue // its caller went away
		}
		ran = append(ran, r)
		call(q, r)
		if err := q.closeRows(); err != nil && r.err == nil && !r.panicked {
			r.err = err
		}
		if r.err != nil || r.panicked {
			_ = tx.Rollback() // SQLite may have rolled it back already
			q.prepareMissed(w.ctx)
			w.optimisticRollbacks.Add(1)
			for _, r := range ran {
				r.err, r.panicked, r.panicVal = nil, false, nil
			}
			return w.runCareful(ran, live[i+1:])
		}
	}
	left, err := w.catchUpBatch(q, len(ran))
	if err != nil {
		_ = tx.Rollback()
		q.prepareMissed(w.ctx)
		w.finish(ran, err)
		return nil
	}
	announce(ran)
	cerr := tx.Commit()
	w.committed(left, cerr)
	q.prepareMissed(w.ctx)
	w.finish(ran, cerr)
	return nil
}

// The statements of catchUp (migrations 0027 and 0028): how far the
// records go (the greatest seq ever taken) and how far the indexes
// behind them go (the mark); the records between, indexed in one
// statement and listed (entered in the listing's partial indexes) in
// another; the new mark.
const (
	behindSQL = `SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'records'), 0), b.seq
	FROM records_fts_behind AS b`
	indexBehindSQL = `INSERT INTO records_fts (rowid, title, code, agent_id, query_id)
	SELECT seq, title, code, agent_id, query_id FROM records WHERE seq > $1 AND seq <= $2`
	listBehindSQL  = `UPDATE records SET listed = 1 WHERE seq > $1 AND seq <= $2`
	markIndexedSQL = `UPDATE records_fts_behind SET seq = $1`
)

// Search and the listing's indexes written behind (migrations 0027 and
// 0028): they are caught up with the records when at least indexEvery records are behind it (in
// the transaction of the reports that make them so), when the writer has
// been idle for indexIdle with records behind, before a search reads
// (CatchUp), and at Open and Close. Each catch-up is one FTS5 segment.
var (
	indexEvery = int64(256)
	indexIdle  = 200 * time.Millisecond
)

// catchUp indexes and lists, in q's transaction, the records above the
// mark (records_fts_behind) when there are at least least of them, and
// moves the mark. It tells whether records are left behind, and then sets
// dirty before the transaction commits: a search that finds dirty unset
// knows every record committed is indexed. Only the writer clears dirty,
// once a transaction that left none behind is committed. An error breaks
// the transaction (its writes are answered with it).
func (w *writer) catchUp(q *txQuerier, least int64) (left bool, err error) {
	if !w.indexing.Load() {
		return false, nil
	}
	var last, mark int64
	if err := q.QueryRow(w.ctx, behindSQL).Scan(&last, &mark); err != nil {
		return true, fmt.Errorf("sqlite: the search index's mark: %w", err)
	}
	if last <= mark {
		return false, nil
	}
	if last-mark < least {
		w.dirty.Store(true)
		return true, nil
	}
	if _, err := q.Exec(w.ctx, indexBehindSQL, mark, last); err != nil {
		return true, fmt.Errorf("sqlite: indexing the records behind: %w", err)
	}
	if _, err := q.Exec(w.ctx, listBehindSQL, mark, last); err != nil {
		return true, fmt.Errorf("sqlite: listing the records behind: %w", err)
	}
	if _, err := q.Exec(w.ctx, markIndexedSQL, last); err != nil {
		return true, fmt.Errorf("sqlite: indexing the records behind: %w", err)
	}
	w.catchUps.Add(1)
	return false, nil
}

// checkEvery is how many writes a batch's catchUpBatch may let by without
// reading how far the search index is behind, while records are known to
// be (dirty).
const checkEvery = 16

// catchUpBatch is catchUp at the end of a batch of n writes, with at least
// indexEvery records behind. While records are known to be behind (dirty)
// and fewer than checkEvery writes ran since the last look, it does not
// look (left: they still are): a batch of one write (one client) so skips
// the read of the mark (~30 µs) fifteen times in sixteen, and the catch-up
// comes at most checkEvery writes late. dirty is never cleared by a batch
// that did not look, so a search still knows when every record is
// indexed (see catchUp).
func (w *writer) catchUpBatch(q *txQuerier, n int) (left bool, err error) {
	w.unchecked += n
	if w.unchecked < checkEvery && w.dirty.Load() {
		return true, nil
	}
	w.unchecked = 0
	return w.catchUp(q, w.every)
}

// committed is told that a transaction of the writer whose last catchUp
// left records behind or not (left) committed (cerr nil) or failed.
func (w *writer) committed(left bool, cerr error) {
	if cerr == nil && !left {
		w.dirty.Store(false)
	}
}

// catchUpNow catches the index up with every record committed, in a
// write of its own (in the writer's next batch); when dirty is unset,
// there is nothing to do.
func (w *writer) catchUpNow(ctx context.Context) error {
	if !w.dirty.Load() {
		return nil
	}
	return w.write(ctx, func(q sqlstore.Querier) error {
		tq, ok := q.(*txQuerier)
		if !ok {
			return fmt.Errorf("sqlite: %T is not the writer's transaction", q)
		}
		_, err := w.catchUp(tq, 1)
		return err
	})
}

// catchUpIdle is the writer's own catch-up, idle with records behind: a
// transaction of its own, which writes (and syncs) only when there are.
func (w *writer) catchUpIdle() {
	if !w.dirty.Load() {
		return
	}
	tx, err := w.db.BeginTx(w.ctx, nil)
	w.open = tx
	if err != nil {
		w.settle(err)
		return
	}
	q := newTxQuerier(tx, w.stmts, true)
	left, err := w.catchUp(q, 1)
	if cerr := q.closeRows(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = tx.Rollback()
	} else {
		err = tx.Commit()
	}
	q.prepareMissed(w.ctx)
	w.committed(left, err)
	w.settle(err)
}

// announce tells the early writes of ran that ran without error (see
// writeEarly) that their transaction is about to commit.
func announce(ran []*request) {
	for _, r := range ran {
		if r.ran != nil && r.err == nil && !r.panicked {
			r.ran <- struct{}{}
		}
	}
}

// runCareful runs again, in one transaction, the writes again (started,
// their first run rolled back), then those pending (still to be claimed
// from their callers), each in a savepoint of its own, and answers them:
// a write that fails is rolled back to its savepoint, alone. When the
// transaction breaks, the writes it ran or had started are answered
// with the error, and the pending ones it did not reach are returned, for
// another transaction.
func (w *writer) runCareful(again, pending []*request) (rest []*request) {
	tx, err := w.db.BeginTx(w.ctx, nil)
	w.open = tx
	if err != nil {
		w.settle(err)
		for _, r := range again {
			r.done <- result{err: err}
		}
		for _, r := range pending {
			if r.state.CompareAndSwap(queued, started) {
				r.done <- result{err: err}
			}
		}
		return nil
	}
	q := newTxQuerier(tx, w.stmts, true)
	// The statements first run now are prepared once the transaction
	// ends: the transaction holds the writer's only connection.
	defer q.prepareMissed(w.ctx)
	ran := make([]*request, 0, len(again)+len(pending))
	all := append(append(make([]*request, 0, len(again)+len(pending)), again...), pending...)
	for i, r := range all {
		if i >= len(again) && !r.state.CompareAndSwap(queued, started) {
			continue // its caller went away
		}
		ran = append(ran, r)
		if err := w.runOne(q, r); err != nil {
			// The transaction is broken: what ran is lost.
			err = fmt.Errorf("sqlite: write batch rolled back: %w", err)
			_ = tx.Rollback() // SQLite may have rolled it back already
			w.settle(err)
			for _, r := range ran {
				r.done <- result{err: errors.Join(r.err, err), panicked: r.panicked, panicVal: r.panicVal}
			}
			if i+1 < len(again) {
				// Started, not run again: they hear of the break too.
				for _, r := range again[i+1:] {
					r.done <- result{err: err}
				}
				return pending
			}
			return all[i+1:]
		}
	}
	left, err := w.catchUpBatch(q, len(ran))
	if err != nil {
		_ = tx.Rollback()
		w.finish(ran, err)
		return nil
	}
	announce(ran)
	cerr := tx.Commit()
	w.committed(left, cerr)
	w.finish(ran, cerr)
	return nil
}

// finish counts a transaction that ran the writes ran and ended with
// cerr (nil: committed), and answers them.
func (w *writer) finish(ran []*request, cerr error) {
	w.batches.Add(1)
	w.writes.Add(int64(len(ran)))
	outcome := cerr
	for _, r := range ran {
		if outcome == nil && reason(r.err) != "" {
			// Rolled back to its savepoint for a failure of the
			// storage (a read-only file refuses the first write): the
			// others' commit does not make the storage sound.
			outcome = r.err
		}
	}
	w.settle(outcome) // before the callers hear, so that Ready knows as soon as they do
	for _, r := range ran {
		res := result{err: r.err, panicked: r.panicked, panicVal: r.panicVal}
		if res.err == nil && !res.panicked {
			res.err = cerr
		}
		r.done <- res
	}
}

// runOne runs r's fn in a savepoint of q's transaction, and sets r.err
// (or r.panicked). It returns an error when the transaction is broken.
func (w *writer) runOne(q *txQuerier, r *request) error {
	if _, err := q.Exec(w.ctx, savepointSQL); err != nil {
		r.err = err
		return err
	}
	call(q, r)
	if err := q.closeRows(); err != nil && r.err == nil && !r.panicked {
		r.err = err
	}
	if r.err == nil && !r.panicked {
		if _, err := q.Exec(w.ctx, releaseSQL); err != nil {
			r.err = err
			return err
		}
		return nil
	}
	if _, err := q.Exec(w.ctx, rollbackToSQL); err != nil {
		return err
	}
	_, err := q.Exec(w.ctx, releaseSQL)
	return err
}

// call runs r's fn on q, recovering its panic.
func call(q *txQuerier, r *request) {
	defer func() {
		if v := recover(); v != nil {
			r.panicked, r.panicVal = true, v
		}
	}()
	r.err = r.fn(q)
}

// execer is the store's single-statement writes: each is a write of its
// own, in the writer's batches.
type execer struct{ w *writer }

func (e execer) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	var n int64
	err := e.w.write(ctx, func(q sqlstore.Querier) error {
		var err error
		n, err = q.Exec(ctx, query, args...)
		return err
	})
	return n, err
}

// ExecEarly runs the statement as a write of its own and returns once it
// ran, before its commit: see writer.writeEarly and
// sqlstore.EarlyExecer.
func (e execer) ExecEarly(ctx context.Context, query string, args ...any) (int64, func() error, error) {
	var n int64
	commit, err := e.w.writeEarly(ctx, func(q sqlstore.Querier) error {
		var err error
		n, err = q.Exec(ctx, query, args...)
		return err
	})
	return n, commit, err
}

// QueryRow runs the statement when its row is scanned.
func (e execer) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return pendingRow{w: e.w, ctx: ctx, query: query, args: args}
}

// pendingRow is a statement that writes and returns a row, run as a write
// of its own when the row is scanned.
type pendingRow struct {
	w     *writer
	ctx   context.Context
	query string
	args  []any
}

func (r pendingRow) Scan(dest ...any) error {
	return r.w.write(r.ctx, func(q sqlstore.Querier) error {
		return q.QueryRow(r.ctx, r.query, r.args...).Scan(dest...)
	})
}
