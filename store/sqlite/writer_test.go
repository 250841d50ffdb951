package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/sqlstore"
	"github.com/triage-go/triage/store/storetest"
)

func openTest(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "triage.db")
	s, err := Open(t.Context(), path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// insertSQL adds an attempts row.
const insertSQL = `INSERT INTO attempts (tenant, attempt_key, n, updated_at) VALUES ('t', $1, 1, 0)`

// insert is a write that adds the attempts row key.
func insert(key string) func(sqlstore.Querier) error {
	return func(q sqlstore.Querier) error {
		_, err := q.Exec(context.Background(), insertSQL, key)
		return err
	}
}

// stored reports whether the attempts row key is committed, as a reader
// sees it.
func stored(t *testing.T, s *Store, key string) bool {
	t.Helper()
	var n int
	if err := s.read.QueryRowContext(t.Context(), `SELECT count(*) FROM attempts WHERE tenant = 't' AND attempt_key = $1`, key).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// blocker holds the writer in a write of its own until release is
// called: the writes sent meanwhile queue, and run in the next batch.
type blocker struct {
	release func()
	done    chan error
}

func block(t *testing.T, w *writer) *blocker {
	t.Helper()
	running, release := make(chan struct{}), make(chan struct{})
	b := &blocker{done: make(chan error, 1)}
	var once sync.Once
	b.release = func() { once.Do(func() { close(release) }) }
	t.Cleanup(b.release)
	go func() {
		b.done <- w.write(context.Background(), func(sqlstore.Querier) error {
			close(running)
			<-release
			return nil
		})
	}()
	<-running
	return b
}

// queued waits until n writes are queued for the writer.
func waitQueued(t *testing.T, w *writer, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(w.reqs) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d writes queued, want %d", len(w.reqs), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// inOneBatch queues fns in order while b holds the writer, releases it,
// and returns each write's error: they run in one batch.
func inOneBatch(t *testing.T, w *writer, b *blocker, fns ...func(sqlstore.Querier) error) []error {
	t.Helper()
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() { errs[i] = w.write(t.Context(), fn) })
		waitQueued(t, w, i+1)
	}
	b.release()
	wg.Wait()
	return errs
}

func TestBatchFailingWriteKeepsOthers(t *testing.T) {
	s, _ := openTest(t)
	w := s.writer
	b := block(t, w)
	errBoom := errors.New("boom")
	writes := []struct {
		key string
		fn  func(sqlstore.Querier) error
		ok  bool
	}{
		{"a", insert("a"), true},
		// Writes, then fails: its row is rolled back.
		{"b", func(q sqlstore.Querier) error {
			if err := insert("b")(q); err != nil {
				return err
			}
			return errBoom
		}, false},
		{"c", insert("c"), true},
		// A statement fails (a duplicate key): the row it wrote before
		// is rolled back.
		{"d", func(q sqlstore.Querier) error {
			if err := insert("d")(q); err != nil {
				return err
			}
			return insert("a")(q)
		}, false},
		{"e", insert("e"), true},
	}
	batches, ran, rollbacks := w.batches.Load(), w.writes.Load(), w.optimisticRollbacks.Load()
	errs := make([]error, len(writes))
	var wg sync.WaitGroup
	for i, wr := range writes {
		wg.Go(func() { errs[i] = w.write(t.Context(), wr.fn) })
		waitQueued(t, w, i+1) // in order
	}
	b.release()
	wg.Wait()
	if err := <-b.done; err != nil {
		t.Fatal(err)
	}
	if n, m := w.batches.Load()-batches, w.writes.Load()-ran; n != 2 || m != 6 {
		t.Fatalf("%d transactions ran %d writes, want the blocker's and one of 5", n, m)
	}
	// Run first without savepoints, the batch was rolled back at b's
	// failure and run again with them.
	if n := w.optimisticRollbacks.Load() - rollbacks; n != 1 {
		t.Errorf("%d batches rolled back to be run with savepoints, want 1", n)
	}
	for i, wr := range writes {
		switch {
		case wr.ok && errs[i] != nil:
			t.Errorf("write %s: %v", wr.key, errs[i])
		case !wr.ok && errs[i] == nil:
			t.Errorf("write %s succeeded, want an error", wr.key)
		}
		if got := stored(t, s, wr.key); got != wr.ok {
			t.Errorf("row %s stored = %v, want %v", wr.key, got, wr.ok)
		}
	}
	if !errors.Is(errs[1], errBoom) {
		t.Errorf("write b: %v, want its own error", errs[1])
	}
	if errs[3] == nil || !strings.Contains(errs[3].Error(), "UNIQUE") {
		t.Errorf("write d: %v, want the constraint's error", errs[3])
	}
}

// A write that broke the transaction only when its batch ran again with
// savepoints (after a later write failed): the writes of the batch it
// had not reached yet hear of the break too, and the writer goes on.
func TestBatchBrokenWhenRunAgain(t *testing.T) {
	s, _ := openTest(t)
	w := s.writer
	b := block(t, w)
	runs := 0
	breaksSecondTime := func(q sqlstore.Querier) error {
		if runs++; runs == 1 {
			return insert("y")(q)
		}
		_, err := q.Exec(context.Background(), `INSERT OR ROLLBACK INTO attempts (tenant, attempt_key, n, updated_at) VALUES ('t', 'a', 1, 0)`)
		return err
	}
	failing := func(q sqlstore.Querier) error {
		if err := insert("z")(q); err != nil {
			return err
		}
		return errors.New("boom")
	}
	fns := []func(sqlstore.Querier) error{insert("a"), breaksSecondTime, failing}
	errs := inOneBatch(t, w, b, fns...)
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "rolled back") {
			t.Errorf("write %d: %v, want the broken transaction's error", i, err)
		}
	}
	if runs != 2 {
		t.Errorf("the breaking write ran %d times, want 2", runs)
	}
	for _, key := range []string{"a", "y", "z"} {
		if stored(t, s, key) {
			t.Errorf("row %s stored, though its transaction broke", key)
		}
	}
	if err := w.write(t.Context(), insert("c")); err != nil || !stored(t, s, "c") {
		t.Errorf("a write after the broken transaction: %v", err)
	}
}

