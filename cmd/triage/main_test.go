package main_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBinary builds the real binary and runs the commands the README shows.
func TestBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "triage")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "classify", "dial tcp 127.0.0.1:5432: connect: connection refused").Output()
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got["code"] != "TRANSPORT_ERROR" || got["retryable"] != true || got["http_status"] != 502.0 {
		t.Errorf("classify: %s", out)
	}
	out, err = exec.Command(bin, "codes", "--format", "json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out, &rows); err != nil || len(rows) < 20 {
		t.Errorf("codes: %v, %d rows", err, len(rows))
	}
	err = exec.Command(bin, "nonsense").Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("unknown command: %v, want exit 2", err)
	}
}
