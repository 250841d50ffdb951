package agent_test

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

// providerTestKey is the key every fake provider is called with.
const providerTestKey = "sk-test-AgentProviderKey0123456789abcdef"

const providerSystem = "Answer briefly."

// getenvOf is a Getenv over vars.
func getenvOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// startProvider builds and starts a Manager with one agent of f's kind, "llm",
// calling url; change edits its configuration first.
func startProvider(t *testing.T, f providerFake, url string, opts agent.Options, change ...func(*agent.Config, map[string]string)) *agent.Manager {
	t.Helper()
	m, err := startProviderErr(t, f, url, opts, change...)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return m
}

func startProviderErr(t *testing.T, f providerFake, url string, opts agent.Options, change ...func(*agent.Config, map[string]string)) (*agent.Manager, error) {
	t.Helper()
	c := agent.Config{ID: "llm", Kind: f.kind, Model: "test-model", BaseURL: url, System: providerSystem}
	vars := map[string]string{f.env: providerTestKey}
	for _, ch := range change {
		ch(&c, vars)
	}
	reg := &agent.Registry{Agents: []agent.Config{c}}
	m := agent.NewManager(reg.Build(agent.BuildOptions{Getenv: getenvOf(vars)}), opts)
	if err := m.Start(context.Background()); err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return m, nil
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

// forEachProvider runs test for each fake provider, in parallel.
func forEachProvider(t *testing.T, test func(t *testing.T, f providerFake)) {
	t.Helper()
	for _, f := range providerFakes {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			test(t, f)
		})
	}
}

// checkProviderFault fails t unless err is a fault with code, category and
// retryability, naming the provider and the agent.
func checkProviderFault(t *testing.T, f providerFake, err error, code fault.Code, category fault.Category, retryable bool) *fault.Error {
	t.Helper()
	ft, ok := fault.As(err)
	if !ok {
		t.Fatalf("err = %v (%T), want a fault", err, err)
	}
	if ft.Code != code || ft.Category != category || ft.Retryable != retryable {
		t.Errorf("got %s/%s retryable=%v (%q), want %s/%s retryable=%v", ft.Code, ft.Category, ft.Retryable, ft.Message, code, category, retryable)
	}
	if got := ft.Details["providerId"]; got != f.providerID {
		t.Errorf("details.providerId = %v, want %q", got, f.providerID)
	}
	if b, _ := json.Marshal(ft.Payload(true)); strings.Contains(string(b), providerTestKey) || strings.Contains(ft.Error(), providerTestKey) {
		t.Errorf("the fault shows the key: %s", b)
	}
	return ft
}

func TestProviderStreamsAnswer(t *testing.T) {
	t.Parallel()
	forEachProvider(t, func(t *testing.T, f providerFake) {
		srv := f.serve(t)
		m := startProvider(t, f, srv.URL, agent.Options{})
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
		if r := reqs[0]; r.key != providerTestKey || r.system != providerSystem || !reflect.DeepEqual(r.msgs, []fakeMessage{{"user", "hello"}}) {
			t.Errorf("request = %+v", r)
		}
	})
}

// A session is a conversation: each prompt sends the turns before it; a
// failed or cancelled prompt adds nothing; another session has its own.
func TestProviderConversation(t *testing.T) {
	t.Parallel()
	forEachProvider(t, func(t *testing.T, f providerFake) {
		srv := f.serve(t)
		m := startProvider(t, f, srv.URL, agent.Options{})
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
		want := [][]fakeMessage{
			{{"user", "first"}},
			{{"user", "first"}, {"assistant", "Answer to first"}, {"user", "rate limit"}},
			{{"user", "first"}, {"assistant", "Answer to first"}, {"user", "second"}},
			{{"user", "elsewhere"}},
		}
		for i, w := range want {
			if !reflect.DeepEqual(reqs[i].msgs, w) {
				t.Errorf("request %d sent %q, want %q", i, reqs[i].msgs, w)
			}
		}
	})
}