func TestBatchConcurrentWriters(t *testing.T) {
	s, _ := openTest(t)
	tn := s.Tenant("t")
	const n = 200
	batches, ran, rollbacks := s.writer.batches.Load(), s.writer.writes.Load(), s.writer.optimisticRollbacks.Load()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			key := fmt.Sprint("k", i)
			if got, err := tn.Next(t.Context(), key); err != nil || got != 1 {
				t.Errorf("Next(%s) = %d, %v", key, got, err)
				return
			}
			// Committed once Write returns: a reader sees it.
			if !stored(t, s, key) {
				t.Errorf("%s is not visible once written", key)
			}
		})
	}
	wg.Wait()
	if got := s.writer.writes.Load() - ran; got != n {
		t.Errorf("%d writes ran, want %d", got, n)
	}
	if got := s.writer.optimisticRollbacks.Load() - rollbacks; got != 0 {
		t.Errorf("%d batches of writes that all succeed were rolled back", got)
	}
	t.Logf("%d writes in %d transactions", n, s.writer.batches.Load()-batches)
	var count int
	if err := s.read.QueryRowContext(t.Context(), `SELECT count(*) FROM attempts WHERE tenant = 't'`).Scan(&count); err != nil || count != n {
		t.Errorf("%d rows, %v; want %d", count, err, n)
	}
}

func TestBatchCommitFailureFailsAll(t *testing.T) {
	s, _ := openTest(t)
	w := s.writer
	b := block(t, w)
	// An occurrence of no record breaks a deferred foreign key: the
	// COMMIT fails.
	dangling := func(q sqlstore.Querier) error {
		_, err := q.Exec(context.Background(), `
			INSERT INTO occurrences (tenant, error_id, record_seq, query_id, agent_id, error_type, severity, next_action, attempt, reported_at, received_at)
			VALUES ('t', 'err_none', 0, 'q', 'a', 'x', 'low', 'resume', 1, 0, 0)`)
		return err
	}
	fns := []func(sqlstore.Querier) error{insert("a"), dangling, insert("b")}
	errs := inOneBatch(t, w, b, fns...)
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "FOREIGN KEY") {
			t.Errorf("write %d: %v, want the COMMIT's error", i, err)
		}
	}
	for _, key := range []string{"a", "b"} {
		if stored(t, s, key) {
			t.Errorf("row %s stored, though its COMMIT failed", key)
		}
	}
	// The writer goes on.
	if err := w.write(t.Context(), insert("c")); err != nil || !stored(t, s, "c") {
		t.Errorf("a write after the failed COMMIT: %v", err)
	}
}

func TestBatchBrokenTransaction(t *testing.T) {
	s, _ := openTest(t)
	w := s.writer
	b := block(t, w)
	// INSERT OR ROLLBACK rolls the whole transaction back on a conflict,
	// the batch's earlier writes with it.
	rollback := func(q sqlstore.Querier) error {
		_, err := q.Exec(context.Background(), `INSERT OR ROLLBACK INTO attempts (tenant, attempt_key, n, updated_at) VALUES ('t', 'a', 1, 0)`)
		return err
	}
	fns := []func(sqlstore.Querier) error{insert("a"), rollback, insert("b")}
	errs := inOneBatch(t, w, b, fns...)
	// a ran in the transaction that broke: it is lost, and says so. b had
	// not started: it runs in a new transaction.
	if errs[0] == nil || errs[1] == nil || errs[2] != nil {
		t.Errorf("errors %v, want a's, the rollback's, and none for b", errs)
	}
	if stored(t, s, "a") || !stored(t, s, "b") {
		t.Errorf("rows a, b stored = %v, %v; want false, true", stored(t, s, "a"), stored(t, s, "b"))
	}
}

