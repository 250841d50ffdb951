package jsonrpc

import (
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
// when a peer expects those. SDK converts it to the MCP Go SDK's
// *mcp.CallToolResult; ParseToolResult and ToolResultFault read one back.
type ToolResult struct {
	Content []Content `json:"content"`
	IsError bool      `json:"isError"`
	// StructuredContent is the same Data a JSON-RPC error would carry: a
	// *Data from ToolResultFrom, ToolResultOptions.Failure in its place, a
	// map[string]any holding either under ToolResultOptions.Member, or nil
	// (left out) with ToolResultOptions.NoStructured. Clients validate it against the
	// tool's outputSchema, even in an isError result, so a tool that
	// declares one needs ToolResultOptions.
	StructuredContent any `json:"structuredContent,omitempty"`
}

// Content is one content block of a tool result; ToolResultFrom uses type
// "text".
type Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ToolResultOptions shapes an isError result for a tool that declares an
// outputSchema. MCP clients (the official TypeScript client among them)
// validate structuredContent against the tool's outputSchema even when
// isError is set, so the bare Data that ToolResultFrom sends makes them
// reject the result of such a tool.
//
// A nil *ToolResultOptions is ToolResultFrom's shape: the bare Data.
type ToolResultOptions struct {
	// Member, when set, nests the Data under this member of
	// structuredContent: {"error": {...Data...}}, so it can match an
	// output schema that declares that member.
	Member string
	// NoStructured leaves structuredContent out (for schemas that cannot
	// hold the fault). It wins over Member and Failure.
	NoStructured bool
	// Failure, when set, is the structured content's failure object in
	// place of the bare Data (under Member when that is set too): a richer
	// object that embeds the fault's Data beside a "message" member, such
	// as the MCP bridge's (ParseToolResult reads both).
	Failure any

	// Lead, when set, gives the text seed 002's whole user message: Lead
	// says what the call tried to do, then ":" and a line break, then the
	// fault's message without its final period and, in its parenthesis,
	// whether the session is still valid; Hint and Recovery, when Recovery
	// is not empty, close it with what probably happened and what the
	// caller can do next:
	//
	//	Failed to submit prompt to session 'abc-123':
	//	Session not found: abc-123 (UPSTREAM, not retryable, session not valid)
	//
	//	The session may have expired. You can:
	//	1. Create a new session with sessions_create
	//	2. Check available agents with agents_discover
	//
	// Without Lead the text is the message and its parenthesis only.
	Lead     string
	Hint     string
	Recovery []Recovery
}

// Recovery is one thing the caller can do after a failure (seed 002's
// recovery options), with the tool that does it, if one does.
type Recovery struct {
	Action string `json:"action"`
	Tool   string `json:"tool,omitempty"`
}

// ToolResult returns the isError tool result for err, classified by
// fault.From, as ToolResultFrom does, with its structured content shaped by
// o: the bare Data (nil o, or an empty Member), {Member: Data}, or none
// (NoStructured). The text is the same in every shape. Like From it never
// carries debug output.
//
// ToolResult returns nil for a nil error.
func (o *ToolResultOptions) ToolResult(err error) *ToolResult {
	if err == nil {
		return nil
	}
	f := fault.From(err)
	d := newData(f)
	r := &ToolResult{
		Content: []Content{{Type: "text", Text: o.text(f, d)}},
		IsError: true,
	}
	var structured any = d
	if o != nil && o.Failure != nil {
		structured = o.Failure
	}
	switch {
	case o == nil || (o.Member == "" && !o.NoStructured):
		r.StructuredContent = structured
	case !o.NoStructured:
		r.StructuredContent = map[string]any{o.Member: structured}
	}
	return r
}

// text is a failure's text: the message and its parenthesis, or, with a
// Lead, seed 002's whole user message (see ToolResultOptions.Lead).
func (o *ToolResultOptions) text(f *fault.Error, d *Data) string {
	if o == nil || o.Lead == "" {
		return message(f) + toolSuffix(d, false)
	}
	var b strings.Builder
	b.WriteString(o.Lead)
	b.WriteString(":\n")
	b.WriteString(strings.TrimSuffix(message(f), "."))
	b.WriteString(toolSuffix(d, true))
	if len(o.Recovery) > 0 {
		b.WriteString("\n\n")
		if o.Hint != "" {
			b.WriteString(o.Hint + " ")
		}
		b.WriteString("You can:")
		for i, r := range o.Recovery {
			b.WriteString("\n" + strconv.Itoa(i+1) + ". " + r.Action)
			if r.Tool != "" {
				b.WriteString(" with " + r.Tool)
			}
		}
	}
	return b.String()
}

// ToolResultFrom returns the isError tool result for err, classified by
// fault.From. Its text is the fault's message with its category and
// retryability, as seed 002 words a failure for users and models ("Session
// not found: abc-123 (UPSTREAM, not retryable)"); its structured content is
// DataFrom(err). Like From it never carries debug output. For a tool that
// declares an outputSchema, use ToolResultOptions.
//
// ToolResultFrom returns nil for a nil error.
func ToolResultFrom(err error) *ToolResult {
	return (*ToolResultOptions)(nil).ToolResult(err)
}

// toolSuffix is what a tool result's text adds to the fault's message: its
// category and retryability, " (UPSTREAM, retryable after 20s)", and with
// session, whether the session is still valid, " (UPSTREAM, not
// retryable, session not valid)".
func toolSuffix(d *Data, session bool) string {
	var b strings.Builder
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
	switch {
	case !session:
	case d.SessionValid:
		b.WriteString(", session still valid")
	default:
		b.WriteString(", session not valid")
	}
	b.WriteString(")")
	return b.String()
}

// SDK converts the result to the MCP Go SDK's type
// (github.com/modelcontextprotocol/go-sdk/mcp), which marshals to the same
// JSON: text content, structuredContent and isError. A server on the Go SDK
// returns it from a Server.AddTool handler, or from an mcp.AddTool handler
// whose output type is any. An mcp.AddTool handler with a typed output
// replaces StructuredContent with its output value (and validates that
// against the tool's schema): such a handler returns SDK()'s result for the
// text and isError, and puts DataFrom(err) in its output, under a member
// its type declares for errors.
//
// SDK returns nil for a nil result.
func (r *ToolResult) SDK() *mcp.CallToolResult {
	if r == nil {
		return nil
	}
	out := &mcp.CallToolResult{
		Content:           make([]mcp.Content, 0, len(r.Content)),
		IsError:           r.IsError,
		StructuredContent: r.StructuredContent,
	}
	for _, c := range r.Content {
		out.Content = append(out.Content, &mcp.TextContent{Text: c.Text})
	}
	return out
}
