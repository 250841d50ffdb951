package sqlite

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// TestPeekOnIdleWriter: a report's peek runs on the writer's connection
// when the writer is idle, and on a reader when a batch holds it, with
// the same answer either way.
func TestPeekOnIdleWriter(t *testing.T) {
	slowIdle(t)
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tn := s.Tenant("default")
	reportTitled(t, tn, "d_a", "err_a", "a")
	// A new delivery under the same attempt key: its second attempt.
	req := triage.StartRequest{Key: "d_b", AttemptKey: "q|d_a", Agent: "query_engine",
		Code: "DB_TIMEOUT", At: time.Now(), Window: time.Hour}
	peek := func() store.Peeked {
		t.Helper()
		p, err := tn.PeekReport(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The loop may hold mu a moment after the report's batch (its wake):
	// a peek then goes to a reader, and the next finds the writer idle.
	var idle store.Peeked
	before := s.writer.idleReads.Load()
	for try := 0; try < 200 && s.writer.idleReads.Load() == before; try++ {
		if try > 0 {
			time.Sleep(time.Millisecond)
		}
		idle = peek()
	}
	if got := s.writer.idleReads.Load() - before; got != 1 {
		t.Fatalf("the writer idle: %d reads on its connection, want 1", got)
	}
	before = s.writer.idleReads.Load()
	s.writer.mu.Lock() // a batch running
	busy := peek()
	s.writer.mu.Unlock()
	if got := s.writer.idleReads.Load() - before; got != 0 {
		t.Errorf("the writer busy: %d reads on its connection, want none", got)
	}
	for _, p := range []store.Peeked{idle, busy} {
		if !p.First || p.Attempt != 2 || p.Recent != 2 || !p.Read.Valid {
			t.Errorf("peek = %+v, want a first delivery, attempt 2, the second failure of its window", p)
		}
	}
	if idle.StartResult != busy.StartResult || idle.Read != busy.Read {
		t.Errorf("the writer's peek %+v, a reader's %+v: want the same", idle, busy)
	}
}

// TestCatchUpLooksEveryFewWrites: one write at a time, the search index
// is caught up within checkEvery writes of indexEvery records behind, and
// no sooner than its last look allows: a batch does not look while
// records are known to be behind.
func TestCatchUpLooksEveryFewWrites(t *testing.T) {
	slowIdle(t)
	prior := indexEvery
	indexEvery = 4
	t.Cleanup(func() { indexEvery = prior })
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tn := s.Tenant("default")
	most := int64(0)
	for i := range 3 * checkEvery {
		k := string(rune('a'+i%26)) + time.Now().Format("150405.000000000")
		reportTitled(t, tn, "d_"+k, "err_"+k, "word"+k)
		var last, mark int64
		if err := s.read.QueryRowContext(t.Context(), behindSQL).Scan(&last, &mark); err != nil {
			t.Fatal(err)
		}
		if behind := last - mark; behind >= indexEvery+checkEvery {
			t.Fatalf("after %d reports %d records behind the index: want fewer than %d", i+1, behind, indexEvery+checkEvery)
		} else {
			most = max(most, behind)
		}
	}
	if n := s.writer.catchUps.Load(); n < 2 {
		t.Errorf("%d catch-ups in %d reports, want at least 2", n, 3*checkEvery)
	}
	if most <= indexEvery {
		t.Errorf("at most %d records behind: want the batches not to look every write (more than indexEvery %d)", most, indexEvery)
	}
	// A search still finds a record behind the index.
	reportTitled(t, tn, "d_last", "err_last", "zebra")
	p, err := tn.ErrorRecords(t.Context(), store.Filter{Search: "zebra"})
	if err != nil || len(p.Records) != 1 {
		t.Fatalf("search zebra: %+v, %v", p.Records, err)
	}
}
