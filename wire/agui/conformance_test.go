package agui

import (
	"encoding/json"
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
	dir := os.Getenv(conformanceEnv)
	if dir == "" {
		t.Skip(conformanceEnv + " is unset, so the events are not checked against the official @ag-ui/core 1.0.0 schemas. " +
			"To run this test: npm install --prefix DIR @ag-ui/core@1.0.0 zod@4.6.7 " +
			"(add @ag-ui/client@1.0.0 to check ordering against the official client too), then set " + conformanceEnv + "=DIR")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip(conformanceEnv + " is set but node is not on PATH; install Node.js 18 or later to run the conformance test")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@ag-ui", "core", "package.json")); err != nil {
		t.Fatalf("%s=%s has no node_modules/@ag-ui/core: run npm install --prefix %s @ag-ui/core@1.0.0 zod@4.6.7 (%v)",
			conformanceEnv, dir, dir, err)
	}

	type eventCase struct {
		Name  string          `json:"name"`
		Event json.RawMessage `json:"event"`
		Valid bool            `json:"valid"`
	}
	type streamCase struct {
		Name   string            `json:"name"`
		Events []json.RawMessage `json:"events"`
		OK     bool              `json:"ok"`
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
		cases.Streams = append(cases.Streams, streamCase{Name: name, Events: golden[name], OK: true})
	}
	// Negative controls: the harness must reject what the schema rejects,
	// or a pass would prove nothing.
	for i, bad := range []string{
		`{"type":"RUN_ERROR","code":"TIMEOUT"}`,
		`{"type":"RUN_ERROR","message":"m","metadata":null}`,
		`{"type":"RUN_ERROR","message":"m","timestamp":1.5}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"tool"}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":null}`,
		`{"type":"NOT_AN_EVENT"}`,
	} {
		cases.Events = append(cases.Events, eventCase{Name: "negative#" + strconv.Itoa(i), Event: json.RawMessage(bad)})
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
		cases.Streams = append(cases.Streams, streamCase{Name: "verifier/" + sc.name, Events: events, OK: sc.wantAt < 0})
	}

	casesFile := filepath.Join(t.TempDir(), "cases.json")
	data, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(casesFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "conformance.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, script, dir, casesFile)
	cmd.Env = append(os.Environ(), "SUPPRESS_TRANSFORMATION_WARNINGS=")
	out, err := cmd.CombinedOutput()
	report := strings.TrimSpace(string(out))
	if err != nil {
		t.Fatalf("conformance failed (%v):\n%s", err, report)
	}
	t.Log(report)
}
