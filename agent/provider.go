package agent

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/triage-go/triage/fault"
)

// A provider agent (kind openai, anthropic, gemini, or any kind a package
// registers with RegisterProvider) calls a model provider in process,
// through the Provider its package registered: Triage's provider agent
// packages (provider/openai/openaiagent, …) call the official SDK
// through the client Triage's provider package builds for it (the SDK's
// own retries off: the caller decides, from the fault, whether to
// retry). Each session is a
// conversation: the provider is sent the system prompt, the session's
// earlier turns and the new prompt, and streams its answer back, a text
// delta per Chunk. A turn joins the history only when its prompt succeeds;
// the history keeps the latest maxHistoryMessages messages and at most
// maxHistoryBytes of text, dropping the oldest turns first.
//
// Every failure is a fault naming the provider (details.providerId and
// Source): the provider package classifies the SDK's errors by seed 002's
// tables (AUTH for a rejected key, UPSTREAM retryable for a rate limit
// with its retry delay, TRANSPORT for a connection that failed, TIMEOUT
// for a request that timed out, UPSTREAM for the rest), and an answer that
// is no answer (a refusal, a safety block, an empty or cut-off stream) is a
// fault too, never an empty success. A prompt whose context ends returns
// the context's error, which the Manager reports as CANCELLED or as its
// own prompt timeout.

// The bounds of a session's history.
const (
	maxHistoryMessages = 64        // user and assistant messages
	maxHistoryBytes    = 256 << 10 // of their text
)

func (t Turn) size() int { return len(t.User) + len(t.Assistant) }

// newProvider returns the backend of a provider agent. Nothing is checked
// until Start.
func newProvider(c Config, opts BuildOptions) Backend {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	kind, ok := providerOf(c.Kind)
	return &providerBackend{cfg: c, kind: kind, known: ok, getenv: getenv, logger: logger,
		sessions: map[string]*conversation{}}
}

// providerBackend runs the sessions of one provider agent.
type providerBackend struct {
	cfg    Config
	kind   Provider
	known  bool
	getenv func(string) string
	logger *slog.Logger

	mu       sync.Mutex
	stream   Stream // set by Start
	sessions map[string]*conversation
	next     int
}

// conversation is one session: its history and its running prompt.
type conversation struct {
	turns  []Turn
	bytes  int
	cancel context.CancelFunc
}

// add appends t to the history, then drops the oldest turns until the
// history is within its bounds.
func (c *conversation) add(t Turn) {
	c.turns = append(c.turns, t)
	c.bytes += t.size()
	n := 0
	for n < len(c.turns) && (2*(len(c.turns)-n) > maxHistoryMessages || c.bytes > maxHistoryBytes) {
		c.bytes -= c.turns[n].size()
		n++
	}
	c.turns = slices.Delete(c.turns, 0, n)
}

// seed replaces the session's history with turns, within its bounds:
// the oldest dropped first. Turns without an answer are not kept: a
// provider's conversation alternates user and assistant messages.
func (b *providerBackend) seed(session string, turns []Turn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c, ok := b.sessions[session]
	if !ok {
		return
	}
	c.turns, c.bytes = nil, 0
	for _, t := range turns {
		if t.User != "" && t.Assistant != "" {
			c.add(t)
		}
	}
}

// Start checks the configuration (a model and a key) and builds the
// provider's client. A missing model or key is a CONFIG fault naming the
// provider.
func (b *providerBackend) Start(ctx context.Context) error {
	if !b.known {
		return errNotRegistered(b.cfg.Kind, fault.WithDetail("agentId", b.cfg.ID))
	}
	if strings.TrimSpace(b.cfg.Model) == "" {
		return b.configFault("Missing required setting: model", fault.WithDetail("field", "model"))
	}
	env := b.kind.Env
	if b.cfg.APIKeyEnv != "" {
		env = []string{b.cfg.APIKeyEnv}
	}
	var key string
	for _, name := range env {
		if key = strings.TrimSpace(b.getenv(name)); key != "" {
			break
		}
	}
	if key == "" {
		return b.configFault("Missing required credential: apiKey",
			fault.WithDetail("field", "apiKey"), fault.WithDetail("apiKeyEnv", strings.Join(env, " or ")))
	}
	// Whatever an upstream echoes back, no fault shows the key.
	fault.RegisterSecret(key)
	stream, err := b.kind.Connect(ctx, key, b.cfg)
	if err != nil {
		return b.fault(err)
	}
	b.mu.Lock()
	b.stream = stream
	b.mu.Unlock()
	return nil
}

func (b *providerBackend) configFault(message string, opts ...fault.Option) *fault.Error {
	opts = append(opts, fault.WithDetail("providerId", b.kind.ID), fault.WithDetail("agentId", b.cfg.ID))
	return fault.New(fault.ConfigError, message, opts...)
}

