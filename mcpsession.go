package triage

import "time"

// MCPSession is the record of an MCP session opened at the service's /mcp
// door: which client opened it, with which protocol version, when, how
// it ended and how many tool calls it made. It holds no call's arguments
// or answers. The error records its failed calls became name it back: an
// occurrence's data.context.session_id.
type MCPSession struct {
	// SessionID is the session's Mcp-Session-Id: one session per tenant
	// and id.
	SessionID string `json:"session_id"`
	// ClientName and ClientVersion are the initialize request's
	// clientInfo (either may be empty).
	ClientName    string `json:"client_name"`
	ClientVersion string `json:"client_version"`
	// ProtocolVersion is the MCP protocol version the session negotiated.
	ProtocolVersion string `json:"protocol_version"`
	// Outcome is "open", "closed", "expired", "evicted" or "shutdown"
	// (the store package's Session… constants say what each means).
	Outcome string `json:"outcome"`
	// OpenedAt and EndedAt are by the store's clock. EndedAt is zero while
	// the session is open.
	OpenedAt time.Time `json:"opened_at"`
	EndedAt  time.Time `json:"ended_at,omitzero"`
	// Calls is how many tool calls the session made, FailedCalls how many
	// of them failed (an isError result or a JSON-RPC error). They are
	// written with the session's end: an open session's are 0 in the
	// store (the instance holding it adds what it counted so far).
	Calls       int64 `json:"calls"`
	FailedCalls int64 `json:"failed_calls"`
}

// MCPSessionPage is one page of MCP session records, the latest opened
// first; Next, when not empty, is the cursor of the next page.
type MCPSessionPage struct {
	Sessions []MCPSession `json:"sessions"`
	Next     string       `json:"next_cursor,omitempty"`
}
