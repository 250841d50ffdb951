package server

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/triage-go/triage/agent"
)

// agentsFixture is a service running the agents of an agents file.
func agentsFixture(t *testing.T, yaml string, mod func(*Config)) *fixture {
	t.Helper()
	reg, err := agent.Parse([]byte(yaml), "agents.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := agent.NewManager(reg.Build(nil), agent.ManagerConfig{})
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return newFixture(t, func(c *Config) {
		c.Agents = m
		if mod != nil {
			mod(c)
		}
	})
}

func TestListAgents(t *testing.T) {
	t.Parallel()
	f := agentsFixture(t, `agents:
  - id: echo
    kind: script
    description: Echoes.
    capabilities: [chat]
    maxSessions: 3
    script: {delay: 1ms}
  - id: quiet
    kind: script
  - id: both
    kind: team
    members: [echo, quiet]
`, nil)
	r := f.do("GET", "/v1/agents", nil, nil)
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s: %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	var got struct {
		Agents []map[string]any `json:"agents"`
	}
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range got.Agents {
		ids = append(ids, a["id"].(string))
	}
	if !slices.Equal(ids, []string{"echo", "quiet", "both"}) {
		t.Fatalf("agents %v, want the registry's order", ids)
	}
	echo, quiet, team := got.Agents[0], got.Agents[1], got.Agents[2]
	if echo["kind"] != "script" || echo["description"] != "Echoes." || echo["executor"] != "in-process" ||
		echo["maxSessions"] != 3.0 || !slices.Equal(toStrings(echo["capabilities"]), []string{"chat"}) {
		t.Errorf("echo: %v", echo)
	}
	// An agent without capabilities lists none, as an array.
	if caps, ok := quiet["capabilities"].([]any); !ok || len(caps) != 0 {
		t.Errorf("quiet's capabilities: %#v", quiet["capabilities"])
	}
	if team["kind"] != "team" || !slices.Equal(toStrings(team["members"]), []string{"echo", "quiet"}) {
		t.Errorf("team: %v", team)
	}
	// Every member openapi.json requires of AgentInfo is there.
	var doc struct {
		Components struct {
			Schemas map[string]struct{ Required []string } `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	required := doc.Components.Schemas["AgentInfo"].Required
	if len(required) == 0 || !slices.Equal(doc.Components.Schemas["AgentList"].Required, []string{"agents"}) {
		t.Fatalf("openapi.json: AgentInfo requires %v, AgentList %v", required, doc.Components.Schemas["AgentList"].Required)
	}
	for _, a := range got.Agents {
		for _, m := range required {
			if _, ok := a[m]; !ok {
				t.Errorf("%v lacks %q", a["id"], m)
			}
		}
	}

	// Every listed agent runs at POST /v1/agents/{agent_id}/runs.
	events := runEvents(t, f.do("POST", "/v1/agents/"+ids[0]+"/runs", runInput("hi"), nil))
	if last := events[len(events)-1].Type(); last != "RUN_FINISHED" {
		t.Errorf("a run of the listed agent ended with %s", last)
	}
}

func toStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, s := range list {
		str, _ := s.(string)
		out = append(out, str)
	}
	return out
}

func TestListAgentsWithoutAgents(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	r := f.do("GET", "/v1/agents", nil, nil)
	if r.status != 200 || string(r.body) != `{"agents":[]}`+"\n" {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

func TestListAgentsRefusals(t *testing.T) {
	t.Parallel()
	const key = "key-a-0123456789abcdef"
	f := agentsFixture(t, "agents:\n  - id: echo\n    kind: script\n", func(c *Config) {
		c.APIKeys = map[string]string{key: "acme"}
		c.AuthFailRate = -1
	})
	auth := map[string]string{"Authorization": "Bearer " + key}
	for _, c := range []struct {
		name, method, path string
		header             map[string]string
		status             int
		code               string
	}{
		{"no key", "GET", "/v1/agents", nil, 401, "TENANT_REQUIRED"},
		{"a wrong key", "GET", "/v1/agents", map[string]string{"X-API-Key": "nope"}, 403, "TENANT_UNAUTHORIZED"},
		{"a query", "GET", "/v1/agents?kind=script", auth, 400, "INVALID_REQUEST"},
		{"another method", "POST", "/v1/agents", auth, 405, "INVALID_REQUEST"},
	} {
		r := f.do(c.method, c.path, nil, c.header)
		if r.status != c.status || r.header.Get("Content-Type") != "application/problem+json" || codeOf(t, r) != c.code {
			t.Errorf("%s: %d %s %s", c.name, r.status, r.header.Get("Content-Type"), r.body)
		}
	}
	if r := f.do("POST", "/v1/agents", nil, auth); r.header.Get("Allow") != "GET" {
		t.Errorf("POST /v1/agents: Allow %q", r.header.Get("Allow"))
	}
	if r := f.do("GET", "/v1/agents", nil, auth); r.status != 200 {
		t.Errorf("with the key: %d %s", r.status, r.body)
	}
	// PUT /v1/agents/{agent_id}, a pipeline agent's callback, still works
	// (at a public host: with API keys, a loopback one is refused).
	r := f.do("PUT", "/v1/agents/query_engine", []byte(`{"callback_url":"https://agents.example/retry"}`), auth)
	if r.status != 200 || r.json(t)["callback_url"] != "https://agents.example/retry" {
		t.Errorf("PUT /v1/agents/query_engine: %d %s", r.status, r.body)
	}
}

// A pipeline agent's callback is its own noun, /v1/callbacks; the old
// path, under the agent registry's /v1/agents, is a deprecated alias that
// does the same and says where it went.
func TestCallbacksHaveTheirOwnPath(t *testing.T) {
	const key = "key-a-0123456789abcdef"
	f := newFixture(t, func(c *Config) {
		c.APIKeys = map[string]string{key: "acme"}
		c.AuthFailRate = -1
	})
	auth := map[string]string{"Authorization": "Bearer " + key}
	r := f.do("PUT", "/v1/callbacks/query_engine", []byte(`{"callback_url":"https://agents.example/retry"}`), auth)
	if r.status != 200 || r.json(t)["callback_url"] != "https://agents.example/retry" || r.json(t)["agent_id"] != "query_engine" {
		t.Fatalf("PUT /v1/callbacks/query_engine: %d %s", r.status, r.body)
	}
	if r.header.Get("Deprecation") != "" || r.header.Get("Link") != "" {
		t.Errorf("the new path says it is deprecated: %v", r.header)
	}
	a, ok, err := f.store.Tenant("acme").Agent(t.Context(), "query_engine")
	if err != nil || !ok || a.CallbackURL != "https://agents.example/retry" {
		t.Fatalf("stored: %+v %v %v", a, ok, err)
	}

	old := f.do("PUT", "/v1/agents/query_engine", []byte(`{"callback_url":"https://agents.example/v2"}`), auth)
	if old.status != 200 || old.header.Get("Deprecation") != callbacksDeprecated ||
		old.header.Get("Link") != `</v1/callbacks/query_engine>; rel="successor-version"` {
		t.Fatalf("the deprecated alias: %d %v %s", old.status, old.header, old.body)
	}
	if a, _, _ := f.store.Tenant("acme").Agent(t.Context(), "query_engine"); a.CallbackURL != "https://agents.example/v2" {
		t.Errorf("the alias stored %+v", a)
	}
	// The new path refuses what the old one did.
	if r := f.do("PUT", "/v1/callbacks/query_engine", []byte(`{"callback_url":"http://127.0.0.1/"}`), auth); r.status != 422 {
		t.Errorf("a loopback callback: %d %s", r.status, r.body)
	}
}
