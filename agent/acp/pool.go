package acp

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/triage-go/triage/fault"
)

// Config configures a Pool. Only Command is required; every other zero
// value means the default its comment gives.
type Config struct {
	// Command is the worker's argv: Command[0] is looked up in PATH.
	// Required.
	Command []string
	// Env is the worker's extra environment, KEY=VALUE. It is appended to
	// a minimal inherited environment (PATH, HOME, USER, LANG, TMPDIR, TZ
	// and the like): nothing else of the pool's environment reaches a
	// worker.
	Env []string
	// Dir is the workers' working directory and every session's cwd.
	// Defaults to a temporary directory the pool makes at Start and removes
	// at Close.
	Dir string
	// Workers is the number of worker processes; new sessions go to the
	// live worker with the fewest. Defaults to 1.
	Workers int
	// StartTimeout bounds starting one worker: spawning it and its answer
	// to initialize. Defaults to 10s.
	StartTimeout time.Duration
	// RequestTimeout bounds session/new, and waiting for a live worker to
	// create it on. Defaults to 30s.
	RequestTimeout time.Duration
	// PromptTimeout bounds one prompt turn. Defaults to 5m.
	PromptTimeout time.Duration
	// CancelGrace is how long a cancelled, timed-out or abandoned prompt
	// waits for the worker's answer to session/cancel before the pool gives
	// up on it. Defaults to 5s.
	CancelGrace time.Duration
	// StopTimeout is how long Close waits for a worker to exit once its
	// input is closed, before killing it. Defaults to 2s.
	StopTimeout time.Duration
	// Source is the agent's id: every fault's Source and details.agentId.
	Source string
	// Logger receives the workers' stderr lines at debug level (redacted
	// by fault.Redact, cut to 1 KiB), the SDK's diagnostics at debug level,
	// and the pool's events. Defaults to discarding everything.
	Logger *slog.Logger
}

// Defaults of Config.
const (
	DefaultWorkers        = 1
	DefaultStartTimeout   = 10 * time.Second
	DefaultRequestTimeout = 30 * time.Second
	DefaultPromptTimeout  = 5 * time.Minute
	DefaultCancelGrace    = 5 * time.Second
	DefaultStopTimeout    = 2 * time.Second
)

// Respawn backoff: the first attempt after a worker dies waits respawnMin,
// and each failed start (or a worker that lived less than respawnHealthy)
// doubles the wait, up to respawnMax.
const (
	respawnMin     = 50 * time.Millisecond
	respawnMax     = 10 * time.Second
	respawnHealthy = 10 * time.Second
)

func (c Config) withDefaults() Config {
	set := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	if c.Workers <= 0 {
		c.Workers = DefaultWorkers
	}
	set(&c.StartTimeout, DefaultStartTimeout)
	set(&c.RequestTimeout, DefaultRequestTimeout)
	set(&c.PromptTimeout, DefaultPromptTimeout)
	set(&c.CancelGrace, DefaultCancelGrace)
	set(&c.StopTimeout, DefaultStopTimeout)
	return c
}

// Pool is a pool of ACP worker processes and the sessions on them. It is
// safe for concurrent use. Its zero value, and a Pool after Close, answer
// every call with INTERNAL_ERROR "Executor not started".
type Pool struct {
	cfg     Config
	log     *slog.Logger
	env     []string
	dir     string
	tempDir string // made by Start, removed by Close

	ctx    context.Context // cancelled by Close, with errClosed
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup // every goroutine the pool starts

	mu       sync.Mutex
	started  bool
	closed   bool
	slots    []*worker // the live worker of each slot, nil while it respawns
	startErr []error   // each slot's last failed start, nil once one succeeds
	backoff  []time.Duration
	ready    chan struct{} // closed and replaced when a worker is installed
	sessions map[string]*session
	rr       int

	strays atomic.Int64 // lines the workers wrote that are not JSON

	closeOnce sync.Once
}

// Stats counts what the pool's workers did wrong that failed no request.
type Stats struct {
	// StrayLines is how many lines the workers wrote to their standard
	// output that are not JSON (an agent printing to stdout by mistake):
	// each was logged, answered with a JSON-RPC parse error and dropped.
	StrayLines int64
}

// Stats returns the pool's counts since Start. A zero or nil Pool has
// none.
func (p *Pool) Stats() Stats {
	if p == nil {
		return Stats{}
	}
	return Stats{StrayLines: p.strays.Load()}
}

