package agent

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/triage-go/triage/fault"
)

// State is where a session is in its life.
type State string

// The states of a session.
const (
	StateIdle      State = "idle"      // open, no prompt running
	StateRunning   State = "running"   // a prompt is running
	StateCancelled State = "cancelled" // its last prompt was cancelled; it takes new prompts
	StateClosed    State = "closed"    // closed by the caller or its idle TTL
	StateFailed    State = "failed"    // its agent failed in a way the session did not survive
)

// Session is what a caller sees of a session.
type Session struct {
	ID         string         `json:"sessionId"`
	AgentID    string         `json:"agentId"`
	State      State          `json:"state"`
	CreatedAt  time.Time      `json:"createdAt"`
	LastActive time.Time      `json:"lastActiveAt"`
	Prompts    int            `json:"prompts"`
	Metadata   map[string]any `json:"metadata,omitempty"`
	// LastError is the code of the last prompt's failure, if it failed.
	LastError fault.Code `json:"lastError,omitempty"`
}

// ManagerConfig configures a Manager. Zero values take the defaults.
type ManagerConfig struct {
	// IdleTTL closes a session nobody has used for this long (default 30m).
	IdleTTL time.Duration
	// PromptTimeout bounds one prompt (default 5m).
	PromptTimeout time.Duration
	// OwnerShare, when more than 1, bounds the open sessions one owner (a
	// tenant) holds with one agent to that fraction of the agent's
	// MaxSessions (at least one), so that no tenant takes an agent's whole
	// capacity (default: no bound beyond the agent's own).
	OwnerShare int
	// Now tells the time (default time.Now).
	Now func() time.Time
	// Logger receives the manager's own events (default: discard).
	Logger *slog.Logger
}

// MaxEnded bounds the closed and failed sessions a Manager remembers (so
// that sessions_status can say "closed"); past it the oldest are
// forgotten, and their ids are "not found". Their metadata is dropped at
// once.
const MaxEnded = 4096

// The defaults of ManagerConfig.
const (
	DefaultIdleTTL       = 30 * time.Minute
	DefaultPromptTimeout = 5 * time.Minute
	DefaultMaxSessions   = 16
)

// Manager runs the sessions of a registry's agents: seed 002's executors
// behind one error contract. It is safe for concurrent use.
type Manager struct {
	cfg    ManagerConfig
	agents map[string]*entry
	order  []string

	mu       sync.Mutex
	sessions map[string]*session
	ended    []string // closed and failed sessions, oldest first
	started  bool
	stopped  bool
	stop     chan struct{}
	wg       sync.WaitGroup
}

type entry struct {
	info    Info
	backend Backend
	open    int            // sessions holding capacity
	byOwner map[string]int // open sessions per owner
}

type session struct {
	Session
	owner     string
	backendID string
	cancel    context.CancelFunc // the running prompt's
	cancelled bool               // Cancel or Close asked the running prompt to stop
	holds     bool               // counts against capacity
}

