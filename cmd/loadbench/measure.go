package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// reportBody is the report of request i of a load with prefix: each its
// own query_id, so each is a new error, fully handled and committed, and
// its time when it is made, as a service's reports come (their delivery
// keys begin with it, triage.DeliveryKey). The body of the same i made
// again is the same error reported again (repeat.go): the same
// fingerprint, another time and so another delivery.
func reportBody(prefix string, i int64) string {
	return fmt.Sprintf(`{"agent_id":"query_engine","timestamp":%q,"status":"error","data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s","context":{"metric":"sales","group_by":"month","date_range":{"start":"2015-01-01","end":"2025-08-01"},"row_count":48000000},"query_id":"%s_%d"}}`,
		time.Now().UTC().Format(time.RFC3339Nano), prefix, i)
}

// prefill posts n reports to base from 32 clients, untimed, so that the
// measured load runs against a store of n records more. A failure stops
// it.
func prefill(base string, n int) error {
	if n <= 0 {
		return nil
	}
	const c = 32
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c, MaxConnsPerHost: c}, Timeout: 30 * time.Second}
	prefix := fmt.Sprintf("fill_%d", time.Now().UnixNano())
	var next atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for range c {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				resp, err := client.Post(base+"/v1/errors", "application/json", strings.NewReader(reportBody(prefix, i)))
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusCreated {
						err = fmt.Errorf("prefill: %d", resp.StatusCode)
					}
				}
				if err != nil {
					once.Do(func() { first = err })
					next.Store(int64(n))
					return
				}
				if i%20000 == 0 {
					fmt.Fprintf(os.Stderr, "  prefilled %d of %d (%v)\n", i, n, time.Since(start).Round(time.Second))
				}
			}
		})
	}
	wg.Wait()
	return first
}

// lookups sends n GET /v1/errors?query_id=… for query ids the load posted
// (prefix_1 … prefix_posted, in a scattered order) from c clients, and
// returns their latencies as a result.
func lookups(name, base, prefix string, posted, n, c int) result {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c, MaxConnsPerHost: c}, Timeout: 10 * time.Second}
	var next, failed atomic.Int64
	lat := make([][]time.Duration, c)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range c {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(n) || posted == 0 {
					return
				}
				q := 1 + (i*7919)%int64(posted) // a stride prime to most counts: scattered, covering
				q = source(q, repeatShare)      // a repeat's query id is its source's
				t0 := time.Now()
				resp, err := client.Get(base + "/v1/errors?query_id=" + prefix + "_" + strconv.FormatInt(q, 10))
				if err != nil {
					failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					failed.Add(1)
					continue
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		})
	}
	wg.Wait()
	return summarize(name, lat, int(failed.Load()), time.Since(start))
}

// serialLookups is how many lookups by query_id are sent one at a time
// after the concurrent ones: the read's own latency, without the queue
// of 16 clients on two cores.
const serialLookups = 500

// selfCPU is this process's CPU time so far, user and system
// (/proc/self/stat): the client's and the in-process service's. Unlike a
// latency it does not grow with the other processes' load, only a
// little with their contention for caches.
func selfCPU() (time.Duration, error) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, err
	}
	_, ticks, ok := statTicks(string(stat))
	if !ok {
		return 0, fmt.Errorf("/proc/self/stat: %q", stat)
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

func summarize(name string, lat [][]time.Duration, failed int, elapsed time.Duration) result {
	all := slices.Concat(lat...)
	slices.Sort(all)
	r := result{name: name, n: len(all), failed: failed, elapsed: elapsed}
	if len(all) > 0 {
		r.p50 = all[len(all)/2]
		r.p99 = all[len(all)*99/100]
	}
	return r
}

// writeCounter reads what a target has written to disk so far, in bytes.
type writeCounter func() (int64, error)

// selfWrites is this process's write_bytes (/proc/self/io): the bytes it
// caused to be sent to the storage layer, the in-process SQLite targets'.
func selfWrites() (int64, error) { return procWrites("self") }

func procWrites(pid string) (int64, error) {
	f, err := os.Open(filepath.Join("/proc", pid, "io"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "write_bytes: "); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	return 0, fmt.Errorf("/proc/%s/io has no write_bytes", pid)
}

// postgresWrites sums write_bytes over the machine's PostgreSQL processes
// (their comm is "postgres"): the server's backends, WAL writer,
// checkpointer and background writer. It needs the right to read their
// /proc/PID/io (root, or the postgres user). The postmaster (the one whose
// parent is not a postgres process) is left out: Linux adds the counts of
// each child it reaps to its own, so a backend of any session that exited
// during the load (another run's, a test's) was counted whole, its
// writes from before the load included. A backend that exits during the
// load takes its count with it; the load's connections live through the
// run.
func postgresWrites() (int64, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	var sum int64
	seen := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "postgres" || !postgresChild(e.Name()) {
			continue
		}
		n, err := procWrites(e.Name())
		if err != nil {
			return 0, fmt.Errorf("reading a postgres process's writes: %w", err)
		}
		sum += n
		seen++
	}
	if seen == 0 {
		return 0, fmt.Errorf("no postgres process on this machine")
	}
	return sum, nil
}

// postgresChild tells whether process pid's parent is a postgres process:
// false for the postmaster.
func postgresChild(pid string) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return false
	}
	// pid (comm) state ppid ...: comm may hold spaces, not ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 {
		return false
	}
	comm, err := os.ReadFile(filepath.Join("/proc", f[1], "comm"))
	return err == nil && strings.TrimSpace(string(comm)) == "postgres"
}

