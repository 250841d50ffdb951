package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/fault"
)

func TestParse(t *testing.T) {
	reg, err := agent.Parse([]byte(`
agents:
  - id: echo
    kind: script
    description: d
    capabilities: [chat]
    maxSessions: 3
    script: {delay: 20ms, chunks: ["a ", "b"], fail: {code: RATE_LIMITED, after: 1, retryAfter: 5s}}
  - id: w
    kind: acp
    command: [triage, worker]
    env: {A: "1"}
    workers: 2
    requestTimeout: 3s
  - id: g
    kind: openai
    model: gpt-4o-mini
`), "a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.Agents) != 3 || reg.IsDefault {
		t.Fatalf("%+v", reg)
	}
	s := reg.Agents[0].Script
	if s.Delay != 20*time.Millisecond || s.Fail.Code != fault.RateLimited || s.Fail.RetryAfter != 5*time.Second || len(s.Chunks) != 2 {
		t.Errorf("script %+v", s)
	}
	if w := reg.Agents[1]; w.Workers != 2 || w.RequestTimeout != 3*time.Second || w.Env["A"] != "1" {
		t.Errorf("acp %+v", w)
	}
	infos := reg.Build(nil)
	if infos[0].Info.MaxSessions != 3 || infos[1].Info.Executor != agent.ExecutorWorker || infos[2].Info.Executor != agent.ExecutorInProcess {
		t.Errorf("built %+v", infos)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ name, yaml, message, field string }{
		{"empty", ``, "No agents registered", ""},
		{"no agents", `agents: []`, "No agents registered", ""},
		{"unknown kind", "agents:\n  - {id: x, kind: mistral}", `Provider "mistral" is not registered`, "agents[0].kind"},
		{"bad id", "agents:\n  - {id: 'a b', kind: script}", `agents[0].id: "a b" is not an id`, "agents[0].id"},
		{"twice", "agents:\n  - {id: a, kind: script}\n  - {id: a, kind: script}", `agents[1].id: "a" appears twice`, "agents[1].id"},
		{"acp without command", "agents:\n  - {id: a, kind: acp}", "agents[0]: an acp agent needs a command", "agents[0]"},
		{"script with a model", "agents:\n  - {id: a, kind: script, model: m}", "agents[0]: a script agent takes a script", "agents[0]"},
		{"team of one", "agents:\n  - {id: a, kind: script}\n  - {id: t, kind: team, members: [a]}", "agents[1].members: a team needs 2 to 16 members, not 1", "agents[1].members"},
		{"team of strangers", "agents:\n  - {id: a, kind: script}\n  - {id: t, kind: team, members: [a, b]}", `agents[1].members: "b" is not an agent of the file`, "agents[1].members"},
		{"team of teams", "agents:\n  - {id: a, kind: script}\n  - {id: b, kind: script}\n  - {id: t, kind: team, members: [a, b]}\n  - {id: u, kind: team, members: [a, t]}", `agents[3].members: "t" is a team`, "agents[3].members"},
		{"member twice", "agents:\n  - {id: a, kind: script}\n  - {id: t, kind: team, members: [a, a]}", `agents[1].members: "a" appears twice`, "agents[1].members"},
		{"team with a model", "agents:\n  - {id: a, kind: script}\n  - {id: b, kind: script}\n  - {id: t, kind: team, model: m, members: [a, b]}", "agents[2]: a team agent takes members", "agents[2]"},
		{"script with members", "agents:\n  - {id: a, kind: script}\n  - {id: s, kind: script, members: [a]}", "agents[1]: a script agent takes a script, not a command, a model or members", "agents[1]"},
		{"provider with a command", "agents:\n  - {id: a, kind: anthropic, command: [x]}", "agents[0]: a provider agent takes a model", "agents[0]"},
		{"unknown field", "agents:\n  - {id: a, kind: script, colour: red}", "field colour not found", ""},
		{"unknown code", "agents:\n  - {id: a, kind: script, script: {fail: {code: NOPE}}}", `"NOPE" is not a code of the table`, "agents[0].script.fail.code"},
		{"negative", "agents:\n  - {id: a, kind: script, maxSessions: -1}", "may not be negative", "agents[0]"},
		{"bad duration", "agents:\n  - {id: a, kind: script, script: {delay: soon}}", "soon", ""},
		{"not yaml", "agents: [", "did not find expected", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := agent.Parse([]byte(c.yaml), "a.yaml")
			f, ok := fault.As(err)
			if !ok || f.Code != fault.ConfigError || f.Category != fault.CategoryConfig || f.Retryable {
				t.Fatalf("err = %v", err)
			}
			if !strings.Contains(f.Message, c.message) {
				t.Errorf("message %q lacks %q", f.Message, c.message)
			}
			if c.field != "" && f.Details["field"] != c.field {
				t.Errorf("field %v, want %s", f.Details["field"], c.field)
			}
			if f.Details["file"] != "a.yaml" {
				t.Errorf("file %v", f.Details["file"])
			}
		})
	}
	_, err := agent.Parse([]byte("agents:\n  - {id: x, kind: mistral}"), "a.yaml")
	if f, _ := fault.As(err); f.Details["providerId"] != "mistral" {
		t.Errorf("unknown kind lacks providerId: %v", f.Details)
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agents.yaml")
	if err := os.WriteFile(path, []byte("agents:\n  - {id: a, kind: script}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if reg, err := agent.Load(path); err != nil || reg.Agents[0].ID != "a" {
		t.Fatalf("%v %v", reg, err)
	}
	_, err := agent.Load(filepath.Join(t.TempDir(), "missing.yaml"))
	if f, ok := fault.As(err); !ok || f.Code != fault.ConfigError || !strings.HasPrefix(f.Message, "Cannot read agents file") {
		t.Fatalf("missing file: %v", err)
	}
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, make([]byte, agent.MaxFileSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := agent.Load(big); fault.CodeOf(err) != fault.ConfigError {
		t.Fatalf("big file: %v", err)
	}
}

func TestDefault(t *testing.T) {
	reg := agent.Default()
	if !reg.IsDefault || len(reg.Agents) != 1 || reg.Agents[0].ID != agent.DefaultAgentID || reg.Agents[0].Kind != agent.KindScript {
		t.Fatalf("%+v", reg)
	}
}

// FuzzParse: an agents file never panics, and what Parse accepts builds.
func FuzzParse(f *testing.F) {
	entries, _ := os.ReadDir("testdata")
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") {
			data, err := os.ReadFile(filepath.Join("testdata", e.Name()))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		reg, err := agent.Parse(data, "fuzz.yaml")
		if err != nil {
			if f, ok := fault.As(err); !ok || f.Code != fault.ConfigError {
				t.Fatalf("not a CONFIG fault: %v", err)
			}
			return
		}
		if len(reg.Agents) == 0 {
			t.Fatal("accepted a registry without agents")
		}
		for _, a := range reg.Build(nil) {
			if a.Info.MaxSessions <= 0 || a.Backend == nil {
				t.Fatalf("built %+v", a)
			}
		}
	})
}

// An agent's failures are recorded unless its entry says
// recordFailures: false; the manager answers for the agents it has.
func TestRecordFailures(t *testing.T) {
	reg, err := agent.Parse([]byte(`
agents:
  - id: on
    kind: script
  - id: said-on
    kind: script
    recordFailures: true
  - id: off
    kind: script
    recordFailures: false
`), "a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := agent.NewManager(reg.Build(nil), agent.ManagerConfig{})
	for _, c := range []struct {
		id            string
		known, record bool
	}{{"on", true, true}, {"said-on", true, true}, {"off", true, false}, {"nobody", false, false}} {
		if known, record := m.RecordsFailures(c.id); known != c.known || record != c.record {
			t.Errorf("RecordsFailures(%q) = %v, %v; want %v, %v", c.id, known, record, c.known, c.record)
		}
	}
	var none *agent.Manager
	if known, _ := none.RecordsFailures("on"); known {
		t.Error("a nil Manager knows an agent")
	}
	if _, err := agent.Parse([]byte("agents:\n  - id: x\n    kind: script\n    recordFailures: maybe\n"), "b.yaml"); err == nil {
		t.Error("recordFailures: maybe was taken")
	}
}
