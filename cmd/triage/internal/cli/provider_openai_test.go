//go:build openai

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-go/triage/cmd/triage/internal/cli"
)

// A fault that stops a command is printed with its details, which name
// what to fix: here the agent and the variable its key is looked for in.
func TestFailurePrintsTheDetails(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	file := filepath.Join(t.TempDir(), "agents.yaml")
	if err := os.WriteFile(file, []byte("agents:\n  - id: gpt\n    kind: openai\n    model: gpt-4o-mini\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, "", "bridge", "--agents", file)
	want := "triage bridge: CONFIG_ERROR: Missing required credential: apiKey (agentId=gpt, apiKeyEnv=OPENAI_API_KEY, field=apiKey, providerId=openai)\n"
	if r.code != cli.ExitError || !strings.HasSuffix(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want it to end with %q", r.code, r.stderr, want)
	}
}
