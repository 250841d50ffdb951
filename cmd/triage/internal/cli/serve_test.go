package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/triage-go/triage/cmd/triage/internal/cli"
	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/wire/sse"
)

// service is a `triage serve` run in the test process, through cli.Run
// (the real Main), on port 0.
type service struct {
	t      *testing.T
	base   string
	cancel context.CancelFunc
	done   chan int
	stderr *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// listening reads the address serve prints first.
// startBinary starts a built triage binary with args and no API keys,
// and returns it with the address it listens on (read off its first line
// of output; the rest is discarded).
func startBinary(t *testing.T, bin string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TRIAGE_API_KEYS=")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	base := listening(t, out)
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return cmd, base
}

func listening(t *testing.T, r io.Reader) string {
	t.Helper()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed no address: %v", err)
	}
	_, rest, ok := strings.Cut(line, "listening on ")
	if !ok {
		t.Fatalf("serve printed %q", line)
	}
	base, _, _ := strings.Cut(rest, " ")
	return base
}

func startServe(t *testing.T, args ...string) *service {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	s := &service{t: t, cancel: cancel, done: make(chan int, 1), stderr: &lockedBuffer{}}
	go func() {
		code := cli.Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...),
			cli.Env{Stdout: pw, Stderr: s.stderr})
		pw.Close()
		s.done <- code
	}()
	s.base = listening(t, pr)
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	t.Cleanup(func() { s.stop() })
	return s
}

// stop shuts the service down as SIGTERM does and returns its exit code.
func (s *service) stop() int {
	s.cancel()
	select {
	case code, ok := <-s.done:
		if !ok {
			return 0
		}
		close(s.done)
		return code
	case <-time.After(40 * time.Second):
		s.t.Fatalf("serve did not stop; stderr:\n%s", s.stderr.String())
	}
	return -1
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) field(t *testing.T, name string) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("status %d: %v: %s", r.status, err, r.body)
	}
	return m[name]
}

func call(t *testing.T, method, url string, body []byte, header ...string) reply {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, b}
}

func goldenFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/handle", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestServeEndToEnd(t *testing.T) { serveEndToEnd(t, filepath.Join(t.TempDir(), "triage.db")) }

// TestServeEndToEndPostgres is the same with --db postgres://….
func TestServeEndToEndPostgres(t *testing.T) { serveEndToEnd(t, pgtest.FreshSchema(t)) }

