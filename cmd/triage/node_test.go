package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/triage-go/triage/cmd/triage/internal/cli"
)

// nodeSuite is a pinned npm project of node tests (`node --test`) that
// drive the triage binary with an official client.
type nodeSuite struct {
	dir      string   // relative to cmd/triage: testdata/…, or ../../web
	checks   string   // what the suite checks, for the skip messages
	requires []string // the packages package.json must pin
	// concurrency is how many test files node runs at once (0: all).
	concurrency int
	// tests is the glob of the test files, under dir. Default *.test.js.
	tests string
	// install is the command that installs the suite's packages, from
	// the repository's root. Default: npm ci --prefix cmd/triage/DIR.
	install string
	// env is more of the environment node runs in.
	env []string
	// needs are more pinned npm projects the tests use (dirs relative to
	// cmd/triage, each with the packages it must pin), installed with
	// npm ci --prefix cmd/triage/DIR.
	needs []nodeProject
}

// nodeProject is a pinned npm project a suite's tests use.
type nodeProject struct {
	dir      string
	requires []string
}

// runNodeSuite builds the triage binary and runs the suite's tests against
// it (TRIAGE_BIN), streaming node's output into the test log. It skips,
// saying what to install, when node or node_modules is missing, and fails
// when node fails, skips a test or runs none.
func runNodeSuite(t *testing.T, s nodeSuite) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and runs node; skipped with -short")
	}
	dir, err := filepath.Abs(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	install := s.install
	if install == "" {
		install = "npm ci --prefix cmd/triage/" + s.dir
	}
	glob := s.tests
	if glob == "" {
		glob = "*.test.js"
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node is not on PATH, so %s; install Node.js 20 or later, run `%s`, and run this test again", s.checks, install)
	}
	checkInstalled(t, s, dir, install)
	for _, p := range s.needs {
		pdir, err := filepath.Abs(p.dir)
		if err != nil {
			t.Fatal(err)
		}
		checkInstalled(t, nodeSuite{dir: p.dir, checks: s.checks, requires: p.requires}, pdir, "npm ci --prefix cmd/triage/"+p.dir)
	}
	tests, err := filepath.Glob(filepath.Join(dir, glob))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no %s in %s (%v)", glob, dir, err)
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
	// Every optional part built in: the playground's tests run a provider
	// agent (openai) against a fake provider.
	if out, err := exec.CommandContext(ctx, "go", "build", "-tags", cli.AllTags, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	t.Logf("built %s in %v", bin, time.Since(start).Round(time.Millisecond))

	// The spec reporter, one line a test, with the failures at the end.
	// Each test file runs in a process of its own; they mostly wait on the
	// binary, so several run at once.
	n := s.concurrency
	if n <= 0 {
		n = len(tests)
	}
	args := append([]string{"--test", "--test-reporter=spec", "--test-concurrency=" + strconv.Itoa(n)}, tests...)
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "TRIAGE_BIN="+bin, "NO_COLOR=1", "FORCE_COLOR=0"), s.env...)
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

// checkInstalled skips when node_modules is missing and fails when it does
// not hold the versions package.json pins (a stale install would test
// another client).
func checkInstalled(t *testing.T, s nodeSuite, dir, install string) {
	t.Helper()
	var pkg struct {
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	readJSON(t, filepath.Join(dir, "package.json"), &pkg)
	pins := maps.Clone(pkg.Dependencies)
	if pins == nil {
		pins = map[string]string{}
	}
	maps.Copy(pins, pkg.DevDependencies)
	for _, name := range s.requires {
		if pins[name] == "" {
			t.Fatalf("%s/package.json does not pin %s", s.dir, name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		t.Skipf("%s/node_modules is missing, so %s; run `%s` (%v)", s.dir, s.checks, install, err)
	}
	for name, want := range pins {
		var installed struct {
			Version string `json:"version"`
		}
		path := filepath.Join(dir, "node_modules", filepath.FromSlash(name), "package.json")
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s is not installed: run `%s` (%v)", name, install, err)
		}
		readJSON(t, path, &installed)
		if installed.Version != want {
			t.Fatalf("node_modules holds %s %s, package.json pins %s: run `%s`",
				name, installed.Version, want, install)
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
