package triage_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/triage-go/triage"

// layers is the layout of DESIGN.md, top to bottom: a package may import
// packages of its own layer or below, never above. Each entry is a
// package path under the module ("" is the root package); a path covers
// the packages under it, and the longest match wins, so that a package's
// own internal/ machinery (store/internal/sqlstore) sits in its layer.
//
// The module's internal/ holds three kinds of package, each placed here:
// programs (the triage command's Main and the project's own tools, at the
// top with cmd/, since nothing imports them), adapters the programs wire
// in (below the programs, above the doors they serve), and machinery:
// test kits and the low-level libraries the root and wire/ build on (at
// the bottom, above fault, so that any package may use them).
var layers = [][]string{
	// Programs, in cmd/: the triage command (cmd/triage/internal/cli is
	// its Main) and the project's own tools (loadbench, campaign, and the generators
	// tsgen and openapigen);
	// and the generators that go generate runs beside what they generate.
	{"cmd", "internal/taxonomy/gen", "internal/textclass/gen"},
	// Adapters the programs wire in: the NATS ingress (on natsingress.Service,
	// which the service satisfies), River's web UI, OpenTelemetry's
	// exporters, and `triage worker`'s ACP agent; and the machinery the Go
	// agent framework adapters share (contrib/internal: the adapters are
	// modules of their own, contrib/eino, contrib/langchaingo,
	// contrib/genkit, which go list ./... does not list).
	{"adapter/natsingress", "adapter/riverui", "adapter/otlp", "adapter/acpagent", "contrib/internal"},
	{"web"},
	{"server"},
	{"bridge"},
	{"aguirun", "agui"},
	// The provider agents: each provider's kind of agent, which its
	// package registers with package agent when imported (as database/sql
	// drivers register), and their conformance suite. Only programs and
	// tests import them.
	providerAgents,
	{"agent"},
	{"service"}, // issue 24's pipeline, between the doors and the engine
	{"handler"},
	// The POSTs to webhooks and callbacks, which the service's jobs and
	// the programs (triage handle) send alike.
	{"webhook"},
	{"policy"},
	// Classification of a report: one chain of classifiers and the agent
	// codes, which a policy's codes: section extends (issue 24).
	{"classify"},
	{"store"},
	{"graph"},
	{"resilience"},
	{"wire"},
	{"provider"},
	{"memory"},
	{""},
	// Test kits: only tests import them (TestTestKitsStayInTests), so
	// they may serve the tests of any package above the libraries.
	{"internal/testkit", "internal/jsonmember/jsonmembertest"},
	// Libraries of machinery: strict JSON members (the root and wire/),
	// the text classifier's model (classify), the renderings of the code
	// table (the generators), the log guard (server, the ACP workers), the
	// reading of Accept headers (server, web), the vocabulary of the
	// API's description (server's operations, cmd/openapigen), text put
	// on one line (the root's fingerprint and title, the handler's texts),
	// a child triage serve started and its address read (loadbench -real,
	// the campaign).
	{"internal/jsonmember", "internal/textclass", "internal/taxonomy", "internal/tsgen/render", "internal/logguard",
		"internal/negotiate", "internal/apidoc", "internal/oneline", "internal/childserve"},
	{"fault"},
	// The walk over valid JSON's text (strings', values', members' ends),
	// beneath fault (its sanitizer writes members from their text) and
	// internal/jsonmember (its decoders split documents with it).
	{"internal/jsonscan"},
}

// providerAgents are the packages of the provider agents' layer.
var providerAgents = []string{"provider/openai/openaiagent", "provider/anthropic/anthropicagent",
	"provider/gemini/geminiagent", "provider/internal/agenttest"}

// testKits are the packages only tests may import: the internal/ kits of
// the test kits layer and the suites beside the packages they test.
var testKits = []string{
	"internal/testkit/acptest", "internal/testkit/disktest", "internal/testkit/golden", "internal/testkit/natstest", "internal/testkit/pgtest",
	"internal/jsonmember/jsonmembertest", "provider/internal/providertest", "provider/internal/agenttest",
	"store/storetest", "contrib/internal/servicetest",
}

