package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/triage-go/triage/internal/childserve"
)

// The tenants' keys (TRIAGE_API_KEYS): A is the hostile one.
const (
	keyA = "campaign-key-tenant-a-0123456789"
	keyB = "campaign-key-tenant-b-0123456789"
)

// row is one line of the table.
type row struct {
	scenario string
	load     string // load held / other tenant served
	faults   int    // faults survived
	bad      int    // bad inputs tried
	lost     int    // acknowledged reports lost
	leaked   int    // canaries leaked
	notes    []string
	failed   bool // a check failed (beyond lost and leaked)
	skipped  string
}

func (r *row) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

// fail records a failed check.
func (r *row) fail(format string, args ...any) {
	r.failed = true
	r.note("FAIL: "+format, args...)
}

// config is what every scenario is given.
type config struct {
	bin   string  // the triage binary
	dir   string  // a temporary directory of the campaign's
	scale float64 // 1 by default
}

// dur scales a duration, at least 1 s.
func (c config) dur(d time.Duration) time.Duration {
	return max(time.Duration(float64(d)*c.scale), time.Second)
}

// n scales a count, at least lo.
func (c config) n(n, lo int) int { return max(int(float64(n)*c.scale), lo) }

type scenario struct {
	name string
	run  func(ctx context.Context, c config) row
}

var scenarios = []scenario{
	{"slow-body", slowBody},
	{"amplification", amplification},
	{"bad-bytes", badBytes},
	{"secret-canary", secretCanary},
	{"disk-full", diskFull},
	{"kill-9", kill9},
	{"stream-hog", streamHog},
	{"mcp-batch", mcpBatch},
	{"pg-pool-hog", pgPoolHog},
	{"nats-cross-tenant", natsCrossTenant},
	{"job-tarpit", jobTarpit},
}

func main() {
	scale := flag.Float64("scale", 1, "scale of each scenario's duration and counts (0.1: the test's tiny run)")
	only := flag.String("only", "", "comma-separated scenarios to run (default: all)")
	bin := flag.String("bin", "", "a triage binary to attack instead of one built from this tree (to measure another commit)")
	flag.Parse()
	rows, err := campaign(context.Background(), *scale, *only, *bin, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "campaign:", err)
		os.Exit(2)
	}
	fmt.Print(table(rows))
	if !passed(rows) {
		os.Exit(1)
	}
}

// campaign builds triage (unless bin names a binary) and runs the
// scenarios, logging progress to log.
func campaign(ctx context.Context, scale float64, only, bin string, log io.Writer) ([]row, error) {
	dir, err := os.MkdirTemp("", "campaign")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if bin == "" {
		bin = filepath.Join(dir, "triage")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/triage-go/triage/cmd/triage")
		if out, err := build.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building triage: %v\n%s", err, out)
		}
	}
	c := config{bin: bin, dir: dir, scale: scale}
	var rows []row
	for _, s := range scenarios {
		if only != "" && !slices.Contains(strings.Split(only, ","), s.name) {
			continue
		}
		t0 := time.Now()
		r := s.run(ctx, c)
		r.scenario = s.name
		fmt.Fprintf(log, "campaign: %s done in %v\n", s.name, time.Since(t0).Round(100*time.Millisecond))
		rows = append(rows, r)
	}
	return rows, nil
}

// passed: nothing lost, nothing leaked, no check failed.
func passed(rows []row) bool {
	for _, r := range rows {
		if r.lost > 0 || r.leaked > 0 || r.failed {
			return false
		}
	}
	return true
}

