package server

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
)

// sessionRecords writes the records of /mcp's sessions (store.MCPSessions):
// one write when a session opens, one when it ends, with the counts of its
// tool calls kept in memory meanwhile; never a write per call. An end is
// written on a goroutine of its own (the go-sdk tells it under its
// session's lock), which Close waits for.
type sessionRecords struct {
	st  store.Store
	log *slog.Logger

	mu       sync.Mutex
	shutting bool // the service shuts down: every end is store.SessionShutdown
	writes   sync.WaitGroup
}

// end has the end of session s written as outcome (a shutdown's, once the
// service shuts down), when its open was recorded; s is no longer in
// mcpSessions' maps, whose lock may be held. A nil r writes nothing.
func (r *sessionRecords) end(s *mcpSession, outcome string) {
	if r == nil || !s.recorded {
		return
	}
	r.mu.Lock()
	if r.shutting {
		outcome = store.SessionShutdown
	}
	r.mu.Unlock()
	rec := store.MCPSession{SessionID: s.id, ClientName: s.client, ClientVersion: s.clientVersion, ProtocolVersion: s.version,
		Outcome: outcome, OpenedAt: s.born, Calls: s.calls, FailedCalls: s.failed}
	r.write(s.tenant, "end", func(ctx context.Context, t store.Tenant) error {
		_, err := t.EndSession(ctx, rec)
		if errors.Is(err, store.ErrSessionEnded) {
			err = nil
		}
		return err
	})
}

// write runs fn on the tenant's store on a goroutine of its own, counted
// in r.writes, bounded by service.RunRecordTimeout; a failure is logged.
func (r *sessionRecords) write(tenant, what string, fn func(context.Context, store.Tenant) error) {
	r.writes.Add(1)
	go func() {
		defer r.writes.Done()
		ctx, cancel := context.WithTimeout(context.Background(), service.RunRecordTimeout)
		defer cancel()
		if err := fn(ctx, r.st.Tenant(tenant)); err != nil {
			r.log.Error("recording an MCP session failed", slog.String("what", what), slog.Any("error", fault.From(err)))
		}
	}()
}

// shutdown makes every end from now on store.SessionShutdown.
func (r *sessionRecords) shutdown() {
	r.mu.Lock()
	r.shutting = true
	r.mu.Unlock()
}

