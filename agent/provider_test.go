package agent_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/fault"
)

// The provider agents of the kinds Triage ships are tested in their own
// packages (provider/…/…agent), by the suite of provider/internal/agenttest;
// here, the registry and what package agent does for every provider.

// getenvOf is a Getenv over vars.
func getenvOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// A kind nobody ships nor registered is refused by Parse and by Start,
// naming the kind.
func TestProviderUnknownKind(t *testing.T) {
	t.Parallel()
	reg := &agent.Registry{Agents: []agent.Config{{ID: "x", Kind: "mistral", Model: "m"}}}
	m := agent.NewManager(reg.Build(&agent.BuildOptions{Getenv: getenvOf(nil)}), agent.ManagerConfig{})
	err := m.Start(t.Context())
	if ft, ok := fault.As(err); !ok || ft.Code != fault.ConfigError || ft.Details["providerId"] != "mistral" ||
		ft.Message != `Provider "mistral" is not registered` {
		t.Errorf("Start = %v, want CONFIG naming the provider", err)
	}
}

// A kind Triage ships whose package the program did not import (this test
// imports none) is a file Parse accepts, and an agent Start refuses with a
// CONFIG fault naming the package to import.
func TestProviderNotImported(t *testing.T) {
	t.Parallel()
	for kind, pkg := range map[agent.Kind]string{
		agent.KindOpenAI:    "github.com/triage-go/triage/provider/openai/openaiagent",
		agent.KindAnthropic: "github.com/triage-go/triage/provider/anthropic/anthropicagent",
		agent.KindGemini:    "github.com/triage-go/triage/provider/gemini/geminiagent",
	} {
		reg, err := agent.Parse([]byte("agents:\n  - {id: llm, kind: "+string(kind)+", model: m}\n"), "a.yaml")
		if err != nil {
			t.Fatalf("%s: Parse: %v", kind, err)
		}
		m := agent.NewManager(reg.Build(&agent.BuildOptions{Getenv: func(string) string { return "sk-test-0123456789abcdef" }}), agent.ManagerConfig{})
		err = m.Start(t.Context())
		ft, ok := fault.As(err)
		if !ok || ft.Code != fault.ConfigError || ft.Details["providerId"] != string(kind) || ft.Details["package"] != pkg ||
			ft.Details["agentId"] != "llm" || !strings.Contains(ft.Message, `Provider "`+string(kind)+`" is not registered`) ||
			!strings.Contains(ft.Message, "import "+pkg) {
			t.Errorf("%s: Start = %v (%v), want CONFIG naming %s", kind, err, ft.Details, pkg)
		}
	}
}

// echoProvider is a provider registered by this test: it answers the
// prompt in two deltas, after recording the history it was sent, and
// refuses "refuse".
type echoProvider struct {
	sent chan []agent.Turn
}

func (p echoProvider) connect(_ context.Context, key string, c agent.Config) (agent.Stream, error) {
	if key != "sk-echo" {
		return nil, fault.New(fault.ProviderAuthFailed, "bad key")
	}
	return func(ctx context.Context, history []agent.Turn, prompt string, delta func(string)) (agent.Ending, error) {
		p.sent <- history
		if prompt == "refuse" {
			return agent.Ending{Reason: "policy", Refused: true}, nil
		}
		delta("echo: ")
		delta(prompt)
		return agent.Ending{Reason: "done"}, nil
	}, nil
}

var echo = echoProvider{sent: make(chan []agent.Turn, 16)}

func init() {
	agent.RegisterProvider(agent.Provider{Kind: "test-echo", ID: "echo-provider", Name: "Echo", Env: []string{"ECHO_KEY"}, Connect: echo.connect})
}

// A registered kind is an agents file's like any other, and package agent
// gives it what it gives every provider: the key from Env, a conversation
// per session, and a fault for an answer that is no answer.
func TestRegisterProvider(t *testing.T) {
	reg, err := agent.Parse([]byte("agents:\n  - {id: e, kind: test-echo, model: m}\n"), "a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := agent.Providers(); !slices.Contains(got, "test-echo") || slices.Contains(got, agent.KindOpenAI) || !slices.IsSorted(got) {
		t.Errorf("Providers() = %v, want the kinds registered in this test binary, sorted", got)
	}
	m := agent.NewManager(reg.Build(&agent.BuildOptions{Getenv: getenvOf(map[string]string{"ECHO_KEY": "sk-echo"})}), agent.ManagerConfig{})
	if err := m.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown()
	s, _ := m.Create(t.Context(), "", "e", nil)
	var chunks []string
	res, err := m.Prompt(t.Context(), "", s.ID, "one", func(c agent.Chunk) { chunks = append(chunks, c.Text) })
	if err != nil || res.Text != "echo: one" || res.StopReason != "end_turn" || !reflect.DeepEqual(chunks, []string{"echo: ", "one"}) {
		t.Fatalf("%+v %q %v", res, chunks, err)
	}
	if _, err := m.Prompt(t.Context(), "", s.ID, "two", nil); err != nil {
		t.Fatal(err)
	}
	<-echo.sent
	if got := <-echo.sent; !reflect.DeepEqual(got, []agent.Turn{{User: "one", Assistant: "echo: one"}}) {
		t.Errorf("the second prompt was sent the history %q", got)
	}
	_, err = m.Prompt(t.Context(), "", s.ID, "refuse", nil)
	<-echo.sent
	if ft, ok := fault.As(err); !ok || ft.Code != fault.ContentRefused || ft.Source != "echo-provider" ||
		ft.Details["providerId"] != "echo-provider" || ft.Details["providerReason"] != "policy" || !ft.SessionValid {
		t.Errorf("a refusal: %v", err)
	}

	m = agent.NewManager(reg.Build(&agent.BuildOptions{Getenv: getenvOf(nil)}), agent.ManagerConfig{})
	if ft, ok := fault.As(m.Start(t.Context())); !ok || ft.Code != fault.ConfigError || ft.Details["apiKeyEnv"] != "ECHO_KEY" {
		t.Errorf("without the key: %v", ft)
	}
}

// RegisterProvider refuses what database/sql's Register refuses: no name,
// a name twice; and a kind of package agent's own.
func TestRegisterProviderPanics(t *testing.T) {
	t.Parallel()
	connect := func(context.Context, string, agent.Config) (agent.Stream, error) { return nil, nil }
	for _, c := range []struct {
		name string
		p    agent.Provider
		want string
	}{
		{"no kind", agent.Provider{Connect: connect}, "needs a Kind"},
		{"no connect", agent.Provider{Kind: "x-none"}, "needs a Kind and a Connect"},
		{"twice", agent.Provider{Kind: "test-echo", Connect: connect}, `twice for kind "test-echo"`},
		{"script", agent.Provider{Kind: agent.KindScript, Connect: connect}, "package agent's own"},
		{"team", agent.Provider{Kind: agent.KindTeam, Connect: connect}, "package agent's own"},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), c.want) {
					t.Errorf("%s: recovered %v, want a panic saying %q", c.name, r, c.want)
				}
			}()
			agent.RegisterProvider(c.p)
		}()
	}
}