// Packages whose dependencies are held closer than their layer: the Go
// client for the service depends on the root, fault, resilience and
// wire/problem only (DESIGN.md), whatever sits beside it, the stores on
// the root and fault (issue 11), and the graph executor on fault and
// resilience (issue 24: the wire formats of its notices are its callers'
// business). A held package may also depend on what the packages it may
// depend on depend on (the root's machinery, internal/jsonmember).
var allowed = map[string][]string{
	"client": {"", "fault", "resilience", "wire/problem"},
	// The storage interfaces and the stores speak the domain only; the
	// graph executor's adapter is store/checkpoint.
	"store":          {"", "fault"},
	"store/sqlite":   {"", "fault", "store", "store/internal/sqlstore", "store/internal/riverjobs"},
	"store/postgres": {"", "fault", "store", "store/internal/sqlstore", "store/internal/riverjobs"},
	"graph":          {"fault", "resilience"},
	// The POSTs speak the domain and faults, whoever sends them.
	"webhook": {"", "fault"},
}

// rank returns the layer of a package path under the module, and whether
// it has one.
func rank(rel string) (int, bool) {
	best, at := -1, -1
	for i, layer := range layers {
		for _, p := range layer {
			if covers(p, rel) && len(p) > best {
				best, at = len(p), i
			}
		}
	}
	return at, at >= 0
}

// covers reports whether the package path p covers rel: rel is p or a
// package under it; the root ("") covers only itself.
func covers(p, rel string) bool {
	return rel == p || (p != "" && strings.HasPrefix(rel, p+"/"))
}

type goPackage struct {
	ImportPath string
	Dir        string
	Imports    []string
	Deps       []string
	Standard   bool
}

// importGraph is the import graph of the module's packages and everything
// they depend on, by import path, with the module's own packages in
// go list's order.
type importGraph struct {
	all    map[string]*goPackage
	module []*goPackage
}

// listGraph runs go list once per test binary: the tests share its answer.
var listGraph = sync.OnceValues(func() (*importGraph, error) {
	if _, err := exec.LookPath("go"); err != nil {
		return nil, errNoGo
	}
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Dir,Imports,Deps,Standard", "./...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("go list: %w\n%s", err, ee.Stderr)
		}
		return nil, err
	}
	g := &importGraph{all: map[string]*goPackage{}}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(goPackage)
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		g.all[p.ImportPath] = p
		if _, ok := rel(p.ImportPath); ok {
			g.module = append(g.module, p)
		}
	}
	return g, nil
})

var errNoGo = errors.New("the go command is not on PATH")

func loadGraph(t *testing.T) *importGraph {
	t.Helper()
	g, err := listGraph()
	if errors.Is(err, errNoGo) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(g.module) < 20 {
		t.Fatalf("go list found %d packages", len(g.module))
	}
	return g
}

func rel(importPath string) (string, bool) {
	if importPath == module {
		return "", true
	}
	r, ok := strings.CutPrefix(importPath, module+"/")
	return r, ok
}

// TestImportsPointDown checks the layout: no package depends, directly or
// not, on a package listed above it, internal/ packages included.
func TestImportsPointDown(t *testing.T) {
	t.Parallel()
	g := loadGraph(t)
	for _, p := range g.module {
		from, _ := rel(p.ImportPath)
		want, held := allowed[from]
		r, ok := rank(from)
		if !ok && !held {
			t.Errorf("%s has no place in the layout: add it to layers (and to DESIGN.md)", p.ImportPath)
			continue
		}
		for _, dep := range p.Deps {
			to, ok := rel(dep)
			if !ok {
				continue
			}
			if held {
				if !g.heldMay(want, to) {
					t.Errorf("%s depends on %s (%s); it may depend on %v only", orRoot(from), orRoot(to), g.chain(p.ImportPath, dep), want)
				}
				continue
			}
			dr, ok := rank(to)
			if !ok {
				continue // reported as a package of its own
			}
			if dr < r {
				t.Errorf("%s (layer %v) depends on %s (layer %v), which is above it (%s)", orRoot(from), layers[r], orRoot(to), layers[dr], g.chain(p.ImportPath, dep))
			}
		}
	}
}

