package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgPoolHog: on PostgreSQL (TRIAGE_TEST_POSTGRES; skipped without it),
// tenant A fills a record of large occurrences, then 64 of its clients
// (its share of the requests in progress) read that record at once, again
// and again, each reading its answer slowly; tenant B posts reports and
// reads its records throughout. B's p99 alone and beside A's reads are
// the figures, with how many of serve's connections sat "idle in
// transaction" (pg_stat_activity, sampled).
func pgPoolHog(ctx context.Context, c config) (r row) {
	base := os.Getenv("TRIAGE_TEST_POSTGRES")
	if base == "" {
		r.skipped = "TRIAGE_TEST_POSTGRES is not set (a PostgreSQL URL: postgres://postgres@127.0.0.1:5432/test?sslmode=disable)"
		return r
	}
	db, drop, err := freshSchema(ctx, base)
	if err != nil {
		r.fail("%v", err)
		return r
	}
	defer drop()
	p, err := start(ctx, c, db, filepath.Join(c.dir, "pghog.log"))
	if err != nil {
		r.fail("%v", err)
		return r
	}
	defer p.stop()

	// A's record: occurrences of ~0.9 MB reports, a record's answer of
	// ~4 MB (its first page of occurrences).
	occurrences, members := c.n(4, 2), min(c.n(ampMembers, 90), ampMembers)
	var record string
	for i := range occurrences {
		a := do(ctx, "POST", p.base+"/v1/errors", keyA, []byte(replaceTimestamp(report(fmt.Sprintf("q_pghog_%d", runID), ampContext(fmt.Sprint(i), members)),
			fmt.Sprintf("2025-08-08T13:00:%02dZ", i))), nil)
		var fb struct {
			ErrorID string `json:"error_id"`
		}
		if a.err != nil || (a.status != http.StatusCreated && a.status != http.StatusOK) || json.Unmarshal(a.body, &fb) != nil {
			r.fail("filling: %d %v %.300s", a.status, a.err, a.body)
			return r
		}
		record = fb.ErrorID
	}

	// B alone.
	quiet := c.dur(8 * time.Second)
	qctx, cancel := context.WithTimeout(ctx, quiet)
	alone := tenantMixed(qctx, p.base, 4, "pgq")
	alone.wait()
	cancel()

	// B beside A's 64 slow readers.
	hold := c.dur(20 * time.Second)
	lctx, cancel := context.WithTimeout(ctx, hold)
	defer cancel()
	readers := c.n(64, 16)
	var reads, refused, failed atomic.Int64
	var firstFail atomic.Value
	var wg sync.WaitGroup
	for range readers {
		wg.Go(func() {
			for lctx.Err() == nil {
				status, err := slowGet(lctx, p.base+"/v1/errors/"+record, keyA)
				switch {
				case err == nil && status == http.StatusOK:
					reads.Add(1)
				case err == nil && status == http.StatusTooManyRequests:
					refused.Add(1)
					time.Sleep(time.Second)
				case lctx.Err() == nil:
					failed.Add(1)
					firstFail.CompareAndSwap(nil, fmt.Sprintf("%d %v", status, err))
				}
			}
		})
	}
	time.Sleep(time.Second)
	var idleMax, activeMax atomic.Int64
	wg.Go(func() { sampleActivity(lctx, base, &idleMax, &activeMax) })
	b := tenantMixed(lctx, p.base, 4, "pgh")
	b.wait()
	wg.Wait()

	r.load = fmt.Sprintf("%s alone; %s beside A's reads", alone.summary("B"), b.summary("B"))
	r.note("A: %d clients reading its record of %d occurrences of ~%d KB at once, slowly (64 KiB a read, 10 ms apart): %d reads, %d refused 429; serve's connections at most %d idle in transaction, %d active (pg_stat_activity every 100 ms)",
		readers, occurrences, members, reads.Load(), refused.Load(), idleMax.Load(), activeMax.Load())
	if failed.Load() > 0 {
		r.fail("%d of A's reads failed: %v", failed.Load(), firstFail.Load())
	}
	if b.bad > 0 || b.ok == 0 || alone.bad > 0 {
		r.fail("B was not served throughout: %s %s", alone.first, b.first)
	}
	return r
}

// replaceTimestamp gives a report another timestamp: another occurrence.
func replaceTimestamp(report []byte, ts string) []byte {
	return []byte(strings.Replace(string(report), "2025-08-08T12:20:05Z", ts, 1))
}

// tenantMixed is tenantLoad with reads: B's clients post a new report,
// then read its record, until ctx ends; both latencies are recorded.
func tenantMixed(ctx context.Context, base string, c int, prefix string) *latencies {
	l := &latencies{}
	var wg sync.WaitGroup
	for w := range c {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				t0 := time.Now()
				a := do(context.WithoutCancel(ctx), "POST", base+"/v1/errors", keyB, report(fmt.Sprintf("q_%s_%d_%d_%d", prefix, runID, w, i), ""), nil)
				ok := a.err == nil && a.status == http.StatusCreated
				l.add(time.Since(t0), ok, fmt.Sprintf("POST %d %v %.200s", a.status, a.err, a.body))
				var fb struct {
					ErrorID string `json:"error_id"`
				}
				if !ok || json.Unmarshal(a.body, &fb) != nil {
					continue
				}
				t0 = time.Now()
				g := do(context.WithoutCancel(ctx), "GET", base+"/v1/errors/"+fb.ErrorID, keyB, nil, nil)
				l.add(time.Since(t0), g.err == nil && g.status == http.StatusOK, fmt.Sprintf("GET %d %v %.200s", g.status, g.err, g.body))
			}
		})
	}
	l.wait = wg.Wait
	return l
}

// slowGet reads target as a slow client does: 64 KiB, then a pause.
func slowGet(ctx context.Context, target, key string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", target, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := streamClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	buf := make([]byte, 64<<10)
	for {
		_, err := io.ReadFull(resp.Body, buf)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return resp.StatusCode, nil
		}
		if err != nil {
			return resp.StatusCode, err
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return resp.StatusCode, nil
		}
	}
}

// sampleActivity records the most connections of serve (application
// "triage" is not set: every client of the database but this one) seen
// idle in transaction and active, every 100 ms until ctx ends.
func sampleActivity(ctx context.Context, base string, idle, active *atomic.Int64) {
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return
	}
	defer conn.Close(context.Background())
	for ctx.Err() == nil {
		var i, a int64
		err := conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE state = 'idle in transaction'),
			count(*) FILTER (WHERE state = 'active')
			FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&i, &a)
		if err == nil {
			for _, p := range []struct {
				max *atomic.Int64
				v   int64
			}{{idle, i}, {active, a}} {
				if p.v > p.max.Load() {
					p.max.Store(p.v)
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// freshSchema creates a schema of its own in the database at base and
// returns the URL with it first in the search path, and a func dropping it.
func freshSchema(ctx context.Context, base string) (string, func(), error) {
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", nil, fmt.Errorf("PostgreSQL: %w", err)
	}
	defer conn.Close(ctx)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "campaign_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return "", nil, err
	}
	drop := func() {
		ctx := context.Background()
		if conn, err := pgx.Connect(ctx, base); err == nil {
			_, _ = conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
			conn.Close(ctx)
		}
	}
	u, err := url.Parse(base)
	if err != nil {
		drop()
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}
