package main_test

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
	"slices"
	"testing"

	"github.com/triage-go/triage/cmd/triage/internal/cli"
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

// TestDocListsEveryCommand holds doc.go and the usage the binary prints
// together: each lists every command.
func TestDocListsEveryCommand(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cli.Run(context.Background(), nil, cli.Env{Stdout: io.Discard, Stderr: &stderr})
	commands := regexp.MustCompile(`(?m)^(?://)?\s+triage (\w+)`)
	inUsage := map[string]bool{}
	for _, m := range commands.FindAllStringSubmatch(stderr.String(), -1) {
		inUsage[m[1]] = true
	}
	inDoc := map[string]bool{}
	for _, m := range commands.FindAllStringSubmatch(string(doc), -1) {
		inDoc[m[1]] = true
	}
	if len(inUsage) < 6 || !maps.Equal(inUsage, inDoc) {
		t.Errorf("the usage lists %v, doc.go %v", slices.Sorted(maps.Keys(inUsage)), slices.Sorted(maps.Keys(inDoc)))
	}
}
