package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// kill9: 16 clients post new reports and record each one acknowledged
// (201 or 200) with its error id; the serve process is killed with
// SIGKILL in the middle of the load, started again on the same database,
// and every report acknowledged so far is looked for (GET its record).
// Three times.
func kill9(ctx context.Context, c config) (r row) {
	db := filepath.Join(c.dir, "kill9.db")
	logFile := filepath.Join(c.dir, "kill9.log")
	var mu sync.Mutex
	acked := map[string]string{} // query id → error id
	lost := map[string]string{}  // error id → what GET answered
	var refusedBefore atomic.Int64
	var firstRefused atomic.Value
	rounds := 3
	total := time.Duration(0)
	for round := range rounds {
		p, err := start(ctx, c, db, logFile)
		if err != nil {
			r.fail("round %d: %v", round+1, err)
			return r
		}
		if round > 0 {
			verify(ctx, p.base, acked, lost)
		}
		lctx, cancel := context.WithCancel(ctx)
		var killed atomic.Bool
		var wg sync.WaitGroup
		for w := range 16 {
			wg.Go(func() {
				for i := 0; lctx.Err() == nil; i++ {
					qid := fmt.Sprintf("q_kill_%d_%d_%d_%d", runID, round, w, i)
					a := do(lctx, "POST", p.base+"/v1/errors", keyB, report(qid, ""), nil)
					if a.err == nil && (a.status == http.StatusCreated || a.status == http.StatusOK) {
						var fb struct {
							ErrorID string `json:"error_id"`
						}
						if json.Unmarshal(a.body, &fb) == nil && fb.ErrorID != "" {
							mu.Lock()
							acked[qid] = fb.ErrorID
							mu.Unlock()
							continue
						}
					}
					if !killed.Load() && lctx.Err() == nil {
						refusedBefore.Add(1)
						firstRefused.CompareAndSwap(nil, fmt.Sprintf("%d %v %.200s", a.status, a.err, a.body))
					}
				}
			})
		}
		// Kill somewhere in the second half of the load.
		load := c.dur(8 * time.Second)
		at := load/2 + time.Duration(rand.Int64N(int64(load/2)))
		time.Sleep(at)
		total += at
		killed.Store(true)
		p.kill()
		r.faults++
		time.Sleep(200 * time.Millisecond)
		cancel()
		wg.Wait()
	}
	p, err := start(ctx, c, db, logFile)
	if err != nil {
		r.fail("after the last kill: %v", err)
		return r
	}
	defer p.stop()
	verify(ctx, p.base, acked, lost)
	r.lost = len(lost)
	for id, status := range lost {
		r.note("lost %s: %s", id, status)
	}
	r.load = fmt.Sprintf("%d reports acknowledged in %v of load (%.0f/s), 16 clients", len(acked), total.Round(100*time.Millisecond), float64(len(acked))/total.Seconds())
	r.note("killed with SIGKILL %d times under load, restarted on the same SQLite database; every acknowledged record looked for after each restart", rounds)
	if n := refusedBefore.Load(); n > 0 {
		r.fail("%d reports refused before the kill: %v", n, firstRefused.Load())
	}
	return r
}

// verify GETs the record of each acknowledged report and adds the
// missing ones to lost.
func verify(ctx context.Context, base string, acked map[string]string, lost map[string]string) {
	for _, id := range acked {
		if a := do(ctx, "GET", base+"/v1/errors/"+id, keyB, nil, nil); a.status != http.StatusOK {
			lost[id] = fmt.Sprintf("%d %v", a.status, a.err)
		}
	}
}
