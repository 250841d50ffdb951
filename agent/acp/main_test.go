package acp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/adapter/acpagent"
	"github.com/triage-go/triage/agent/acp"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/testkit/acptest"
)

// The test binary is its own worker: started with TRIAGE_ACP_TEST_WORKER=1
// it serves ACP on its standard streams (adapter/acpagent) instead of
// running the tests. TRIAGE_ACP_TEST_SILENT=1 makes it a process that reads
// its input and never answers, for the initialize timeout.
func TestMain(m *testing.M) {
	switch {
	case os.Getenv("TRIAGE_ACP_TEST_SILENT") == "1":
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	case os.Getenv("TRIAGE_ACP_TEST_WORKER") == "1":
		if err := acpagent.Run(context.Background(), acptest.AnnouncePrompts(os.Stdin, os.Stderr), os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// waitTurn waits until the worker, the test binary's or the SDK agent,
// has logged that a prompt on session id starting with word reached it:
// "turn of ID begins: WORD" on its stderr, which the pool logs to logs.
func waitTurn(t testing.TB, logs *logBuffer, id, word string) {
	t.Helper()
	logs.await(t, "turn of "+id+" begins: "+word+"\"")
}

// config is a pool of the test binary's worker, streaming with a 1ms pause,
// with short timeouts.
func config(env ...string) acp.Config {
	return acp.Config{
		Command:        []string{os.Args[0]},
		Env:            append([]string{"TRIAGE_ACP_TEST_WORKER=1", "TRIAGE_WORKER_DELAY=1ms"}, env...),
		Source:         "echo",
		StartTimeout:   20 * time.Second,
		RequestTimeout: 20 * time.Second,
		PromptTimeout:  20 * time.Second,
		CancelGrace:    5 * time.Second,
	}
}

// start starts a pool that the test closes when it ends.
func start(t testing.TB, cfg acp.Config) *acp.Pool {
	t.Helper()
	p, err := acp.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// newSession creates a session or fails the test.
func newSession(t testing.TB, p *acp.Pool) string {
	t.Helper()
	id, err := p.NewSession(context.Background())
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	return id
}

// answer is one prompt's outcome: the chunks in order, the stop reason, the
// fault.
type answer struct {
	chunks []string
	stop   string
	err    error
}

func (a answer) text() string { return strings.Join(a.chunks, "") }

// prompt runs one prompt, collecting its chunks.
func prompt(ctx context.Context, p *acp.Pool, id, text string) answer {
	var a answer
	a.stop, a.err = p.Prompt(ctx, id, text, func(c string) { a.chunks = append(a.chunks, c) })
	return a
}

// echo runs a prompt that must succeed with the worker's echo.
func echo(t testing.TB, p *acp.Pool, id, text string) {
	t.Helper()
	a := prompt(context.Background(), p, id, text)
	if a.err != nil || a.stop != "end_turn" || a.text() != "You said: "+text {
		t.Fatalf("Prompt(%q) = %q, %q, %v; want the echo, end_turn", text, a.text(), a.stop, a.err)
	}
}

// workerPID asks the session's worker for its process id.
func workerPID(t testing.TB, p *acp.Pool, id string) int {
	t.Helper()
	a := prompt(context.Background(), p, id, "pid")
	var pid int
	if a.err != nil {
		t.Fatalf("pid: %v", a.err)
	}
	if _, err := fmt.Sscanf(a.text(), "pid: %d", &pid); err != nil {
		t.Fatalf("pid answer %q: %v", a.text(), err)
	}
	return pid
}

// want is what a fault must be.
type want struct {
	code         fault.Code
	category     fault.Category
	message      string
	retryable    bool
	sessionValid bool
	workerID     string // details.workerId, "" for none
}

// check asserts that err is the fault w describes, with the pool's Source.
func check(t testing.TB, err error, w want) *fault.Error {
	t.Helper()
	var f *fault.Error
	if !errors.As(err, &f) {
		t.Fatalf("error %v (%T) is not a *fault.Error", err, err)
	}
	if f.Code != w.code || f.Category != w.category || f.Message != w.message ||
		f.Retryable != w.retryable || f.SessionValid != w.sessionValid {
		t.Fatalf("fault = %s %s %q retryable=%v sessionValid=%v; want %s %s %q retryable=%v sessionValid=%v",
			f.Code, f.Category, f.Message, f.Retryable, f.SessionValid,
			w.code, w.category, w.message, w.retryable, w.sessionValid)
	}
	if f.Source != "echo" || f.Details["agentId"] != "echo" {
		t.Errorf("Source %q, details.agentId %v; want echo", f.Source, f.Details["agentId"])
	}
	if got, _ := f.Details["workerId"].(string); got != w.workerID {
		t.Errorf("details.workerId = %q, want %q", got, w.workerID)
	}
	return f
}

// waitHealthy waits until every worker of the pool is alive.
func waitHealthy(t testing.TB, p *acp.Pool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		alive, total := p.Healthy()
		if alive == total {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Healthy() = %d, %d after 20s", alive, total)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGone waits until the process pid no longer exists (it has exited
// and been reaped).
func waitGone(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for processExists(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still exists", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// settleGoroutines waits for the goroutine count to come back to at most
// base, and fails with the stacks when it does not.
func settleGoroutines(t testing.TB, base int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), base, buf)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// logBuffer is a debug-level text logger whose output a test reads, or
// waits on.
type logBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{} // closed by the next Write, nil till one waits
}

func (l *logBuffer) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.wrote != nil {
		close(l.wrote)
		l.wrote = nil
	}
	return l.buf.Write(b)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// await waits until the log holds text, woken by each write, and fails the
// test with the log when it does not within 10 seconds.
func (l *logBuffer) await(t testing.TB, text string) {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		if strings.Contains(l.buf.String(), text) {
			l.mu.Unlock()
			return
		}
		if l.wrote == nil {
			l.wrote = make(chan struct{})
		}
		wrote := l.wrote
		l.mu.Unlock()
		select {
		case <-wrote:
		case <-deadline.C:
			t.Fatalf("%q is not in the log after 10s:\n%s", text, l.String())
		}
	}
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
