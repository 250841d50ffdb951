package bridge

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/fault"
)

// ErrorMode chooses how a failed tool call reaches the client.
type ErrorMode string

// The error modes.
const (
	// ErrorsAsResults, the default, follows the MCP specification: a
	// failed tool call is a CallToolResult with isError set, its text
	// written for a model or a person, and the fault as structuredContent
	// under "error".
	ErrorsAsResults ErrorMode = "result"
	// ErrorsAsJSONRPC is seed 002's mode: a failed tool call is a JSON-RPC
	// error whose code is the category's (CONFIG -32004, AUTH -32003,
	// UPSTREAM -32002, TIMEOUT -32001, TRANSPORT -32000, INTERNAL -32603)
	// and whose data is {type, retryable, sessionValid, …}. MCP reserves
	// -32020…-32099 for itself and -32002 was its resource-not-found code,
	// so only a client written for seed 002 should ask for it.
	ErrorsAsJSONRPC ErrorMode = "jsonrpc"
)

// Config configures a bridge. Zero values take the defaults.
type Config struct {
	// Manager runs the agents and their sessions; it must be started.
	Manager *agent.Manager
	// ErrorMode is ErrorsAsResults unless set.
	ErrorMode ErrorMode
	// MaxPromptBytes bounds a prompt (default 1 MiB).
	MaxPromptBytes int
	// MaxMetadataBytes bounds a request's metadata, as JSON (default 64 KiB).
	MaxMetadataBytes int
	// MaxConcurrent bounds the tool calls running at once (default 64);
	// beyond it a call fails with "Server overloaded" (TRANSPORT, retryable).
	MaxConcurrent int
	// MaxPerOwner bounds one owner's calls running at once (default: a
	// quarter of MaxConcurrent when Owner is set, else MaxConcurrent).
	MaxPerOwner int
	// RequestTimeout bounds every call but a prompt's (default 30s); a
	// prompt is bounded by the Manager's PromptTimeout.
	RequestTimeout time.Duration
	// Owner names the caller a call belongs to (a tenant): sessions are
	// visible to their owner only. Nil means one owner, as over stdio.
	Owner func(ctx context.Context, req *mcp.CallToolRequest) string
	// Version is reported by bridge_health and the MCP implementation.
	Version string
	// ShutdownTimeout bounds how long Run, once its context ends, waits for
	// the calls in flight to be answered before it closes the connection
	// (default 5s). See Shutdown.
	ShutdownTimeout time.Duration
	// Logger receives one line per failed call (code and tool, no text
	// from the agent).
	Logger *slog.Logger
	// Now tells the time: errors_report's timestamp when the call gives
	// none. Defaults to time.Now.
	Now func() time.Time
}

// The defaults of Config.
const (
	DefaultMaxPromptBytes   = 1 << 20
	DefaultMaxMetadataBytes = 64 << 10
	DefaultMaxConcurrent    = 64
	DefaultRequestTimeout   = 30 * time.Second
	DefaultShutdownTimeout  = 5 * time.Second
)

// ShutdownRetryAfter is the retry delay of the fault a call gets when the
// bridge shuts down: about the time a client takes to start it again, or a
// server to come back.
const ShutdownRetryAfter = 5 * time.Second

// ErrShutdown is the cause Shutdown cancels the calls in flight with; the
// fault each of them, and each call refused from then on, is answered with
// wraps it (errors.Is(f, ErrShutdown)).
var ErrShutdown = errors.New("bridge: shutting down")

// Bridge is the MCP agentic bridge: seed 002's tools over an agent
// Manager. Serve its Server over any go-sdk transport.
type Bridge struct {
	cfg    Config
	server *mcp.Server
	slots  chan struct{}

	life context.Context // cancelled with ErrShutdown by Shutdown
	stop context.CancelCauseFunc

	mu      sync.Mutex
	byOwner map[string]int
	// bySession counts the tool calls running in each MCP session (by
	// the go-sdk's session id; none over stdio, whose session has none).
	bySession map[string]int
	closing   bool          // Shutdown has begun
	pending   int           // calls entered and not yet answered, failures being told
	answered  chan struct{} // closed by Shutdown once pending is 0

	// failed is OnFailure's func.
	failed atomic.Pointer[func(context.Context, CallFailure)]
}

