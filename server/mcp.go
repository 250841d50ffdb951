package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/wire/jsonrpc"
)

// The defaults of the /mcp door's bounds (see Config).
const (
	DefaultMCPWriteTimeout      = 6 * time.Minute
	DefaultMCPStallTimeout      = 30 * time.Second
	DefaultMCPEventBytesSession = 4 << 20
	DefaultMCPEventBytesTenant  = 16 << 20
	// MCPRetry is the retry field /mcp's SSE streams open with: how long
	// a client waits before it resumes a stream whose connection dropped.
	MCPRetry = time.Second
	// MCPSessionTimeout is how long an MCP session may go without a
	// request before the go-sdk closes it.
	MCPSessionTimeout = 30 * time.Minute
)

func mcpDefaults(cfg *Config) {
	if cfg.MCPMaxBody <= 0 {
		cfg.MCPMaxBody = DefaultMCPMaxBody
	}
	if cfg.MCPWriteTimeout <= 0 {
		cfg.MCPWriteTimeout = DefaultMCPWriteTimeout
	}
	if cfg.MCPStallTimeout <= 0 {
		cfg.MCPStallTimeout = DefaultMCPStallTimeout
	}
	if cfg.MCPMaxBatch <= 0 {
		cfg.MCPMaxBatch = DefaultMCPMaxBatch
	}
	if cfg.MCPEventBytesSession <= 0 {
		cfg.MCPEventBytesSession = DefaultMCPEventBytesSession
	}
	if cfg.MCPEventBytesTenant <= 0 {
		cfg.MCPEventBytesTenant = DefaultMCPEventBytesTenant
	}
}

// mcpHandler serves the MCP bridge over streamable HTTP at /mcp, behind the
// API keys: s.api authenticates the request and rate-limits its tenant, and
// the tenant travels to the bridge as the go-sdk's TokenInfo.UserID, which
// scopes the sessions (one tenant never sees another's) and the error
// store's tools (errorsOf: the tenant's records). Before the go-sdk
// reads a request, the door
//
//   - refuses a browser's request from another origin (403);
//   - answers "not found" (404) for another tenant's session;
//   - bounds a tenant's POSTs in progress (its share of the API's
//     requests, counted apart from them: a prompt may run for minutes);
//   - reads a POST's body and refuses, as JSON-RPC errors, malformed JSON,
//     ids the go-sdk would alter, and batches where the session's
//     protocol version has none or beyond MCPMaxBatch; a batch's messages
//     count one each against the tenant's rate limit;
//   - tells the go-sdk the session's negotiated protocol version when the
//     MCP-Protocol-Version header is absent or names another supported
//     one (the version decides the batches and the priming events);
//   - bounds the tenant's sessions, closing its least recently used idle
//     one to make room (see mcpSessions).
//
// The go-sdk's answers go through an mcpWriter (problems for its text
// errors, retry fields, stall timeouts), and its EventStore is an
// mcpEvents (streams resume, within bounds).
func (s *Server) mcpHandler(b *bridge.Bridge) apiFunc {
	b.ServeErrors(s.errorsOf)
	sessions := newMCPSessions(s.cfg.TenantMCPSessions, b.Server(), b.Busy)
	sessions.records = &sessionRecords{st: s.cfg.Store, log: s.log}
	s.mcpSessions = sessions
	b.Server().AddReceivingMiddleware(sessions.countCalls)
	events := newMCPEvents(s.cfg.MCPEventBytesSession, s.cfg.MCPEventBytesTenant)
	events.closed = sessions.closed
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return b.Server() },
		&mcp.StreamableHTTPOptions{
			Logger:              s.log,
			MaxRequestBodyBytes: s.cfg.MCPMaxBody,
			SessionTimeout:      MCPSessionTimeout,
			EventStore:          events,
		})
	// The tenant is already known; the verifier only hands it over (the
	// go-sdk puts it in the request's context as the token's UserID,
	// where its session and the event store find it). Any bearer token
	// passes here because s.api has checked the key (which may have come
	// in X-API-Key).
	withTenant := func(tenant string) http.Handler {
		verify := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
			return &auth.TokenInfo{UserID: tenant, Expiration: time.Now().Add(24 * time.Hour)}, nil
		}
		return auth.RequireBearerToken(verify, nil)(h)
	}
	origins := http.NewCrossOriginProtection()
	posts := service.NewShares(s.cfg.TenantConcurrent)
	return func(w http.ResponseWriter, r *http.Request, tenant string) error {
		if err := checkOrigin(origins, r); err != nil {
			return err
		}
		sid := r.Header.Get("Mcp-Session-Id")
		sess, known := sessions.lookup(sid)
		if known && sess.tenant != tenant {
			return mcpFault(http.StatusNotFound, "")
		}
		var body mcpBody
		if r.Method == http.MethodPost {
			if !posts.Acquire(tenant) {
				return fault.New(fault.RateLimited, "Too many MCP requests of this tenant are in progress. Please retry shortly.",
					fault.WithRetryAfter(time.Second), fault.WithDetail("max_in_progress", s.cfg.TenantConcurrent))
			}
			defer posts.Release(tenant)
			if isJSON(r) {
				data, err := readBody(w, r, s.cfg.MCPMaxBody)
				if err != nil {
					return err
				}
				var rpcErr *jsonrpc.Error
				if body, rpcErr = readMCPBody(data); rpcErr == nil && body.batch {
					rpcErr = s.checkBatch(sid, sess, known, body)
				}
				if rpcErr != nil {
					writeRPCError(w, rpcErr)
					return nil
				}
				if body.batch {
					if wait, limited := s.limits.takeN(tenant, s.cfg.Now(), body.messages-1); limited {
						setRateLimitHeaders(w.Header(), s.cfg.RateLimit, s.cfg.RateBurst, wait)
						return fault.New(fault.RateLimited, "Too many requests: each message of a batch counts as one. Please retry later.",
							fault.WithRetryAfter(wait), fault.WithDetail("messages", body.messages))
					}
				}
				r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
			}
		}
		if known && sess.version != "" {
			if v := r.Header.Get("Mcp-Protocol-Version"); v != sess.version && (v == "" || slices.Contains(mcp.SupportedProtocolVersions(), v) && v < mcpVersionNoInitialize) {
				r = r.Clone(r.Context())
				r.Header.Set("Mcp-Protocol-Version", sess.version)
			}
		}
		deadline := time.Time{}
		if r.Method == http.MethodPost {
			deadline = time.Now().Add(s.cfg.MCPWriteTimeout)
		}
		mw := &mcpWriter{ResponseWriter: w, rc: http.NewResponseController(w), stall: s.cfg.MCPStallTimeout,
			deadline: deadline, retry: retryMillis(MCPRetry),
			fail: func(status int, text string) { s.fail(w, r, mcpFault(status, text)) }}
		switch {
		case r.Method == http.MethodPost && sid == "" && body.initialize:
			// It opens a session: one more of the tenant's.
			if !sessions.open(tenant) {
				return fault.New(fault.RateLimited, "This tenant has as many MCP sessions as it may, each with work in flight. Close one (DELETE /mcp) or let one finish, then retry.",
					fault.WithRetryAfter(5*time.Second), fault.WithDetail("max_mcp_sessions", s.cfg.TenantMCPSessions))
			}
			version := negotiatedVersion(body.version)
			mw.started = func() { sessions.opened(tenant, w.Header().Get("Mcp-Session-Id"), version) }
			// Once answered, the session is recorded (its client's name and
			// version as the go-sdk read them).
			defer func() { sessions.initialized(w.Header().Get("Mcp-Session-Id")) }()
			defer func() { sessions.done(w.Header().Get("Mcp-Session-Id"), false) }()
		case known:
			stream := r.Method == http.MethodGet
			if sessions.begin(sid, stream, body.initialized) {
				defer sessions.done(sid, stream)
			}
		}
		_ = mw.rc.SetWriteDeadline(deadline)
		if r.Header.Get("Authorization") == "" {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer tenant")
		}
		deleting := r.Method == http.MethodDelete && known
		if deleting {
			sessions.closing(sid, true) // the end the go-sdk tells is the client's
		}
		withTenant(tenant).ServeHTTP(mw, r)
		mw.finish()
		switch {
		case deleting && mw.code == http.StatusNoContent:
			sessions.forget(sid)
		case deleting:
			sessions.closing(sid, false)
		}
		return nil
	}
}

