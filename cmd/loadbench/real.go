package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/triage-go/triage/internal/childserve"
)

// The real thing (-real): `triage serve` built from this tree and run as a
// child process, as a user runs it (its job worker on, its log at INFO
// written to a file through its own logger), beside a bare child process
// (this program run again with -bare-child: decode and encode over HTTP),
// so that both pay a process of their own and loopback alike. Each is
// loaded from 16 clients (-concurrency) and then from one client at a
// time (-serial requests), and the child's CPU time is read from
// /proc/PID/stat around each load, and again over -idle with no load.

// realConfig is what -real measures.
type realConfig struct {
	bin         string // a triage binary; "": build ./cmd/triage
	pg          string // a postgres:// URL; "": no PostgreSQL target
	records     int
	requests    int
	serial      int
	concurrency int
	bound       time.Duration
	idle        time.Duration
	withSQLite  bool
}

// realRow is one load of one child.
type realRow struct {
	result
	clients int
	cpu     time.Duration // the child's CPU time per request
	logB    int64         // its log's bytes per request, -1: none
	pg      *pgWork       // PostgreSQL's work per request, nil: none
}

// realTarget is one child and what was measured of it.
type realTarget struct {
	name    string
	rows    []realRow
	fill    time.Duration // the untimed fill's time, 0: none
	idleCPU time.Duration // CPU time over cfg.idle at rest
	jobs    string        // the jobs in its store after the loads
	rss     int64         // VmRSS after the loads, bytes
}

func runReal(cfg realConfig) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "loadbench-real")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := cfg.bin
	if bin == "" {
		bin = filepath.Join(dir, "triage")
		fmt.Fprintln(os.Stderr, "loadbench: building ./cmd/triage …")
		t0 := time.Now()
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/triage-go/triage/cmd/triage").CombinedOutput(); err != nil {
			return fmt.Errorf("building triage: %v\n%s", err, out)
		}
		fmt.Fprintf(os.Stderr, "loadbench: built in %v\n", time.Since(t0).Round(time.Second))
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var targets []realTarget
	measure := func(name string, c *child, fill bool, jobs func() (string, error), pc *pgCounter) error {
		defer c.stop()
		t := realTarget{name: name}
		if fill && cfg.records > 0 {
			t0 := time.Now()
			if err := prefill(c.Base, cfg.records); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			t.fill = time.Since(t0)
		}
		for i, clients := range []int{cfg.concurrency, 1} {
			n := cfg.requests
			if clients == 1 {
				n = cfg.serial
			}
			cpu0, err := c.cpu()
			if err != nil {
				return err
			}
			log0 := c.logSize()
			var pg0 pgWork
			if pc != nil {
				if pg0, err = pc.read(ctx); err != nil {
					return err
				}
			}
			r := load(name, []string{c.Base}, fmt.Sprintf("q_%d_%s_%d", run0, strings.Fields(name)[0], i), n, clients, cfg.bound, c.want)
			cpu1, err := c.cpu()
			if err != nil {
				return err
			}
			row := realRow{result: r, clients: clients, logB: -1}
			if r.n > 0 {
				row.cpu = (cpu1 - cpu0) / time.Duration(r.n)
				if c.log != "" {
					row.logB = (c.logSize() - log0) / int64(r.n)
				}
				if pc != nil {
					w, err := pc.read(ctx)
					if err != nil {
						return err
					}
					d := w.minus(pg0).per(r.n)
					row.pg = &d
				}
			}
			t.rows = append(t.rows, row)
		}
		t.rss = c.status("VmRSS:")
		if jobs != nil {
			if t.jobs, err = jobs(); err != nil {
				return err
			}
		}
		if cfg.idle > 0 {
			// At rest: what the process burns with no request, after a
			// moment for the last load's answers and jobs to settle.
			time.Sleep(2 * time.Second)
			cpu0, err := c.cpu()
			if err != nil {
				return err
			}
			time.Sleep(cfg.idle)
			cpu1, err := c.cpu()
			if err != nil {
				return err
			}
			t.idleCPU = cpu1 - cpu0
		}
		targets = append(targets, t)
		return nil
	}

	bare, err := startChild(self, []string{"-bare-child"}, "", http.StatusOK)
	if err != nil {
		return fmt.Errorf("the bare process: %w", err)
	}
	if err := measure("bare process (decode + encode)", bare, false, nil, nil); err != nil {
		return err
	}
	if cfg.withSQLite {
		// Floor 2 in a process of its own, as the service runs: the
		// handler, its state in memory, and one durable SQLite row per
		// report; its one-client p50 is the one the service's is held to.
		f2, err := startChild(self, []string{"-floor2-child", filepath.Join(dir, "floor2.db")}, "", http.StatusCreated)
		if err != nil {
			return fmt.Errorf("the floor 2 process: %w", err)
		}
		if err := measure(floor2Name, f2, false, nil, nil); err != nil {
			return err
		}
	}
	if cfg.withSQLite {
		db := filepath.Join(dir, "triage.db")
		c, err := startServe(bin, db, filepath.Join(dir, "sqlite.log"))
		if err != nil {
			return err
		}
		if err := measure("triage serve, SQLite", c, true, func() (string, error) { return sqliteJobs(db) }, nil); err != nil {
			return err
		}
	}
	if cfg.pg != "" {
		scratch, drop, err := scratchSchema(ctx, cfg.pg)
		if err != nil {
			return err
		}
		defer drop()
		pc, err := newPGCounter(ctx, scratch)
		if err != nil {
			return err
		}
		defer pc.close()
		c, err := startServe(bin, scratch, filepath.Join(dir, "postgres.log"))
		if err != nil {
			return err
		}
		if err := measure("triage serve, PostgreSQL", c, true, func() (string, error) { return postgresJobs(ctx, scratch) }, pc); err != nil {
			return err
		}
	}
	printReal(cfg, targets)
	return nil
}

