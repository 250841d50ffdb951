package acptest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Install is the command that installs the agent's packages, from the
// repository's root.
const Install = "npm ci --prefix cmd/triage/testdata/acp-agent"

// Dir is the agent's directory, cmd/triage/testdata/acp-agent, as an
// absolute path.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "cmd", "triage", "testdata", "acp-agent")
}

// SDKAgent returns the command that runs the agent, [node, .../agent.mjs],
// both absolute. It skips the test when node is not on PATH or the agent's
// node_modules is missing, and fails it when node_modules holds another
// version of the SDK than package.json pins.
func SDKAgent(t testing.TB) []string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node is not on PATH, so the ACP agent on the official TypeScript ACP SDK cannot run; install Node.js 20 or later, run `%s`, and run this test again", Install)
	}
	dir := Dir()
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, filepath.Join(dir, "package.json"), &pkg)
	const sdk = "@agentclientprotocol/sdk"
	want := pkg.Dependencies[sdk]
	if want == "" {
		t.Fatalf("%s/package.json does not pin %s", dir, sdk)
	}
	installed := filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "package.json")
	if _, err := os.Stat(installed); err != nil {
		t.Skipf("%s is not installed, so the ACP agent on the official TypeScript ACP SDK cannot run; run `%s` (%v)", sdk, Install, err)
	}
	var got struct {
		Version string `json:"version"`
	}
	readJSON(t, installed, &got)
	if got.Version != want {
		t.Fatalf("node_modules holds %s %s, package.json pins %s: run `%s`", sdk, got.Version, want, Install)
	}
	return []string{node, filepath.Join(dir, "agent.mjs")}
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
