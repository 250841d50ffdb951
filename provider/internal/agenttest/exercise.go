package agenttest

import (
	"context"
	"encoding/json"
	"net"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/fault"
)

// TestKey is the key every fake provider is called with. No fault may
// show it.
const TestKey = "sk-test-AgentProviderKey0123456789abcdef"

// system is the agents' system prompt.
const system = "Answer briefly."

// getenvOf is a Getenv over vars.
func getenvOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// Start builds and starts a Manager with one agent of f's kind, "llm",
// calling url, its key in f.Env; change edits its configuration and the
// environment first. It returns Start's error, and shuts the Manager down
// when the test ends.
func Start(t *testing.T, f Fake, url string, opts agent.ManagerConfig, change ...func(*agent.Config, map[string]string)) (*agent.Manager, error) {
	t.Helper()
	c := agent.Config{ID: "llm", Kind: f.Kind, Model: "test-model", BaseURL: url, System: system}
	vars := map[string]string{f.Env: TestKey}
	for _, ch := range change {
		ch(&c, vars)
	}
	reg := &agent.Registry{Agents: []agent.Config{c}}
	m := agent.NewManager(reg.Build(&agent.BuildOptions{Getenv: getenvOf(vars)}), opts)
	if err := m.Start(context.Background()); err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return m, nil
}

// mustStart is Start that fails the test when the Manager does not start.
func mustStart(t *testing.T, f Fake, url string, opts agent.ManagerConfig) *agent.Manager {
	t.Helper()
	m, err := Start(t, f, url, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return m
}

// chunkCollector is an emit that keeps the chunks.
type chunkCollector struct {
	mu     sync.Mutex
	chunks []string
	first  chan struct{}
	once   sync.Once
}

func newChunkCollector() *chunkCollector { return &chunkCollector{first: make(chan struct{})} }

func (c *chunkCollector) emit(ch agent.Chunk) {
	c.mu.Lock()
	c.chunks = append(c.chunks, ch.Text)
	c.mu.Unlock()
	c.once.Do(func() { close(c.first) })
}

func (c *chunkCollector) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.chunks...)
}

// CheckFault fails t unless err is a fault with code, category and
// retryability, naming f's provider, that does not show the key.
func CheckFault(t *testing.T, f Fake, err error, code fault.Code, category fault.Category, retryable bool) *fault.Error {
	t.Helper()
	ft, ok := fault.As(err)
	if !ok {
		t.Fatalf("err = %v (%T), want a fault", err, err)
	}
	if ft.Code != code || ft.Category != category || ft.Retryable != retryable {
		t.Errorf("got %s/%s retryable=%v (%q), want %s/%s retryable=%v", ft.Code, ft.Category, ft.Retryable, ft.Message, code, category, retryable)
	}
	if got := ft.Details["providerId"]; got != f.ProviderID {
		t.Errorf("details.providerId = %v, want %q", got, f.ProviderID)
	}
	if b, _ := json.Marshal(ft.Payload(true)); strings.Contains(string(b), TestKey) || strings.Contains(ft.Error(), TestKey) {
		t.Errorf("the fault shows the key: %s", b)
	}
	return ft
}

// Exercise runs the suite on f's kind of agent, each case in parallel.
// Call it from a test that is not parallel itself.
func Exercise(t *testing.T, f Fake) {
	for _, c := range []struct {
		name string
		test func(*testing.T, Fake)
	}{
		{"StreamsAnswer", streamsAnswer}, {"Conversation", conversation}, {"RateLimited", rateLimited},
		{"Unauthorized", unauthorized}, {"Unreachable", unreachable}, {"NoAnswer", noAnswer},
		{"MissingKey", missingKey}, {"MissingModel", missingModel}, {"Cancel", cancel},
		{"PromptTimeout", promptTimeout}, {"HistoryBounded", historyBounded},
		{"DelegateWithHistory", delegateWithHistory},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.test(t, f)
		})
	}
}