// floor2Name is the floor 2 process's target.
const floor2Name = "floor 2 process (the handler, its state in memory, one durable SQLite row)"

func printReal(cfg realConfig, targets []realTarget) {
	fmt.Printf("real processes: records stored before each service's load: %d; %d requests from %d clients, then %d from one client at a time\n\n",
		cfg.records, cfg.requests, cfg.concurrency, cfg.serial)
	var floor2 *realTarget
	for i := range targets {
		if targets[i].name == floor2Name {
			floor2 = &targets[i]
		}
	}
	fmt.Printf("| target | clients | requests | failed | req/s | p50 | p99 | share of bare's req/s | p50 / bare's | share of floor 2's req/s | p50 / floor 2's | child CPU per request | log per request | PostgreSQL CPU per request |\n")
	fmt.Printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, t := range targets {
		for i, r := range t.rows {
			b := targets[0].rows[i]
			f2share, f2p50 := "", ""
			if floor2 != nil && i < len(floor2.rows) && floor2.rows[i].n > 0 && r.n > 0 {
				f := floor2.rows[i]
				f2share = fmt.Sprintf("%.1f %%", 100*r.rps()/f.rps())
				f2p50 = fmt.Sprintf("%.2f×", float64(r.p50)/float64(max(f.p50, 1)))
			}
			logB, pgCPU := "", ""
			if r.logB >= 0 {
				logB = fmt.Sprintf("%d B", r.logB)
			}
			if r.pg != nil {
				pgCPU = fmt.Sprintf("%.2f ms", r.pg.cpuMS)
			}
			fmt.Printf("| %s | %d | %d | %d | %.0f | %v | %v | %.1f %% | %.1f× | %s | %s | %v | %s | %s |\n", t.name, r.clients, r.n, r.failed, r.rps(),
				r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond), 100*r.rps()/b.rps(),
				float64(r.p50)/float64(max(b.p50, 1)), f2share, f2p50, r.cpu.Round(time.Microsecond), logB, pgCPU)
		}
	}
	fmt.Println()
	for _, t := range targets {
		fmt.Printf("%s:", t.name)
		if t.fill > 0 {
			fmt.Printf(" filled with %d records in %v;", cfg.records, t.fill.Round(100*time.Millisecond))
		}
		if t.jobs != "" {
			fmt.Printf(" jobs in its store after the loads: %s;", t.jobs)
		}
		fmt.Printf(" RSS %.0f MiB", float64(t.rss)/(1<<20))
		if cfg.idle > 0 {
			fmt.Printf("; CPU at rest over %v: %v", cfg.idle, t.idleCPU)
		}
		fmt.Println()
	}
}

// child is a server running as a child process.
type child struct {
	*childserve.Process
	log  string // the file its stderr goes to, "": discarded
	want int    // the status of a handled report
}

