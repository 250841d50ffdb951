package acptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
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

// AnnouncePrompts passes in on line by line, and writes "test worker: turn
// of ID begins: WORD" (the prompt's first word) to stderr before each
// session/prompt request it passes: the pool logs it, and a test waits for
// that line to know that a prompt has reached the worker. The test binaries
// that run acpagent as a worker wrap its stdin with it, as the SDK test
// agent (SDKAgent) announces its turns itself.
func AnnouncePrompts(in io.Reader, stderr io.Writer) io.Reader {
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