// New returns a bridge with its tools registered.
func New(cfg Config) *Bridge {
	if cfg.ErrorMode == "" {
		cfg.ErrorMode = ErrorsAsResults
	}
	if cfg.MaxPromptBytes <= 0 {
		cfg.MaxPromptBytes = DefaultMaxPromptBytes
	}
	if cfg.MaxMetadataBytes <= 0 {
		cfg.MaxMetadataBytes = DefaultMaxMetadataBytes
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	if cfg.MaxPerOwner <= 0 {
		cfg.MaxPerOwner = cfg.MaxConcurrent
		if cfg.Owner != nil {
			cfg.MaxPerOwner = max(1, cfg.MaxConcurrent/4)
		}
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	b := &Bridge{cfg: cfg, slots: make(chan struct{}, cfg.MaxConcurrent), byOwner: map[string]int{}, bySession: map[string]int{},
		answered: make(chan struct{})}
	b.life, b.stop = context.WithCancelCause(context.Background())
	b.server = mcp.NewServer(&mcp.Implementation{Name: "triage-bridge", Title: "Triage MCP agentic bridge", Version: cfg.Version},
		&mcp.ServerOptions{
			Instructions: instructions,
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		})
	b.addTools()
	return b
}

const instructions = `Triage's agentic bridge: discover agents with agents_discover, open a session with sessions_create, send prompts with sessions_prompt (long answers stream as progress notifications), and close it with sessions_close; tasks_delegate does all three in one call. Every failure says its category, whether it is retryable, whether the session is still valid, and what to do next.`

// Server is the MCP server to run over a transport.
func (b *Bridge) Server() *mcp.Server { return b.server }

// Run serves the bridge over t (for example &mcp.StdioTransport{}) until
// the client disconnects, when it returns nil or the connection's error, or
// ctx ends. When ctx ends, Run shuts the bridge down (Shutdown, bounded by
// Config.ShutdownTimeout), so that every call in flight gets its answer
// on t, then closes the connection and returns ctx.Err().
func (b *Bridge) Run(ctx context.Context, t mcp.Transport) error {
	// The connection outlives ctx: its calls must still be answered once
	// ctx has ended, and a connection's context ending breaks it at once.
	ss, err := b.server.Connect(context.WithoutCancel(ctx), t, nil)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err := <-ended:
		return err
	case <-ctx.Done():
	}
	b.cfg.Logger.Info("MCP bridge shutting down: answering the calls in flight", "calls", b.inFlightAll())
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.cfg.ShutdownTimeout)
	defer cancel()
	if err := b.Shutdown(sctx); err != nil {
		b.cfg.Logger.Warn("MCP bridge shutdown: calls still unanswered", "calls", b.inFlightAll(), "timeout", b.cfg.ShutdownTimeout)
	}
	closed := make(chan struct{})
	go func() { _ = ss.Close(); close(closed) }()
	select {
	case <-closed:
	case <-sctx.Done():
		// A call that does not end holds Close: leave it to the process's
		// exit rather than hang the shutdown.
	}
	return ctx.Err()
}

// Shutdown ends the bridge's work, for a server that stops: every call in
// flight is cancelled with ErrShutdown (and so the agent's prompt it runs:
// an ACP worker is sent session/cancel), and answered, unless it completed
// first, with SERVICE_UNAVAILABLE "The bridge is shutting down"
// (TRANSPORT, retryable after ShutdownRetryAfter, session not valid: the
// sessions end with the server); a call that arrives later gets the same
// answer at once. Shutdown returns nil once every call has been answered
// (the SDK has written its answer to the client, or the client cancelled
// it, or the connection broke) and every failure told to OnFailure's func,
// or ctx.Err() when ctx ends first. It
// closes neither the connections (Run closes its own; Disconnect closes
// every one) nor the agents (Manager.Shutdown does, after it). Shutdown is
// idempotent and safe for concurrent use.
func (b *Bridge) Shutdown(ctx context.Context) error {
	b.mu.Lock()
	if !b.closing {
		b.closing = true
		if b.pending == 0 {
			close(b.answered)
		}
	}
	b.mu.Unlock()
	b.stop(ErrShutdown)
	select {
	case <-b.answered:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// enter counts a call in until it is answered: the SDK cancels a call's
// context once it has written the call's answer (or when the client
// cancels it or the connection breaks), so that is when it is counted
// out. It reports whether the bridge is shutting down.
func (b *Bridge) enter(ctx context.Context) (closing bool) {
	b.mu.Lock()
	b.pending++
	closing = b.closing
	b.mu.Unlock()
	context.AfterFunc(ctx, b.done)
	return closing
}

// done counts out a call entered (or a failure being told, see after).
func (b *Bridge) done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending--; b.pending == 0 && b.closing {
		select {
		case <-b.answered:
		default:
			close(b.answered)
		}
	}
}

// inFlightAll is how many calls are running, every owner's.
func (b *Bridge) inFlightAll() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pending
}