// Start starts cfg.Workers workers and initializes each, concurrently. If
// one fails, the others are stopped and the fault says why:
// TRANSPORT_ERROR "Failed to start worker" (retryable) when the command is
// missing, exits at start, or fails or does not answer initialize within
// StartTimeout; CANCELLED when ctx was cancelled; CONFIG_ERROR when Command
// is empty.
func Start(ctx context.Context, cfg Config) (*Pool, error) {
	p := &Pool{cfg: cfg.withDefaults()}
	p.log = p.cfg.Logger
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.cfg.Source != "" {
		p.log = p.log.With("agentId", p.cfg.Source)
	}
	if len(cfg.Command) == 0 || cfg.Command[0] == "" {
		return nil, fault.New(fault.ConfigError, "Worker command is required", p.opts("")...)
	}
	p.dir = cfg.Dir
	if p.dir == "" {
		d, err := os.MkdirTemp("", "triage-acp-*")
		if err != nil {
			return nil, p.startFailed("", err)
		}
		p.tempDir, p.dir = d, d
	}
	if abs, err := filepath.Abs(p.dir); err == nil {
		p.dir = abs
	}
	n := p.cfg.Workers
	p.env = workerEnv(cfg.Env)
	p.ctx, p.cancel = context.WithCancelCause(context.Background())
	p.started = true
	p.slots, p.startErr, p.backoff = make([]*worker, n), make([]error, n), make([]time.Duration, n)
	p.ready = make(chan struct{})
	p.sessions = make(map[string]*session)

	ws, errs := make([]*worker, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { ws[i], errs[i] = p.spawn(ctx, i) })
	}
	wg.Wait()
	for _, w := range ws {
		if w != nil {
			p.install(w)
		}
	}
	for _, err := range errs {
		if err != nil {
			p.Close()
			return nil, err
		}
	}
	return p, nil
}

// usable reports whether Start has succeeded and Close has not been
// called.
func (p *Pool) usable() bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.started && !p.closed
}

// goTracked runs f in a goroutine Close waits for, unless the pool is
// closed.
func (p *Pool) goTracked(f func()) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.wg.Go(f)
	return true
}

// install makes w its slot's live worker. It reports false when w died
// first, for the respawn loop to try again; a worker started for a closed
// pool is stopped.
func (p *Pool) install(w *worker) bool {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		w.stop(p.cfg.StopTimeout)
		return true
	}
	defer p.mu.Unlock()
	if w.isDown() {
		return false
	}
	p.slots[w.slot] = w
	p.startErr[w.slot] = nil
	close(p.ready)
	p.ready = make(chan struct{})
	return true
}

// workerDown is the monitor's news that w is gone: its sessions are
// forgotten (a later Prompt on one is SESSION_NOT_FOUND) and, unless the
// pool is closed, its slot respawns.
func (p *Pool) workerDown(w *worker) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w.mu.Lock()
	for id, s := range w.sessions {
		if p.sessions[id] == s {
			delete(p.sessions, id)
		}
	}
	clear(w.sessions)
	w.mu.Unlock()
	if p.slots == nil || p.slots[w.slot] != w {
		return
	}
	p.slots[w.slot] = nil
	if p.closed {
		return
	}
	st, _ := w.exitStatus(0) // the monitor tells the pool once the process is reaped
	w.log.Warn("worker exited; respawning", "exit", st)
	b := &p.backoff[w.slot]
	if time.Since(w.started) >= respawnHealthy || *b == 0 {
		*b = respawnMin
	} else {
		*b = min(*b*2, respawnMax)
	}
	delay := *b
	p.wg.Go(func() { p.respawn(w.slot, delay) })
}