// table writes the rows as a Markdown table.
func table(rows []row) string {
	var b strings.Builder
	b.WriteString("| scenario | load held / other tenant served | faults survived | bad inputs tried | acknowledged lost | canaries leaked | notes |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		notes := strings.Join(strings.Fields(strings.Join(r.notes, "; ")), " ")
		if r.skipped != "" {
			notes = "SKIPPED: " + r.skipped
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %s |\n", r.scenario, orDash(r.load), r.faults, r.bad, r.lost, r.leaked, notes)
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// proc is a running `triage serve`.
type proc struct {
	*childserve.Process
	base   string // http://127.0.0.1:PORT
	stderr string // the file its log goes to
}

// start starts `triage serve` on db, with its log appended to logFile,
// and waits for its address.
func start(ctx context.Context, c config, db, logFile string, extra ...string) (*proc, error) {
	lf, err := os.OpenFile(logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer lf.Close() // the child holds its own descriptor
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--rate-limit", "-1"}, extra...)
	// None of the caller's TRIAGE_ settings: the campaign's own only.
	cp, err := childserve.Start(ctx, c.bin, args, childserve.Options{
		Env:     []string{"TRIAGE_API_KEYS=tenant-a=" + keyA + ",tenant-b=" + keyB},
		Stderr:  lf,
		Timeout: 30 * time.Second,
	})
	if errors.Is(err, childserve.ErrExited) {
		b, _ := os.ReadFile(logFile)
		return nil, fmt.Errorf("triage serve exited at start (%v): %s", err, tail(b, 2000))
	}
	if err != nil {
		return nil, err
	}
	return &proc{Process: cp, base: cp.Base, stderr: logFile}, nil
}

func tail(b []byte, n int) []byte { return b[max(0, len(b)-n):] }

// stop ends the process with SIGTERM (SIGKILL after 30 s).
func (p *proc) stop() { p.Stop(30 * time.Second) }

// kill ends the process with SIGKILL and waits for it.
func (p *proc) kill() { p.Kill() }

// procStatus reads a field of /proc/PID/status, in bytes (0 when unknown).
func (p *proc) procStatus(field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Pid()))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// resetPeak resets the process's VmHWM to its RSS now (false where the
// kernel does not let this process do it).
func (p *proc) resetPeak() bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", p.Pid()), []byte("5"), 0) == nil
}

// answer is an HTTP answer, read whole.
type answer struct {
	status int
	ctype  string
	body   []byte
	err    error
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 60 * time.Second}

// do sends a request with the tenant's key.
func do(ctx context.Context, method, target, key string, body []byte, header map[string]string) answer {
	var rd io.Reader
	if body != nil {
		rd = strings.NewReader(string(body))
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return answer{err: err}
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), body: b, err: err}
}

var runID = time.Now().UnixNano()

// report is a report of its own query id, with members added to data.
func report(queryID, members string) []byte {
	return []byte(`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:05Z","status":"error",` +
		`"data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s",` +
		`"query_id":"` + queryID + `"` + members + `}}`)
}

// latencies collects request latencies from several goroutines.
type latencies struct {
	mu      sync.Mutex
	all     []time.Duration
	ok, bad int
	first   string // the first failure
	wait    func() // waits for the clients (tenantLoad)
}

func (l *latencies) add(d time.Duration, ok bool, failure string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ok {
		l.ok++
		l.all = append(l.all, d)
		return
	}
	l.bad++
	if l.first == "" {
		l.first = failure
	}
}

// summary: "B 1234/1234 201 (100 %), p99 12ms".
func (l *latencies) summary(who string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	slices.Sort(l.all)
	p99 := time.Duration(0)
	if len(l.all) > 0 {
		p99 = l.all[len(l.all)*99/100]
	}
	total := l.ok + l.bad
	share := 0.0
	if total > 0 {
		share = 100 * float64(l.ok) / float64(total)
	}
	return fmt.Sprintf("%s %d/%d served (%.1f %%), p99 %v", who, l.ok, total, share, p99.Round(100*time.Microsecond))
}

// tenantLoad posts new reports as tenant B from c clients until ctx ends,
// each answered 201, and records the latencies.
func tenantLoad(ctx context.Context, base string, c int, prefix string) *latencies {
	l := &latencies{}
	var wg sync.WaitGroup
	for w := range c {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				t0 := time.Now()
				a := do(context.WithoutCancel(ctx), "POST", base+"/v1/errors", keyB, report(fmt.Sprintf("q_%s_%d_%d_%d", prefix, runID, w, i), ""), nil)
				ok := a.err == nil && a.status == http.StatusCreated
				failure := ""
				if !ok {
					failure = fmt.Sprintf("%d %v %.200s", a.status, a.err, a.body)
				}
				l.add(time.Since(t0), ok, failure)
			}
		})
	}
	l.wait = wg.Wait
	return l
}