// startServe starts bin as `triage serve` on db, its log (stderr, at the
// default level) appended to logFile. No API keys and no rate limit:
// every request is one report handled (--rate-limit -1 is the one flag
// that differs from a default start; with it, 16 clients would be refused
// past the default tenant's share).
func startServe(bin, db, logFile string) (*child, error) {
	return startChild(bin, []string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--rate-limit", "-1"}, logFile, http.StatusCreated)
}

// startChild starts bin with args and reads its address off its output
// ("listening on http://…").
func startChild(bin string, args []string, logFile string, want int) (*child, error) {
	var opts childserve.Options
	if logFile != "" {
		f, err := os.Create(logFile)
		if err != nil {
			return nil, err
		}
		defer f.Close() // the child holds its own descriptor
		opts.Stderr = f
	}
	p, err := childserve.Start(context.Background(), bin, args, opts)
	if err != nil {
		return nil, fmt.Errorf("%w (log: %s)", err, logFile)
	}
	return &child{Process: p, log: logFile, want: want}, nil
}

// stop ends the child with SIGTERM, SIGKILL after 30 s.
func (c *child) stop() { c.Stop(30 * time.Second) }

// cpu is the child's CPU time so far, user and system
// (/proc/PID/stat, in clock ticks).
func (c *child) cpu() (time.Duration, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.Pid()))
	if err != nil {
		return 0, err
	}
	_, ticks, ok := statTicks(string(stat))
	if !ok {
		return 0, fmt.Errorf("/proc/%d/stat: %q", c.Pid(), stat)
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// status reads a field of /proc/PID/status in bytes (0: unknown).
func (c *child) status(field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.Pid()))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, field); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

func (c *child) logSize() int64 {
	if c.log == "" {
		return 0
	}
	fi, err := os.Stat(c.log)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// statTicks reads a /proc/PID/stat line: the comm, and utime + stime
// (fields 14 and 15, counted after the comm, which may hold spaces).
func statTicks(s string) (comm string, ticks int64, ok bool) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", 0, false
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 13 {
		return "", 0, false
	}
	var u, st int64
	if _, err := fmt.Sscan(f[11], &u); err != nil {
		return "", 0, false
	}
	if _, err := fmt.Sscan(f[12], &st); err != nil {
		return "", 0, false
	}
	return s[open+1 : end], u + st, true
}

// sqliteJobs counts the jobs in River's table of a SQLite store, by
// state (read-only, beside the running service).
func sqliteJobs(path string) (string, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return "", err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT state, count(*) FROM river_job GROUP BY state`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	counts := map[string]int64{}
	for rows.Next() {
		var state string
		var n int64
		if err := rows.Scan(&state, &n); err != nil {
			return "", err
		}
		counts[state] = n
	}
	return jobCounts(counts), rows.Err()
}

// postgresJobs is sqliteJobs on a PostgreSQL store (url's search_path).
func postgresJobs(ctx context.Context, url string) (string, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT state::text, count(*) FROM river_job GROUP BY state`)
	if err != nil {
		return "", err
	}
	counts := map[string]int64{}
	var state string
	var n int64
	_, err = pgx.ForEachRow(rows, []any{&state, &n}, func() error { counts[state] = n; return nil })
	return jobCounts(counts), err
}

func jobCounts(counts map[string]int64) string {
	if len(counts) == 0 {
		return "none"
	}
	var parts []string
	for s, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, s))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// runBareChild is the bare process: bareHandler on a loopback port of
// its own, its address printed as triage serve prints its own.
func runBareChild() error {
	base, err := serve(http.HandlerFunc(bareHandler))
	if err != nil {
		return err
	}
	fmt.Printf("bare process listening on %s\n", base)
	select {} // until the parent's SIGTERM
}

// runFloor2Child is the floor 2 process: floor 2's handler (see
// durableLog.pipeline) committing to a fresh SQLite file at db, on a
// loopback port of its own.
func runFloor2Child(db string) error {
	l, err := openLog(db)
	if err != nil {
		return err
	}
	h, err := l.pipeline()
	if err != nil {
		return err
	}
	base, err := serve(h)
	if err != nil {
		return err
	}
	fmt.Printf("floor 2 process listening on %s\n", base)
	// Until the parent's SIGTERM (its scratch file is left as it is).
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	<-ctx.Done()
	return nil
}