func TestBatchCancelledBeforeStart(t *testing.T) {
	s, _ := openTest(t)
	w := s.writer

	// Cancelled before Write.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var ran atomic.Bool
	fn := func(q sqlstore.Querier) error { ran.Store(true); return insert("x")(q) }
	if err := w.write(ctx, fn); !errors.Is(err, context.Canceled) {
		t.Errorf("write with a cancelled ctx: %v", err)
	}

	// Cancelled while queued.
	b := block(t, w)
	ctx, cancel = context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- w.write(ctx, fn) }()
	waitQueued(t, w, 1)
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("write cancelled while queued: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write cancelled while queued did not return")
	}
	// Its deadline passed while queued.
	ctx, cancel = context.WithTimeout(t.Context(), time.Millisecond)
	defer cancel()
	if err := w.write(ctx, fn); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("write timed out while queued: %v", err)
	}
	b.release()
	if err := w.write(t.Context(), insert("y")); err != nil {
		t.Fatal(err)
	}
	if ran.Load() || stored(t, s, "x") {
		t.Error("the fn of a cancelled write ran")
	}

	// Cancelled once fn started: the caller waits for the commit.
	ctx, cancel = context.WithCancel(t.Context())
	running, release := make(chan struct{}), make(chan struct{})
	go func() {
		errc <- w.write(ctx, func(q sqlstore.Querier) error { close(running); <-release; return insert("z")(q) })
	}()
	<-running
	cancel()
	select {
	case err := <-errc:
		t.Fatalf("a started write returned before its commit: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	if err := <-errc; err != nil || !stored(t, s, "z") {
		t.Errorf("a write cancelled once started: %v, stored %v; want committed", err, stored(t, s, "z"))
	}
}

func TestBatchPanic(t *testing.T) {
	s, _ := openTest(t)
	w := s.writer
	b := block(t, w)
	panicked := make(chan any, 1)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer func() { panicked <- recover() }()
		w.write(t.Context(), func(q sqlstore.Querier) error {
			if err := insert("p")(q); err != nil {
				return err
			}
			panic("oops")
		})
	})
	waitQueued(t, w, 1)
	var err error
	wg.Go(func() { err = w.write(t.Context(), insert("a")) })
	waitQueued(t, w, 2)
	b.release()
	wg.Wait()
	if v := <-panicked; v != "oops" {
		t.Errorf("the caller recovered %v, want the fn's panic", v)
	}
	if err != nil || !stored(t, s, "a") || stored(t, s, "p") {
		t.Errorf("the batch's other write: %v, stored a %v, p %v", err, stored(t, s, "a"), stored(t, s, "p"))
	}
}

// writerGoroutines counts the goroutines running w's loop.
func writerGoroutines(w *writer) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	return strings.Count(string(buf), fmt.Sprintf("(*writer).loop(%p", w))
}

// checkWriterGone fails the test unless w's goroutine ends: Close returns
// once the loop has signalled that it is done (its deferred close of
// exited), and the goroutine itself ends a moment later.
func checkWriterGone(t *testing.T, w *writer) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for writerGoroutines(w) != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := writerGoroutines(w); n != 0 {
		t.Errorf("%d writer goroutines 5s after Close, want 0", n)
	}
}

func TestCloseWithPendingWrites(t *testing.T) {
	s, path := openTest(t)
	w := s.writer
	if n := writerGoroutines(w); n != 1 {
		t.Fatalf("%d writer goroutines, want 1", n)
	}
	b := block(t, w)
	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = w.write(t.Context(), insert(fmt.Sprint("k", i))) })
	}
	waitQueued(t, w, n)
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	// Close waits for the writes queued.
	select {
	case err := <-closed:
		t.Fatalf("Close returned while a write ran: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	b.release()
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err := <-b.done; err != nil {
		t.Fatal(err)
	}
	// Every write queued before Close was committed; later ones fail.
	for i, err := range errs {
		if err != nil {
			t.Errorf("write %d queued before Close: %v", i, err)
		}
	}
	if err := w.write(t.Context(), insert("late")); !errors.Is(err, ErrClosed) {
		t.Errorf("write after Close: %v, want ErrClosed", err)
	}
	if _, err := s.Tenant("t").Next(t.Context(), "late"); !errors.Is(err, ErrClosed) {
		t.Errorf("Next after Close: %v, want ErrClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	checkWriterGone(t, w)
	s, err := Open(t.Context(), path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range n {
		if !stored(t, s, fmt.Sprint("k", i)) {
			t.Errorf("write %d is not stored after reopening", i)
		}
	}
}

// TestCloseRacingWrites closes the store while writes keep coming: each
// returns, committed or ErrClosed, and none is left waiting.
func TestCloseRacingWrites(t *testing.T) {
	s, path := openTest(t)
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		committed []string
		coming    = make(chan struct{}) // closed once writes have committed
	)
	for g := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				key := fmt.Sprint("g", g, "-", i)
				err := s.writer.write(context.Background(), insert(key))
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if committed = append(committed, key); len(committed) == 32 {
					close(coming)
				}
				mu.Unlock()
			}
		})
	}
	select {
	case <-coming:
	case <-time.After(10 * time.Second):
		t.Fatal("no writes committed")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("writes left waiting after Close")
	}
	checkWriterGone(t, s.writer)
	s, err := Open(t.Context(), path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, key := range committed {
		if !stored(t, s, key) {
			t.Fatalf("%s was committed but is not stored", key)
		}
	}
	t.Logf("%d writes committed before Close", len(committed))
}

