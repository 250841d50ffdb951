package triage_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// heavy are the third-party modules that weigh on whoever imports them
// (their packages, their init work, their binary size), each with the
// packages of this module that may depend on it, directly or not, besides
// the programs (layers[0]), which may depend on anything. A path covers
// the packages under it, as in layers. A user of a library package pays
// only for what it needs: a provider's SDK is carried by its provider
// package, which registers itself when imported, as database/sql drivers
// do; River and the databases by the stores; the MCP go-sdk by the MCP
// doors.
var heavy = []struct {
	module string // an import path prefix
	what   string // for messages
	may    []string
}{
	{"github.com/openai/openai-go", "OpenAI's SDK", []string{"provider/openai"}},
	{"github.com/anthropics/anthropic-sdk-go", "Anthropic's SDK", []string{"provider/anthropic"}},
	{"google.golang.org/genai", "Gemini's SDK", []string{"provider/gemini"}},
	{"cloud.google.com", "Google Cloud's client libraries (Gemini's SDK)", []string{"provider/gemini"}},
	{"google.golang.org/grpc", "gRPC (Gemini's SDK, the OTLP gRPC exporter)", []string{"provider/gemini", "adapter/otlp"}},
	{"github.com/riverqueue/river", "River", []string{"store/sqlite", "store/postgres", "store/internal/riverjobs", "adapter/riverui", servicetest}},
	{"riverqueue.com/riverui", "River's web UI", []string{"adapter/riverui"}},
	// River's UI brings its own PostgreSQL driver on pgx, whatever the store.
	{"github.com/jackc/pgx", "pgx", []string{"store/postgres", "internal/testkit/pgtest", "adapter/riverui"}},
	{"modernc.org/sqlite", "SQLite", []string{"store/sqlite", servicetest}},
	// The MCP doors, and wire/jsonrpc, which reads and writes the
	// go-sdk's JSON-RPC values (and which `triage worker` speaks ACP with).
	// The NATS ingress depends on natsingress.Service, not on server, and
	// carries neither.
	{"github.com/modelcontextprotocol/go-sdk", "the MCP go-sdk", []string{"wire/jsonrpc", "bridge", "server", "adapter/acpagent", servicetest}},
	// ACP workers are a kind of agent: whoever runs agents carries the
	// ACP SDK (a small one), the provider agents included.
	{"github.com/coder/acp-go-sdk", "the ACP SDK", append([]string{"agent", "aguirun", "bridge", "server",
		"adapter/acpagent", servicetest}, providerAgents...)},
	{"github.com/nats-io", "NATS", []string{"adapter/natsingress", "internal/testkit/natstest"}},
	{"go.opentelemetry.io/otel/sdk", "OpenTelemetry's SDK", []string{"adapter/otlp"}},
	{"go.opentelemetry.io/otel/exporters", "OpenTelemetry's exporters", []string{"adapter/otlp"}},
	// The recovery policy's conditions: the engine, the service that
	// runs it and the doors that hand it reports.
	{"cel.dev/cel-go", "CEL", []string{"policy", "handler", "service", "server", "adapter/natsingress", servicetest}},
}

// servicetest runs the whole service (server on SQLite) for the tests of
// the framework adapters (contrib/), which are modules of their own: a
// test kit (testKits), carried by no library.
const servicetest = "contrib/internal/servicetest"

// heavyOf returns the entry of heavy whose module holds the package path,
// if any.
func heavyOf(importPath string) (int, bool) {
	for i, h := range heavy {
		if importPath == h.module || strings.HasPrefix(importPath, h.module+"/") {
			return i, true
		}
	}
	return -1, false
}

// TestThirdPartyWeight checks heavy: no package of the module depends on a
// heavy module but those its entry names and the programs.
func TestThirdPartyWeight(t *testing.T) {
	t.Parallel()
	g := loadGraph(t)
	for _, p := range g.module {
		from, _ := rel(p.ImportPath)
		if r, _ := rank(from); r == 0 {
			continue // a program
		}
		reported := map[int]bool{}
		for _, dep := range p.Deps {
			i, ok := heavyOf(dep)
			if !ok || reported[i] {
				continue
			}
			h := heavy[i]
			if slices.ContainsFunc(h.may, func(m string) bool { return covers(m, from) }) {
				continue
			}
			reported[i] = true
			t.Errorf("%s depends on %s (%s); only %s and the programs may",
				orRoot(from), h.what, g.chain(p.ImportPath, dep), strings.Join(h.may, ", "))
		}
	}
}

// TestHeavyTableIsLive keeps the table honest: every module it names is
// one the module depends on, and every package it names exists.
func TestHeavyTableIsLive(t *testing.T) {
	t.Parallel()
	g := loadGraph(t)
	used := map[int]bool{}
	for path := range g.all {
		if i, ok := heavyOf(path); ok {
			used[i] = true
		}
	}
	for i, h := range heavy {
		if !used[i] {
			t.Errorf("no package depends on %s (%s): remove it from heavy", h.module, h.what)
		}
		for _, m := range h.may {
			if !slices.ContainsFunc(g.module, func(p *goPackage) bool { r, _ := rel(p.ImportPath); return covers(m, r) }) {
				t.Errorf("heavy names %s for %s, which is not a package of the module", m, h.what)
			}
		}
	}
}

// optionalParts are the triage command's parts built in only with a build
// tag (cmd/triage/internal/cli's optionalTags), each with the modules it
// brings: a default build of the command compiles none of them.
var optionalParts = []struct {
	tag     string
	modules []string
}{
	{"openai", []string{"github.com/openai/openai-go"}},
	{"anthropic", []string{"github.com/anthropics/anthropic-sdk-go"}},
	{"gemini", []string{"google.golang.org/genai", "cloud.google.com"}},
	{"riverui", []string{"riverqueue.com/riverui"}},
}

// TestTriageCommandOptionalParts checks the build tags of the triage
// command: built without tags it depends on no module of an optional
// part; built with one tag, on that part's modules and no other's.
func TestTriageCommandOptionalParts(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip(errNoGo)
	}
	deps := func(t *testing.T, tags string) []string {
		cmd := exec.Command("go", "list", "-deps", "-tags", tags, "./cmd/triage")
		cmd.Env = append(os.Environ(), "GOFLAGS=") // CI's GOFLAGS has -json, for go test
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -tags %q: %v", tags, err)
		}
		return strings.Fields(string(out))
	}
	has := func(deps []string, module string) bool {
		return slices.ContainsFunc(deps, func(p string) bool { return p == module || strings.HasPrefix(p, module+"/") })
	}
	for _, tags := range []string{"", "openai", "anthropic", "gemini", "riverui"} {
		t.Run("tags="+tags, func(t *testing.T) {
			t.Parallel()
			d := deps(t, tags)
			if !has(d, module+"/server") {
				t.Fatalf("go list -deps -tags %q ./cmd/triage: %d packages, no server", tags, len(d))
			}
			for _, part := range optionalParts {
				for _, m := range part.modules {
					if want := part.tag == tags; has(d, m) != want {
						t.Errorf("built with -tags %q, the triage command depends on %s: %v, want %v", tags, m, !want, want)
					}
				}
			}
		})
	}
}
