package agui

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// conformanceEnv names the directory that holds the official packages.
const conformanceEnv = "TRIAGE_TEST_AGUI_CORE"

// TestConformance validates every event of every golden file with the real
// @ag-ui/core 1.0.0 zod schemas, in Node, and checks that RUN_ERROR's
// metadata survives parsing. When @ag-ui/client 1.0.0 is installed in the
// same directory it also runs the golden streams and the Verifier's cases
// through the client's enforceEvents and verifyEvents, so the Verifier's
// verdicts are checked against the real ones. See docs/agui.md.
func TestConformance(t *testing.T) {
	t.Parallel()
	node, dir := conformanceSetup(t, false)

	type eventCase struct {
		Name  string          `json:"name"`
		Event json.RawMessage `json:"event"`
		Valid bool            `json:"valid"`
	}
	// A stream the client must reject is rejected at RejectAt with the
	// Verifier's reason, word for word, when Reason is set.
	type streamCase struct {
		Name     string            `json:"name"`
		Events   []json.RawMessage `json:"events"`
		OK       bool              `json:"ok"`
		RejectAt int               `json:"rejectAt"`
		Reason   string            `json:"reason,omitempty"`
	}
	var cases struct {
		Events  []eventCase  `json:"events"`
		Streams []streamCase `json:"streams"`
	}

	golden := goldenEvents(t)
	for _, name := range slices.Sorted(maps.Keys(golden)) {
		for i, e := range golden[name] {
			cases.Events = append(cases.Events, eventCase{Name: name + "#" + strconv.Itoa(i), Event: e, Valid: true})
		}
		cases.Streams = append(cases.Streams, streamCase{Name: name, Events: golden[name], OK: true, RejectAt: -1})
	}
	// schemaCases: the invalid ones are negative controls (the harness must
	// reject what the schema rejects, or a pass would prove nothing), and
	// Parse agrees with every verdict (TestParseSchemaCases).
	for i, c := range schemaCases {
		cases.Events = append(cases.Events, eventCase{Name: "schema#" + strconv.Itoa(i), Event: json.RawMessage(c.event), Valid: c.valid})
	}
	for _, sc := range sequenceCases {
		var events []json.RawMessage
		for _, e := range sc.events {
			b, err := Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			events = append(events, b)
		}
		sc2 := streamCase{Name: "verifier/" + sc.name, Events: events, OK: sc.wantAt < 0, RejectAt: sc.wantAt}
		var se *SequenceError
		if err := Verify(sc.events...); errors.As(err, &se) {
			sc2.Reason = se.Reason
		}
		cases.Streams = append(cases.Streams, sc2)
	}

	out, err := runNode(t, node, "conformance.cjs", dir, cases).CombinedOutput()
	report := strings.TrimSpace(string(out))
	if err != nil {
		t.Fatalf("conformance failed (%v):\n%s", err, report)
	}
	t.Log(report)
}

// conformanceSetup returns node and the directory that holds the official
// packages, or skips the test, saying why, when TRIAGE_TEST_AGUI_CORE is
// unset or node is missing. It fails the test when the directory lacks
// @ag-ui/core, or @ag-ui/client when needClient.
func conformanceSetup(t *testing.T, needClient bool) (node, dir string) {
	t.Helper()
	dir = os.Getenv(conformanceEnv)
	if dir == "" {
		t.Skip(conformanceEnv + " is unset, so nothing is checked against the official @ag-ui/core and @ag-ui/client 1.0.0. " +
			"To run this test: npm install --prefix DIR @ag-ui/core@1.0.0 @ag-ui/client@1.0.0 zod@4.6.7, then set " + conformanceEnv + "=DIR")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip(conformanceEnv + " is set but node is not on PATH; install Node.js 18 or later to run the conformance test")
	}
	pkgs := []string{"core"}
	if needClient {
		pkgs = append(pkgs, "client")
	}
	for _, pkg := range pkgs {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@ag-ui", pkg, "package.json")); err != nil {
			t.Fatalf("%s=%s has no node_modules/@ag-ui/%s: run npm install --prefix %s @ag-ui/core@1.0.0 @ag-ui/client@1.0.0 zod@4.6.7 (%v)",
				conformanceEnv, dir, pkg, dir, err)
		}
	}
	return node, dir
}

// runNode returns the command that runs a script of testdata with the
// packages' directory and a file holding cases as JSON.
func runNode(t *testing.T, node, script, dir string, cases any) *exec.Cmd {
	t.Helper()
	casesFile := filepath.Join(t.TempDir(), "cases.json")
	data, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(casesFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := filepath.Abs(filepath.Join("testdata", script))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, path, dir, casesFile)
	cmd.Env = append(os.Environ(), "SUPPRESS_TRANSFORMATION_WARNINGS=")
	return cmd
}
