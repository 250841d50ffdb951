package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/server"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/postgres"
	"github.com/triage-go/triage/store/sqlite"
)

func main() {
	requests := flag.Int("requests", 4000, "requests per target (bounded)")
	concurrency := flag.Int("concurrency", 16, "concurrent clients")
	duration := flag.Duration("duration", 20*time.Second, "time bound per target")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run (client and servers) to `file`")
	pg := flag.String("postgres", os.Getenv("TRIAGE_TEST_POSTGRES"), "a postgres:// URL to measure PostgreSQL too (in a scratch schema, dropped after)")
	amp := flag.Bool("amplify", false, "measure the peak RSS of the worst reads of error records instead (see amplify.go)")
	records := flag.Int("records", 0, "records to store in each service's store, untimed, before its load is measured")
	withSQLite := flag.Bool("sqlite", true, "measure the SQLite floors and the service on SQLite (false: the bare handler and PostgreSQL only)")
	vacuum := flag.Bool("vacuum", false, "VACUUM ANALYZE the PostgreSQL store after its pre-fill, as autovacuum would (for a server that runs with autovacuum off)")
	realMode := flag.Bool("real", false, "drive the real `triage serve` binary and a bare process, each a child process, instead (see real.go)")
	bin := flag.String("bin", "", "with -real: the triage `binary` to run (default: build ./cmd/triage)")
	serial := flag.Int("serial", 1000, "requests sent from one client at a time after each load (0: none): the one-client latency")
	idle := flag.Duration("idle", 30*time.Second, "with -real: how long each child's CPU time is read at rest after its loads (0: not)")
	bareChild := flag.Bool("bare-child", false, "serve the bare handler as a child process of -real (internal)")
	floor2Child := flag.String("floor2-child", "", "serve floor 2 on this new SQLite `file` as a child process of -real (internal)")
	flag.IntVar(&repeatShare, "repeat", 0, "the `percentage` (0-100) of each load's requests that resend an earlier request's report: a new occurrence of a recorded error (see repeat.go)")
	ablate := flag.String("ablate", "", "remove these `parts` of the store after its migrations, each run's floors measured again: configurations separated by /, each a comma list of "+partNames()+", all or none (see ablate.go)")
	flag.Parse()
	if repeatShare < 0 || repeatShare > 100 {
		fmt.Fprintln(os.Stderr, "loadbench: -repeat is a percentage, 0 to 100")
		os.Exit(2)
	}
	if *floor2Child != "" {
		if err := runFloor2Child(*floor2Child); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench:", err)
			os.Exit(1)
		}
		return
	}
	if *bareChild {
		if err := runBareChild(); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench:", err)
			os.Exit(1)
		}
		return
	}
	if *realMode {
		if err := runReal(realConfig{bin: *bin, pg: *pg, records: *records, requests: *requests, serial: *serial,
			concurrency: *concurrency, bound: *duration, idle: *idle, withSQLite: *withSQLite}); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench:", err)
			os.Exit(1)
		}
		return
	}
	if *amp {
		if err := runAmplify(*pg); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench:", err)
			os.Exit(1)
		}
		return
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadbench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	confs, err := parseAblations(*ablate)
	if err == nil {
		var rows []abRow
		for _, a := range confs {
			if *ablate != "" {
				fmt.Printf("\n## parts of the store removed: %s\n\n", a)
			}
			row, rerr := run(*requests, *concurrency, *serial, *duration, *pg, *records, *withSQLite, *vacuum, a)
			if rerr != nil && len(confs) > 1 {
				// One configuration failed (on a shared server, PostgreSQL's
				// connections may run out): the others are still measured.
				fmt.Fprintf(os.Stderr, "loadbench: parts removed %s: %v\n", a, rerr)
				row.failed = rerr
			} else if rerr != nil {
				err = rerr
				break
			}
			rows = append(rows, row)
		}
		if err == nil && *ablate != "" {
			printAblations(rows, *records)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

type result struct {
	name     string
	n        int
	failed   int
	elapsed  time.Duration
	p50, p99 time.Duration
	// written is the bytes the target wrote to disk per request (-1:
	// not measured), floor the index of the result it is compared with
	// (-1: none), and get the lookups by query_id after the load; get1
	// the same lookups from one client at a time, and getCPU this
	// process's CPU time per lookup (client and service) over both.
	written int64
	floor   int
	get     *result
	get1    *result
	getCPU  time.Duration
	// pg is PostgreSQL's work per request (nil: not measured).
	pg *pgWork
	// logB is the bytes the service logged per request (0: none or not
	// measured).
	logB int64
	// one is the same target's load from one client at a time, after
	// this one (nil: not measured).
	one *result
	// cpu is this process's CPU time per request over the load
	// (client and in-process servers: what a loaded machine moves
	// least), from many clients or, in one, from one at a time.
	cpu time.Duration
}

func (r result) rps() float64 { return float64(r.n) / r.elapsed.Seconds() }

// target is one server the load is sent to.
type target struct {
	name   string
	base   string
	more   []string     // other instances of the same service: the clients take turns
	pgWork *pgCounter   // nil: PostgreSQL's work per request is not measured
	want   int          // the status of a handled request
	writes writeCounter // nil: not measured
	floor  int          // the index of the floor to compare with, -1 none
	triage bool         // the service: prefilled and looked up
	log    *os.File     // the service's log, nil: none
	// settle, when set, runs after the pre-fill, untimed.
	settle func(context.Context) error
	// flush, when set, runs just before the load's counts are read and
	// just after its load, before they are read again (a CHECKPOINT: see
	// pgFlush).
	flush func(context.Context) error
	// direct, when set, is a store floor: the service's writes of each
	// report made on this store directly, instead of requests to base.
	direct *sampling
}

func run(requests, concurrency, serial int, bound time.Duration, pg string, records int, withSQLite, vacuum bool, abl ablation) (abRow, error) {
	row, err := run1(requests, concurrency, serial, bound, pg, records, withSQLite, vacuum, abl)
	row.abl = abl
	return row, err
}

func run1(requests, concurrency, serial int, bound time.Duration, pg string, records int, withSQLite, vacuum bool, abl ablation) (row abRow, _ error) {
	ctx := context.Background()
	row = newABRow()
	var results []result
	defer func() { row.fill(results) }() // what was measured, should a target fail
	measure := func(t target) error {
		if t.triage {
			if err := prefill(t.base, records); err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			if t.settle != nil {
				if err := t.settle(ctx); err != nil {
					return fmt.Errorf("%s: %w", t.name, err)
				}
			}
		}
		prefix := fmt.Sprintf("q_%d_%d", run0, len(results))
		if t.flush != nil {
			if err := t.flush(ctx); err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
		}
		var before int64
		if t.writes != nil {
			b, err := t.writes()
			if err != nil {
				return err
			}
			before = b
		}
		var pg0 pgWork
		if t.pgWork != nil {
			w, err := t.pgWork.read(ctx)
			if err != nil {
				return err
			}
			pg0 = w
		}
		var log0 int64
		if t.log != nil {
			log0 = fileSize(t.log)
		}
		cpu0, err := selfCPU()
		if err != nil {
			return err
		}
		var r result
		if t.direct != nil {
			var err error
			if r, err = storeFloor(t.name, t.direct, prefix, requests, concurrency, bound); err != nil {
				return err
			}
		} else {
			r = load(t.name, append([]string{t.base}, t.more...), prefix, requests, concurrency, bound, t.want)
		}
		if cpu1, err := selfCPU(); err == nil && r.n > 0 {
			r.cpu = (cpu1 - cpu0) / time.Duration(r.n)
		}
		if t.flush != nil {
			if err := t.flush(ctx); err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
		}
		if t.pgWork != nil && r.n > 0 {
			w, err := t.pgWork.read(ctx)
			if err != nil {
				return err
			}
			d := w.minus(pg0).per(r.n)
			r.pg = &d
		}
		r.written, r.floor = -1, t.floor
		if t.log != nil && r.n > 0 {
			r.logB = (fileSize(t.log) - log0) / int64(r.n)
		}
		if t.writes != nil && r.n > 0 {
			after, err := t.writes()
			if err != nil {
				return err
			}
			r.written = (after - before) / int64(r.n)
		}
		if serial > 0 && t.more == nil {
			// One client at a time: what a request costs when nothing
			// is batched with it, the latency a lone client sees.
			var one result
			cpu0, err := selfCPU()
			if err != nil {
				return err
			}
			if t.direct != nil {
				var err error
				if one, err = storeFloor(t.name, t.direct, prefix+"_one", serial, 1, bound); err != nil {
					return err
				}
			} else {
				one = load(t.name, []string{t.base}, prefix+"_one", serial, 1, bound, t.want)
			}
			if cpu1, err := selfCPU(); err == nil && one.n > 0 {
				one.cpu = (cpu1 - cpu0) / time.Duration(one.n)
			}
			r.one = &one
		}
		if t.triage && !abl.has("listing") { // GET ?query_id needs records_by_query
			cpu0, err := selfCPU()
			if err != nil {
				return err
			}
			g := lookups(t.name, t.base, prefix, r.n, requests, concurrency)
			g1 := lookups(t.name, t.base, prefix, r.n, min(requests, serialLookups), 1)
			cpu1, err := selfCPU()
			if err != nil {
				return err
			}
			r.get, r.get1 = &g, &g1
			if n := g.n + g1.n; n > 0 {
				r.getCPU = (cpu1 - cpu0) / time.Duration(n)
			}
		}
		results = append(results, r)
		return nil
	}

	// The services' log, as triage serve writes it to its stderr.
	logs, err := os.CreateTemp("", "loadbench-service-*.log")
	if err != nil {
		return row, err
	}
	defer os.Remove(logs.Name())
	defer logs.Close()

	bare, err := serve(http.HandlerFunc(bareHandler))
	if err != nil {
		return row, err
	}
	if err := measure(target{name: "bare net/http (decode + encode)", base: bare, want: http.StatusOK, floor: -1}); err != nil {
		return row, err
	}

	if withSQLite {
		dir, err := os.MkdirTemp("", "loadbench")
		if err != nil {
			return row, err
		}
		defer os.RemoveAll(dir)

		// The floors: what any design that answers only once the report is
		// committed to SQLite pays, with the least storage there can be.
		floor, err := openLog(filepath.Join(dir, "floor.db"))
		if err != nil {
			return row, err
		}
		defer floor.close()
		bareLog, err := serve(floor.bare())
		if err != nil {
			return row, err
		}
		if err := measure(target{name: "floor 1: bare + one durable SQLite insert", base: bareLog, want: http.StatusOK, writes: selfWrites, floor: 0}); err != nil {
			return row, err
		}
		pipeline, err := floor.pipeline()
		if err != nil {
			return row, err
		}
		pipeLog, err := serve(pipeline)
		if err != nil {
			return row, err
		}
		floor2 := len(results)
		if err := measure(target{name: "floor 2: + the handler, its state in memory", base: pipeLog, want: http.StatusCreated, writes: selfWrites, floor: 0}); err != nil {
			return row, err
		}
		dbPath := filepath.Join(dir, "triage.db")
		st, err := sqlite.Open(ctx, dbPath, store.Config{})
		if err != nil {
			return row, err
		}
		defer st.Close()
		if err := ablateSQLite(ctx, dbPath, abl); err != nil {
			return row, err
		}
		sampled := &sampling{Store: st}
		base, err := service(sampled, logs)
		if err != nil {
			return row, err
		}
		if err := measure(target{name: "triage serve, SQLite", base: base, want: http.StatusCreated, writes: selfWrites, floor: floor2, triage: true, log: logs}); err != nil {
			return row, err
		}
		if err := measure(target{name: "store alone: the service's read and write of a report, SQLite", direct: sampled, writes: selfWrites, floor: floor2}); err != nil {
			return row, err
		}
		if serial > 0 {
			row.pages(ctx, dbPath, sampled, base, bound)
		}
	}

	if pg != "" {
		scratch, drop, err := scratchSchema(ctx, pg)
		if err != nil {
			return row, err
		}
		defer drop()
		var pgw writeCounter
		if _, err := postgresWrites(); err == nil {
			pgw = postgresWrites
		} else {
			fmt.Fprintln(os.Stderr, "loadbench: PostgreSQL's writes are not measured:", err)
		}
		pc, err := newPGCounter(ctx, scratch)
		if err != nil {
			return row, err
		}
		defer pc.close()
		flush := pgFlush(ctx, scratch)
		fh, closeFloor, err := pgFloor(ctx, scratch, concurrency)
		if err != nil {
			return row, err
		}
		defer closeFloor()
		fbase, err := serve(fh)
		if err != nil {
			return row, err
		}
		pgFloorAt := len(results)
		if err := measure(target{name: "PostgreSQL floor: bare + one durable PostgreSQL insert", base: fbase, want: http.StatusOK, writes: pgw, floor: 0, pgWork: pc, flush: flush}); err != nil {
			return row, err
		}
		pst, err := postgres.Open(ctx, scratch, store.Config{})
		if err != nil {
			return row, err
		}
		defer pst.Close()
		if err := ablatePostgres(ctx, scratch, abl); err != nil {
			return row, err
		}
		sampled := &sampling{Store: pst}
		base, err := service(sampled, logs)
		if err != nil {
			return row, err
		}
		// After the pre-fill (and its VACUUM), a checkpoint: the pages the
		// fill changed are written out before the load, not by the
		// checkpointer while it runs (a fill of 100k reports wrote past
		// max_wal_size, and the checkpoint that started was credited to
		// the load), and every run's load starts where a checkpoint
		// interval does (each page's first change writes its image).
		settle := func(ctx context.Context) error {
			if vacuum {
				if err := vacuumSchema(ctx, scratch); err != nil {
					return err
				}
			}
			return checkpoint(ctx, scratch)
		}
		if err := measure(target{name: "triage serve, PostgreSQL", base: base, want: http.StatusCreated, writes: pgw, floor: pgFloorAt, triage: true, pgWork: pc, flush: flush, settle: settle, log: logs}); err != nil {
			return row, err
		}
		if err := measure(target{name: "store alone: the service's read and write of a report, PostgreSQL", direct: sampled, writes: pgw, floor: pgFloorAt, pgWork: pc, flush: flush}); err != nil {
			return row, err
		}
		// Two instances on the same database, the clients taking turns:
		// on two cores this shows the overhead of a second instance more
		// than scaling.
		pst2, err := postgres.Open(ctx, scratch, store.Config{})
		if err != nil {
			return row, err
		}
		defer pst2.Close()
		second, err := service(pst2, logs)
		if err != nil {
			return row, err
		}
		if err := measure(target{name: "triage serve ×2 instances, one PostgreSQL", base: base, more: []string{second}, want: http.StatusCreated, writes: pgw, floor: pgFloorAt, pgWork: pc, flush: flush, log: logs}); err != nil {
			return row, err
		}
	}

	fmt.Printf("records stored before each service's load: %d; %d requests, %d clients, %d %% of them repeats\n\n", records, requests, concurrency, repeatShare)
	fmt.Printf("| target | requests | failed | req/s | p50 | p99 | share of bare | share of its floor | written per request | CPU per request | GET ?query_id p50 / p99 |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		share, written, get := "", "", ""
		if r.floor >= 0 {
			share = fmt.Sprintf("%.0f %%", 100*r.rps()/results[r.floor].rps())
		}
		if r.written >= 0 {
			written = fmt.Sprintf("%.1f KB", float64(r.written)/1000)
		}
		if r.get != nil {
			get = fmt.Sprintf("%v / %v", r.get.p50.Round(10*time.Microsecond), r.get.p99.Round(10*time.Microsecond))
			if r.get.failed > 0 {
				get += fmt.Sprintf(" (%d failed)", r.get.failed)
			}
		}
		fmt.Printf("| %s | %d | %d | %.0f | %v | %v | %.0f %% | %s | %s | %v | %s |\n", r.name, r.n, r.failed, r.rps(),
			r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond), 100*r.rps()/results[0].rps(), share, written,
			r.cpu.Round(time.Microsecond), get)
	}
	for i, r := range results {
		if strings.HasPrefix(r.name, "store alone") && i > 0 && r.n > 0 {
			fmt.Printf("\n%s: %.0f %% of the store alone's rate", results[i-1].name, 100*results[i-1].rps()/r.rps())
		}
	}
	for _, r := range results {
		if r.get1 != nil && r.get1.n > 0 {
			fmt.Printf("\n%s: GET ?query_id from one client at a time p50 %v / p99 %v; %v of this process's CPU per lookup (client and service)",
				r.name, r.get1.p50.Round(10*time.Microsecond), r.get1.p99.Round(10*time.Microsecond), r.getCPU.Round(10*time.Microsecond))
		}
	}
	for _, r := range results {
		if r.logB > 0 {
			fmt.Printf("\n%s: %d B of log per request", r.name, r.logB)
		}
	}
	for _, r := range results {
		if r.pg != nil {
			fmt.Printf("\n%s: PostgreSQL's work per request: %.2f ms of its processes' CPU (%.2f ms of the run's own backends'), %.1f KB of WAL",
				r.name, r.pg.cpuMS, r.pg.ownMS, r.pg.walKB)
			if r.pg.pagesKB >= 0 {
				fmt.Printf(", %.1f KB of pages written (%.1f KB in all, PostgreSQL's own count)", r.pg.pagesKB, r.pg.walKB+r.pg.pagesKB)
			}
		}
	}
	fmt.Println()
	printSerial(results, serial)
	return row, nil
}

// printSerial prints the one-client loads beside each other, each p50 as
// a multiple of its floor's (floor 2's for the SQLite service and its
// store, the PostgreSQL floor's for PostgreSQL's) and of the bare
// handler's.
func printSerial(results []result, serial int) {
	if serial <= 0 || len(results) == 0 || results[0].one == nil {
		return
	}
	bare := results[0].one
	fmt.Printf("\none client at a time, %d requests each:\n\n", serial)
	fmt.Printf("| target | requests | failed | p50 | p99 | p50 / its floor's | p50 / bare's | CPU per request |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		o := r.one
		if o == nil {
			continue
		}
		ratio := ""
		if r.floor > 0 && results[r.floor].one != nil && results[r.floor].one.p50 > 0 {
			ratio = fmt.Sprintf("%.2f× (%s)", float64(o.p50)/float64(results[r.floor].one.p50), strings.SplitN(results[r.floor].name, ":", 2)[0])
		}
		fmt.Printf("| %s | %d | %d | %v | %v | %s | %.1f× | %v |\n", r.name, o.n, o.failed, o.p50.Round(10*time.Microsecond),
			o.p99.Round(10*time.Microsecond), ratio, float64(o.p50)/float64(max(bare.p50, 1)), o.cpu.Round(time.Microsecond))
	}
}

// bareHandler decodes the report and encodes a feedback of the same shape
// and size: the floor any JSON-over-HTTP service pays.
func bareHandler(w http.ResponseWriter, r *http.Request) {
	var rep triage.Report
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err == nil {
		err = json.Unmarshal(body, &rep)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fb := triage.Feedback{ErrorID: "err_0123456789abcdef", ErrorType: triage.QueryError, ErrorSource: rep.AgentID,
		Severity: triage.SeverityMedium, Confidence: 0.99, UserMessage: "I couldn't retrieve the full sales data right now (database timeout).",
		RecoverySuggestions: []string{"Retry now", "Narrow the date range"}, AutomatedActions: []string{"retry:2", "use_cache:none"},
		ContextPreserved: true, QueryID: rep.Data.QueryID, Timestamp: rep.Timestamp, NextAction: triage.Resume,
		Context: rep.Data.Context}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(fb)
}

func serve(h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go func() { _ = http.Serve(ln, h) }()
	return "http://" + ln.Addr().String(), nil
}

// service runs the service on st as `triage serve` runs it: server.Serve
// (its HTTP server's timeouts, its job worker polling River, its expiry),
// its log at INFO written as text to logw (a file: what the per-report
// line costs is paid). No rate limit: every request is a report handled.
// What it leaves out of `triage serve`: the MCP bridge's agents, the
// dashboard and tracing, none of which a report touches.
func service(st store.Store, logw io.Writer) (string, error) {
	srv, err := server.New(server.Config{Store: st, RateLimit: -1,
		Logger: slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	if err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go func() { _ = srv.Serve(context.Background(), ln) }()
	return "http://" + ln.Addr().String(), nil
}

func fileSize(f *os.File) int64 {
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	return fi.Size()
}

var run0 = time.Now().UnixNano()

// load sends up to n reports from c clients, for at most bound; their
// query ids are prefix_1, prefix_2, …, but for the repeats (-repeat), each
// of which sends an earlier one's query id (source).
func load(name string, bases []string, prefix string, n, c int, bound time.Duration, want int) result {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c, MaxConnsPerHost: c}, Timeout: 10 * time.Second}
	return drive(name, n, c, bound, func(w int, i int64) error {
		resp, err := client.Post(bases[w%len(bases)]+"/v1/errors", "application/json", strings.NewReader(reportBody(prefix, source(i, repeatShare))))
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			return fmt.Errorf("%d %s", resp.StatusCode, b)
		}
		return nil
	})
}

// drive runs op for i = 1…n from c workers (w is the worker's number), for
// at most bound, and times each call that succeeds; the first failure is
// printed, the others counted.
func drive(name string, n, c int, bound time.Duration, op func(w int, i int64) error) result {
	var next, failed atomic.Int64
	var firstFailure sync.Once
	lat := make([][]time.Duration, c)
	deadline := time.Now().Add(bound)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range c {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(n) || time.Now().After(deadline) {
					return
				}
				t0 := time.Now()
				if err := op(w, i); err != nil {
					failed.Add(1)
					firstFailure.Do(func() { fmt.Fprintf(os.Stderr, "%s: first failure: %v\n", name, err) })
					continue
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		})
	}
	wg.Wait()
	return summarize(name, lat, int(failed.Load()), time.Since(start))
}

