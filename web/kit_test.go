package web_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// install is the command that installs what the kit's tests need.
const install = "npm ci --prefix web"

// TestKitVitest runs the kit's Vitest suite (npm test), streaming its
// output into the test log. It skips, saying what to install, when node,
// npm or web/node_modules is missing, and fails when Vitest fails, skips a
// test or runs none.
func TestKitVitest(t *testing.T) {
	t.Parallel()
	npm := needNode(t, "the web kit's Vitest suite does not run")
	report := filepath.Join(t.TempDir(), "vitest.json")
	runNpm(t, npm, "test", "--", "--reporter=default", "--reporter=json", "--outputFile.json="+report)
	var summary struct {
		Success    bool `json:"success"`
		Total      int  `json:"numTotalTests"`
		Passed     int  `json:"numPassedTests"`
		Failed     int  `json:"numFailedTests"`
		Pending    int  `json:"numPendingTests"`
		Todo       int  `json:"numTodoTests"`
		TestSuites int  `json:"numTotalTestSuites"`
	}
	readJSON(t, report, &summary)
	switch {
	case !summary.Success || summary.Failed > 0:
		t.Fatalf("vitest reported failures: %+v", summary)
	case summary.Pending+summary.Todo > 0:
		t.Fatalf("vitest skipped %d tests (and has %d todo); their reasons are above", summary.Pending, summary.Todo)
	case summary.Passed == 0 || summary.Passed != summary.Total:
		t.Fatalf("vitest passed %d of %d tests", summary.Passed, summary.Total)
	}
	t.Logf("vitest: %d tests passed", summary.Passed)
}

// TestKitTypecheck runs the TypeScript compiler over the whole project
// (npm run typecheck): Vitest strips types without checking them.
func TestKitTypecheck(t *testing.T) {
	t.Parallel()
	npm := needNode(t, "the web kit is not type-checked")
	runNpm(t, npm, "run", "typecheck")
}

// needNode returns npm's path. It skips when -short is set, or when node,
// npm or node_modules is missing, saying what the skip leaves unchecked and
// what to install; and fails when node_modules does not hold the versions
// package.json pins (a stale install would test other versions).
func needNode(t *testing.T, unchecked string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs node; skipped with -short")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("node is not on PATH, so %s; install Node.js 20.19 or later, run `%s` from the repository's root, and run this test again", unchecked, install)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skipf("npm is not on PATH, so %s; install npm, run `%s` from the repository's root, and run this test again", unchecked, install)
	}
	var pkg struct {
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	readJSON(t, "package.json", &pkg)
	if _, err := os.Stat("node_modules"); err != nil {
		t.Skipf("web/node_modules is missing, so %s; run `%s` from the repository's root (%v)", unchecked, install, err)
	}
	for _, deps := range []map[string]string{pkg.Dependencies, pkg.DevDependencies} {
		for name, want := range deps {
			var installed struct {
				Version string `json:"version"`
			}
			path := filepath.Join("node_modules", filepath.FromSlash(name), "package.json")
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("%s is not installed: run `%s` (%v)", name, install, err)
			}
			readJSON(t, path, &installed)
			if installed.Version != want {
				t.Fatalf("web/node_modules holds %s %s, package.json pins %s: run `%s`", name, installed.Version, want, install)
			}
		}
	}
	return npm
}

// runNpm runs npm with args in web/, its output in the test log, and fails
// when it fails or does not finish in time.
func runNpm(t *testing.T, npm string, args ...string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	if d, ok := t.Deadline(); ok && d.Add(-30*time.Second).Before(deadline) {
		deadline = d.Add(-30 * time.Second)
	}
	ctx, cancel := context.WithDeadline(t.Context(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
	cmd.Stdout = t.Output()
	cmd.Stderr = t.Output()
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start).Round(time.Millisecond)
	if ctx.Err() != nil {
		t.Fatalf("npm %v did not finish in time (%v): %v", args, elapsed, err)
	}
	if err != nil {
		t.Fatalf("npm %v failed after %v: %v (its output is above)", args, elapsed, err)
	}
	t.Logf("npm %v passed in %v", args[:min(2, len(args))], elapsed)
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
