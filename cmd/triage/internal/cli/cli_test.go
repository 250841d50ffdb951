package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/triage-go/triage/cmd/triage/internal/cli"
	"github.com/triage-go/triage/fault"
)

type result struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	env := cli.Env{Stdout: &out, Stderr: &errb}
	if stdin != "" {
		env.Stdin = strings.NewReader(stdin)
	}
	code := cli.Run(context.Background(), args, env)
	return result{code, out.String(), errb.String()}
}

func TestCodesJSON(t *testing.T) {
	t.Parallel()
	r := run(t, "", "codes", "--format", "json")
	if r.code != cli.ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatal(err)
	}
	specs := fault.Codes()
	if len(rows) != len(specs) {
		t.Fatalf("%d rows, want %d", len(rows), len(specs))
	}
	for i, s := range specs {
		row := rows[i]
		want := map[string]any{"code": string(s.Code), "http_status": float64(s.Status), "category": string(s.Category),
			"domain": string(s.Domain), "retryable": s.Retryable, "jsonrpc_code": float64(s.JSONRPC), "problem_type": s.Type}
		for k, v := range want {
			if row[k] != v {
				t.Errorf("%s: %s = %v, want %v", s.Code, k, row[k], v)
			}
		}
	}
}

func TestCodesTable(t *testing.T) {
	t.Parallel()
	r := run(t, "", "codes")
	if r.code != cli.ExitOK {
		t.Fatalf("exit %d", r.code)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != len(fault.Codes())+1 || !strings.HasPrefix(lines[0], "CODE") {
		t.Fatalf("table:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "RATE_LIMITED") || !strings.Contains(lines[5], "429") {
		t.Errorf("rate limit row: %q", lines[5])
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		stdin string
		args  []string
		code  fault.Code
		rule  string
	}{
		{"args", "", []string{"classify", "dial tcp 127.0.0.1:5432: connect: connection refused"}, fault.TransportError, "connection_refused"},
		{"joined args", "", []string{"classify", "context", "deadline", "exceeded"}, fault.Timeout, "deadline_exceeded"},
		{"stdin", "429 Too Many Requests\n", []string{"classify"}, fault.RateLimited, "rate_limited"},
		{"unknown", "", []string{"classify", "the widget frobnicated"}, fault.AgentExecutionError, "unknown"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := run(t, c.stdin, c.args...)
			if r.code != cli.ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
				t.Fatalf("%v: %s", err, r.stdout)
			}
			if got["code"] != string(c.code) || got["rule"] != c.rule || got["method"] != "text" {
				t.Errorf("got %v", got)
			}
			if _, ok := got["confidence"].(float64); !ok {
				t.Errorf("no confidence: %v", got)
			}
			if _, ok := got["debug"]; ok {
				t.Errorf("debug without --debug: %s", r.stdout)
			}
		})
	}
}

func TestClassifyDebugAndLines(t *testing.T) {
	t.Parallel()
	r := run(t, "", "classify", "--debug", "invalid api key: Bearer sk-live-abcdefghijklmnop")
	if !strings.Contains(r.stdout, `"debug"`) || strings.Contains(r.stdout, "abcdefghijklmnop") {
		t.Errorf("debug output wrong or leaking: %s", r.stdout)
	}
	r = run(t, "context canceled\n\nno such host\r\nsession abc not found\n", "classify", "--lines")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines: %s", len(lines), r.stdout)
	}
	want := []string{"CANCELLED", "TRANSPORT_ERROR", "SESSION_NOT_FOUND"}
	for i, l := range lines {
		var got map[string]any
		if err := json.Unmarshal([]byte(l), &got); err != nil || got["code"] != want[i] {
			t.Errorf("line %d: %s", i, l)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{}, {"bogus"}, {"codes", "--bogus"}, {"codes", "--format", "xml"}, {"codes", "extra"},
		{"classify"}, {"classify", "   "}, {"classify", "--nope", "x"}, {"version", "x"},
	} {
		r := run(t, "", args...)
		if r.code != cli.ExitUsage {
			t.Errorf("%q: exit %d, want %d", args, r.code, cli.ExitUsage)
		}
		if !strings.Contains(r.stderr, "Usage") {
			t.Errorf("%q: no usage on stderr: %q", args, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("%q: wrote to stdout: %q", args, r.stdout)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	if r := run(t, "", "help"); r.code != cli.ExitOK || !strings.Contains(r.stdout, "triage classify") {
		t.Errorf("help: %d %q", r.code, r.stdout)
	}
	if r := run(t, "", "classify", "-h"); r.code != cli.ExitOK || !strings.Contains(r.stderr, "-debug") {
		t.Errorf("classify -h: %d %q", r.code, r.stderr)
	}
	if r := run(t, "", "version"); r.code != cli.ExitOK || !strings.HasPrefix(r.stdout, "triage ") || !strings.Contains(r.stdout, "go1.") ||
		!strings.Contains(r.stdout, "\nbuilt in: ") {
		t.Errorf("version: %d %q", r.code, r.stdout)
	}
}