// heldMay reports whether a package held to want may depend on the module
// package to: one of want, or what one of them depends on.
func (g *importGraph) heldMay(want []string, to string) bool {
	if slices.Contains(want, to) {
		return true
	}
	for _, w := range want {
		path := module
		if w != "" {
			path += "/" + w
		}
		if p, ok := g.all[path]; ok && slices.Contains(p.Deps, module+"/"+to) {
			return true
		}
	}
	return false
}

// chain is the shortest import chain from the package from to the package
// to, for messages: "bridge → agent → github.com/openai/openai-go/v3".
func (g *importGraph) chain(from, to string) string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == to {
			var path []string
			for ; p != ""; p = prev[p] {
				path = append(path, short(p))
			}
			slices.Reverse(path)
			return strings.Join(path, " → ")
		}
		if gp, ok := g.all[p]; ok {
			for _, next := range gp.Imports {
				if _, seen := prev[next]; !seen {
					prev[next] = p
					queue = append(queue, next)
				}
			}
		}
	}
	return short(from) + " → … → " + short(to)
}

// short is an import path as messages write it: the module's packages
// relative to it.
func short(importPath string) string {
	if r, ok := rel(importPath); ok {
		return orRoot(r)
	}
	return importPath
}

// TestTestKitsStayInTests: no package but a test kit depends on one, so
// that no program and no library carries test machinery.
func TestTestKitsStayInTests(t *testing.T) {
	t.Parallel()
	g := loadGraph(t)
	for _, p := range g.module {
		from, _ := rel(p.ImportPath)
		if slices.Contains(testKits, from) {
			continue
		}
		for _, dep := range p.Deps {
			if to, ok := rel(dep); ok && slices.Contains(testKits, to) {
				t.Errorf("%s depends on the test kit %s (%s): only tests may import it", orRoot(from), to, g.chain(p.ImportPath, dep))
			}
		}
	}
	for _, k := range testKits {
		path := module + "/" + k
		if _, ok := g.all[path]; !ok {
			t.Errorf("the test kit %s is not a package of the module: remove it from testKits", k)
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
	at := func(p string) int {
		for i, layer := range layers {
			if slices.Contains(layer, p) {
				return i
			}
		}
		t.Fatalf("%q is in no layer", p)
		return -1
	}
	for _, c := range []struct {
		rel  string
		want int
	}{
		{"", at("")}, {"fault", at("fault")}, {"wire/problem", at("wire")}, {"store/sqlite", at("store")},
		{"store/internal/sqlstore", at("store")}, {"provider/internal/upstream", at("provider")},
		{"cmd/triage/internal/cli", 0}, {"cmd/triage", 0}, {"cmd/tsgen", 0}, {"internal/tsgen/render", at("internal/jsonmember")},
		{"internal/textclass", at("internal/jsonmember")}, {"internal/textclass/gen", 0},
		{"internal/jsonmember/jsonmembertest", at("internal/testkit")}, {"adapter/natsingress", at("adapter/riverui")},
		{"provider/openai/openaiagent", at("provider/openai/openaiagent")}, {"provider/openai", at("provider")},
		{"server", at("server")}, {"memory", at("memory")}, {"policy", at("policy")}, {"faultx", -1}, {"internal", -1},
	} {
		if got, _ := rank(c.rel); got != c.want {
			t.Errorf("rank(%q) = %d, want %d", c.rel, got, c.want)
		}
	}
	if at("adapter/riverui") >= at("server") || at("server") >= at("agent") || at("provider/gemini/geminiagent") >= at("agent") ||
		at("internal/testkit") <= at("") ||
		at("internal/jsonmember") <= at("internal/testkit") || at("fault") <= at("internal/jsonmember") {
		t.Error("the layers are out of DESIGN.md's order")
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

// TestPackagesHaveDocGo: each package of the module (commands included)
// keeps its package comment in a doc.go, where a reader looks for it.
func TestPackagesHaveDocGo(t *testing.T) {
	t.Parallel()
	for _, p := range loadGraph(t).module {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, "doc.go"), nil, parser.PackageClauseOnly|parser.ParseComments)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			t.Errorf("%s has no doc.go", p.ImportPath)
		case err != nil:
			t.Errorf("%s/doc.go: %v", p.ImportPath, err)
		case f.Doc == nil:
			t.Errorf("%s/doc.go holds no package comment", p.ImportPath)
		}
	}
}
