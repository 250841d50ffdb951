package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
	"time"
)

// mcpClientDir is the pinned npm project whose node tests drive the bridge
// with the official TypeScript MCP client.
const mcpClientDir = "testdata/mcp-client"

// TestMCPClient builds the triage binary and runs testdata/mcp-client's
// tests (`node --test`) against it: the official TypeScript MCP client
// (@modelcontextprotocol/sdk, pinned in package.json and package-lock.json)
// talks to `triage bridge` over stdio and to `triage serve`'s /mcp over
// streamable HTTP, and checks what a client sees: the tools, a whole
// session with the answer as progress notifications, and every failure of
// seed 002. Node's output is streamed into the test log.
//
// It needs Node.js 20 or later and the packages installed:
//
//	npm ci --prefix cmd/triage/testdata/mcp-client
//
// and skips, saying which is missing, without them (CI installs them: see
// .ci/run, where nothing may skip).
func TestMCPClient(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and runs node; skipped with -short")
	}
	dir, err := filepath.Abs(mcpClientDir)
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH, so the bridge is not checked with the official TypeScript MCP client; " +
			"install Node.js 20 or later, run `npm ci --prefix cmd/triage/testdata/mcp-client`, and run this test again")
	}
	checkInstalled(t, dir)
	tests, err := filepath.Glob(filepath.Join(dir, "*.test.js"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no *.test.js in %s (%v)", dir, err)
	}

	deadline := time.Now().Add(5 * time.Minute)
	if d, ok := t.Deadline(); ok && d.Add(-30*time.Second).Before(deadline) {
		deadline = d.Add(-30 * time.Second)
	}
	ctx, cancel := context.WithDeadline(t.Context(), deadline)
	defer cancel()

	bin := filepath.Join(t.TempDir(), "triage")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	start := time.Now()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	t.Logf("built %s in %v", bin, time.Since(start).Round(time.Millisecond))

	// The spec reporter, one line a test, with the failures and their
	// diffs at the end. Each test file runs in a process of its own, four
	// at a time: they mostly wait on the binary, and node's default (one
	// fewer than the CPUs) runs them one by one on a small CI machine.
	args := append([]string{"--test", "--test-reporter=spec", "--test-concurrency=4"}, tests...)
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TRIAGE_BIN="+bin, "NO_COLOR=1", "FORCE_COLOR=0")
	var report bytes.Buffer
	cmd.Stdout = io.MultiWriter(t.Output(), &report)
	cmd.Stderr = t.Output()
	// On the deadline node is interrupted (each test file then kills the
	// processes it started) and, if it lingers, killed.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	start = time.Now()
	err = cmd.Run()
	elapsed := time.Since(start).Round(time.Millisecond)
	if ctx.Err() != nil {
		t.Fatalf("node --test did not finish in time (%v): %v", elapsed, err)
	}
	if err != nil {
		t.Fatalf("node --test failed after %v: %v (the failing tests are listed above)", elapsed, err)
	}
	if m := regexp.MustCompile(`(?m)^ℹ skipped (\d+)$`).FindSubmatch(report.Bytes()); m != nil && string(m[1]) != "0" {
		t.Logf("node skipped %s tests; their reasons are above", m[1])
	}
	t.Logf("node --test passed in %v", elapsed)
}

// checkInstalled skips when node_modules is missing and fails when it
// does not hold the versions package.json pins (a stale install would test
// another client).
func checkInstalled(t *testing.T, dir string) {
	t.Helper()
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, filepath.Join(dir, "package.json"), &pkg)
	if len(pkg.Dependencies) == 0 {
		t.Fatalf("%s/package.json pins no dependencies", mcpClientDir)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		t.Skipf("%s/node_modules is missing, so the bridge is not checked with the official TypeScript MCP client; "+
			"run `npm ci --prefix cmd/triage/testdata/mcp-client` (%v)", mcpClientDir, err)
	}
	for name, want := range pkg.Dependencies {
		var installed struct {
			Version string `json:"version"`
		}
		path := filepath.Join(dir, "node_modules", filepath.FromSlash(name), "package.json")
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s is not installed: run `npm ci --prefix cmd/triage/testdata/mcp-client` (%v)", name, err)
		}
		readJSON(t, path, &installed)
		if installed.Version != want {
			t.Fatalf("node_modules holds %s %s, package.json pins %s: run `npm ci --prefix cmd/triage/testdata/mcp-client`",
				name, installed.Version, want)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
