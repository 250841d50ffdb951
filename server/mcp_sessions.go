package server

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/store"
)

// mcpSessions keeps what /mcp knows of each MCP session the go-sdk holds:
// its tenant, its negotiated protocol version, when it was last used and
// the requests it has in progress. It bounds the sessions each tenant
// holds: the go-sdk keeps a session (and its goroutines) until it is
// deleted or idle for its SessionTimeout, and a client that goes away
// without DELETE (the official TypeScript client's close sends none)
// leaves its session behind. So a tenant at its cap that opens another
// session gets one: its least recently used session with nothing in
// flight is closed to make room. Only when every one of its sessions has
// work in flight (a POST in progress, or a tool call the bridge still
// runs) is it refused.
type mcpSessions struct {
	max    int
	server *mcp.Server
	// busy says whether a tool call of the session runs (the bridge's
	// Busy): a prompt runs on after the client dropped its POST.
	busy func(id string) bool

	mu      sync.Mutex
	tick    uint64 // counts the requests' starts and ends: the order of use
	byID    map[string]*mcpSession
	opening map[string]int // tenant → sessions being opened now
	// ending are the sessions closed (evicted, deleted) whose go-sdk
	// session has not yet told its end (mcpEvents.SessionClosed).
	ending map[string]*mcpSession
	// records writes the sessions' records (nil: none are written).
	records *sessionRecords
}

// mcpSession is one session's entry.
type mcpSession struct {
	id, tenant string
	// version is the protocol version negotiated at initialize.
	version string
	last    uint64    // the tick of its last request's start or end
	born    time.Time // when initialize was answered
	ready   bool      // the client sent notifications/initialized
	posts   int       // POSTs and DELETEs in progress
	streams int       // GET streams open
	// The record's: the client's name and version (initialize's
	// clientInfo), whether the open was recorded (the end is then), how
	// it ends when the door closes it (store.SessionEvicted,
	// store.SessionClosed; "" for the go-sdk's idle timeout), and its
	// tool calls, and failed ones, so far.
	client, clientVersion string
	recorded              bool
	reason                string
	calls, failed         int64
}

// mcpHandshake is how long a session that answered initialize is kept
// from being closed to make room while its client has not yet sent
// notifications/initialized.
const mcpHandshake = 10 * time.Second

func newMCPSessions(max int, server *mcp.Server, busy func(string) bool) *mcpSessions {
	return &mcpSessions{max: max, server: server, busy: busy, byID: map[string]*mcpSession{}, opening: map[string]int{},
		ending: map[string]*mcpSession{}}
}

// now is the next tick; m.mu is held.
func (m *mcpSessions) now() uint64 {
	m.tick++
	return m.tick
}

// lookup returns a copy of the session's entry (false: not known here).
func (m *mcpSessions) lookup(id string) (mcpSession, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.byID[id]
	if !ok {
		return mcpSession{}, false
	}
	return *s, true
}

// open reports whether tenant may open one more session, closing its
// least recently used idle session when it holds all it may; the session
// is counted as being opened until opened is called.
func (m *mcpSessions) open(tenant string) bool {
	m.mu.Lock()
	if m.held(tenant) >= m.max {
		// Sessions the go-sdk closed itself (expired, deleted) are still
		// counted here: forget them first. The go-sdk's list is read under
		// m.mu, so that no session is registered meanwhile and forgotten.
		live := map[string]bool{}
		for ss := range m.server.Sessions() {
			live[ss.ID()] = true
		}
		for id, s := range m.byID {
			if !live[id] {
				delete(m.byID, id)
				m.records.end(s, store.SessionExpired)
			}
		}
	}
	var victim string
	if m.held(tenant) >= m.max {
		victim = m.idlest(tenant)
		if victim == "" {
			m.mu.Unlock()
			return false
		}
		m.byID[victim].reason = store.SessionEvicted
		m.ending[victim] = m.byID[victim]
		delete(m.byID, victim)
	}
	m.opening[tenant]++
	m.mu.Unlock()
	if victim != "" {
		m.close(victim)
	}
	return true
}