// NewManager returns a Manager for the agents and their backends. Call
// Start before anything else.
func NewManager(agents []Agent, cfg ManagerConfig) *Manager {
	if cfg.IdleTTL <= 0 {
		cfg.IdleTTL = DefaultIdleTTL
	}
	if cfg.PromptTimeout <= 0 {
		cfg.PromptTimeout = DefaultPromptTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	m := &Manager{cfg: cfg, agents: map[string]*entry{}, sessions: map[string]*session{}, stop: make(chan struct{})}
	for _, a := range agents {
		if a.Info.MaxSessions <= 0 {
			a.Info.MaxSessions = DefaultMaxSessions
		}
		m.agents[a.Info.ID] = &entry{info: a.Info, backend: a.Backend, byOwner: map[string]int{}}
		m.order = append(m.order, a.Info.ID)
		if b, ok := a.Backend.(interface{ bind(*Manager) }); ok {
			b.bind(m) // a team delegates to its members through m
		}
	}
	return m
}

// Agent is one agent: what discovery shows and what runs it.
type Agent struct {
	Info    Info
	Backend Backend
}

// Start starts every agent's backend: a provider agent checks its
// credential, a worker agent spawns its workers. No agents is "No agents
// registered" (CONFIG). On failure the backends started so far are closed.
func (m *Manager) Start(ctx context.Context) error {
	if len(m.order) == 0 {
		return errNoAgents()
	}
	for i, id := range m.order {
		e := m.agents[id]
		if err := e.backend.Start(ctx); err != nil {
			for _, prev := range m.order[:i] {
				_ = m.agents[prev].backend.Close()
			}
			f := fault.From(err).Clone()
			if f.Source == "" {
				f.Source = id
			}
			return f
		}
	}
	m.mu.Lock()
	m.started = true
	m.mu.Unlock()
	m.wg.Add(1)
	go m.reap()
	return nil
}

// Shutdown closes every session (a running prompt is cancelled) and stops
// every agent, the agents at once, so that stopping takes as long as the
// slowest agent's Close, not their sum (an ACP agent's waits for its
// workers' answers to session/cancel, then for them to exit). Later calls
// return "Executor not started".
func (m *Manager) Shutdown() error {
	m.mu.Lock()
	if !m.started || m.stopped {
		m.mu.Unlock()
		return nil
	}
	m.stopped = true
	for _, s := range m.sessions {
		m.closeLocked(s)
	}
	m.mu.Unlock()
	close(m.stop)
	m.wg.Wait()
	errs := make([]error, len(m.order))
	var wg sync.WaitGroup
	for i, id := range m.order {
		wg.Go(func() { errs[i] = m.agents[id].backend.Close() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Agents lists the agents in the registry's order.
func (m *Manager) Agents() []Info {
	out := make([]Info, 0, len(m.order))
	for _, id := range m.order {
		out = append(out, m.agents[id].info)
	}
	return out
}

// RecordsFailures says whether the registry has the agent agentID
// (known) and, if so, whether its failures are recorded as error records
// (Config.RecordsFailures). A nil Manager has no agents.
func (m *Manager) RecordsFailures(agentID string) (known, record bool) {
	if m == nil {
		return false, false
	}
	e, ok := m.agents[agentID]
	if !ok {
		return false, false
	}
	return true, e.info.RecordFailures
}

// ready reports whether the manager takes requests; callers hold mu.
func (m *Manager) readyLocked() error {
	if !m.started || m.stopped {
		return errNotStarted()
	}
	return nil
}

// Create opens a session with an agent for owner.
func (m *Manager) Create(ctx context.Context, owner, agentID string, metadata map[string]any) (Session, error) {
	m.mu.Lock()
	if err := m.readyLocked(); err != nil {
		m.mu.Unlock()
		return Session{}, err
	}
	e, ok := m.agents[agentID]
	if !ok {
		m.mu.Unlock()
		return Session{}, errAgentNotFound(agentID)
	}
	// Hold the capacity while the backend opens the session.
	if err := m.acquireLocked(e, owner); err != nil {
		m.mu.Unlock()
		return Session{}, err
	}
	m.mu.Unlock()

	backendID, err := m.newSessionSafely(e, ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err == nil && m.stopped {
		e.backend.CloseSession(backendID)
		err = errNotStarted()
	}
	if err != nil {
		m.releaseLocked(e, owner)
		return Session{}, agentFailed(agentID, err)
	}
	now := m.cfg.Now()
	s := &session{
		Session: Session{ID: uuid.NewString(), AgentID: agentID, State: StateIdle,
			CreatedAt: now, LastActive: now, Metadata: maps.Clone(metadata)},
		owner: owner, backendID: backendID, holds: true,
	}
	m.sessions[s.ID] = s
	return s.Session, nil
}

// endedLocked remembers a session that ended, forgetting the oldest past
// MaxEnded.
func (m *Manager) endedLocked(s *session) {
	s.Metadata = nil
	m.ended = append(m.ended, s.ID)
	for len(m.ended) > MaxEnded {
		old := m.sessions[m.ended[0]]
		if old != nil && (old.State == StateClosed || old.State == StateFailed) && old.cancel == nil {
			delete(m.sessions, m.ended[0])
		}
		m.ended = m.ended[1:]
	}
}

// acquireLocked takes one of the agent's sessions for owner, or says
// "Session capacity reached" when the agent, or owner's share of it, is
// full.
func (m *Manager) acquireLocked(e *entry, owner string) error {
	limit := m.ownerLimit(e)
	if e.open >= e.info.MaxSessions || e.byOwner[owner] >= limit {
		return errCapacity(e.info.ID, limit)
	}
	e.open++
	e.byOwner[owner]++
	return nil
}

// ownerLimit is the most sessions one owner may hold with the agent: its
// MaxSessions, or its OwnerShare of them (at least one).
func (m *Manager) ownerLimit(e *entry) int {
	if m.cfg.OwnerShare > 1 {
		return min(e.info.MaxSessions, max(1, e.info.MaxSessions/m.cfg.OwnerShare))
	}
	return e.info.MaxSessions
}

// Reserve takes one of the agent's sessions for owner without opening one
// with its backend, for a run that reaches the agent another way: an
// AG-UI run of a team, whose graph delegates to the members itself, still
// counts against the team's capacity. release gives the slot back; calls
// after the first do nothing.
func (m *Manager) Reserve(owner, agentID string) (release func(), err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.readyLocked(); err != nil {
		return nil, err
	}
	e, ok := m.agents[agentID]
	if !ok {
		return nil, errAgentNotFound(agentID)
	}
	if err := m.acquireLocked(e, owner); err != nil {
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			m.releaseLocked(e, owner)
			m.mu.Unlock()
		})
	}, nil
}

func (m *Manager) releaseLocked(e *entry, owner string) {
	e.open--
	if e.byOwner[owner]--; e.byOwner[owner] <= 0 {
		delete(e.byOwner, owner)
	}
}

// lookupLocked finds owner's session; another owner's is not found.
func (m *Manager) lookupLocked(owner, id string) (*session, error) {
	if err := m.readyLocked(); err != nil {
		return nil, err
	}
	s, ok := m.sessions[id]
	if !ok || s.owner != owner {
		return nil, errSessionNotFound(id)
	}
	return s, nil
}

// Status returns owner's session.
func (m *Manager) Status(owner, id string) (Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, err := m.lookupLocked(owner, id)
	if err != nil {
		return Session{}, err
	}
	return s.snapshot(), nil
}

func (s *session) snapshot() Session {
	c := s.Session
	c.Metadata = maps.Clone(s.Metadata)
	return c
}

// Prompt sends text to the session's agent and streams the answer to emit.
// An empty text (EmptyPrompt) is refused (INVALID_REQUEST), the session
// unchanged. Only one prompt runs in a session at a time (SESSION_BUSY
// otherwise).
// The prompt ends at PromptTimeout (TIMEOUT), when ctx ends or Cancel is
// called (CANCELLED); an agent's failure comes back as its fault with the
// session's validity set.
func (m *Manager) Prompt(ctx context.Context, owner, id, text string, emit func(Chunk)) (Result, error) {
	if EmptyPrompt(text) {
		return Result{}, errEmptyPrompt()
	}
	m.mu.Lock()
	s, err := m.lookupLocked(owner, id)
	if err != nil {
		m.mu.Unlock()
		return Result{}, err
	}
	switch {
	case s.State == StateClosed:
		m.mu.Unlock()
		return Result{}, errSessionClosed(id)
	case s.State == StateFailed:
		m.mu.Unlock()
		return Result{}, errSessionInvalid(id)
	case s.cancel != nil:
		m.mu.Unlock()
		return Result{}, errSessionBusy(id)
	}
	e := m.agents[s.AgentID]
	pctx, cancel := context.WithTimeout(ctx, m.cfg.PromptTimeout)
	s.cancel, s.cancelled, s.State = cancel, false, StateRunning
	s.LastActive = m.cfg.Now()
	m.mu.Unlock()

	var mu sync.Mutex
	done := false
	res, err := m.promptSafely(e, pctx, s.owner, s.backendID, text, func(c Chunk) {
		mu.Lock()
		defer mu.Unlock()
		if !done && emit != nil {
			emit(c)
		}
	})
	mu.Lock()
	done = true
	mu.Unlock()
	timedOut := errors.Is(pctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()

	m.mu.Lock()
	defer m.mu.Unlock()
	s.cancel = nil
	s.Prompts++
	s.LastActive = m.cfg.Now()
	closed := s.State == StateClosed
	var f *fault.Error
	switch {
	case err == nil:
		s.LastError = ""
		if !closed {
			s.State = StateIdle
		}
		return res, nil
	case s.cancelled || ctx.Err() != nil:
		f = errCancelled(id, ctx.Err())
		if !closed {
			s.State = StateCancelled
		}
	case timedOut && (!isFault(err) || fault.CodeOf(err) == fault.Cancelled):
		f = errPromptTimeout(id, m.cfg.PromptTimeout)
		if e.info.Executor == ExecutorWorker {
			f = errWorkerTimeout(s.AgentID, err)
		}
		_ = e.backend.Cancel(context.WithoutCancel(ctx), s.backendID)
		if !closed {
			s.State = StateIdle
		}
	default:
		f = agentFailed(s.AgentID, err)
		switch {
		case closed:
		case f.SessionValid:
			s.State = StateIdle
		default:
			s.State = StateFailed
			m.endedLocked(s)
			if s.holds {
				s.holds = false
				m.releaseLocked(e, s.owner)
			}
			e.backend.CloseSession(s.backendID)
		}
	}
	if closed {
		f.SessionValid = false
	}
	if f.Details == nil {
		f.Details = map[string]any{}
	}
	f.Details["sessionId"] = id
	if _, ok := f.Details["agentId"]; !ok {
		f.Details["agentId"] = s.AgentID
	}
	s.LastError = f.Code
	return res, f
}

func isFault(err error) bool {
	_, ok := fault.As(err)
	return ok
}

// Cancel asks the session's running prompt to stop; the prompt then ends
// with CANCELLED. It reports whether a prompt was running.
func (m *Manager) Cancel(ctx context.Context, owner, id string) (Session, bool, error) {
	m.mu.Lock()
	s, err := m.lookupLocked(owner, id)
	if err != nil {
		m.mu.Unlock()
		return Session{}, false, err
	}
	if s.cancel == nil {
		snap := s.snapshot()
		m.mu.Unlock()
		return snap, false, nil
	}
	s.cancelled = true
	cancel, backendID, b := s.cancel, s.backendID, m.agents[s.AgentID].backend
	snap := s.snapshot()
	m.mu.Unlock()
	err = b.Cancel(ctx, backendID)
	cancel()
	if err != nil {
		return snap, true, agentFailed(snap.AgentID, err)
	}
	return snap, true, nil
}

// Close closes owner's session, stopping a running prompt. Closing a
// session that is closed or does not exist does nothing (seed 002:
// sessions_close is idempotent).
func (m *Manager) Close(owner, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.readyLocked(); err != nil {
		return err
	}
	s, ok := m.sessions[id]
	if !ok || s.owner != owner {
		return nil
	}
	m.closeLocked(s)
	return nil
}

func (m *Manager) closeLocked(s *session) {
	if s.State == StateClosed {
		return
	}
	e := m.agents[s.AgentID]
	if s.State != StateFailed {
		m.endedLocked(s)
	}
	s.State = StateClosed
	s.LastActive = m.cfg.Now()
	if s.cancel != nil {
		s.cancelled = true
		s.cancel()
	}
	if s.holds {
		s.holds = false
		m.releaseLocked(e, s.owner)
	}
	e.backend.CloseSession(s.backendID)
}

// Delegate runs one task: create a session, prompt it, close it, whatever
// happened. The session's id is returned with the result or the fault.
func (m *Manager) Delegate(ctx context.Context, owner, agentID, text string, metadata map[string]any, emit func(Chunk)) (Result, Session, error) {
	return m.delegate(ctx, owner, agentID, nil, text, metadata, emit)
}

func (m *Manager) delegate(ctx context.Context, owner, agentID string, history []Turn, text string, metadata map[string]any, emit func(Chunk)) (Result, Session, error) {
	if EmptyPrompt(text) { // before a session is opened for it
		return Result{}, Session{}, errEmptyPrompt()
	}
	s, err := m.Create(ctx, owner, agentID, metadata)
	if err != nil {
		return Result{}, Session{}, err
	}
	if len(history) > 0 {
		m.mu.Lock()
		m.seedLocked(s.ID, history)
		m.mu.Unlock()
	}
	res, err := m.Prompt(ctx, owner, s.ID, text, emit)
	_ = m.Close(owner, s.ID)
	m.mu.Lock()
	if got, ok := m.sessions[s.ID]; ok {
		s = got.snapshot()
	}
	m.mu.Unlock()
	if f, ok := fault.As(err); ok {
		f.SessionValid = false // the session is closed either way
	}
	return res, s, err
}

// Health is the state of the manager and its agents.
type Health struct {
	Ready    bool          `json:"ready"`
	Agents   []AgentHealth `json:"agents"`
	Sessions int           `json:"sessions"`
}

// AgentHealth is one agent's load and, for a worker agent, its workers.
type AgentHealth struct {
	ID          string `json:"id"`
	Ready       bool   `json:"ready" jsonschema:"whether the agent can take a prompt now (a worker agent: at least one worker alive)"`
	Sessions    int    `json:"sessions"`
	MaxSessions int    `json:"maxSessions"`
	// WorkersAlive and Workers count a worker agent's processes.
	WorkersAlive int `json:"workersAlive,omitempty"`
	Workers      int `json:"workers,omitempty"`
	// WorkerStrayLines counts the lines a worker agent's processes wrote
	// to their standard output that are not JSON-RPC (logged and dropped;
	// they fail no prompt).
	WorkerStrayLines int64 `json:"workerStrayLines,omitempty" jsonschema:"lines the agent's worker processes wrote to their output that are not JSON-RPC (ignored)"`
}

// healthReporter is a Backend that knows how many of its workers live,
// and how many stray lines they wrote.
type healthReporter interface {
	Healthy() (alive, total int)
	StrayLines() int64
}

// Health reports readiness and load: every owner's sessions, for an
// operator. What a tenant may see is HealthOf.
func (m *Manager) Health() Health {
	return m.health(func(e *entry) (open, limit int) { return e.open, e.info.MaxSessions })
}

// HealthOf reports readiness and owner's load: with each agent, the
// sessions owner holds and the most it may hold (the agent's MaxSessions,
// or its OwnerShare of them). Other owners' sessions are not counted, so
// that one tenant cannot read another's activity.
func (m *Manager) HealthOf(owner string) Health {
	return m.health(func(e *entry) (open, limit int) { return e.byOwner[owner], m.ownerLimit(e) })
}

// health reports readiness and the load load counts in each agent.
func (m *Manager) health(load func(*entry) (open, limit int)) Health {
	m.mu.Lock()
	defer m.mu.Unlock()
	h := Health{Ready: m.started && !m.stopped, Agents: []AgentHealth{}}
	for _, id := range m.order {
		e := m.agents[id]
		open, limit := load(e)
		a := AgentHealth{ID: id, Ready: h.Ready, Sessions: open, MaxSessions: limit}
		if r, ok := e.backend.(healthReporter); ok && h.Ready {
			a.WorkersAlive, a.Workers = r.Healthy()
			a.WorkerStrayLines = r.StrayLines()
			a.Ready = a.WorkersAlive > 0
		}
		h.Agents = append(h.Agents, a)
		h.Sessions += open
	}
	return h
}

// reap closes sessions idle past IdleTTL and forgets closed and failed
// sessions one IdleTTL after their end.
func (m *Manager) reap() {
	defer m.wg.Done()
	every := min(m.cfg.IdleTTL/4, time.Minute)
	t := time.NewTicker(max(every, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.reapOnce()
		}
	}
}

func (m *Manager) reapOnce() {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.cfg.Now()
	ids := slices.Collect(maps.Keys(m.sessions))
	for _, id := range ids {
		s := m.sessions[id]
		if now.Sub(s.LastActive) < m.cfg.IdleTTL {
			continue
		}
		switch s.State {
		case StateIdle, StateCancelled:
			m.closeLocked(s)
			m.cfg.Logger.Info("session closed: idle", "session", id, "agent", s.AgentID)
		case StateClosed, StateFailed:
			delete(m.sessions, id)
		}
	}
	if len(m.ended) > 0 {
		live := m.ended[:0]
		for _, id := range m.ended {
			if _, ok := m.sessions[id]; ok {
				live = append(live, id)
			}
		}
		m.ended = slices.Clip(live)
	}
}