func serveEndToEnd(t *testing.T, db string) {
	t.Setenv("TRIAGE_API_KEYS", "")
	svc := startServe(t, "--db", db)
	base := svc.base

	// The event stream, before anything happens.
	req, _ := http.NewRequest("GET", base+"/v1/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %v %v", resp, err)
	}
	events := sse.NewReader(resp.Body)

	if r := call(t, "PUT", base+"/v1/schemas/sales", []byte(`{"fields":["sku_id","revenue"],"synonyms":{"product_id":"sku_id"}}`)); r.status != 200 {
		t.Fatalf("PUT schema: %d %s", r.status, r.body)
	}
	for _, name := range []string{"ambiguous_input", "schema_synonym", "schema_missing", "db_timeout", "chart_incompatible", "service_outage"} {
		report := goldenFile(t, name+".json")
		var want map[string]any
		if err := json.Unmarshal(goldenFile(t, name+".feedback"), &want); err != nil {
			t.Fatal(err)
		}
		r := call(t, "POST", base+"/v1/errors", report)
		if r.status != 201 {
			t.Fatalf("%s: %d %s", name, r.status, r.body)
		}
		for _, k := range []string{"error_id", "error_type", "severity", "next_action", "query_id"} {
			if got := r.field(t, k); got != want[k] {
				t.Errorf("%s: %s = %v, the CLI's golden says %v", name, k, got, want[k])
			}
		}
		frame, err := events.Next()
		if err != nil || frame.Event != "feedback" || !strings.Contains(frame.Data, want["error_id"].(string)) {
			t.Fatalf("%s: event %+v %v", name, frame, err)
		}
		dup := call(t, "POST", base+"/v1/errors", report)
		if dup.status != 200 || dup.field(t, "error_id") != want["error_id"] || dup.field(t, "duplicate") != true {
			t.Errorf("%s duplicate: %d %s", name, dup.status, dup.body)
		}
		rec := call(t, "GET", base+"/v1/errors/"+want["error_id"].(string), nil)
		if rec.status != 200 || rec.field(t, "occurrence_count") != 1.0 {
			t.Errorf("%s record: %d %s", name, rec.status, rec.body)
		}
	}
	if r := call(t, "POST", base+"/v1/errors", []byte(`{"agent_id":"x"}`)); r.status != 422 || r.header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("invalid: %d %s", r.status, r.body)
	}
	if r := call(t, "POST", base+"/v1/errors", []byte(`{`)); r.status != 400 {
		t.Errorf("malformed: %d %s", r.status, r.body)
	}
	m := call(t, "GET", base+"/metrics", nil)
	for _, want := range []string{`triage_handler_reports_total{error_type="query_error",next_action="resume",severity="medium",source="query_engine"} 1`,
		`triage_handler_duplicates_total 6`, `triage_http_requests_total{route="POST /v1/errors",status="201"} 6`} {
		if !strings.Contains(string(m.body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if r := call(t, "GET", base+"/readyz", nil); r.status != 200 {
		t.Errorf("readyz %d", r.status)
	}
	// A graceful stop ends the stream with a shutdown event, and exits 0.
	stopped := make(chan int, 1)
	go func() { stopped <- svc.stop() }()
	for {
		frame, err := events.Next()
		if err != nil {
			t.Fatalf("the stream ended without a shutdown event: %v", err)
		}
		if frame.Event == "shutdown" {
			break
		}
	}
	resp.Body.Close()
	if code := <-stopped; code != 0 {
		t.Errorf("exit %d; stderr:\n%s", code, svc.stderr.String())
	}
}

func TestServeTenants(t *testing.T) {
	t.Setenv("TRIAGE_API_KEYS", "acme=acme-key-0123456789ab,globex=globex-key-0123456789")
	svc := startServe(t, "--db", filepath.Join(t.TempDir(), "triage.db"))
	report := goldenFile(t, "db_timeout.json")
	if r := call(t, "POST", svc.base+"/v1/errors", report); r.status != 401 {
		t.Errorf("no key: %d", r.status)
	}
	a := call(t, "POST", svc.base+"/v1/errors", report, "Authorization", "Bearer acme-key-0123456789ab")
	if a.status != 201 {
		t.Fatalf("acme: %d %s", a.status, a.body)
	}
	id := a.field(t, "error_id").(string)
	if r := call(t, "GET", svc.base+"/v1/errors/"+id, nil, "X-API-Key", "globex-key-0123456789"); r.status != 404 {
		t.Errorf("globex reads acme's record: %d", r.status)
	}
	if r := call(t, "GET", svc.base+"/v1/errors/"+id, nil, "X-API-Key", "acme-key-0123456789ab"); r.status != 200 {
		t.Errorf("acme reads its record: %d", r.status)
	}
	svc.stop()
	if logs := svc.stderr.String(); strings.Contains(logs, "acme-key") || strings.Contains(logs, "globex-key") {
		t.Errorf("a key reached the log:\n%s", logs)
	}
}

// TestServeConcurrentIdentical: 50 identical reports at once are one
// error, handled once: one 201, every other answer a 200 with the same
// error_id (after retrying the 409s of the first's time in flight), and
// each action ran once.
func TestServeConcurrentIdentical(t *testing.T) {
	t.Setenv("TRIAGE_API_KEYS", "")
	// No rate limit: the clients retry their 409s every 20ms, faster than
	// a tenant may.
	svc := startServe(t, "--db", filepath.Join(t.TempDir(), "triage.db"), "--rate-limit", "-1")
	report := goldenFile(t, "db_timeout.json")
	// A callback URL, so that the retry is a job (nothing listens there).
	if r := call(t, "PUT", svc.base+"/v1/agents/query_engine", []byte(`{"callback_url":"http://127.0.0.1:9/retry"}`)); r.status != 200 {
		t.Fatalf("PUT /v1/agents/query_engine: %d %s", r.status, r.body)
	}
	var created, ok, busy atomic.Int32
	ids := make(chan string, 50)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			for try := 0; ; try++ {
				r := call(t, "POST", svc.base+"/v1/errors", report)
				switch r.status {
				case 201:
					created.Add(1)
				case 200:
					ok.Add(1)
				case 409:
					busy.Add(1)
					if try < 100 {
						time.Sleep(20 * time.Millisecond)
						continue
					}
					fallthrough
				default:
					t.Errorf("status %d: %s", r.status, r.body)
					return
				}
				ids <- r.field(t, "error_id").(string)
				return
			}
		})
	}
	wg.Wait()
	close(ids)
	first := ""
	for id := range ids {
		if first == "" {
			first = id
		}
		if id != first {
			t.Errorf("error_id %s and %s", first, id)
		}
	}
	if created.Load() != 1 || ok.Load() != 49 {
		t.Errorf("201s %d, 200s %d (409s retried: %d)", created.Load(), ok.Load(), busy.Load())
	}
	var rec store.Record
	r := call(t, "GET", svc.base+"/v1/errors/"+first, nil)
	if err := json.Unmarshal(r.body, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Count != 1 || len(rec.Jobs) != 1 || rec.Jobs[0].Kind != store.JobRetry {
		t.Errorf("one occurrence and one retry job expected: count %d, jobs %+v", rec.Count, rec.Jobs)
	}
	m := call(t, "GET", svc.base+"/metrics", nil)
	for _, action := range []string{"retry", "use_cache", "reduce_scope"} {
		if n := metricSum(string(m.body), `triage_handler_actions_total{action="`+action+`"`); n != 1 {
			t.Errorf("action %s ran %v times, want once", action, n)
		}
	}
}

