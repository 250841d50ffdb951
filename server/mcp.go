package server

import (
	"context"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/bridge"
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
	return func(w http.ResponseWriter, r *http.Request) error {
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
