package cli_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/triage-go/triage/cmd/triage/internal/cli"
	"github.com/triage-go/triage/internal/testkit/golden"
	"github.com/triage-go/triage/webhook"
)

// handleArgs run triage handle on the scenarios' schema inventory and
// cache, at a fixed time, so that the golden files are stable.
var handleArgs = []string{"handle", "--schema", "testdata/handle/schema.json", "--cache", "testdata/handle/cache.json",
	"--now", "2025-08-08T12:20:30Z"}

// TestHandleScenarios runs every scenario of seed 004, and the handler's
// other behaviours, end to end through triage handle: the feedback on
// standard output and what goes to standard error (escalations, refused
// reports) are compared with golden files in testdata/handle.
func TestHandleScenarios(t *testing.T) {
	t.Parallel()
	cases := []struct {
		input string
		exit  int
	}{
		// Seed 004's scenario table.
		{"ambiguous_input.json", cli.ExitOK},
		{"schema_synonym.json", cli.ExitOK},
		{"schema_missing.json", cli.ExitOK},
		{"db_timeout.json", cli.ExitOK},
		{"chart_incompatible.json", cli.ExitOK},
		{"service_outage.json", cli.ExitOK},
		// Beyond the table.
		{"unclassified.json", cli.ExitOK},
		{"invalid_date_range.json", cli.ExitOK},
		{"llm_rate_limited.json", cli.ExitOK},
		{"repeated_timeouts.jsonl", cli.ExitOK},
		{"duplicates.jsonl", cli.ExitOK},
		{"batch_with_invalid.json", cli.ExitError},
		{"bad_json_line.jsonl", cli.ExitError},
	}
	for _, c := range cases {
		t.Run(c.input, func(t *testing.T) {
			t.Parallel()
			in, err := os.ReadFile(filepath.Join("testdata", "handle", c.input))
			if err != nil {
				t.Fatal(err)
			}
			r := run(t, string(in), handleArgs...)
			if r.code != c.exit {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, c.exit, r.stderr)
			}
			base := strings.TrimSuffix(strings.TrimSuffix(c.input, ".json"), ".jsonl")
			golden.Check(t, filepath.Join("handle", base+".feedback"), []byte(r.stdout))
			if r.stderr != "" || c.exit != cli.ExitOK {
				golden.Check(t, filepath.Join("handle", base+".stderr"), []byte(r.stderr))
			}
		})
	}
}

// The golden feedback holds what each scenario must show; a few checks
// here say it in words, so that an -update that breaks one fails.
func TestHandleScenarioFacts(t *testing.T) {
	t.Parallel()
	read := func(name string) []map[string]any {
		t.Helper()
		data, err := os.ReadFile(filepath.Join("testdata", "handle", name))
		if err != nil {
			t.Fatal(err)
		}
		var out []map[string]any
		if json.Valid(data) {
			var one map[string]any
			if err := json.Unmarshal(data, &one); err == nil {
				return []map[string]any{one}
			}
			if err := json.Unmarshal(data, &out); err != nil {
				t.Fatal(err)
			}
			return out
		}
		for line := range strings.Lines(string(data)) {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
		return out
	}
	want := map[string]struct{ typ, next string }{
		"ambiguous_input.feedback":    {"input_error", "await_user"},
		"schema_synonym.feedback":     {"schema_error", "resume"},
		"schema_missing.feedback":     {"schema_error", "await_user"},
		"db_timeout.feedback":         {"query_error", "resume"},
		"chart_incompatible.feedback": {"chart_error", "await_user"},
		"service_outage.feedback":     {"system_error", "escalate"},
	}
	for name, w := range want {
		fb := read(name)[0]
		if fb["error_type"] != w.typ || fb["next_action"] != w.next {
			t.Errorf("%s: %v / %v, want %s / %s", name, fb["error_type"], fb["next_action"], w.typ, w.next)
		}
	}
	if fb := read("db_timeout.feedback")[0]; !strings.Contains(fb["user_message"].(string), "cached results") {
		t.Errorf("db_timeout: %v", fb["user_message"])
	}
	rep := read("repeated_timeouts.feedback")
	if len(rep) != 4 || rep[3]["next_action"] != "escalate" || rep[3]["attempt"] != 4.0 || rep[2]["next_action"] != "resume" {
		t.Errorf("repeated timeouts: %d feedbacks, the last %v", len(rep), rep[len(rep)-1])
	}
	dup := read("duplicates.feedback")
	if len(dup) != 2 || dup[0]["duplicate"] != nil || dup[1]["duplicate"] != true || dup[0]["error_id"] != dup[1]["error_id"] {
		t.Errorf("duplicates: %v", dup)
	}
	if batch := read("batch_with_invalid.feedback"); len(batch) != 2 {
		t.Errorf("a batch with one invalid report: %d feedbacks, want 2", len(batch))
	}
}

func TestHandleUsage(t *testing.T) {
	t.Parallel()
	if r := run(t, "", "handle"); r.code != cli.ExitUsage || !strings.Contains(r.stderr, "no input") {
		t.Errorf("no stdin: %+v", r)
	}
	if r := run(t, "  \n", "handle"); r.code != cli.ExitUsage {
		t.Errorf("blank stdin: %+v", r)
	}
	if r := run(t, "{}", "handle", "extra"); r.code != cli.ExitUsage {
		t.Errorf("an argument: %+v", r)
	}
	if r := run(t, "{}", "handle", "--now", "yesterday"); r.code != cli.ExitUsage {
		t.Errorf("a bad --now: %+v", r)
	}
	if r := run(t, "[1,", "handle"); r.code != cli.ExitError || !strings.Contains(r.stderr, "not a valid JSON array") {
		t.Errorf("a broken array: %+v", r)
	}
}

func TestHandleBadPolicy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "policy.yaml")
	policy := "version: 1\nrules:\n  - name: all\n    when: error_type = \"x\"\n    actions: [retry]\n    next_action: resume\n    severity: low\n    message: hi\n"
	if err := os.WriteFile(file, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "{}", "handle", "--policy", file)
	// The error names the file, the line, the rule and the reason; no
	// report is handled.
	if r.code != cli.ExitError || r.stdout != "" || !strings.Contains(r.stderr, file+":4: rule 1 (all): when:") {
		t.Errorf("a bad policy: %+v", r)
	}
	r = run(t, "{}", "handle", "--policy", filepath.Join(dir, "missing.yaml"))
	if r.code != cli.ExitError || !strings.Contains(r.stderr, "missing.yaml") {
		t.Errorf("a missing policy: %+v", r)
	}
}

