package web_test

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDistUpToDate builds the dashboard into a temporary directory (npm run
// build) and fails when the committed dist/, which the binary embeds,
// differs from it: a change to the sources, or to the lockfile, must come
// with its build. The build is deterministic: the same inputs give the
// same bytes.
func TestDistUpToDate(t *testing.T) {
	t.Parallel()
	npm := needNode(t, "dist/ is not checked against its sources")
	out := filepath.Join(t.TempDir(), "dist")
	runNpm(t, npm, "run", "build", "--", "--outDir", out, "--emptyOutDir")
	built, committed := readTree(t, out), readTree(t, "dist")
	if len(built) == 0 {
		t.Fatal("the build wrote nothing")
	}
	const fix = "run `npm run build --prefix web` and commit web/dist"
	for _, name := range slices.Sorted(maps.Keys(built)) {
		switch have, ok := committed[name]; {
		case !ok:
			t.Errorf("dist/%s is missing: %s", name, fix)
		case !bytes.Equal(have, built[name]):
			t.Errorf("dist/%s differs from its build: %s", name, fix)
		}
	}
	for name := range committed {
		if _, ok := built[name]; !ok {
			t.Errorf("dist/%s is not part of the build: %s", name, fix)
		}
	}
}

// readTree reads every file under dir, by its slash-separated path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = body
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