// fault is the fault of an error of the provider's SDK: the provider
// package's classification, naming the provider whatever the error.
func (b *providerBackend) fault(err error) *fault.Error {
	if b.kind.Wrap != nil {
		err = b.kind.Wrap(err)
	}
	f := fault.From(err).Clone()
	if f.Details == nil {
		f.Details = map[string]any{}
	}
	if _, ok := f.Details["providerId"]; !ok {
		f.Details["providerId"] = b.kind.ID
	}
	if f.Source == "" {
		f.Source = b.kind.ID
	}
	return f
}

func (b *providerBackend) NewSession(context.Context) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stream == nil {
		return "", errNotStarted()
	}
	b.next++
	id := b.kind.ID + "-" + strconv.Itoa(b.next)
	b.sessions[id] = &conversation{}
	return id, nil
}

// Prompt sends text, after the session's history, and streams the answer.
func (b *providerBackend) Prompt(ctx context.Context, session, text string, emit func(Chunk)) (Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b.mu.Lock()
	c, ok := b.sessions[session]
	stream := b.stream
	if !ok || stream == nil {
		b.mu.Unlock()
		return Result{}, errSessionNotFound(session)
	}
	c.cancel = cancel
	history := slices.Clone(c.turns)
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		c.cancel = nil
		b.mu.Unlock()
	}()

	var out strings.Builder
	end, err := stream(ctx, history, text, func(d string) {
		if d == "" || ctx.Err() != nil {
			return
		}
		out.WriteString(d)
		if emit != nil {
			emit(Chunk{Text: d})
		}
	})
	res := Result{Text: out.String()}
	if ctx.Err() != nil {
		// Cancelled, closed or past the prompt's deadline: the Manager
		// says which.
		return res, ctx.Err()
	}
	if err != nil {
		f := b.fault(err)
		b.logger.Debug("provider prompt failed", "agent", b.cfg.ID, "session", session, "err", f)
		return res, f
	}
	if f := b.noAnswer(end, res.Text); f != nil {
		return res, f
	}
	res.StopReason = "end_turn"
	if end.Truncated {
		res.StopReason = "max_tokens"
	}
	b.mu.Lock()
	if b.sessions[session] == c {
		c.add(Turn{User: text, Assistant: res.Text})
	}
	b.mu.Unlock()
	return res, nil
}

// noAnswer is the fault of a stream that ended without an answer: a
// refusal (CONTENT_REFUSED), a stream cut off before its end (UPSTREAM,
// retryable), or nothing said (UPSTREAM).
func (b *providerBackend) noAnswer(end Ending, text string) *fault.Error {
	opts := []fault.Option{fault.WithSource(b.kind.ID), fault.WithDetail("providerId", b.kind.ID),
		fault.WithDomain(fault.DomainLLM), fault.WithSessionValid(true)}
	if end.Reason != "" {
		opts = append(opts, fault.WithDetail("providerReason", end.Reason))
	}
	switch {
	case end.Refused:
		if end.Refusal != "" {
			opts = append(opts, fault.WithDebug("refusal", end.Refusal))
		}
		return fault.New(fault.ContentRefused, b.kind.Name+" declined to answer the prompt under its content policy.", opts...)
	case end.Reason == "":
		opts = append(opts, fault.WithCategory(fault.CategoryUpstream), fault.WithRetryable(true))
		return fault.New(fault.UpstreamError, b.kind.Name+"'s answer ended before it was complete. Please try again.", opts...)
	case text == "":
		opts = append(opts, fault.WithCategory(fault.CategoryUpstream), fault.WithRetryable(false))
		return fault.New(fault.UpstreamError, b.kind.Name+" returned an empty answer.", opts...)
	}
	return nil
}

// Cancel stops the session's running prompt, if any.
func (b *providerBackend) Cancel(_ context.Context, session string) error {
	b.mu.Lock()
	var cancel context.CancelFunc
	if c, ok := b.sessions[session]; ok {
		cancel = c.cancel
	}
	b.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}

// CloseSession forgets the session and its history, stopping its prompt.
func (b *providerBackend) CloseSession(session string) {
	b.mu.Lock()
	var cancel context.CancelFunc
	if c, ok := b.sessions[session]; ok {
		cancel = c.cancel
	}
	delete(b.sessions, session)
	b.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Close forgets every session. The SDKs' clients hold nothing to release.
func (b *providerBackend) Close() error {
	b.mu.Lock()
	var cancels []context.CancelFunc
	for _, c := range b.sessions {
		if c.cancel != nil {
			cancels = append(cancels, c.cancel)
		}
	}
	b.sessions = map[string]*conversation{}
	b.stream = nil
	b.mu.Unlock()
	for _, cancel := range cancels {
		cancel()
	}
	return nil
}