func TestProviderRateLimited(t *testing.T) {
	t.Parallel()
	forEachProvider(t, func(t *testing.T, f providerFake) {
		m := startProvider(t, f, f.serve(t).URL, agent.Options{})
		s, _ := m.Create(t.Context(), "owner", "llm", nil)
		_, err := m.Prompt(t.Context(), "owner", s.ID, "rate limit", nil)
		ft := checkProviderFault(t, f, err, fault.RateLimited, fault.CategoryUpstream, true)
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
	})
}

func TestProviderUnauthorized(t *testing.T) {
	t.Parallel()
	forEachProvider(t, func(t *testing.T, f providerFake) {
		m := startProvider(t, f, f.serve(t).URL, agent.Options{})
		s, _ := m.Create(t.Context(), "owner", "llm", nil)
		_, err := m.Prompt(t.Context(), "owner", s.ID, "unauthorized", nil)
		checkProviderFault(t, f, err, fault.ProviderAuthFailed, fault.CategoryAuth, false)
	})
}

func TestProviderUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	_ = l.Close()
	forEachProvider(t, func(t *testing.T, f providerFake) {
		m := startProvider(t, f, closed, agent.Options{})
		s, _ := m.Create(t.Context(), "owner", "llm", nil)
		_, err := m.Prompt(t.Context(), "owner", s.ID, "hello", nil)
		checkProviderFault(t, f, err, fault.TransportError, fault.CategoryTransport, true)
	})
}

// A stream that is no answer is a fault, never an empty success.
func TestProviderNoAnswer(t *testing.T) {
	t.Parallel()
	forEachProvider(t, func(t *testing.T, f providerFake) {
		m := startProvider(t, f, f.serve(t).URL, agent.Options{})
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
			ft := checkProviderFault(t, f, err, c.code, fault.CategoryUpstream, c.retryable)
			if !ft.SessionValid {
				t.Errorf("%s: the session is not valid after %s", c.prompt, ft.Code)
			}
		}
	})
}

func TestProviderMissingKey(t *testing.T) {
	t.Parallel()
	forEachProvider(t, func(t *testing.T, f providerFake) {
		_, err := startProviderErr(t, f, "http://127.0.0.1:1", agent.Options{}, func(_ *agent.Config, vars map[string]string) {
			delete(vars, f.env)
		})
		ft := checkProviderFault(t, f, err, fault.ConfigError, fault.CategoryConfig, false)
		if ft.Message != "Missing required credential: apiKey" {
			t.Errorf("message = %q", ft.Message)
		}
		// apiKeyEnv names where the key is instead.
		_, err = startProviderErr(t, f, "http://127.0.0.1:1", agent.Options{}, func(c *agent.Config, vars map[string]string) {
			c.APIKeyEnv = "MY_KEY"
		})
		checkProviderFault(t, f, err, fault.ConfigError, fault.CategoryConfig, false)
		if _, err := startProviderErr(t, f, "http://127.0.0.1:1", agent.Options{}, func(c *agent.Config, vars map[string]string) {
			c.APIKeyEnv = "MY_KEY"
			vars["MY_KEY"], vars[f.env] = providerTestKey, ""
		}); err != nil {
			t.Errorf("with the key in apiKeyEnv: %v", err)
		}
	})
	t.Run("GoogleAPIKey", func(t *testing.T) {
		t.Parallel()
		if _, err := startProviderErr(t, geminiFake, "http://127.0.0.1:1", agent.Options{}, func(_ *agent.Config, vars map[string]string) {
			vars["GEMINI_API_KEY"], vars["GOOGLE_API_KEY"] = "", providerTestKey
		}); err != nil {
			t.Errorf("with GOOGLE_API_KEY: %v", err)
		}
	})
}

func TestProviderMissingModel(t *testing.T) {
	t.Parallel()
	forEachProvider(t, func(t *testing.T, f providerFake) {
		_, err := startProviderErr(t, f, "http://127.0.0.1:1", agent.Options{}, func(c *agent.Config, _ map[string]string) { c.Model = "" })
		ft := checkProviderFault(t, f, err, fault.ConfigError, fault.CategoryConfig, false)
		if ft.Message != "Missing required setting: model" {
			t.Errorf("message = %q", ft.Message)
		}
	})
}

