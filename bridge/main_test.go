package bridge_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/triage-go/triage/adapter/acpagent"
)

// The test binary is its own ACP worker when TRIAGE_BRIDGE_TEST_WORKER=1,
// so that worker agents run as real processes.
func TestMain(m *testing.M) {
	if os.Getenv("TRIAGE_BRIDGE_TEST_WORKER") == "1" {
		if err := acpagent.Run(context.Background(), os.Stdin, os.Stdout); err != nil {
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
