package server

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpEvents is the go-sdk's EventStore for /mcp: it keeps each SSE
// stream's events so that a client whose connection dropped resumes with
// GET and Last-Event-ID. Its memory is bounded twice: a session's events
// take at most perSession bytes, a tenant's (all its sessions) at most
// perTenant; past either, the oldest events go first (of the session, then
// of the tenant's sessions), and a client resuming from before them is
// answered "failed to replay events" (400), as the go-sdk's own
// MemoryEventStore does. Each event is charged eventOverhead bytes beside
// its data, so that empty events (the priming ones) are bounded too.
//
// An event larger than a bound is not kept: its stream can no longer be
// resumed from before it. A stream whose every event went is forgotten;
// should the go-sdk append to it again, it is kept as lost (never
// replayed), since the index of its events is no longer known.
type mcpEvents struct {
	perSession, perTenant int
	// closed is told of each session's end, once its events are
	// forgotten (nil: no one).
	closed func(sessionID string)

	mu       sync.Mutex
	seq      uint64
	sessions map[string]*eventSession
	tenants  map[string]int // bytes held
}

// eventOverhead is what an event is charged beside its data.
const eventOverhead = 64

type eventSession struct {
	tenant  string
	bytes   int
	streams map[string]*eventStream
	queue   []*eventStream // one entry per event kept, oldest first
	seqs    []uint64       // the store's sequence of each queue entry
}

type eventStream struct {
	first int      // the index of data[0]
	data  [][]byte // the events kept, oldest first
	lost  bool     // appended to after it was forgotten: never replayed
}

func newMCPEvents(perSession, perTenant int) *mcpEvents {
	return &mcpEvents{perSession: perSession, perTenant: perTenant,
		sessions: map[string]*eventSession{}, tenants: map[string]int{}}
}

var _ mcp.EventStore = (*mcpEvents)(nil)

// session returns the session's entry, made for ctx's tenant if new;
// e.mu is held. The go-sdk opens a session's first stream with the
// context of the request that opened the session, which carries its token
// (the tenant, as mcpHandler verified it).
func (e *mcpEvents) session(ctx context.Context, id string) *eventSession {
	s := e.sessions[id]
	if s == nil {
		s = &eventSession{tenant: tenantOf(ctx), streams: map[string]*eventStream{}}
		e.sessions[id] = s
	}
	return s
}

// Open makes the stream ready.
func (e *mcpEvents) Open(ctx context.Context, sessionID, streamID string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.session(ctx, sessionID)
	if s.streams[streamID] == nil {
		s.streams[streamID] = &eventStream{}
	}
	return nil
}

// Append keeps the stream's next event, within the bounds.
func (e *mcpEvents) Append(ctx context.Context, sessionID, streamID string, data []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.session(ctx, sessionID)
	st := s.streams[streamID]
	if st == nil {
		st = &eventStream{lost: true}
		s.streams[streamID] = st
	}
	size := len(data) + eventOverhead
	if st.lost || size > e.perSession || size > e.perTenant {
		// Not kept: whatever of the stream was kept before it cannot be
		// resumed past it either.
		e.drop(s, st)
		st.lost = true
		return nil
	}
	for s.bytes+size > e.perSession {
		e.dropOldest(s)
	}
	for e.tenants[s.tenant]+size > e.perTenant {
		e.dropOldest(e.oldestOf(s.tenant))
	}
	e.seq++
	st.data = append(st.data, data)
	s.queue = append(s.queue, st)
	s.seqs = append(s.seqs, e.seq)
	e.charge(s, size)
	return nil
}

// charge adds n bytes to the session's and its tenant's; e.mu is held.
func (e *mcpEvents) charge(s *eventSession, n int) {
	s.bytes += n
	if e.tenants[s.tenant] += n; e.tenants[s.tenant] <= 0 {
		delete(e.tenants, s.tenant)
	}
}

// drop removes every event kept of the stream; e.mu is held.
func (e *mcpEvents) drop(s *eventSession, st *eventStream) {
	for i := 0; i < len(s.queue); {
		if s.queue[i] != st {
			i++
			continue
		}
		e.charge(s, -(len(st.data[0]) + eventOverhead))
		st.data[0] = nil
		st.data = st.data[1:]
		st.first++
		s.queue = slices.Delete(s.queue, i, i+1)
		s.seqs = slices.Delete(s.seqs, i, i+1)
	}
}

// dropOldest removes the session's oldest event, and its stream once it
// has none left; e.mu is held and the session holds an event.
func (e *mcpEvents) dropOldest(s *eventSession) {
	st := s.queue[0]
	size := len(st.data[0]) + eventOverhead
	st.data[0] = nil
	st.data = st.data[1:]
	st.first++
	s.queue[0] = nil
	s.queue, s.seqs = s.queue[1:], s.seqs[1:]
	e.charge(s, -size)
	if len(st.data) == 0 {
		for id, other := range s.streams {
			if other == st && id != "" {
				delete(s.streams, id)
			}
		}
	}
}

// oldestOf returns the tenant's session whose oldest event is the oldest;
// e.mu is held and the tenant holds an event.
func (e *mcpEvents) oldestOf(tenant string) *eventSession {
	var oldest *eventSession
	for _, s := range e.sessions {
		if s.tenant == tenant && len(s.seqs) > 0 && (oldest == nil || s.seqs[0] < oldest.seqs[0]) {
			oldest = s
		}
	}
	return oldest
}

// After yields the stream's events after index, or fails at once when one
// of them is no longer kept.
func (e *mcpEvents) After(_ context.Context, sessionID, streamID string, index int) iter.Seq2[[]byte, error] {
	e.mu.Lock()
	var (
		err error
		all [][]byte
	)
	s := e.sessions[sessionID]
	var st *eventStream
	if s != nil {
		st = s.streams[streamID]
	}
	switch {
	case st == nil:
		err = fmt.Errorf("stream %q of the session: %w", streamID, mcp.ErrEventsPurged)
	case st.lost || index+1 < st.first:
		err = fmt.Errorf("events after %d: %w", index, mcp.ErrEventsPurged)
	case index+1-st.first < len(st.data):
		all = slices.Clone(st.data[index+1-st.first:])
	}
	e.mu.Unlock()
	return func(yield func([]byte, error) bool) {
		if err != nil {
			yield(nil, err)
			return
		}
		for _, d := range all {
			if !yield(d, nil) {
				return
			}
		}
	}
}

// SessionClosed forgets the session's events, and tells closed: the
// go-sdk calls it once a session ends, however it ends (deleted, idle
// for its timeout, or closed by the door).
func (e *mcpEvents) SessionClosed(_ context.Context, sessionID string) error {
	e.mu.Lock()
	if s := e.sessions[sessionID]; s != nil {
		if e.tenants[s.tenant] -= s.bytes; e.tenants[s.tenant] <= 0 {
			delete(e.tenants, s.tenant)
		}
		delete(e.sessions, sessionID)
	}
	e.mu.Unlock()
	if e.closed != nil {
		e.closed(sessionID)
	}
	return nil
}

// held returns the bytes a tenant's events take (for tests).
func (e *mcpEvents) held(tenant string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.tenants[tenant]
}

// tenantOf is the tenant of an /mcp request's context: its token's user,
// as mcpHandler's verifier gave it to the go-sdk.
func tenantOf(ctx context.Context) string {
	if ti := auth.TokenInfoFromContext(ctx); ti != nil && ti.UserID != "" {
		return ti.UserID
	}
	return DefaultTenant
}