// Cancelling a prompt mid-stream ends it at once, CANCELLED; the session
// takes the next prompt, its history without the cancelled one.
func TestProviderCancel(t *testing.T) {
	t.Parallel()
	forEachProvider(t, func(t *testing.T, f providerFake) {
		for _, how := range []string{"Cancel", "Context"} {
			srv := f.serve(t)
			m := startProvider(t, f, srv.URL, agent.Options{})
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
			if got := reqs[len(reqs)-1].msgs; !reflect.DeepEqual(got, []fakeMessage{{"user", "again"}}) {
				t.Errorf("%s: the next prompt sent %q", how, got)
			}
		}
	})
}

// A prompt past the Manager's deadline is the Manager's TIMEOUT.
func TestProviderPromptTimeout(t *testing.T) {
	t.Parallel()
	forEachProvider(t, func(t *testing.T, f providerFake) {
		m := startProvider(t, f, f.serve(t).URL, agent.Options{PromptTimeout: 200 * time.Millisecond})
		s, _ := m.Create(t.Context(), "owner", "llm", nil)
		_, err := m.Prompt(t.Context(), "owner", s.ID, "hang", nil)
		if ft, ok := fault.As(err); !ok || ft.Code != fault.Timeout || !ft.Retryable {
			t.Errorf("err = %v, want the prompt's TIMEOUT", err)
		}
	})
}

func TestProviderUnknownKind(t *testing.T) {
	t.Parallel()
	reg := &agent.Registry{Agents: []agent.Config{{ID: "x", Kind: "mistral", Model: "m"}}}
	m := agent.NewManager(reg.Build(agent.BuildOptions{Getenv: getenvOf(nil)}), agent.Options{})
	err := m.Start(t.Context())
	if ft, ok := fault.As(err); !ok || ft.Code != fault.ConfigError || ft.Details["providerId"] != "mistral" {
		t.Errorf("Start = %v, want CONFIG naming the provider", err)
	}
}

// However long a session, what is sent stays bounded: the oldest turns go.
func TestProviderHistoryBounded(t *testing.T) {
	t.Parallel()
	forEachProvider(t, func(t *testing.T, f providerFake) {
		srv := f.serve(t)
		m := startProvider(t, f, srv.URL, agent.Options{})
		s, _ := m.Create(t.Context(), "owner", "llm", nil)
		const n = 40
		for i := range n {
			if _, err := m.Prompt(t.Context(), "owner", s.ID, "prompt "+strconv.Itoa(i), nil); err != nil {
				t.Fatal(err)
			}
		}
		reqs := srv.Requests()
		last := reqs[len(reqs)-1].msgs
		if len(last) != 64+1 {
			t.Fatalf("the last request sent %d messages, want 64 of history and the prompt", len(last))
		}
		if first := last[0]; first != (fakeMessage{"user", "prompt " + strconv.Itoa(n-1-32)}) {
			t.Errorf("the history starts with %q", first)
		}
	})
}

// A conversation the caller holds (an AG-UI thread) reaches the provider
// before the prompt; turns without an answer are left out.
func TestProviderDelegateWithHistory(t *testing.T) {
	t.Parallel()
	forEachProvider(t, func(t *testing.T, f providerFake) {
		srv := f.serve(t)
		m := startProvider(t, f, srv.URL, agent.Options{})
		history := []agent.Turn{{User: "first", Assistant: "one"}, {User: "unanswered"}, {User: "second", Assistant: "two"}}
		res, _, err := m.DelegateWithHistory(t.Context(), "owner", "llm", history, "third", nil, nil)
		if err != nil || res.Text != "Answer to third" {
			t.Fatalf("%+v %v", res, err)
		}
		reqs := srv.Requests()
		want := []fakeMessage{{"user", "first"}, {"assistant", "one"}, {"user", "second"}, {"assistant", "two"}, {"user", "third"}}
		if len(reqs) != 1 || !reflect.DeepEqual(reqs[0].msgs, want) {
			t.Errorf("sent %q, want %q", reqs, want)
		}
	})
}