// scratchSchema creates an empty schema for the run and returns the URL
// with it first in the search path, and how to drop it.
func scratchSchema(ctx context.Context, base string) (string, func(), error) {
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", nil, err
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("triage_loadbench_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return "", nil, err
	}
	drop := func() {
		if c, err := pgx.Connect(ctx, base); err == nil {
			_, _ = c.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
			c.Close(ctx)
		}
	}
	u, err := url.Parse(base)
	if err != nil {
		drop()
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("application_name", schema) // the run's own backends (pgCounter)
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}

// pgFlush returns the flush of the PostgreSQL targets (target.flush): a
// CHECKPOINT on url's server, so that the pages dirtied before a load
// (the pre-fill's, an earlier target's) are written before its counts are
// first read, not by the checkpointer during it, and the pages the load
// dirtied are written, once each, before they are read again: a load is
// charged its own WAL and pages. Where the role may not CHECKPOINT (nil),
// the counts are read as they are, and it says so once.
func pgFlush(ctx context.Context, url string) func(context.Context) error {
	if err := tryCheckpoint(ctx, url); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench: no CHECKPOINT around PostgreSQL's loads (the checkpointer's writes of earlier ones may count in a later one):", err)
		return nil
	}
	return func(ctx context.Context) error { return tryCheckpoint(ctx, url) }
}

// checkpoint runs CHECKPOINT on the server of url, where the role may
// (a superuser, or pg_checkpoint); it says so and goes on where not.
func checkpoint(ctx context.Context, url string) error {
	if err := tryCheckpoint(ctx, url); err != nil {
		fmt.Fprintf(os.Stderr, "  no checkpoint after the pre-fill: %v\n", err)
	}
	return nil
}

// tryCheckpoint runs CHECKPOINT on the server of url.
func tryCheckpoint(ctx context.Context, url string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "CHECKPOINT")
	return err
}

// vacuumSchema runs VACUUM ANALYZE on every table of the scratch schema in
// url's search_path: what autovacuum does after a bulk load, for servers
// that run with it off.
func vacuumSchema(ctx context.Context, url string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) FROM pg_tables WHERE schemaname = current_schema()`)
	if err != nil {
		return err
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, t := range tables {
		if _, err := conn.Exec(ctx, "VACUUM (ANALYZE) "+t); err != nil {
			return err
		}
	}
	return nil
}
