package bridge_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/adapter/acpagent"
	"github.com/triage-go/triage/internal/testkit/acptest"
)

// The test binary is its own ACP worker when TRIAGE_BRIDGE_TEST_WORKER=1,
// so that worker agents run as real processes. It writes "test worker:
// turn of ID begins: WORD" to stderr as a prompt reaches it (see
// announcePrompts).
func TestMain(m *testing.M) {
	if os.Getenv("TRIAGE_BRIDGE_TEST_WORKER") == "1" {
		if err := acpagent.Run(context.Background(), acptest.AnnouncePrompts(os.Stdin, os.Stderr), os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// workerAgents is an agents file with a worker agent of this binary.
func workerAgents(t testing.TB, workers int, env string) string {
	return fmt.Sprintf(`
agents:
  - id: worker
    kind: acp
    command: [%q]
    env: {TRIAGE_BRIDGE_TEST_WORKER: "1", TRIAGE_WORKER_DELAY: %q}
    workers: %d
    maxSessions: 256
`, os.Args[0], env, workers)
}

// logBuffer is the output of a debug-level text logger, which a test
// waits on.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(b)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// awaitCount waits until the log holds text n times, and fails the test
// with the log when it does not within 20 seconds (a bound for a loaded
// machine, never the expected time).
func (l *logBuffer) awaitCount(t testing.TB, text string, n int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); strings.Count(l.String(), text) < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%q is not %d times in the log after 20s:\n%s", text, n, l.String())
		}
	}
}
