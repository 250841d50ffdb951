package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/fault"
)

// mcpHandler serves the MCP bridge over streamable HTTP at /mcp, behind the
// API keys: s.api authenticates the request and rate-limits its tenant, and
// the tenant travels to the bridge as the go-sdk's TokenInfo.UserID, which
// scopes the sessions (one tenant never sees another's) and stops another
// tenant from using an MCP session id it learned. The bridge bounds its
// own calls in progress, so /mcp takes none of the API's slots: a prompt
// may run for minutes, and GET /mcp is a long-lived stream.
func (s *Server) mcpHandler(b *bridge.Bridge) handlerFunc {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return b.Server() },
		&mcp.StreamableHTTPOptions{
			Logger:              s.log,
			MaxRequestBodyBytes: s.cfg.MCPMaxBody,
			SessionTimeout:      30 * time.Minute,
		})
	// The tenant is already known; the verifier only hands it over. Any
	// bearer token passes here because s.api has checked the key (which
	// may have come in X-API-Key).
	verify := func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: tenantOf(ctx), Expiration: time.Now().Add(24 * time.Hour)}, nil
	}
	withTenant := auth.RequireBearerToken(verify, nil)(h)
	sessions := &mcpSessions{max: s.cfg.TenantMCPSessions, server: b.Server(), owner: map[string]string{}, opening: map[string]int{}}
	return func(w http.ResponseWriter, r *http.Request) error {
		// A POST without a session id opens a session: one more of the
		// tenant's, if it has not all it may hold.
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			tenant := tenantOf(r.Context())
			if !sessions.open(tenant) {
				return fault.New(fault.RateLimited, "This tenant has as many MCP sessions open as it may. Close one (DELETE /mcp) or let one expire, then retry.",
					fault.WithRetryAfter(5*time.Second), fault.WithDetail("max_mcp_sessions", s.cfg.TenantMCPSessions))
			}
			// Recorded as the answer starts, before the client can send
			// its next request.
			rw := &openingWriter{ResponseWriter: w}
			rw.opened = func() { sessions.opened(tenant, w.Header().Get("Mcp-Session-Id")) }
			defer rw.start()
			w = rw
		}
		// The server's 30-second write timeout would cut a prompt short:
		// a POST may stream for as long as a prompt may run, and GET is
		// the session's stream of server messages.
		deadline := time.Time{}
		if r.Method == http.MethodPost {
			deadline = time.Now().Add(s.cfg.MCPWriteTimeout)
		}
		_ = http.NewResponseController(w).SetWriteDeadline(deadline)
		if r.Header.Get("Authorization") == "" {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer tenant")
		}
		withTenant.ServeHTTP(w, r)
		return nil
	}
}

// MCPOwner is the bridge's Options.Owner for the /mcp endpoint: the tenant
// the request authenticated as.
func MCPOwner(_ context.Context, req *mcp.CallToolRequest) string {
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		return req.Extra.TokenInfo.UserID
	}
	return DefaultTenant
}

// mcpSessions bounds the MCP sessions each tenant holds at /mcp: the
// go-sdk keeps a session (and its goroutines) until it is deleted or idle
// for its SessionTimeout, however many a client opens. It knows a
// session's tenant from the answer that opened it, and which sessions
// live from the server's own list, read when a tenant opens another.
type mcpSessions struct {
	max    int
	server *mcp.Server

	mu      sync.Mutex
	owner   map[string]string // session id → tenant
	opening map[string]int    // tenant → sessions being opened now
}

// open reports whether tenant may open one more session, and counts it as
// being opened until opened is called.
func (m *mcpSessions) open(tenant string) bool {
	live := map[string]bool{}
	for ss := range m.server.Sessions() {
		live[ss.ID()] = true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	held := m.opening[tenant]
	for id, t := range m.owner {
		switch {
		case !live[id]:
			delete(m.owner, id)
		case t == tenant:
			held++
		}
	}
	if held >= m.max {
		return false
	}
	m.opening[tenant]++
	return true
}

// opened records the session id the answer gave (none: no session was
// opened) as tenant's.
func (m *mcpSessions) opened(tenant, id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.opening[tenant]--; m.opening[tenant] <= 0 {
		delete(m.opening, tenant)
	}
	if id != "" {
		m.owner[id] = tenant
	}

}

// openingWriter calls opened once, when the answer's header is written (or
// when the handler returns, if it wrote nothing).
type openingWriter struct {
	http.ResponseWriter
	opened func()
	once   sync.Once
}

func (w *openingWriter) start() { w.once.Do(w.opened) }

func (w *openingWriter) WriteHeader(code int) {
	w.start()
	w.ResponseWriter.WriteHeader(code)
}

func (w *openingWriter) Write(b []byte) (int, error) {
	w.start()
	return w.ResponseWriter.Write(b)
}

func (w *openingWriter) Flush() {
	w.start()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *openingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