// metricSum adds the values of the exposition lines that begin with prefix.
func metricSum(exposition, prefix string) float64 {
	sum := 0.0
	for _, line := range strings.Split(exposition, "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v); err == nil {
			sum += v
		}
	}
	return sum
}

// TestServeRestartRunsJob: a retry accepted before a restart runs after it.
func TestServeRestartRunsJob(t *testing.T) {
	t.Setenv("TRIAGE_API_KEYS", "")
	var calls atomic.Int32
	got := make(chan []byte, 4)
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		calls.Add(1)
		got <- b
	}))
	defer agent.Close()
	db := filepath.Join(t.TempDir(), "triage.db")
	svc := startServe(t, "--db", db)
	if r := call(t, "PUT", svc.base+"/v1/agents/query_engine", []byte(`{"callback_url":"`+agent.URL+`/retry"}`)); r.status != 200 {
		t.Fatalf("PUT agent: %d %s", r.status, r.body)
	}
	// The report's timestamp is now, so that its retry is due in 2s.
	report := bytes.Replace(goldenFile(t, "db_timeout.json"), []byte("2025-08-08T12:20:05Z"),
		[]byte(time.Now().UTC().Format(time.RFC3339)), 1)
	r := call(t, "POST", svc.base+"/v1/errors", report)
	if r.status != 201 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	id := r.field(t, "error_id").(string)
	if code := svc.stop(); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("the retry ran before the restart (%d calls): the test proves nothing", n)
	}
	svc = startServe(t, "--db", db)
	select {
	case body := <-got:
		if !bytes.Contains(body, []byte(id)) {
			t.Errorf("callback body %s", body)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the retry did not run after the restart")
	}
	// The attempt is recorded.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var rec store.Record
		if err := json.Unmarshal(call(t, "GET", svc.base+"/v1/errors/"+id, nil).body, &rec); err != nil {
			t.Fatal(err)
		}
		if len(rec.Jobs) == 1 && rec.Jobs[0].State == store.JobCompleted && len(rec.Jobs[0].Attempts) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job not recorded as completed: %+v", rec.Jobs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestServeKill9: every report that got a 201 is there after kill -9 under
// load and a restart.
func TestServeKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary and kills it under load")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "triage")
	build := exec.Command("go", "build", "-o", bin, "github.com/triage-go/triage/cmd/triage")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	db := filepath.Join(dir, "triage.db")
	start := func() (*exec.Cmd, string) {
		return startBinary(t, bin, "serve", "--addr", "127.0.0.1:0", "--db", db, "--rate-limit", "-1")
	}
	cmd, base := start()
	var mu sync.Mutex
	var acked []string
	var sent atomic.Int32
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 5 * time.Second}
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				n := sent.Add(1)
				if n > 5000 {
					return
				}
				body := fmt.Sprintf(`{"agent_id":"loader","timestamp":"2025-08-08T12:00:00Z","status":"error","data":{"error_code":"DB_TIMEOUT","message":"Query timed out","query_id":"q_%d_%d"}}`, w, i)
				resp, err := client.Post(base+"/v1/errors", "application/json", strings.NewReader(body))
				if err != nil {
					return // the process is gone
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 201 {
					var fb struct {
						ErrorID string `json:"error_id"`
					}
					if json.Unmarshal(b, &fb) == nil {
						mu.Lock()
						acked = append(acked, fb.ErrorID)
						mu.Unlock()
					}
				}
			}
		})
	}
	time.Sleep(1500 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	close(stop)
	wg.Wait()
	if len(acked) == 0 {
		t.Fatal("no report was acknowledged before the kill: the test proves nothing")
	}
	cmd, base = start()
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	missing := 0
	for _, id := range acked {
		resp, err := client.Get(base + "/v1/errors/" + id)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			missing++
		}
	}
	t.Logf("%d reports acknowledged before kill -9 (of %d sent); %d missing after restart", len(acked), sent.Load(), missing)
	if missing > 0 {
		t.Errorf("%d of %d acknowledged reports lost", missing, len(acked))
	}
}

func TestServeKeysFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(file, []byte("# tenants\nacme=acme-key-0123456789ab\n\nglobex=globex-key-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TRIAGE_API_KEYS", "")
	t.Setenv("TRIAGE_API_KEYS_FILE", file)
	svc := startServe(t, "--db", filepath.Join(t.TempDir(), "triage.db"))
	if r := call(t, "GET", svc.base+"/v1/errors", nil, "X-API-Key", "globex-key-0123456789"); r.status != 200 {
		t.Errorf("a key from the file: %d %s", r.status, r.body)
	}
	if r := call(t, "GET", svc.base+"/v1/errors", nil); r.status != 401 {
		t.Errorf("no key: %d", r.status)
	}
	// A bad entry is a usage error, naming the entry but not the key.
	if err := os.WriteFile(file, []byte("acme=short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	code := cli.Run(context.Background(), []string{"serve", "--db", filepath.Join(t.TempDir(), "x.db")}, cli.Env{Stdout: io.Discard, Stderr: &stderr})
	if code != cli.ExitUsage || !strings.Contains(stderr.String(), "at least 16 characters") || strings.Contains(stderr.String(), "short") {
		t.Errorf("bad keys file: exit %d: %s", code, stderr.String())
	}
}

// --private-callbacks (TRIAGE_PRIVATE_CALLBACKS): with API keys, a
// callback at a loopback address is refused unless it is given.
func TestServePrivateCallbacks(t *testing.T) {
	t.Setenv("TRIAGE_API_KEYS", "acme=acme-key-0123456789ab")
	t.Setenv("TRIAGE_API_KEYS_FILE", "")
	put := func(svc *service) reply {
		return call(t, "PUT", svc.base+"/v1/agents/query_engine", []byte(`{"callback_url":"http://127.0.0.1:8081/retry"}`),
			"X-API-Key", "acme-key-0123456789ab")
	}
	if r := put(startServe(t, "--db", filepath.Join(t.TempDir(), "triage.db"))); r.status != 422 || !bytes.Contains(r.body, []byte("callback_url")) {
		t.Errorf("by default: %d %s", r.status, r.body)
	}
	if r := put(startServe(t, "--db", filepath.Join(t.TempDir(), "triage.db"), "--private-callbacks")); r.status != 200 {
		t.Errorf("--private-callbacks: %d %s", r.status, r.body)
	}
	t.Setenv("TRIAGE_PRIVATE_CALLBACKS", "true")
	if r := put(startServe(t, "--db", filepath.Join(t.TempDir(), "triage.db"))); r.status != 200 {
		t.Errorf("TRIAGE_PRIVATE_CALLBACKS=true: %d %s", r.status, r.body)
	}
}

// --retain-records: a record older than the age is deleted, here by the
// expiry serve runs as it starts.
func TestServeRetainRecords(t *testing.T) {
	db := filepath.Join(t.TempDir(), "triage.db")
	svc := startServe(t, "--db", db, "--retain-records", "1s")
	// A report that schedules no job: a record with a job still to run
	// is kept until the job ends.
	r := call(t, "POST", svc.base+"/v1/errors", goldenFile(t, "chart_incompatible.json"))
	if r.status != 201 {
		t.Fatalf("POST: %d %s", r.status, r.body)
	}
	id, _ := r.field(t, "error_id").(string)
	if code := svc.stop(); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	// Kept without the flag, whatever its age.
	time.Sleep(1100 * time.Millisecond)
	svc = startServe(t, "--db", db)
	if r := call(t, "GET", svc.base+"/v1/errors/"+id, nil); r.status != 200 {
		t.Fatalf("without --retain-records: GET %d %s", r.status, r.body)
	}
	svc.stop()
	t.Setenv("TRIAGE_RETAIN_RECORDS", "1s")
	svc = startServe(t, "--db", db)
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := call(t, "GET", svc.base+"/v1/errors/"+id, nil)
		if r.status == 404 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a record older than --retain-records is still there: %d", r.status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, bad := range []string{"5x", "-1h", "d", "1.5d", "106752d", "213504d", "99999999999999999999d"} {
		var stderr bytes.Buffer
		code := cli.Run(context.Background(), []string{"serve", "--db", db, "--retain-records", bad}, cli.Env{Stdout: io.Discard, Stderr: &stderr})
		if code != cli.ExitUsage || !strings.Contains(stderr.String(), "number of days") {
			t.Errorf("--retain-records %s: exit %d: %s", bad, code, stderr.String())
		}
	}
}

// --problem-base makes problem types absolute; TRIAGE_PROBLEM_BASE too;
// a base that is not an absolute http(s) URI is a usage error.
func TestServeProblemBase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "triage.db")
	svc := startServe(t, "--db", db, "--problem-base", "https://docs.example/")
	r := call(t, "GET", svc.base+"/v1/errors/err_0123456789abcdef", nil)
	if typ, _ := r.field(t, "type").(string); r.status != 404 || typ != "https://docs.example/errors/not-found" {
		t.Errorf("GET: %d %s", r.status, r.body)
	}
	svc.stop()
	t.Setenv("TRIAGE_PROBLEM_BASE", "https://env.example/")
	svc = startServe(t, "--db", db)
	if typ, _ := call(t, "GET", svc.base+"/v1/errors/err_0123456789abcdef", nil).field(t, "type").(string); typ != "https://env.example/errors/not-found" {
		t.Errorf("from the environment: type %q", typ)
	}
	svc.stop()
	for _, bad := range []string{"docs.example", "/errors", "mailto:ops@example.com"} {
		var stderr bytes.Buffer
		code := cli.Run(context.Background(), []string{"serve", "--db", db, "--problem-base", bad}, cli.Env{Stdout: io.Discard, Stderr: &stderr})
		if code != cli.ExitUsage || !strings.Contains(stderr.String(), "--problem-base must be") {
			t.Errorf("--problem-base %s: exit %d: %s", bad, code, stderr.String())
		}
	}
}

