package web_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// apigenInstall installs what TestAPITypesUpToDate needs.
const apigenInstall = "npm ci --prefix web/apigen"

// TestAPITypesUpToDate generates the API types from server/openapi.json
// with the pinned openapi-typescript (web/apigen) into a temporary file,
// and fails when the committed one differs: packages/client/src/api.gen.ts,
// the TypeScript client's, which the dashboard imports too
// (@triage/client/api). A change to the OpenAPI document (go generate
// ./server) must come with its types. TestKitTypecheck type-checks them, with
// src/dashboard/api.check.ts, a client written against them. It skips,
// saying what to install, when node or web/apigen/node_modules is missing.
func TestAPITypesUpToDate(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs node; skipped with -short")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node is not on PATH, so packages/client/src/api.gen.ts is not checked against server/openapi.json; install Node.js 20.19 or later, run `%s` from the repository's root, and run this test again", apigenInstall)
	}
	var pkg struct {
		DevDependencies map[string]string `json:"devDependencies"`
	}
	readJSON(t, filepath.Join("apigen", "package.json"), &pkg)
	var installed struct {
		Version string `json:"version"`
	}
	cli := filepath.Join("apigen", "node_modules", "openapi-typescript")
	if _, err := os.Stat(filepath.Join(cli, "package.json")); err != nil {
		t.Skipf("web/apigen/node_modules is missing, so packages/client/src/api.gen.ts is not checked against server/openapi.json; run `%s` from the repository's root (%v)", apigenInstall, err)
	}
	readJSON(t, filepath.Join(cli, "package.json"), &installed)
	if want := pkg.DevDependencies["openapi-typescript"]; installed.Version != want {
		t.Fatalf("web/apigen/node_modules has openapi-typescript %s, package.json pins %s: run `%s`", installed.Version, want, apigenInstall)
	}

	out := filepath.Join(t.TempDir(), "api.gen.ts")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(cli, "bin", "cli.js"), filepath.Join("..", "server", "openapi.json"), "--output", out)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("openapi-typescript: %v\n%s", err, msg)
	}
	generated, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	const name = "packages/client/src/api.gen.ts"
	committed, err := os.ReadFile(filepath.FromSlash(name))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(generated, committed) {
		t.Errorf("%s is not what openapi-typescript makes of server/openapi.json: run `npm run gen --prefix web/apigen` (after `%s`), then `npm run build --prefix web`, and commit them", name, apigenInstall)
	}
}