// respawn starts a new worker for slot, after delay and then with backoff,
// until one starts or the pool is closed.
func (p *Pool) respawn(slot int, delay time.Duration) {
	for {
		t := time.NewTimer(delay)
		select {
		case <-p.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		w, err := p.spawn(p.ctx, slot)
		if p.ctx.Err() != nil {
			if w != nil {
				w.stop(p.cfg.StopTimeout)
			}
			return
		}
		if err == nil && p.install(w) {
			w.log.Info("worker respawned")
			return
		}
		if err != nil {
			p.log.Warn("worker respawn failed", append([]any{"workerId", "w" + strconv.Itoa(slot+1)}, failure(err)...)...)
			p.mu.Lock()
			p.startErr[slot] = err
			close(p.ready) // waiters for a worker look again
			p.ready = make(chan struct{})
			p.mu.Unlock()
		}
		delay = min(delay*2, respawnMax)
	}
}

// pick returns the live worker with the fewest sessions, nil when none is
// live. p.mu is held.
func (p *Pool) pick() *worker {
	var best *worker
	bestN := 0
	n := len(p.slots)
	for i := range n {
		w := p.slots[(p.rr+i)%n]
		if w == nil || w.isDown() {
			continue
		}
		w.mu.Lock()
		k := len(w.sessions) + int(w.pendingNew.Load())
		w.mu.Unlock()
		if best == nil || k < bestN {
			best, bestN = w, k
		}
	}
	p.rr++
	return best
}

// workerFor returns a live worker for a new session, waiting (within ctx)
// while the workers respawn. When every slot's last start failed, it fails
// at once with that start's fault.
func (p *Pool) workerFor(ctx context.Context) (*worker, error) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, p.notStarted()
		}
		if w := p.pick(); w != nil {
			w.pendingNew.Add(1)
			p.mu.Unlock()
			return w, nil
		}
		var failed error
		for _, err := range p.startErr {
			if err == nil {
				failed = nil
				break
			}
			failed = err
		}
		ready := p.ready
		p.mu.Unlock()
		if failed != nil {
			return nil, failed
		}
		select {
		case <-ready:
		case <-p.ctx.Done():
			return nil, p.notStarted()
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) {
				return nil, p.cancelled(nil, opNewSession, "", false, ctx.Err())
			}
			return nil, p.startFailed("", errors.New("acp: no worker came up in time"))
		}
	}
}

// NewSession creates a session on the live worker with the fewest
// sessions, within RequestTimeout, and returns the id the worker gave it.
// No session exists when it fails, so its faults have SessionValid false:
// TRANSPORT_ERROR "Failed to start worker" when no worker could be started,
// UPSTREAM_ERROR "Worker {id} failed: session/new" when the worker answered
// with an error, TIMEOUT "Worker {id} timed out", PROTOCOL_ERROR (category
// UPSTREAM) "Invalid worker response: missing sessionId" (or "duplicate
// sessionId", or "malformed session/new result"), TRANSPORT_ERROR "Worker
// {id} exited", CANCELLED when ctx was cancelled, INTERNAL_ERROR "Executor
// not started" before Start or after Close.
func (p *Pool) NewSession(ctx context.Context) (string, error) {
	if !p.usable() {
		return "", p.notStarted()
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.RequestTimeout)
	defer cancel()
	w, err := p.workerFor(ctx)
	if err != nil {
		return "", err
	}
	defer w.pendingNew.Add(-1)
	select {
	case w.newSem <- struct{}{}:
	case <-ctx.Done():
		return "", p.ctxFault(w, opNewSession, "", false, ctx)
	}
	defer func() { <-w.newSem }()
	if w.isDown() {
		return "", p.exited(w, opNewSession, "", waitDelay)
	}

	rctx, abort := context.WithCancelCause(ctx)
	defer abort(nil)
	defer context.AfterFunc(p.ctx, func() { abort(context.Cause(p.ctx)) })()
	r := &rpc{op: opNewSession, abort: abort}
	w.mu.Lock()
	w.sending.newSession = r
	w.mu.Unlock()
	resp, err := w.conn.NewSession(rctx, acpsdk.NewSessionRequest{Cwd: p.dir, McpServers: []acpsdk.McpServer{}})
	w.mu.Lock()
	w.sending.newSession = nil
	w.mu.Unlock()
	w.forget(r)
	if err != nil || r.malformed.Load() {
		return "", p.requestFault(w, r, rctx, ctx, opNewSession, "", false, err)
	}
	id := string(resp.SessionId)
	if id == "" {
		return "", p.missingSessionID(w)
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.closed:
		return "", p.notStarted()
	case w.isDown():
		return "", p.exited(w, opNewSession, "", 0)
	case p.sessions[id] != nil:
		return "", p.duplicateSessionID(w, id)
	}
	s := &session{id: id, w: w}
	p.sessions[id] = s
	w.mu.Lock()
	w.sessions[id] = s
	w.mu.Unlock()
	return id, nil
}

// lookup returns the session and its worker, nil when the pool has no such
// session.
func (p *Pool) lookup(id string) *session {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sessions[id]
}

