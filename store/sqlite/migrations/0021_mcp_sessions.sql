-- mcp_sessions: the record of each MCP session opened at /mcp, one per
-- tenant and session id (its Mcp-Session-Id): written when the session
-- opens (outcome open) and when it ends (closed, expired, evicted or
-- shutdown, with ended_at and its counts of tool calls); never per call.
-- opened_at and ended_at (0 while open) are in nanoseconds. Expire
-- deletes them by opened_at (mcp_sessions_by_open). GET /v1/sessions
-- reads a tenant's range of mcp_sessions_by_tenant_open, the latest
-- opened first; session_id breaks ties, so the cursor is both.
CREATE TABLE mcp_sessions (
	tenant TEXT NOT NULL,
	session_id TEXT NOT NULL,
	client_name TEXT NOT NULL,
	client_version TEXT NOT NULL,
	protocol_version TEXT NOT NULL,
	outcome TEXT NOT NULL,
	opened_at INTEGER NOT NULL,
	ended_at INTEGER NOT NULL,
	calls INTEGER NOT NULL,
	failed_calls INTEGER NOT NULL,
	PRIMARY KEY (tenant, session_id)
);
CREATE INDEX mcp_sessions_by_open ON mcp_sessions (opened_at);
CREATE INDEX mcp_sessions_by_tenant_open ON mcp_sessions (tenant, opened_at, session_id);
