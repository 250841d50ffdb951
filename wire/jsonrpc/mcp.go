package jsonrpc

import (
	"strconv"
	"strings"

	"github.com/triage-go/triage/fault"
)

// ToolResult is an MCP CallToolResult that reports a failed tool call:
// {"content": [{"type": "text", "text": …}], "isError": true,
// "structuredContent": {…}}.
//
// The MCP specification asks servers to report a tool's execution failure
// this way, as a result the calling model can read and act on, rather than
// as a JSON-RPC error, which is for failures of the protocol itself
// (unknown tool, invalid arguments, server errors); it also reserves
// -32000…-32019 and asks new implementations not to emit them. So an MCP
// server built on Triage answers a failed tools/call with ToolResultFrom's
// result by default, and with From's JSON-RPC error (seed 002's codes) only
// when a peer expects those.
type ToolResult struct {
	Content []Content `json:"content"`
	IsError bool      `json:"isError"`
	// StructuredContent is the same Data a JSON-RPC error would carry.
	// Leave it out (nil) for a tool that declares an outputSchema the
	// error does not match, since clients may validate it.
	StructuredContent *Data `json:"structuredContent,omitempty"`
}

// Content is one content block of a tool result; ToolResultFrom uses type
// "text".
type Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ToolResultFrom returns the isError tool result for err, classified by
// fault.From. Its text is the fault's message with its category and
// retryability, as seed 002 words a failure for users and models ("Session
// not found: abc-123 (UPSTREAM, not retryable)"); its structured content is
// DataFrom(err). Like From it never carries debug output.
//
// ToolResultFrom returns nil for a nil error.
func ToolResultFrom(err error) *ToolResult {
	if err == nil {
		return nil
	}
	f := fault.From(err)
	d := newData(f)
	var b strings.Builder
	b.WriteString(message(f))
	b.WriteString(" (")
	b.WriteString(string(d.Type))
	if d.Retryable {
		b.WriteString(", retryable")
		if d.RetryAfter > 0 {
			b.WriteString(" after ")
			b.WriteString(strconv.FormatInt(d.RetryAfter, 10))
			b.WriteString("s")
		}
	} else {
		b.WriteString(", not retryable")
	}
	b.WriteString(")")
	return &ToolResult{
		Content:           []Content{{Type: "text", Text: b.String()}},
		IsError:           true,
		StructuredContent: d,
	}
}
