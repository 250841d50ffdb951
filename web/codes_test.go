package web_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/triage-go/triage/internal/tsgen/render"
)

// TestCodesUpToDate fails when packages/kit/src/codes.ts no longer matches the fault
// code table.
func TestCodesUpToDate(t *testing.T) {
	t.Parallel()
	var want bytes.Buffer
	if err := render.Codes(&want); err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("packages/kit/src/codes.ts")
	if err != nil {
		t.Fatalf("%v: run go generate ./web", err)
	}
	if !bytes.Equal(have, want.Bytes()) {
		t.Fatal("web/packages/kit/src/codes.ts is stale (the fault code table changed, or the file was edited by hand): run go generate ./web")
	}
}