// checkHistoryTotals fails the test unless every key's total (its row at
// the greatest time) holds the count of the key's failures, and no
// failure's row counts none.
func checkHistoryTotals(t *testing.T, s *Store) {
	t.Helper()
	var bad, empty int
	err := s.read.QueryRowContext(t.Context(), `
		SELECT count(*) FROM (
			SELECT tenant, agent, code, sum(n) AS n FROM history WHERE at < 9223372036854775807 GROUP BY tenant, agent, code
		) h FULL JOIN (SELECT * FROM history WHERE at = 9223372036854775807 AND n <> 0) c USING (tenant, agent, code)
		WHERE h.n IS NOT c.n`).Scan(&bad)
	if err != nil {
		t.Fatal(err)
	}
	if bad != 0 {
		t.Errorf("history's totals are wrong for %d keys", bad)
	}
	if err := s.read.QueryRowContext(t.Context(), `SELECT count(*) FROM history WHERE n <= 0 AND at < 9223372036854775807`).
		Scan(&empty); err != nil || empty != 0 {
		t.Errorf("%d failures' rows count none (%v)", empty, err)
	}
}

func TestHistoryTotalsKept(t *testing.T) {
	s, _ := openTest(t)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 300 {
		tn := s.Tenant(fmt.Sprint("t", i%2))
		// Late and early failures, windows that forget some.
		when := at.Add(time.Duration(i*7%50) * time.Minute)
		if _, err := tn.Record(t.Context(), fmt.Sprint("agent", i%3), "E", when, time.Duration(10+i%20)*time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	checkHistoryTotals(t, s)
}

// TestHistoryCountsMigration migrates a database made by the first
// schema, with failures recorded: the counts start right (in
// history_counts at 0002, in history's totals since 0029).
func TestHistoryCountsMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "triage.db")
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	oldSchema(t, path, 1, func(old oldStore) error {
		return old.write(t.Context(), func(q sqlstore.Querier) error {
			for i := range 10 {
				if _, err := q.Exec(t.Context(), `INSERT INTO history (tenant, agent, code, at) VALUES ('a', 'sql', $1, $2)`,
					fmt.Sprint("E", i%2), at.Add(time.Duration(i)*time.Minute).UnixNano()); err != nil {
					return err
				}
			}
			return nil
		})
	})

	s, err := Open(t.Context(), path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkHistoryTotals(t, s)
	// E0 failed at +0, +2, … +8 minutes; E1 at +1, … +9.
	n, err := s.Tenant("a").Record(t.Context(), "sql", "E0", at.Add(5*time.Minute), 4*time.Minute)
	if err != nil || n != 3 { // +2, +4, and this one at +5 (+6 and +8 are later)
		t.Errorf("Record after the migration = %d, %v; want 3", n, err)
	}
	checkHistoryTotals(t, s)
}

// TestRiverMigration opens a database of the schema before River
// (migrations 0001 to 0009) whose jobs table holds a job due, one
// running and one that succeeded: the two still to run move to River's
// queue, with their attempts so far, and run; the finished one and the
// old tables go.
func TestRiverMigration(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "triage.db")
	runAt := time.Date(2026, 1, 1, 12, 0, 0, 123456789, time.UTC)
	oldSchema(t, path, 9, func(old oldStore) error {
		return old.write(ctx, func(q sqlstore.Querier) error { return storetest.FillOldJobs(runAt, execOn(ctx, q)) })
	})

	s, err := Open(ctx, path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var old int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name IN ('jobs', 'job_attempts')`).Scan(&old); err != nil || old != 0 {
		t.Errorf("%d of the old tables left (%v)", old, err)
	}
	storetest.CheckMigratedJobs(t, s, runAt)
}