func streamsAnswer(t *testing.T, f Fake) {
	srv := f.Serve(t)
	m := mustStart(t, f, srv.URL, agent.ManagerConfig{})
	s, err := m.Create(t.Context(), "owner", "llm", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := newChunkCollector()
	res, err := m.Prompt(t.Context(), "owner", s.ID, "hello", c.emit)
	if err != nil {
		t.Fatalf("Prompt: %v", err)
	}
	if want := []string{"Answer", " to", " hello"}; !reflect.DeepEqual(c.got(), want) {
		t.Errorf("chunks = %q, want %q, in order", c.got(), want)
	}
	if res.Text != "Answer to hello" || res.StopReason != "end_turn" {
		t.Errorf("result = %+v", res)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if r := reqs[0]; r.Key != TestKey || r.System != system || !reflect.DeepEqual(r.Msgs, []Message{{"user", "hello"}}) {
		t.Errorf("request = %+v", r)
	}
}

// A session is a conversation: each prompt sends the turns before it; a
// failed or cancelled prompt adds nothing; another session has its own.
func conversation(t *testing.T, f Fake) {
	srv := f.Serve(t)
	m := mustStart(t, f, srv.URL, agent.ManagerConfig{})
	s, _ := m.Create(t.Context(), "owner", "llm", nil)
	other, _ := m.Create(t.Context(), "owner", "llm", nil)
	for _, p := range []string{"first", "rate limit", "second"} {
		_, _ = m.Prompt(t.Context(), "owner", s.ID, p, nil)
	}
	if _, err := m.Prompt(t.Context(), "owner", other.ID, "elsewhere", nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	want := [][]Message{
		{{"user", "first"}},
		{{"user", "first"}, {"assistant", "Answer to first"}, {"user", "rate limit"}},
		{{"user", "first"}, {"assistant", "Answer to first"}, {"user", "second"}},
		{{"user", "elsewhere"}},
	}
	for i, w := range want {
		if !reflect.DeepEqual(reqs[i].Msgs, w) {
			t.Errorf("request %d sent %q, want %q", i, reqs[i].Msgs, w)
		}
	}
}

func rateLimited(t *testing.T, f Fake) {
	m := mustStart(t, f, f.Serve(t).URL, agent.ManagerConfig{})
	s, _ := m.Create(t.Context(), "owner", "llm", nil)
	_, err := m.Prompt(t.Context(), "owner", s.ID, "rate limit", nil)
	ft := CheckFault(t, f, err, fault.RateLimited, fault.CategoryUpstream, true)
	if ft.RetryAfter != 7*time.Second {
		t.Errorf("RetryAfter = %v, want 7s", ft.RetryAfter)
	}
	if ft.Details["agentId"] != "llm" || ft.Details["sessionId"] != s.ID || !ft.SessionValid {
		t.Errorf("details = %v, sessionValid = %v", ft.Details, ft.SessionValid)
	}
	st, _ := m.Status("owner", s.ID)
	if st.State != agent.StateIdle || st.LastError != fault.RateLimited {
		t.Errorf("session = %+v, want idle after a rate limit", st)
	}
}

func unauthorized(t *testing.T, f Fake) {
	m := mustStart(t, f, f.Serve(t).URL, agent.ManagerConfig{})
	s, _ := m.Create(t.Context(), "owner", "llm", nil)
	_, err := m.Prompt(t.Context(), "owner", s.ID, "unauthorized", nil)
	CheckFault(t, f, err, fault.ProviderAuthFailed, fault.CategoryAuth, false)
}

func unreachable(t *testing.T, f Fake) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	_ = l.Close()
	m := mustStart(t, f, closed, agent.ManagerConfig{})
	s, _ := m.Create(t.Context(), "owner", "llm", nil)
	_, err = m.Prompt(t.Context(), "owner", s.ID, "hello", nil)
	CheckFault(t, f, err, fault.TransportError, fault.CategoryTransport, true)
}

// A stream that is no answer is a fault, never an empty success.
func noAnswer(t *testing.T, f Fake) {
	m := mustStart(t, f, f.Serve(t).URL, agent.ManagerConfig{})
	for _, c := range []struct {
		prompt    string
		code      fault.Code
		retryable bool
	}{
		{"refuse", fault.ContentRefused, false},
		{"empty", fault.UpstreamError, false},
		{"cut", fault.UpstreamError, true},
	} {
		s, _ := m.Create(t.Context(), "owner", "llm", nil)
		_, err := m.Prompt(t.Context(), "owner", s.ID, c.prompt, nil)
		ft := CheckFault(t, f, err, c.code, fault.CategoryUpstream, c.retryable)
		if !ft.SessionValid {
			t.Errorf("%s: the session is not valid after %s", c.prompt, ft.Code)
		}
	}
}

func missingKey(t *testing.T, f Fake) {
	_, err := Start(t, f, "http://127.0.0.1:1", agent.ManagerConfig{}, func(_ *agent.Config, vars map[string]string) {
		delete(vars, f.Env)
	})
	ft := CheckFault(t, f, err, fault.ConfigError, fault.CategoryConfig, false)
	if ft.Message != "Missing required credential: apiKey" {
		t.Errorf("message = %q", ft.Message)
	}
	// apiKeyEnv names where the key is instead.
	_, err = Start(t, f, "http://127.0.0.1:1", agent.ManagerConfig{}, func(c *agent.Config, vars map[string]string) {
		c.APIKeyEnv = "MY_KEY"
	})
	CheckFault(t, f, err, fault.ConfigError, fault.CategoryConfig, false)
	if _, err := Start(t, f, "http://127.0.0.1:1", agent.ManagerConfig{}, func(c *agent.Config, vars map[string]string) {
		c.APIKeyEnv = "MY_KEY"
		vars["MY_KEY"], vars[f.Env] = TestKey, ""
	}); err != nil {
		t.Errorf("with the key in apiKeyEnv: %v", err)
	}
}

func missingModel(t *testing.T, f Fake) {
	_, err := Start(t, f, "http://127.0.0.1:1", agent.ManagerConfig{}, func(c *agent.Config, _ map[string]string) { c.Model = "" })
	ft := CheckFault(t, f, err, fault.ConfigError, fault.CategoryConfig, false)
	if ft.Message != "Missing required setting: model" {
		t.Errorf("message = %q", ft.Message)
	}
}

// Cancelling a prompt mid-stream ends it at once, CANCELLED; the session
// takes the next prompt, its history without the cancelled one.
func cancel(t *testing.T, f Fake) {
	for _, how := range []string{"Cancel", "Context"} {
		srv := f.Serve(t)
		m := mustStart(t, f, srv.URL, agent.ManagerConfig{})
		s, _ := m.Create(t.Context(), "owner", "llm", nil)
		ctx, cancel := context.WithCancel(t.Context())
		c := newChunkCollector()
		go func() {
			select {
			case <-c.first:
			case <-time.After(5 * time.Second):
			}
			if how == "Cancel" {
				_, _, _ = m.Cancel(t.Context(), "owner", s.ID)
			} else {
				cancel()
			}
		}()
		begin := time.Now()
		res, err := m.Prompt(ctx, "owner", s.ID, "hang", c.emit)
		cancel()
		if d := time.Since(begin); d > 3*time.Second {
			t.Errorf("%s: the prompt took %v to end", how, d)
		}
		if fault.CodeOf(err) != fault.Cancelled {
			t.Errorf("%s: err = %v, want CANCELLED", how, err)
		}
		if res.Text != "Thinking" {
			t.Errorf("%s: partial text = %q", how, res.Text)
		}
		if _, err := m.Prompt(t.Context(), "owner", s.ID, "again", nil); err != nil {
			t.Fatalf("%s: the next prompt: %v", how, err)
		}
		reqs := srv.Requests()
		if got := reqs[len(reqs)-1].Msgs; !reflect.DeepEqual(got, []Message{{"user", "again"}}) {
			t.Errorf("%s: the next prompt sent %q", how, got)
		}
	}
}

// A prompt past the Manager's deadline is the Manager's TIMEOUT.
func promptTimeout(t *testing.T, f Fake) {
	m := mustStart(t, f, f.Serve(t).URL, agent.ManagerConfig{PromptTimeout: 200 * time.Millisecond})
	s, _ := m.Create(t.Context(), "owner", "llm", nil)
	_, err := m.Prompt(t.Context(), "owner", s.ID, "hang", nil)
	if ft, ok := fault.As(err); !ok || ft.Code != fault.Timeout || !ft.Retryable {
		t.Errorf("err = %v, want the prompt's TIMEOUT", err)
	}
}

// However long a session, what is sent stays bounded: the oldest turns go.
func historyBounded(t *testing.T, f Fake) {
	srv := f.Serve(t)
	m := mustStart(t, f, srv.URL, agent.ManagerConfig{})
	s, _ := m.Create(t.Context(), "owner", "llm", nil)
	const n = 40
	for i := range n {
		if _, err := m.Prompt(t.Context(), "owner", s.ID, "prompt "+strconv.Itoa(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Msgs
	if len(last) != 64+1 {
		t.Fatalf("the last request sent %d messages, want 64 of history and the prompt", len(last))
	}
	if first := last[0]; first != (Message{"user", "prompt " + strconv.Itoa(n-1-32)}) {
		t.Errorf("the history starts with %q", first)
	}
}

// A conversation the caller holds (an AG-UI thread) reaches the provider
// before the prompt; turns without an answer are left out.
func delegateWithHistory(t *testing.T, f Fake) {
	srv := f.Serve(t)
	m := mustStart(t, f, srv.URL, agent.ManagerConfig{})
	history := []agent.Turn{{User: "first", Assistant: "one"}, {User: "unanswered"}, {User: "second", Assistant: "two"}}
	res, _, err := m.DelegateWithHistory(t.Context(), "owner", "llm", history, "third", nil, nil)
	if err != nil || res.Text != "Answer to third" {
		t.Fatalf("%+v %v", res, err)
	}
	reqs := srv.Requests()
	want := []Message{{"user", "first"}, {"assistant", "one"}, {"user", "second"}, {"assistant", "two"}, {"user", "third"}}
	if len(reqs) != 1 || !reflect.DeepEqual(reqs[0].Msgs, want) {
		t.Errorf("sent %q, want %q", reqs, want)
	}
}
