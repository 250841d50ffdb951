// Command loadbench measures POST /v1/errors on loopback, side by side
// with a bare net/http handler that decodes and encodes the same JSON, in
// one run on one machine: requests per second, p50 and p99 latency, and
// the service's throughput as a share of the bare handler's.
//
// Two floors run between them: the bare handler with each request
// committed to SQLite (one row, group commit, synchronous=FULL) before
// the answer, and the Error Handler with its state in memory and the
// report with its feedback committed as one such row. They bound what any
// design that answers only once a report is durable can reach here.
//
//	go run ./internal/loadbench [-requests 4000] [-concurrency 16] [-duration 20s] [-postgres URL]
//
// Each request is a new report (its own query_id), so every one is fully
// handled and committed (201). The count and the time are bounded.
//
//	go run ./internal/loadbench -amplify [-postgres URL]
//
// measures instead the process's peak RSS while clients fetch the worst
// pages of error records (see amplify.go).
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
	"slices"
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
	flag.Parse()
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
	if err := run(*requests, *concurrency, *duration, *pg); err != nil {
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
}

func (r result) rps() float64 { return float64(r.n) / r.elapsed.Seconds() }

func run(requests, concurrency int, bound time.Duration, pg string) error {
	ctx := context.Background()
	var results []result

	bare, err := serve(http.HandlerFunc(bareHandler))
	if err != nil {
		return err
	}
	results = append(results, load("bare net/http (decode + encode)", bare, requests, concurrency, bound, http.StatusOK))

	dir, err := os.MkdirTemp("", "loadbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	// The floors: what any design that answers only once the report is
	// committed to SQLite pays, with the least storage there can be.
	floor, err := openLog(filepath.Join(dir, "floor.db"))
	if err != nil {
		return err
	}
	defer floor.close()
	bareLog, err := serve(floor.bare())
	if err != nil {
		return err
	}
	results = append(results, load("floor: bare + one durable SQLite insert", bareLog, requests, concurrency, bound, http.StatusOK))
	pipeline, err := floor.pipeline()
	if err != nil {
		return err
	}
	pipeLog, err := serve(pipeline)
	if err != nil {
		return err
	}
	results = append(results, load("floor: + the handler, its state in memory", pipeLog, requests, concurrency, bound, http.StatusCreated))
	st, err := sqlite.Open(ctx, filepath.Join(dir, "triage.db"), store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	base, err := service(st)
	if err != nil {
		return err
	}
	results = append(results, load("triage serve, SQLite", base, requests, concurrency, bound, http.StatusCreated))

	if pg != "" {
		scratch, drop, err := scratchSchema(ctx, pg)
		if err != nil {
			return err
		}
		defer drop()
		pst, err := postgres.Open(ctx, scratch, store.Options{})
		if err != nil {
			return err
		}
		defer pst.Close()
		base, err := service(pst)
		if err != nil {
			return err
		}
		results = append(results, load("triage serve, PostgreSQL", base, requests, concurrency, bound, http.StatusCreated))
	}

	fmt.Printf("| target | requests | failed | req/s | p50 | p99 | share of bare |\n|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		fmt.Printf("| %s | %d | %d | %.0f | %v | %v | %.0f %% |\n", r.name, r.n, r.failed, r.rps(),
			r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond), 100*r.rps()/results[0].rps())
	}
	return nil
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

func service(st store.Store) (string, error) {
	srv, err := server.New(server.Config{Store: st, RateLimit: -1, MaxConcurrent: 4096, JobPoll: -1,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return "", err
	}
	return serve(srv)
}

var run0 = time.Now().UnixNano()

// load sends up to n new reports from c clients, for at most bound.
func load(name, base string, n, c int, bound time.Duration, want int) result {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c, MaxConnsPerHost: c}, Timeout: 10 * time.Second}
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
				body := fmt.Sprintf(`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:05Z","status":"error","data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s","context":{"metric":"sales","group_by":"month","date_range":{"start":"2015-01-01","end":"2025-08-01"},"row_count":48000000},"query_id":"q_%d_%d"}}`, run0, i)
				t0 := time.Now()
				resp, err := client.Post(base+"/v1/errors", "application/json", strings.NewReader(body))
				if err != nil {
					failed.Add(1)
					firstFailure.Do(func() { fmt.Fprintf(os.Stderr, "%s: first failure: %v\n", name, err) })
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != want {
					failed.Add(1)
					firstFailure.Do(func() { fmt.Fprintf(os.Stderr, "%s: first failure: %d %s\n", name, resp.StatusCode, b) })
					continue
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	all := slices.Concat(lat...)
	slices.Sort(all)
	r := result{name: name, n: len(all), failed: int(failed.Load()), elapsed: elapsed}
	if len(all) > 0 {
		r.p50 = all[len(all)/2]
		r.p99 = all[len(all)*99/100]
	}
	return r
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
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}
