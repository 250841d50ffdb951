package triage_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/triage-go/triage"

// layers is the layout of DESIGN.md, top to bottom: a package may import
// packages of its own layer or below, never above. Each entry is a
// package path under the module ("" is the root package); a path covers
// the packages under it, and the longest match wins. internal/ packages
// are machinery: each is checked through the packages that import it,
// since their dependencies count as the importer's own.
var layers = [][]string{
	{"cmd", "internal/cli", "internal/loadbench"},
	{"web"},
	{"server"},
	{"bridge"},
	{"aguirun", "agui"},
	{"agent"},
	{"service"},
	{"handler"},
	{"policy"},
	{"store"},
	{"graph"},
	{"resilience"},
	{"wire"},
	{"provider"},
	{"memory"},
	{""},
	{"fault"},
}

// Packages whose dependencies are held closer than their layer: the Go
// client for the service depends on the root, fault, resilience and
// wire/problem only (DESIGN.md), whatever sits beside it, and the stores
// on the root and fault (issue 11).
var allowed = map[string][]string{
	"client": {"", "fault", "resilience", "wire/problem"},
	// The storage interfaces and the stores speak the domain only; the
	// graph executor's adapter is store/checkpoint.
	"store":          {"", "fault"},
	"store/sqlite":   {"", "fault", "store"},
	"store/postgres": {"", "fault", "store"},
}

// rank returns the layer of a package path under the module, and whether
// it has one.
func rank(rel string) (int, bool) {
	best, at := -1, -1
	for i, layer := range layers {
		for _, p := range layer {
			match := rel == p || (p != "" && strings.HasPrefix(rel, p+"/"))
			if match && len(p) > best {
				best, at = len(p), i
			}
		}
	}
	return at, at >= 0
}

type goPackage struct {
	ImportPath string
	Deps       []string
}

func listPackages(t *testing.T) []goPackage {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command("go", "list", "-json=ImportPath,Deps", "./...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var pkgs []goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func rel(importPath string) (string, bool) {
	if importPath == module {
		return "", true
	}
	r, ok := strings.CutPrefix(importPath, module+"/")
	return r, ok
}

func isInternal(r string) bool {
	return r == "internal" || strings.HasPrefix(r, "internal/") || strings.Contains(r, "/internal/") || strings.HasSuffix(r, "/internal")
}

// TestImportsPointDown checks the layout: no package depends, directly or
// through internal/ machinery, on a package listed above it.
func TestImportsPointDown(t *testing.T) {
	t.Parallel()
	pkgs := listPackages(t)
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	for _, p := range pkgs {
		from, _ := rel(p.ImportPath)
		if isInternal(from) && !slices.Contains(layers[0], from) {
			continue
		}
		want, held := allowed[from]
		r, ok := rank(from)
		if !ok && !held {
			t.Errorf("%s has no place in the layout: add it to layers (and to DESIGN.md)", p.ImportPath)
			continue
		}
		for _, dep := range p.Deps {
			to, ok := rel(dep)
			if !ok || isInternal(to) {
				continue
			}
			if held {
				if !slices.Contains(want, to) {
					t.Errorf("%s depends on %s; it may depend on %v only", from, dep, want)
				}
				continue
			}
			dr, ok := rank(to)
			if !ok {
				continue // reported as a package of its own
			}
			if dr < r {
				t.Errorf("%s (layer %v) depends on %s (layer %v), which is above it", orRoot(from), layers[r], orRoot(to), layers[dr])
			}
		}
	}
}

func orRoot(r string) string {
	if r == "" {
		return "triage (root)"
	}
	return path.Clean(r)
}

// TestRankOf keeps the matching honest: the longest prefix wins, and the
// root matches only itself.
func TestRankOf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		rel  string
		want int
	}{
		{"", 15}, {"fault", 16}, {"wire/problem", 12}, {"store/sqlite", 9}, {"internal/cli", 0},
		{"cmd/triage", 0}, {"server", 2}, {"memory", 14}, {"policy", 8}, {"faultx", -1},
	} {
		if got, _ := rank(c.rel); got != c.want {
			t.Errorf("rank(%q) = %d, want %d", c.rel, got, c.want)
		}
	}
}

// maxLines is DESIGN.md's "no source file over ~800 lines: a file is one
// idea".
const maxLines = 800

// TestFilesAreSmall holds every Go file of the module (tests included,
// generated files excepted) to maxLines.
func TestFilesAreSmall(t *testing.T) {
	t.Parallel()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != "." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || name == "bench") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if generated.Match(data) {
			return nil
		}
		if n := bytes.Count(data, []byte("\n")); n > maxLines {
			t.Errorf("%s has %d lines; split it by idea (at most %d)", p, n, maxLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// generated is the line go generate's tools write (go.dev/s/generatedcode).
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)
