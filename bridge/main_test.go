package bridge_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/adapter/acpagent"
)

// The test binary is its own ACP worker when TRIAGE_BRIDGE_TEST_WORKER=1,
// so that worker agents run as real processes. It writes "test worker:
// turn of ID begins: WORD" to stderr as a prompt reaches it (see
// announcePrompts).
func TestMain(m *testing.M) {
	if os.Getenv("TRIAGE_BRIDGE_TEST_WORKER") == "1" {
		if err := acpagent.Run(context.Background(), announcePrompts(os.Stdin, os.Stderr), os.Stdout); err != nil {
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

// announcePrompts passes in on line by line, and writes "test worker: turn
// of ID begins: WORD" (the prompt's first word) to stderr before each
// session/prompt request it passes, as the SDK test agent does: the pool
// logs it (at debug level), and a test waits for that line to know that a
// prompt has reached the worker (see logBuffer.awaitCount). The same as
// agent/acp's test worker.
func announcePrompts(in io.Reader, stderr io.Writer) io.Reader {
	r, w := io.Pipe()
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var req struct {
				Method string `json:"method"`
				Params struct {
					SessionID string `json:"sessionId"`
					Prompt    []struct {
						Text string `json:"text"`
					} `json:"prompt"`
				} `json:"params"`
			}
			if json.Unmarshal(sc.Bytes(), &req) == nil && req.Method == "session/prompt" {
				word := ""
				if len(req.Params.Prompt) > 0 {
					word, _, _ = strings.Cut(strings.TrimSpace(req.Params.Prompt[0].Text), " ")
				}
				fmt.Fprintf(stderr, "test worker: turn of %s begins: %s\n", req.Params.SessionID, word)
			}
			if _, err := w.Write(append(sc.Bytes(), '\n')); err != nil {
				return
			}
		}
		w.CloseWithError(sc.Err())
	}()
	return r
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