// wait waits for the ends being written, at most d.
func (r *sessionRecords) wait(d time.Duration) bool {
	done := make(chan struct{})
	go func() { r.writes.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// initialized records the session the initialize request of tenant
// opened (id, from its answer), once the go-sdk has it initialized: its
// client (initialize's clientInfo) and protocol version. A session the
// go-sdk did not keep (initialize failed), or that ended already, is not
// recorded. The write is on a goroutine of its own (the request is over;
// Close waits for it); a failed one is logged: the session's end,
// written whole, records it then.
func (m *mcpSessions) initialized(id string) {
	if m.records == nil || id == "" {
		return
	}
	var params *mcp.InitializeParams
	for ss := range m.server.Sessions() {
		if ss.ID() == id {
			params = ss.InitializeParams()
			break
		}
	}
	if params == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.byID[id]
	if !ok {
		return
	}
	if params.ClientInfo != nil {
		s.client, s.clientVersion = clip(params.ClientInfo.Name), clip(params.ClientInfo.Version)
	}
	s.recorded = true
	rec := store.MCPSession{SessionID: id, ClientName: s.client, ClientVersion: s.clientVersion, ProtocolVersion: s.version}
	m.records.write(s.tenant, "open", func(ctx context.Context, t store.Tenant) error {
		_, err := t.OpenSession(ctx, rec)
		if errors.Is(err, store.ErrSessionExists) {
			err = nil // its end came first
		}
		return err
	})
}

// clip makes a client's name or version one a record holds: no NULs,
// at most store.MaxSessionIDBytes, valid UTF-8.
func clip(s string) string {
	s = strings.ReplaceAll(s, "\x00", "")
	if len(s) > store.MaxSessionIDBytes {
		s = s[:store.MaxSessionIDBytes]
	}
	return strings.ToValidUTF8(s, "")
}

// closing marks the session as closed by its client (a DELETE in
// progress), so that the end the go-sdk tells is recorded so; undo (ok
// false) when the DELETE did not close it.
func (m *mcpSessions) closing(id string, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.byID[id]; s != nil {
		s.reason = ""
		if ok {
			s.reason = store.SessionClosed
		}
	}
}

// closed is the go-sdk's word that the session ended (its EventStore's
// SessionClosed): the door closed it (its reason), or it went unused
// for MCPSessionTimeout (expired).
func (m *mcpSessions) closed(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.ending[id]
	if s == nil {
		s = m.byID[id]
	}
	if s == nil {
		return
	}
	delete(m.ending, id)
	delete(m.byID, id)
	m.records.end(s, cmp.Or(s.reason, store.SessionExpired))
}

// endAll records the end of every session still known (at shutdown, once
// the connections are closed: those the go-sdk did not tell).
func (m *mcpSessions) endAll(outcome string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, s := range m.byID {
		delete(m.byID, id)
		m.records.end(s, outcome)
	}
	for id, s := range m.ending {
		delete(m.ending, id)
		m.records.end(s, outcome)
	}
}

// called counts a tool call of the session, and whether it failed.
func (m *mcpSessions) called(id string, failed bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.byID[id]; s != nil {
		s.calls++
		if failed {
			s.failed++
		}
	}
}

// counts returns the calls and failed calls counted so far of a session
// this instance holds, for tenant.
func (m *mcpSessions) counts(tenant, id string) (calls, failed int64, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.byID[id]
	if s == nil || s.tenant != tenant {
		return 0, 0, false
	}
	return s.calls, s.failed, true
}

// countCalls is the go-sdk middleware that counts each tools/call of a
// session, and whether it failed: a JSON-RPC error, or a result with
// isError.
func (m *mcpSessions) countCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method == "tools/call" {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && ss.ID() != "" {
				r, _ := res.(*mcp.CallToolResult)
				m.called(ss.ID(), err != nil || r != nil && r.IsError)
			}
		}
		return res, err
	}
}

// live adds to an open session's record the counts this instance kept so
// far, when it holds the session.
func (s *Server) live(tenant string, rec *store.MCPSession) {
	if s.mcpSessions == nil || rec.Outcome != store.SessionOpen {
		return
	}
	if calls, failed, ok := s.mcpSessions.counts(tenant, rec.SessionID); ok {
		rec.Calls, rec.FailedCalls = calls, failed
	}
}

// getSession is GET /v1/sessions/{session_id}: the tenant's record of the
// MCP session; 404 for one it does not have (none, expired, or another
// tenant's).
func (s *Server) getSession(w http.ResponseWriter, r *http.Request, tenant string) error {
	id := r.PathValue("session_id")
	if len(id) > store.MaxSessionIDBytes { // no session has it
		return fault.New(fault.NotFound, "No such MCP session.")
	}
	rec, ok, err := s.cfg.Store.Tenant(tenant).GetSession(r.Context(), id)
	if err != nil {
		return store.Unavailable(err)
	}
	if !ok {
		return fault.New(fault.NotFound, "No such MCP session.", fault.WithDetail("session_id", id))
	}
	s.live(tenant, &rec)
	return encodeJSON(w, http.StatusOK, rec)
}

// listSessions answers GET /v1/sessions: a page of the tenant's MCP
// session records, the latest opened first.
func (s *Server) listSessions(w http.ResponseWriter, r *http.Request, tenant string) error {
	f, err := parseSessionFilter(r.URL.Query())
	if err != nil {
		return err
	}
	page, err := s.cfg.Store.Tenant(tenant).ListSessions(r.Context(), f)
	if errors.Is(err, store.ErrBadCursor) {
		return badCursor()
	}
	if err != nil {
		return store.Unavailable(err)
	}
	for i := range page.Sessions {
		s.live(tenant, &page.Sessions[i])
	}
	return writeDocuments(w, page)
}