func TestHandleCustomPolicy(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "policy.yaml")
	policy := `version: 1
max_attempts: 1
rules:
  - name: all
    default: true
    actions: [escalate]
    next_action: escalate
    severity: critical
    message: Everything goes to the operators ({{.error_type}}).
`
	if err := os.WriteFile(file, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := os.ReadFile("testdata/handle/chart_incompatible.json")
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, string(in), "handle", "--policy", file)
	var fb map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &fb); err != nil {
		t.Fatalf("exit %d: %v\n%s", r.code, err, r.stderr)
	}
	if fb["severity"] != "critical" || fb["next_action"] != "escalate" || !strings.HasPrefix(fb["user_message"].(string), "Everything goes to the operators (chart_error).") {
		t.Errorf("custom policy: %v", fb)
	}
}

// TestHandleWebhook: triage handle --webhook posts the escalation as the
// service's jobs do (package webhook): its JSON, with an Idempotency-Key
// naming it.
func TestHandleWebhook(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var posted []map[string]any
	var headers []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			t.Error(err)
		}
		mu.Lock()
		posted, headers = append(posted, m), append(headers, r.Header.Clone())
		mu.Unlock()
	}))
	defer srv.Close()
	in, err := os.ReadFile("testdata/handle/service_outage.json")
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, string(in), "handle", "--webhook", srv.URL)
	if r.code != cli.ExitOK || r.stderr != "" {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(posted) != 1 || posted[0]["query_id"] != "q_901" || posted[0]["rule"] != "service_outage" {
		t.Errorf("webhook got %v", posted)
		return
	}
	key := fmt.Sprintf("%s:%v:%s", posted[0]["error_id"], posted[0]["attempt"], posted[0]["reported_at"])
	if h := headers[0]; h.Get("Idempotency-Key") != key || h.Get("Content-Type") != "application/json" ||
		h.Get("User-Agent") != webhook.UserAgent {
		t.Errorf("webhook headers %v, want Idempotency-Key %q", h, key)
	}
}

func TestHandleDebug(t *testing.T) {
	t.Parallel()
	in, err := os.ReadFile("testdata/handle/db_timeout.json")
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, string(in), append(handleArgs, "--debug")...)
	if r.code != cli.ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var line map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(r.stderr, "\n", 2)[0]), &line); err != nil {
		t.Fatalf("debug output is not JSON lines: %v\n%s", err, r.stderr)
	}
	for _, want := range []string{`"classification"`, `"rule":"query_too_large"`, `"actions_taken"`, `"error_id"`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("debug output lacks %s:\n%s", want, r.stderr)
		}
	}
}