// checkBatch refuses a batch where the session's protocol version has
// none: JSON-RPC batches were in MCP 2025-03-26 and are not since
// 2025-06-18, whatever MCP-Protocol-Version a request carries (without
// it, the go-sdk assumes 2025-03-26). initialize is never in a batch.
func (s *Server) checkBatch(sid string, sess mcpSession, known bool, body mcpBody) *jsonrpc.Error {
	switch {
	case sid == "":
		return jsonrpc.NewInvalidRequest("a batch cannot open a session: send initialize alone")
	case !known || sess.version == "":
		return jsonrpc.NewInvalidRequest("a batch needs a session whose protocol version has batches (2025-03-26 or before)")
	case sess.version >= mcpVersionNoBatches:
		return jsonrpc.NewInvalidRequest("this session's protocol version, " + sess.version + ", has no JSON-RPC batches: send one message a request")
	case body.messages > s.cfg.MCPMaxBatch:
		return jsonrpc.NewInvalidRequest("a batch holds at most " + strconv.Itoa(s.cfg.MCPMaxBatch) + " messages, this one " + strconv.Itoa(body.messages))
	}
	return nil
}

// writeRPCError answers 400 with a JSON-RPC error response whose id is
// null: the request was refused as a whole, before any of it was handled
// (the MCP transport allows this body on an HTTP error).
func writeRPCError(w http.ResponseWriter, e *jsonrpc.Error) {
	data, err := json.Marshal(jsonrpc.NewErrorResponse(nil, e))
	if err != nil {
		data = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(data)
}

// isJSON tells whether the request says its body is JSON (the go-sdk
// answers 415 to any other).
func isJSON(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

// checkOrigin refuses a request from a browser on another origin than the
// service's own (the MCP transport: servers MUST validate Origin, against
// DNS rebinding and cross-site requests), on every method: GET too, which
// http.CrossOriginProtection would let through as safe. A request without
// Origin and Sec-Fetch-Site, as every client but a browser sends, passes.
func checkOrigin(cop *http.CrossOriginProtection, r *http.Request) error {
	probe := r
	if r.Method != http.MethodPost && r.Method != http.MethodDelete {
		probe = r.WithContext(r.Context())
		probe.Method = http.MethodPost
	}
	if cop.Check(probe) != nil {
		return fault.New(fault.InvalidRequest, "Requests from a page of another origin are refused: /mcp serves its own origin and clients that are not browsers.",
			fault.WithStatus(http.StatusForbidden))
	}
	return nil
}

// MCPOwner is the bridge's Options.Owner for the /mcp endpoint: the tenant
// the request authenticated as.
func MCPOwner(_ context.Context, req *mcp.CallToolRequest) string {
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		return req.Extra.TokenInfo.UserID
	}
	return DefaultTenant
}