// --alerts gives the tenants it names their alert rules and targets,
// read-only through the API; a file that is not valid is a usage error
// naming the member at fault.
func TestServeAlertsFile(t *testing.T) {
	dir := t.TempDir()
	db, file := filepath.Join(dir, "triage.db"), filepath.Join(dir, "alerts.yaml")
	alerts := `tenants:
  default:
    targets:
      - {name: oncall, kind: pagerduty, routing_key: R0UTINGKEY}
    rules:
      - {id: bursts, when: frequency, count: 100, window_seconds: 60, targets: [oncall]}
`
	if err := os.WriteFile(file, []byte(alerts), 0o600); err != nil {
		t.Fatal(err)
	}
	svc := startServe(t, "--db", db, "--alerts", file, "--public-url", "https://triage.example.com")
	r := call(t, "GET", svc.base+"/v1/alerts/rules", nil)
	if r.status != 200 || !strings.Contains(string(r.body), `"source":"file"`) || !strings.Contains(string(r.body), `"id":"bursts"`) {
		t.Errorf("GET rules: %d %s", r.status, r.body)
	}
	if r := call(t, "GET", svc.base+"/v1/alerts/targets", nil); r.status != 200 || strings.Contains(string(r.body), "R0UTINGKEY") {
		t.Errorf("GET targets: %d %s", r.status, r.body)
	}
	svc.stop()
	if err := os.WriteFile(file, []byte(strings.Replace(alerts, "count: 100", "count: 0", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	code := cli.Run(context.Background(), []string{"serve", "--db", db, "--alerts", file}, cli.Env{Stdout: io.Discard, Stderr: &stderr})
	if code != cli.ExitUsage || !strings.Contains(stderr.String(), "rules[0].count") {
		t.Errorf("an invalid alerts file: exit %d: %s", code, stderr.String())
	}
}

// --cors-origins turns CORS on for the API, TRIAGE_CORS_ORIGINS too (the
// flag wins); off, a preflight is a 405; a list a browser's Origin could
// never match, or "*" without API keys, is a usage error.
func TestServeCORSOrigins(t *testing.T) {
	const page = "http://127.0.0.1:5173"
	t.Setenv("TRIAGE_API_KEYS", "")
	t.Setenv("TRIAGE_CORS_ORIGINS", "")
	db := filepath.Join(t.TempDir(), "triage.db")
	preflight := func(svc *service, origin string) reply {
		return call(t, "OPTIONS", svc.base+"/v1/errors", nil, "Origin", origin,
			"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type,idempotency-key")
	}
	allowed := func(r reply, origin string) bool {
		return r.status == http.StatusNoContent && r.header.Get("Access-Control-Allow-Origin") == origin
	}

	svc := startServe(t, "--db", db)
	if r := preflight(svc, page); r.status != http.StatusMethodNotAllowed || r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("off by default: %d %v", r.status, r.header)
	}
	svc.stop()

	svc = startServe(t, "--db", db, "--cors-origins", page+", https://app.example.com")
	if r := preflight(svc, page); !allowed(r, page) {
		t.Errorf("--cors-origins: %d %v", r.status, r.header)
	}
	if r := preflight(svc, "https://app.example.com"); !allowed(r, "https://app.example.com") {
		t.Errorf("--cors-origins, second origin: %d %v", r.status, r.header)
	}
	if r := preflight(svc, "http://127.0.0.1:5174"); r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("--cors-origins, an origin not listed: %d %v", r.status, r.header)
	}
	svc.stop()

	t.Setenv("TRIAGE_CORS_ORIGINS", "https://env.example")
	svc = startServe(t, "--db", db)
	if r := preflight(svc, "https://env.example"); !allowed(r, "https://env.example") {
		t.Errorf("TRIAGE_CORS_ORIGINS: %d %v", r.status, r.header)
	}
	if r := preflight(svc, page); r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("TRIAGE_CORS_ORIGINS, an origin not listed: %d %v", r.status, r.header)
	}
	svc.stop()
	svc = startServe(t, "--db", db, "--cors-origins", page)
	if r := preflight(svc, "https://env.example"); r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("the flag wins over TRIAGE_CORS_ORIGINS: %d %v", r.status, r.header)
	}
	svc.stop()
	t.Setenv("TRIAGE_CORS_ORIGINS", "")

	for _, c := range []struct{ spec, keys, want string }{
		{"*", "", `"*" needs API keys`},
		{"*,https://app.example.com", "acme=acme-key-0123456789ab", "must be alone"},
		{"https://app.example.com/", "", "no path"},
		{"null", "", "sandboxed"},
		{"https://*.example.com", "", "no wildcard"},
		{"app.example.com", "", "not an origin"},
	} {
		t.Setenv("TRIAGE_API_KEYS", c.keys)
		var stderr bytes.Buffer
		code := cli.Run(context.Background(), []string{"serve", "--db", db, "--cors-origins", c.spec}, cli.Env{Stdout: io.Discard, Stderr: &stderr})
		if code != cli.ExitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("--cors-origins %q: exit %d: %s", c.spec, code, stderr.String())
		}
	}
	// "*" with API keys: every origin, with the wildcard.
	t.Setenv("TRIAGE_API_KEYS", "acme=acme-key-0123456789ab")
	svc = startServe(t, "--db", db, "--cors-origins", "*")
	if r := preflight(svc, "https://any.example"); !allowed(r, "*") {
		t.Errorf(`--cors-origins "*": %d %v`, r.status, r.header)
	}
	svc.stop()
}
