//go:build !openai

package cli_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/triage-go/triage/cmd/triage/internal/cli"
)

// An agents file that names a provider this binary was built without
// fails before any agent starts, and says which build tag brings it in,
// with the details that name the agent and the field.
func TestProviderNotBuiltIn(t *testing.T) {
	if slices.Contains(cli.BuiltIn(), "openai") {
		t.Fatalf("BuiltIn() = %v in a build without -tags openai", cli.BuiltIn())
	}
	file := filepath.Join(t.TempDir(), "agents.yaml")
	if err := os.WriteFile(file, []byte("agents:\n  - {id: echo, kind: script}\n  - id: gpt\n    kind: openai\n    model: gpt-4o-mini\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, "", "bridge", "--agents", file)
	want := "triage bridge: CONFIG_ERROR: This triage command was built without the openai provider: rebuild it with -tags openai " +
		"(go build -tags openai ./cmd/triage; or -tags " + cli.AllTags + " for every optional part) " +
		"(agentId=gpt, buildTag=openai, field=agents[1].kind, file=" + file + ", providerId=openai)\n"
	if r.code != cli.ExitError || !strings.HasSuffix(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want it to end with %q", r.code, r.stderr, want)
	}
}