// Cancel sends session/cancel for the session. A prompt running on it
// returns CANCELLED once the worker answers with the stop reason
// "cancelled", or after CancelGrace if it does not; a prompt that completes
// first returns its result. A cancel asked for before the prompt's request
// is written goes right after it. Cancel on an idle session only sends the
// notification. Its faults: SESSION_NOT_FOUND for a session the pool does
// not have (or whose worker exited), TRANSPORT_ERROR "Worker {id} exited"
// when the notification cannot be written, INTERNAL_ERROR "Executor not
// started".
func (p *Pool) Cancel(ctx context.Context, sessionID string) error {
	if !p.usable() {
		return p.notStarted()
	}
	s := p.lookup(sessionID)
	if s == nil || s.w.isDown() {
		return p.sessionNotFound(sessionID)
	}
	w := s.w
	w.mu.Lock()
	t := s.turn
	w.mu.Unlock()
	if t != nil && !t.abandoned.Load() {
		t.cancelOnce.Do(func() { close(t.cancelReq) })
	}
	var err error
	if t != nil {
		err = p.cancelTurn(ctx, t)
	} else {
		err = w.conn.Cancel(ctx, acpsdk.CancelNotification{SessionId: acpsdk.SessionId(sessionID)})
	}
	if err != nil {
		if ctx.Err() != nil {
			return p.ctxFault(w, opCancel, sessionID, !w.isDown(), ctx)
		}
		return p.exited(w, opCancel, sessionID, waitDelay)
	}
	return nil
}

// Forget drops the pool's state for a session that is closed. A prompt
// running on it returns CANCELLED with SessionValid false at once; the
// worker is sent session/cancel and given CancelGrace to end the turn
// (Close waits for it too). Forgetting an unknown session does nothing.
func (p *Pool) Forget(sessionID string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	s := p.sessions[sessionID]
	delete(p.sessions, sessionID)
	p.mu.Unlock()
	if s == nil {
		return
	}
	w := s.w
	w.mu.Lock()
	if w.sessions[sessionID] == s {
		delete(w.sessions, sessionID)
	}
	t := s.turn
	w.mu.Unlock()
	if t != nil {
		t.forgetOnce.Do(func() { close(t.forgot) })
	}
}

// Healthy reports how many workers are alive, of how many the pool runs.
// A closed pool has none alive; a zero Pool none of none.
func (p *Pool) Healthy() (alive, total int) {
	if p == nil {
		return 0, 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, len(p.slots)
	}
	for _, w := range p.slots {
		if w != nil && !w.isDown() {
			alive++
		}
	}
	return alive, len(p.slots)
}

// Close stops every worker and waits for them and every goroutine of the
// pool. First the prompts in flight (those whose callers have gone or
// whose sessions were forgotten included) are cancelled as ACP asks: each worker is sent session/cancel
// for them and given the shorter of CancelGrace and StopTimeout to answer;
// then each worker's input is closed, which an ACP agent takes as the end
// of the connection, and a worker still running StopTimeout later is
// killed. A prompt running meanwhile returns TRANSPORT_ERROR "Worker {id}
// exited" with SessionValid false, unless its answer was complete; every
// later call returns INTERNAL_ERROR "Executor not started". Close is
// idempotent and returns nil.
func (p *Pool) Close() error {
	if p == nil {
		return nil
	}
	p.closeOnce.Do(func() {
		p.mu.Lock()
		if !p.started {
			p.mu.Unlock()
			return
		}
		p.closed = true
		var live []*worker
		var turns []*turn
		for _, w := range p.slots {
			if w == nil {
				continue
			}
			live = append(live, w)
			w.mu.Lock()
			for t := range w.turns {
				turns = append(turns, t)
			}
			w.mu.Unlock()
		}
		clear(p.sessions)
		p.mu.Unlock()
		p.stopTurns(turns)
		p.cancel(errClosed)
		var wg sync.WaitGroup
		for _, w := range live {
			wg.Go(func() { w.stop(p.cfg.StopTimeout) })
		}
		wg.Wait()
		p.wg.Wait()
		if p.tempDir != "" {
			_ = os.RemoveAll(p.tempDir)
		}
	})
	return nil
}

// stopTurns is Close's cancellation of the prompts in flight: the workers
// are sent session/cancel for each, and stopTurns waits for their answers,
// the shorter of CancelGrace and StopTimeout at most.
func (p *Pool) stopTurns(turns []*turn) {
	if len(turns) == 0 {
		return
	}
	grace := time.NewTimer(min(p.cfg.CancelGrace, p.cfg.StopTimeout))
	defer grace.Stop()
	for _, t := range turns {
		t.s.w.log.Debug("cancelling a prompt: the pool is closing", "sessionId", t.s.id)
		// The write ends when the worker reads it or its input is closed.
		p.wg.Go(func() { _ = p.cancelTurn(context.Background(), t) })
	}
	for _, t := range turns {
		select {
		case <-t.done:
		case <-grace.C:
			p.log.Warn("closing: a worker did not answer session/cancel in time; stopping it", "sessionId", t.s.id, "workerId", t.s.w.id)
			return
		}
	}
}

// closing reports whether Close has been called.
func (p *Pool) closing() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}