// held counts tenant's sessions, open and being opened; m.mu is held.
func (m *mcpSessions) held(tenant string) int {
	n := m.opening[tenant]
	for _, s := range m.byID {
		if s.tenant == tenant {
			n++
		}
	}
	return n
}

// idlest returns tenant's session to close to make room: the least
// recently used of those initialized and quiet (no request in progress,
// no tool call running), else of those whose only requests are GET
// streams (a client listening, with no work in flight); "" when every one
// has work in flight or is in its handshake (answered initialize less
// than mcpHandshake ago, and not yet sent notifications/initialized).
// m.mu is held.
func (m *mcpSessions) idlest(tenant string) string {
	var quiet, listening []*mcpSession
	now := time.Now()
	for _, s := range m.byID {
		if s.tenant != tenant || s.posts > 0 || (m.busy != nil && m.busy(s.id)) ||
			(!s.ready && now.Sub(s.born) < mcpHandshake) {
			continue
		}
		if s.streams > 0 {
			listening = append(listening, s)
		} else {
			quiet = append(quiet, s)
		}
	}
	byAge := func(a, b *mcpSession) int { return cmp.Compare(a.last, b.last) }
	for _, group := range [][]*mcpSession{quiet, listening} {
		if len(group) > 0 {
			return slices.MinFunc(group, byAge).id
		}
	}
	return ""
}

// close closes the go-sdk's session: its streams end, and a request that
// names it is answered 404, upon which a client initializes again.
func (m *mcpSessions) close(id string) {
	for ss := range m.server.Sessions() {
		if ss.ID() == id {
			_ = ss.Close()
			return
		}
	}
}

// opened ends the opening of a session of tenant's: id is the session the
// answer gave ("": none was opened), version the one it negotiated. The
// request that opened it is still in progress (done ends it).
func (m *mcpSessions) opened(tenant, id, version string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.opening[tenant]--; m.opening[tenant] <= 0 {
		delete(m.opening, tenant)
	}
	if id != "" {
		m.byID[id] = &mcpSession{id: id, tenant: tenant, version: version, last: m.now(), born: time.Now(), posts: 1}
	}
}

// begin counts a request of the session in progress (a GET as a stream;
// initialized: it carries notifications/initialized); it returns false
// when the session is not known here.
func (m *mcpSessions) begin(id string, stream, initialized bool) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.byID[id]
	if !ok {
		return false
	}
	s.ready = s.ready || initialized
	s.last = m.now()
	if stream {
		s.streams++
	} else {
		s.posts++
	}
	return true
}

// done ends a request that begin counted (or that opened the session).
func (m *mcpSessions) done(id string, stream bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.byID[id]
	if !ok {
		return
	}
	s.last = m.now()
	if stream {
		s.streams--
	} else {
		s.posts--
	}
}

// forget drops the session's entry (it was deleted): its end is
// recorded as closed, unless the go-sdk told it already.
func (m *mcpSessions) forget(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.byID[id]; ok {
		delete(m.byID, id)
		m.records.end(s, store.SessionClosed)
	}
}

// negotiatedVersion is the protocol version the go-sdk's server answers
// an initialize asking for requested with (mcp.ServerSession's initialize:
// the requested version when the SDK supports it, below 2026-07-28 which
// has no initialize, else the latest it supports below that).
func negotiatedVersion(requested string) string {
	supported := mcp.SupportedProtocolVersions()
	if requested < mcpVersionNoInitialize && slices.Contains(supported, requested) {
		return requested
	}
	for _, v := range supported {
		if v < mcpVersionNoInitialize {
			return v
		}
	}
	return ""
}

// The protocol versions whose rules /mcp applies itself.
const (
	// mcpVersionNoBatches is the first version without JSON-RPC batches.
	mcpVersionNoBatches = "2025-06-18"
	// mcpVersionNoInitialize is the first version without initialize
	// (SEP-2575), which the go-sdk serves statelessly only.
	mcpVersionNoInitialize = "2026-07-28"
)