// pgFloor is the PostgreSQL floor: the bare handler with each request
// inserted, as one row of a table with no index but its primary key, and
// committed (synchronous_commit on, the server's default) before the
// answer, one autocommit INSERT per request over a pool of c connections.
func pgFloor(ctx context.Context, url string, c int) (http.Handler, func(), error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, nil, err
	}
	cfg.MaxConns = int32(c)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE floor_log (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body bytea NOT NULL)`); err != nil {
		pool.Close()
		return nil, nil, err
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if _, err := pool.Exec(r.Context(), `INSERT INTO floor_log (body) VALUES ($1)`, body); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		bareHandler(w, &http.Request{Body: io.NopCloser(strings.NewReader(string(body)))})
	})
	return h, pool.Close, nil
}

// pgWork is what PostgreSQL did: its processes' CPU time, in milliseconds,
// and the WAL it wrote, in KB (by its WAL position, exact); ownMS, the CPU
// time of the run's own backends alone (the connections of its scratch
// URL, named by its application_name), which other sessions' work on a
// shared server does not move. own is each of those backends' CPU time
// so far, in nanoseconds (/proc/PID/schedstat), by PID.
type pgWork struct {
	cpuMS, walKB, ownMS float64
	own                 map[int]int64
	// pagesKB is the data pages PostgreSQL wrote, in KB, by its own
	// count (pg_stat_io's writes on 16 and later; pg_stat_bgwriter's
	// buffers written by the checkpointer, the background writer and the
	// backends before): -1 where it was not read.
	pagesKB float64
}

// minus is a's work since b: a backend connected since counts from 0, one
// that exited since is not counted (the load's connections live through
// the run).
func (a pgWork) minus(b pgWork) pgWork {
	d := pgWork{cpuMS: a.cpuMS - b.cpuMS, walKB: a.walKB - b.walKB, pagesKB: -1}
	if a.pagesKB >= 0 && b.pagesKB >= 0 {
		d.pagesKB = a.pagesKB - b.pagesKB
	}
	for pid, ns := range a.own {
		d.ownMS += float64(ns-b.own[pid]) / 1e6
	}
	return d
}

func (a pgWork) per(n int) pgWork {
	p := pgWork{cpuMS: a.cpuMS / float64(n), walKB: a.walKB / float64(n), ownMS: a.ownMS / float64(n), pagesKB: a.pagesKB}
	if p.pagesKB > 0 {
		p.pagesKB /= float64(n)
	}
	return p
}

// pgCounter reads pgWork: the CPU time from /proc/PID/stat of the
// machine's postgres processes, that of the backends whose
// application_name is app from /proc/PID/schedstat, the WAL position from
// the server.
type pgCounter struct {
	conn *pgx.Conn
	app  string
}

// newPGCounter counts on url's server, its own backends those of url's
// application_name (scratchSchema names them).
func newPGCounter(ctx context.Context, url string) (*pgCounter, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	return &pgCounter{conn: conn, app: conn.Config().RuntimeParams["application_name"]}, nil
}

func (c *pgCounter) close() { c.conn.Close(context.Background()) }

func (c *pgCounter) read(ctx context.Context) (pgWork, error) {
	var wal float64
	if err := c.conn.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8`).Scan(&wal); err != nil {
		return pgWork{}, err
	}
	ticks, err := postgresTicks()
	if err != nil {
		return pgWork{}, err
	}
	w := pgWork{cpuMS: float64(ticks) * 1000 / clockTicks, walKB: wal / 1000, own: map[int]int64{}, pagesKB: -1}
	var written int64 // bytes: pg_stat_io (16 and later), or pg_stat_bgwriter's buffers (15 and before)
	if err := c.conn.QueryRow(ctx, `SELECT COALESCE(sum(writes * op_bytes), 0)::int8 FROM pg_stat_io`).Scan(&written); err == nil {
		w.pagesKB = float64(written) / 1000
	} else if err := c.conn.QueryRow(ctx, `SELECT (buffers_checkpoint + buffers_clean + buffers_backend) * current_setting('block_size')::int8 FROM pg_stat_bgwriter`).Scan(&written); err == nil {
		w.pagesKB = float64(written) / 1000
	}
	if c.app == "" {
		return w, nil
	}
	rows, err := c.conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, c.app)
	if err != nil {
		return pgWork{}, err
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return pgWork{}, err
	}
	for _, pid := range pids {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(int(pid)), "schedstat"))
		if err != nil {
			continue // another machine's server, or gone
		}
		f := strings.Fields(string(stat))
		if len(f) == 0 {
			continue
		}
		if ns, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			w.own[int(pid)] = ns
		}
	}
	return w, nil
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on Linux.
const clockTicks = 100

// postgresTicks sums utime and stime over the postgres processes. A
// backend that exits takes its time with it; the load's connections live
// through the run.
func postgresTicks() (int64, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	var sum int64
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		if comm, ticks, ok := statTicks(string(stat)); ok && comm == "postgres" {
			sum += ticks
		}
	}
	return sum, nil
}
