package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// aguiClientDir is the pinned npm project whose node tests drive the AG-UI
// run endpoint with the official @ag-ui/client.
const aguiClientDir = "testdata/agui-client"

// TestAGUIClient builds the triage binary and runs testdata/agui-client's
// tests (`node --test`) against `triage serve`: the official AG-UI client
// (@ag-ui/client and @ag-ui/core 1.0.0, pinned in package.json and
// package-lock.json) points its HttpAgent at POST /v1/agents/{agent_id}/runs and
// checks what its subscriber callbacks receive: a streamed answer, runs
// failing before and after text (RUN_ERROR with code, retryability and
// retry delay), the client aborting a run (the server stops it), inputs and
// runs refused before the stream (problem+json), the API keys, and that
// the client's own verifier and enforcement accept every stream without a
// warning. Node's output is streamed into the test log.
//
// It needs Node.js 20 or later and the packages installed:
//
//	npm ci --prefix cmd/triage/testdata/agui-client
//
// and skips, saying which is missing, without them (CI installs them: see
// .ci/run, where nothing may skip).
func TestAGUIClient(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and runs node; skipped with -short")
	}
	dir, err := filepath.Abs(aguiClientDir)
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH, so the AG-UI run endpoint is not checked with the official @ag-ui/client; " +
			"install Node.js 20 or later, run `npm ci --prefix cmd/triage/testdata/agui-client`, and run this test again")
	}
	checkAGUIInstalled(t, dir)
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

	// The spec reporter, one line a test, with the failures at the end.
	// Each test file runs in a process of its own, all at once: they mostly
	// wait on the binary (heartbeat.test.js waits 16s for a keep-alive).
	args := append([]string{"--test", "--test-reporter=spec", "--test-concurrency=" + strconv.Itoa(len(tests))}, tests...)
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
		t.Fatalf("node skipped %s tests; their reasons are above", m[1])
	}
	if m := regexp.MustCompile(`(?m)^ℹ pass (\d+)$`).FindSubmatch(report.Bytes()); m == nil || string(m[1]) == "0" {
		t.Fatalf("node ran no test")
	}
	t.Logf("node --test passed in %v", elapsed)
}

// checkAGUIInstalled skips when node_modules is missing and fails when it
// does not hold the versions package.json pins (a stale install would test
// another client).
func checkAGUIInstalled(t *testing.T, dir string) {
	t.Helper()
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, filepath.Join(dir, "package.json"), &pkg)
	if pkg.Dependencies["@ag-ui/client"] == "" || pkg.Dependencies["@ag-ui/core"] == "" {
		t.Fatalf("%s/package.json does not pin @ag-ui/client and @ag-ui/core", aguiClientDir)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		t.Skipf("%s/node_modules is missing, so the AG-UI run endpoint is not checked with the official @ag-ui/client; "+
			"run `npm ci --prefix cmd/triage/testdata/agui-client` (%v)", aguiClientDir, err)
	}
	for name, want := range pkg.Dependencies {
		var installed struct {
			Version string `json:"version"`
		}
		path := filepath.Join(dir, "node_modules", filepath.FromSlash(name), "package.json")
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s is not installed: run `npm ci --prefix cmd/triage/testdata/agui-client` (%v)", name, err)
		}
		readJSON(t, path, &installed)
		if installed.Version != want {
			t.Fatalf("node_modules holds %s %s, package.json pins %s: run `npm ci --prefix cmd/triage/testdata/agui-client`",
				name, installed.Version, want)
		}
	}
}
