package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestPythonClient builds the triage binary and runs the Python client's
// tests (clients/python, the standard library's unittest) with
// TRIAGE_BIN set: its unit tests against a local stub, and its
// integration tests against a real `triage serve` each starts. It needs
// python3 (3.11 or later) and nothing from PyPI, and skips, saying so,
// only without python3 (CI has it; nothing may skip there). It fails when
// a Python test fails or skips, or none runs.
func TestPythonClient(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and runs python3; skipped with -short")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("python3 is not on PATH, so the Python client (clients/python) is not tested; install Python 3.11 or later (apt-get install -y python3) and run this test again (%v)", err)
	}
	dir, err := filepath.Abs("../../clients/python")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Minute)
	if d, ok := t.Deadline(); ok && d.Add(-30*time.Second).Before(deadline) {
		deadline = d.Add(-30 * time.Second)
	}
	ctx, cancel := context.WithDeadline(t.Context(), deadline)
	defer cancel()

	bin := filepath.Join(t.TempDir(), "triage")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	if out, err := exec.CommandContext(ctx, python, "-c", "import sys; assert sys.version_info >= (3, 11), sys.version").CombinedOutput(); err != nil {
		t.Fatalf("the Python client needs Python 3.11 or later: %v\n%s", err, out)
	}
	cmd := exec.CommandContext(ctx, python, "-m", "unittest", "discover", "-v", "-s", "tests", "-t", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TRIAGE_BIN="+bin, "PYTHONDONTWRITEBYTECODE=1")
	var report bytes.Buffer
	cmd.Stdout = t.Output()
	cmd.Stderr = io.MultiWriter(t.Output(), &report) // unittest reports on stderr
	// On the deadline python is interrupted (its tests stop the services
	// they started) and, if it lingers, killed.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	err = cmd.Run()
	elapsed := time.Since(start).Round(time.Millisecond)
	if ctx.Err() != nil {
		t.Fatalf("the Python tests did not finish in time (%v): %v", elapsed, err)
	}
	if err != nil {
		t.Fatalf("the Python tests failed after %v: %v (the failures are above)", elapsed, err)
	}
	if m := regexp.MustCompile(`skipped=(\d+)`).FindSubmatch(report.Bytes()); m != nil {
		t.Fatalf("python skipped %s tests; their reasons are above", m[1])
	}
	m := regexp.MustCompile(`(?m)^Ran (\d+) tests?`).FindSubmatch(report.Bytes())
	if m == nil || string(m[1]) == "0" {
		t.Fatalf("python ran no test")
	}
	t.Logf("%s Python tests passed in %v", m[1], elapsed)
}