// Disconnect closes every MCP connection the bridge serves: its clients'
// streams end (an HTTP server shutting down calls it first, so that the
// streams do not hold the shutdown open). Agent sessions are the
// Manager's and stay.
func (b *Bridge) Disconnect() {
	for ss := range b.server.Sessions() {
		_ = ss.Close()
	}
}

// acquire takes a slot for owner's call, or says the server is overloaded.
func (b *Bridge) acquire(owner string) (func(), error) {
	b.mu.Lock()
	if b.byOwner[owner] >= b.cfg.MaxPerOwner {
		b.mu.Unlock()
		return nil, errOverloaded()
	}
	select {
	case b.slots <- struct{}{}:
	default:
		b.mu.Unlock()
		return nil, errOverloaded()
	}
	b.byOwner[owner]++
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		if b.byOwner[owner]--; b.byOwner[owner] <= 0 {
			delete(b.byOwner, owner)
		}
		b.mu.Unlock()
		<-b.slots
	}, nil
}

// Busy reports whether a tool call of the MCP session with this id (the
// go-sdk's ServerSession.ID) is running: a prompt runs on when the HTTP
// request that started it is gone, so an HTTP server that closes idle
// sessions asks before it closes one.
func (b *Bridge) Busy(sessionID string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bySession[sessionID] > 0
}

// running counts a call of the MCP session until the returned func is
// called.
func (b *Bridge) running(ss *mcp.ServerSession) func() {
	if ss == nil || ss.ID() == "" {
		return func() {}
	}
	id := ss.ID()
	b.mu.Lock()
	b.bySession[id]++
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		if b.bySession[id]--; b.bySession[id] <= 0 {
			delete(b.bySession, id)
		}
		b.mu.Unlock()
	}
}

// inFlight is how many of owner's calls are running.
func (b *Bridge) inFlight(owner string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.byOwner[owner]
}

// errOverloaded is seed 002's "Server overloaded" (TRANSPORT, retryable).
func errOverloaded() *fault.Error {
	return fault.New(fault.ServiceUnavailable, "Server overloaded",
		fault.WithCategory(fault.CategoryTransport), fault.WithRetryable(true),
		fault.WithRetryAfter(time.Second), fault.WithSessionValid(true))
}

// errShutdown is the answer of a call the bridge's shutdown cancelled or
// refused: SERVICE_UNAVAILABLE (TRANSPORT), retryable after
// ShutdownRetryAfter, the session gone with the server. It keeps the
// agent, session and worker the call was about, from the fault it ended
// with.
func errShutdown(ended error) *fault.Error {
	o := []fault.Option{fault.WithCategory(fault.CategoryTransport), fault.WithRetryable(true),
		fault.WithRetryAfter(ShutdownRetryAfter), fault.WithSessionValid(false)}
	if f, ok := fault.As(ended); ok {
		for _, k := range []string{"agentId", "sessionId", "workerId"} {
			if v, ok := f.Details[k]; ok {
				o = append(o, fault.WithDetail(k, v))
			}
		}
	}
	return fault.Wrap(ErrShutdown, fault.ServiceUnavailable, "The bridge is shutting down", o...)
}

// errTooLarge is seed 002's "Prompt exceeds maximum size" and "Metadata
// exceeds maximum size" (UPSTREAM, not retryable).
func errTooLarge(what string, size, limit int) *fault.Error {
	return fault.New(fault.PayloadTooLarge, what+" exceeds maximum size",
		fault.WithCategory(fault.CategoryUpstream), fault.WithRetryable(false),
		fault.WithDetail("size", size), fault.WithDetail("maxBytes", limit),
		fault.WithSessionValid(true))
}
