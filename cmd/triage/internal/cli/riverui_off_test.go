//go:build !riverui

package cli_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/triage-go/triage/cmd/triage/internal/cli"
)

// A binary built without -tags riverui refuses --riverui (and
// TRIAGE_RIVERUI) as a usage error that says how to rebuild, before it
// opens the store; without it, it serves as usual.
func TestServeRiverUINotBuiltIn(t *testing.T) {
	if slices.Contains(cli.BuiltIn(), "riverui") {
		t.Fatalf("BuiltIn() = %v in a build without -tags riverui", cli.BuiltIn())
	}
	db := filepath.Join(t.TempDir(), "triage.db")
	for _, args := range [][]string{{"--riverui"}, nil} {
		t.Setenv("TRIAGE_RIVERUI", "false") // the flag wins
		if args == nil {
			t.Setenv("TRIAGE_RIVERUI", "true")
		}
		var stderr bytes.Buffer
		code := cli.Run(context.Background(), append([]string{"serve", "--db", db}, args...), cli.Env{Stdout: io.Discard, Stderr: &stderr})
		if code != cli.ExitUsage || !strings.Contains(stderr.String(), "--riverui: this triage command was built without River's web UI: rebuild it with -tags riverui") {
			t.Errorf("serve %v: exit %d: %s", args, code, stderr.String())
		}
	}
	if _, err := os.Stat(db); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused serve opened its store: %v", err)
	}
	t.Setenv("TRIAGE_RIVERUI", "false")
	svc := startServe(t, "--db", db)
	if r := call(t, "GET", svc.base+"/riverui/", nil); r.status != 404 {
		t.Errorf("GET /riverui/: %d %s", r.status, r.body)
	}
}
