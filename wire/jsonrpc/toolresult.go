package jsonrpc

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember"
	"github.com/triage-go/triage/wire/jsonrpc/errdata"
)

// ParseToolResult reads an MCP CallToolResult (the result of a tools/call,
// as raw JSON) and returns the fault an isError result reports, or nil and
// no error for a result that is not an error (isError false or absent).
//
// Like Parse, it fails with a *ValidationError naming the member: when the
// document is not a JSON object, when isError is not a boolean, or when
// content is not an array of content blocks (objects with a string type; a
// text block's text a string), whatever isError says. null is the same as
// absent, and members MCP does not define are ignored.
//
// The fault comes from the structured content when it holds Triage's Data
// (see ToolResultFrom), as the whole structuredContent or as the value of
// one of its members (ToolResultOptions.Member: {"error": {…}}; the first
// in name order, if several do): Data counts when it decodes (see
// ParseData) and its code is one the table knows. Its code, retryable,
// sessionValid, retryAfter (capped at fault.MaxRetryAfter) and other
// members are read as (*Error).Fault reads them. The Message (redacted; the
// code's default when empty) is the Data object's own string "message"
// member when it has one (a richer failure object that embeds Data), and
// otherwise the text content without the " (CATEGORY, retryable)" that
// ToolResultFrom adds (or, in seed 002's whole message, see
// ToolResultOptions.Lead, the line that holds it, without the lead and the
// recovery): rule "tool_result_data", confidence 1.
//
// A result without Triage's data comes from a peer whose text is not known
// to be safe for end users: the fault is UPSTREAM_ERROR (domain tool, not
// retryable) with that code's default message, and the text content,
// redacted, goes to Debug.Cause: rule "tool_result_text", confidence 0.5.
// Either way the classification's method is fault.MethodWire.
func ParseToolResult(data []byte) (*fault.Error, error) {
	m, err := dec.Object(data, "")
	if err != nil {
		return nil, err
	}
	isError := false
	if v := m["isError"]; !jsonmember.IsNull(v) {
		if isError, err = dec.Bool(v, "isError"); err != nil {
			return nil, err
		}
	}
	text, err := contentText(m["content"])
	if err != nil {
		return nil, err
	}
	if !isError {
		return nil, nil
	}
	return toolFault(text, m["structuredContent"]), nil
}

// contentText checks a content member and returns its text blocks' text,
// joined by newlines.
func contentText(raw json.RawMessage) (string, error) {
	if jsonmember.IsNull(raw) {
		return "", nil
	}
	if k := jsonmember.Kind(raw); k != "array" {
		return "", dec.Invalid("content", "must be an array, got %s", k)
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", dec.Wrap("content", "invalid array", err)
	}
	var texts []string
	for i, block := range blocks {
		p := "content." + strconv.Itoa(i)
		bm, err := dec.ObjectOfMember(block, p)
		if err != nil {
			return "", err
		}
		typ, ok := bm["type"]
		if !ok {
			return "", dec.Invalid(p+".type", "is required")
		}
		t, err := dec.String(typ, p+".type")
		if err != nil {
			return "", err
		}
		if t != "text" {
			continue // images, audio, resources: nothing a fault reads
		}
		txt, ok := bm["text"]
		if !ok {
			return "", dec.Invalid(p+".text", "is required")
		}
		s, err := dec.String(txt, p+".text")
		if err != nil {
			return "", err
		}
		texts = append(texts, s)
	}
	return strings.Join(texts, "\n"), nil
}

// ToolResultFault returns the fault an MCP Go SDK tool result reports, as
// ParseToolResult reads its JSON, or nil for a nil result or one whose
// IsError is false. Text content blocks are its text; other blocks are
// ignored, and structured content that does not marshal counts as absent.
func ToolResultFault(r *mcp.CallToolResult) *fault.Error {
	if r == nil || !r.IsError {
		return nil
	}
	var texts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok && t != nil {
			texts = append(texts, t.Text)
		}
	}
	var structured json.RawMessage
	switch v := r.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		structured = v
	default:
		if b, err := json.Marshal(v); err == nil {
			structured = b
		}
	}
	if !json.Valid(structured) {
		structured = nil
	}
	return toolFault(strings.Join(texts, "\n"), structured)
}

// toolFault is the fault of an isError result with the given text and
// structured content (valid JSON, or nil).
func toolFault(text string, structured json.RawMessage) *fault.Error {
	if raw := structuredData(structured); raw != nil {
		f := (&Error{Data: raw}).Fault()
		msg := dataMessage(raw)
		if msg == "" {
			msg = textMessage(text, newData(f))
		}
		if msg = fault.Redact(msg); msg != "" {
			f.Message = msg
		}
		f.Classification = fault.Classification{Method: fault.MethodWire, Rule: "tool_result_data", Confidence: 1}
		return f
	}
	f := fault.New(fault.UpstreamError, "")
	f.Classification = fault.Classification{Method: fault.MethodWire, Rule: "tool_result_text", Confidence: 0.5}
	f.Debug.Cause = fault.Redact(text)
	return f
}

// textMessage is the fault's message in a tool result's text, as
// ToolResult wrote it for d: the text without its parenthesis, or, in seed
// 002's whole message (ToolResultOptions.Lead), the line that holds the
// parenthesis, without it. Any other text is the message as it is.
func textMessage(text string, d *Data) string {
	if msg, ok := strings.CutSuffix(text, toolSuffix(d, false)); ok {
		return msg
	}
	msg, _, ok := strings.Cut(text, toolSuffix(d, true))
	if !ok {
		return text
	}
	if i := strings.LastIndex(msg, ":\n"); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}

// structuredData returns Triage's Data in a tool result's structured
// content: the content itself, or the value of its first member, in name
// order, that is Data. It returns nil when there is none.
func structuredData(raw json.RawMessage) json.RawMessage {
	if jsonmember.Kind(raw) != "object" {
		return nil
	}
	if isData(raw) {
		return raw
	}
	m, err := dec.ObjectOfMember(raw, "structuredContent")
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(m))
	for name, v := range m {
		if jsonmember.Kind(v) == "object" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		if isData(m[name]) {
			return m[name]
		}
	}
	return nil
}

// dataMessage returns the string message member that a richer failure
// object puts beside the Data members ({"message": …, "code": …, …}), or
// "".
func dataMessage(raw json.RawMessage) string {
	m, err := dec.ObjectOfMember(raw, "")
	if err != nil {
		return ""
	}
	s, err := dec.String(m["message"], "message")
	if err != nil {
		return ""
	}
	return s
}

// isData reports whether raw is Triage's Data with a code the table knows.
func isData(raw json.RawMessage) bool {
	d, err := errdata.Parse(raw)
	return err == nil && d != nil && d.Code != nil && d.Code.Known()
}
