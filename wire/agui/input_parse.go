package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/triage-go/triage/internal/jsonmember"
)

// The bounds ParseRunAgentInput sets beyond the schema, so that a hostile
// client cannot make a server hold or walk more than a run needs. The
// request's total size is the caller's to bound (http.MaxBytesReader).
const (
	// MaxInputMessages is the most messages a RunAgentInput may carry.
	MaxInputMessages = 1000
	// MaxInputItems is the most items of every other array: tools,
	// context, resume, and a message's toolCalls and content parts.
	MaxInputItems = 256
	// MaxInputIDBytes is the longest identifier, in bytes: threadId,
	// runId, parentRunId, protocolVersion, a message's id, toolCallId and
	// subagentRunId, a tool call's id and function name, a tool's name and
	// a resume entry's interruptId.
	MaxInputIDBytes = 128
	// MaxInputDepth is the deepest nesting of arrays and objects within an
	// open value: state, forwardedProps, a tool's parameters, metadata, a
	// resume payload, an activity's content.
	MaxInputDepth = 64
)

// ErrInvalidInput is matched by every *ValidationError ParseRunAgentInput
// returns.
var ErrInvalidInput = errors.New("agui: invalid RunAgentInput")

// ValidationError reports every invalid member of a RunAgentInput, each by
// its JSON path ("messages[2].toolCalls[0].function.name"; "(root)" for the
// document itself) and the rule it breaks, in Fields, up to 100 of them;
// Omitted counts the rest. It lists them as field errors, so fault.From
// turns it into an INVALID_REQUEST fault whose FieldErrors are these. Its
// text lists the first three and counts the rest.
//
// It is the module's one validation error (internal/jsonmember's), which
// wire/jsonrpc and wire/present return too.
type ValidationError = jsonmember.ValidationError

// ParseRunAgentInput reads a RunAgentInput, the body of a request to run an
// agent, and checks it as @ag-ui/core 1.0.0's RunAgentInputSchema does:
// threadId, runId and messages are required; every member present must
// have the schema's type (null is not absent, except for state, where it
// means no state); each message must have a known role and that role's
// members (see Message); tool calls, content parts, tools, context and
// resume entries their required members and enumerated values; tools and
// context default to empty. Member names match exactly; unknown members are
// ignored, as the schema keeps them and the official client strips them.
//
// Beyond the schema it refuses a body that is not valid UTF-8 (a string
// with an escaped lone surrogate, which is valid JSON, reads as U+FFFD),
// and enforces the bounds MaxInputMessages, MaxInputItems, MaxInputIDBytes
// and MaxInputDepth. The body's size is the caller's to bound.
//
// It returns a *ValidationError listing every invalid member, or the input.
// Open values (state, forwardedProps, parameters, metadata, payloads)
// decode as Parse decodes them, numbers as json.Number.
func ParseRunAgentInput(data []byte) (*RunAgentInput, error) {
	d := &decoder{bounded: true}
	if !utf8.Valid(data) {
		d.fail("", "is not valid UTF-8")
		return nil, d.err()
	}
	data = bytes.TrimSpace(data)
	if !json.Valid(data) {
		var syn *json.SyntaxError
		if err := json.Unmarshal(data, new(any)); errors.As(err, &syn) {
			d.fail("", "is not valid JSON: %s at offset %d", syn.Error(), syn.Offset)
		} else {
			d.fail("", "is not valid JSON")
		}
		return nil, d.err()
	}
	in := d.input(data, "")
	if err := d.err(); err != nil {
		return nil, err
	}
	return in, nil
}

// decoder reads the members of a RunAgentInput (ParseRunAgentInput) or of
// an event (Parse) from valid JSON, and collects every invalid member.
// bounded applies ParseRunAgentInput's bounds.
type decoder struct {
	bounded bool
	errs    jsonmember.Errors
	// event is set while Parse reads the members of the event itself, not
	// those nested as a RunAgentInput nests them (see nested);
	// missingFirst records that the first invalid member is such a member,
	// required and absent, which first names as Parse always has.
	event, missingFirst bool
}

func (d *decoder) fail(path, format string, args ...any) { d.errs.Add(path, format, args...) }

// member returns a member's raw value; a required one must be present.
func (d *decoder) member(m map[string]json.RawMessage, path, key string, required bool) (json.RawMessage, bool) {
	raw, ok := m[key]
	if !ok && required {
		if d.event && d.count() == 0 {
			d.missingFirst = true
		}
		d.fail(jsonmember.Path(path, key), "is required")
	}
	return raw, ok
}

// count is how many invalid members were found, listed or not.
func (d *decoder) count() int { return d.errs.Len() }

func (d *decoder) err() error { return d.errs.Err("agui", "RunAgentInput", ErrInvalidInput) }

// first returns the first invalid member as `member "path" rule`, or
// `missing required member "path"` for an absent member of an event
// itself; "" when there is none.
func (d *decoder) first() string {
	if d.errs.Len() == 0 {
		return ""
	}
	ve := d.err().(*ValidationError)
	switch f := ve.Fields[0]; {
	case f.Field == "(root)":
		return "the document " + f.Message
	case d.missingFirst:
		return fmt.Sprintf("missing required member %q", f.Field)
	default:
		return fmt.Sprintf("member %q %s", f.Field, f.Message)
	}
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// kind names a JSON value's type as a message says it.
func kind(raw json.RawMessage) string {
	switch k := jsonmember.Kind(raw); k {
	case "":
		return "nothing"
	case "null":
		return k
	case "object", "array":
		return "an " + k
	default:
		return "a " + k
	}
}

// object decodes raw as an object's members, or records why it is not one.
func (d *decoder) object(raw json.RawMessage, path, what string) (map[string]json.RawMessage, bool) {
	m, err := jsonmember.Decoder{}.ObjectOfMember(raw, "") // a member of a valid document
	if err != nil {
		d.fail(path, "must be %s, not %s", what, kind(raw))
		return nil, false
	}
	return m, true
}

// str reads a string member; a required one must be present.
func (d *decoder) str(m map[string]json.RawMessage, path, key string, required bool) string {
	raw, ok := d.member(m, path, key, required)
	if !ok {
		return ""
	}
	s, ok := jsonmember.StringOfMember(raw)
	if !ok {
		d.fail(jsonmember.Path(path, key), "must be a string, not %s", kind(raw))
	}
	return s
}

// id reads an identifier: a string, bounded in length.
func (d *decoder) id(m map[string]json.RawMessage, path, key string, required bool) string {
	s := d.str(m, path, key, required)
	if d.bounded && len(s) > MaxInputIDBytes {
		d.fail(jsonmember.Path(path, key), "is %d bytes long; at most %d are accepted", len(s), MaxInputIDBytes)
	}
	return s
}

// array reads an array member's items; ok is false when it is absent or
// invalid, or has more than limit items (bounded only).
func (d *decoder) array(m map[string]json.RawMessage, path, key string, required bool, limit int) ([]json.RawMessage, bool) {
	raw, ok := d.member(m, path, key, required)
	if !ok {
		return nil, false
	}
	items, err := jsonmember.ItemsOfMember(raw)
	if err != nil {
		d.fail(jsonmember.Path(path, key), "must be an array, not %s", kind(raw))
		return nil, false
	}
	if d.bounded && len(items) > limit {
		d.fail(jsonmember.Path(path, key), "has %d items; at most %d are accepted", len(items), limit)
		return nil, false
	}
	return items, true
}

// value reads an open member: any JSON value, null only if nullable (a null
// then reads as absent), nested at most MaxInputDepth deep (bounded only).
func (d *decoder) value(m map[string]json.RawMessage, path, key string, required, nullable bool) any {
	raw, ok := d.member(m, path, key, required)
	if !ok {
		return nil
	}
	if isNull(raw) {
		if !nullable {
			d.fail(jsonmember.Path(path, key), "must not be null")
		}
		return nil
	}
	return d.open(raw, jsonmember.Path(path, key))
}

func (d *decoder) open(raw json.RawMessage, path string) any {
	if d.bounded && depth(raw) > MaxInputDepth {
		d.fail(path, "nests deeper than %d levels", MaxInputDepth)
		return nil
	}
	v, err := decodeValue(raw)
	if err != nil {
		d.fail(path, "is not valid JSON")
	}
	return v
}

// objectValue reads an optional member that must be an object (metadata,
// an activity's content).
func (d *decoder) objectValue(m map[string]json.RawMessage, path, key string, required bool) map[string]any {
	raw, ok := d.member(m, path, key, required)
	if !ok {
		return nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		d.fail(jsonmember.Path(path, key), "must be an object, not %s", kind(raw))
		return nil
	}
	v, _ := d.open(raw, jsonmember.Path(path, key)).(map[string]any)
	return v
}

// enum reads a string member that must be one of values.
func (d *decoder) enum(m map[string]json.RawMessage, path, key string, required bool, values ...string) string {
	if _, ok := m[key]; !ok && !required {
		return ""
	}
	n := d.count()
	s := d.str(m, path, key, required)
	if d.count() == n {
		for _, v := range values {
			if s == v {
				return s
			}
		}
		d.fail(jsonmember.Path(path, key), "must be %s, not %q", oneOf(values), s)
	}
	return s
}

func oneOf(values []string) string {
	if len(values) == 1 {
		return strconv.Quote(values[0])
	}
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	return "one of " + strings.Join(q, ", ")
}

// depth returns the deepest nesting of arrays and objects in valid JSON.
func depth(raw []byte) int {
	deepest, level, inString, escaped := 0, 0, false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			level++
			deepest = max(deepest, level)
		case c == '}' || c == ']':
			level--
		}
	}
	return deepest
}

// input reads a RunAgentInput.
func (d *decoder) input(raw json.RawMessage, path string) *RunAgentInput {
	m, ok := d.object(raw, path, "a RunAgentInput object")
	if !ok {
		return nil
	}
	in := &RunAgentInput{
		ThreadID:        d.id(m, path, "threadId", true),
		RunID:           d.id(m, path, "runId", true),
		ProtocolVersion: d.id(m, path, "protocolVersion", false),
		ParentRunID:     d.id(m, path, "parentRunId", false),
		State:           d.value(m, path, "state", false, true),
		Messages:        d.messages(m, path, "messages"),
		Tools:           []Tool{},
		Context:         []Context{},
		ForwardedProps:  d.value(m, path, "forwardedProps", false, false),
	}
	if items, ok := d.array(m, path, "tools", false, MaxInputItems); ok {
		for i, item := range items {
			in.Tools = append(in.Tools, d.tool(item, index(jsonmember.Path(path, "tools"), i)))
		}
	}
	if items, ok := d.array(m, path, "context", false, MaxInputItems); ok {
		for i, item := range items {
			p := index(jsonmember.Path(path, "context"), i)
			if c, ok := d.object(item, p, "a context object"); ok {
				in.Context = append(in.Context, Context{Description: d.str(c, p, "description", true), Value: d.str(c, p, "value", true)})
			}
		}
	}
	if items, ok := d.array(m, path, "resume", false, MaxInputItems); ok {
		in.Resume = []ResumeEntry{}
		for i, item := range items {
			p := index(jsonmember.Path(path, "resume"), i)
			if r, ok := d.object(item, p, "a resume entry"); ok {
				in.Resume = append(in.Resume, ResumeEntry{
					InterruptID: d.id(r, p, "interruptId", true),
					Status:      ResumeStatus(d.enum(r, p, "status", true, "resolved", "cancelled")),
					Payload:     d.value(r, p, "payload", false, false),
					Metadata:    d.objectValue(r, p, "metadata", false),
				})
			}
		}
	}
	return in
}

func (d *decoder) tool(raw json.RawMessage, path string) Tool {
	m, ok := d.object(raw, path, "a tool object")
	if !ok {
		return Tool{}
	}
	return Tool{
		Name:        d.id(m, path, "name", true),
		Description: d.str(m, path, "description", true),
		Parameters:  d.value(m, path, "parameters", false, false),
		Metadata:    d.objectValue(m, path, "metadata", false),
	}
}

// messages reads a required array of messages (never nil when valid).
func (d *decoder) messages(m map[string]json.RawMessage, path, key string) []Message {
	items, ok := d.array(m, path, key, true, MaxInputMessages)
	if !ok {
		return nil
	}
	out := make([]Message, 0, len(items))
	for i, item := range items {
		out = append(out, d.message(item, index(jsonmember.Path(path, key), i)))
	}
	return out
}

var messageRoles = []string{"developer", "system", "assistant", "user", "tool", "activity", "reasoning"}

// message reads one message: its role first, which says what else it has
// (a message of unknown role is reported by its role alone, as the
// schema's discriminated union reports it).
func (d *decoder) message(raw json.RawMessage, path string) Message {
	m, ok := d.object(raw, path, "a message object")
	if !ok {
		return Message{}
	}
	n := d.count()
	role := Role(d.enum(m, path, "role", true, messageRoles...))
	if d.count() != n {
		return Message{}
	}
	msg := Message{
		ID:            d.id(m, path, "id", true),
		Role:          role,
		SubagentRunID: d.id(m, path, "subagentRunId", false),
		Metadata:      d.objectValue(m, path, "metadata", false),
	}
	if role != RoleActivity {
		msg.EncryptedValue = d.str(m, path, "encryptedValue", false)
	}
	switch role {
	case RoleDeveloper, RoleSystem, RoleAssistant, RoleUser:
		msg.Name = d.str(m, path, "name", false)
	}
	switch role {
	case RoleDeveloper, RoleSystem, RoleReasoning:
		msg.Content = d.str(m, path, "content", true)
	case RoleAssistant:
		msg.Content = d.str(m, path, "content", false)
		if items, ok := d.array(m, path, "toolCalls", false, MaxInputItems); ok {
			msg.ToolCalls = make([]ToolCall, 0, len(items))
			for i, item := range items {
				msg.ToolCalls = append(msg.ToolCalls, d.toolCall(item, index(jsonmember.Path(path, "toolCalls"), i)))
			}
		}
	case RoleUser:
		msg.Content, msg.Parts = d.content(m, path)
	case RoleTool:
		msg.Content, msg.Parts = d.content(m, path)
		msg.ToolCallID = d.id(m, path, "toolCallId", true)
		msg.Error = d.str(m, path, "error", false)
	case RoleActivity:
		msg.ActivityType = d.str(m, path, "activityType", true)
		msg.ActivityContent = d.objectValue(m, path, "content", true)
	}
	return msg
}

func (d *decoder) toolCall(raw json.RawMessage, path string) ToolCall {
	m, ok := d.object(raw, path, "a tool call object")
	if !ok {
		return ToolCall{}
	}
	c := ToolCall{ID: d.id(m, path, "id", true)}
	d.enum(m, path, "type", true, "function")
	if f, ok := d.member(m, path, "function", true); ok {
		fp := jsonmember.Path(path, "function")
		if fm, ok := d.object(f, fp, "a function object"); ok {
			c.Function = FunctionCall{Name: d.id(fm, fp, "name", true), Arguments: d.str(fm, fp, "arguments", true)}
		}
	}
	c.EncryptedValue = d.str(m, path, "encryptedValue", false)
	c.Metadata = d.objectValue(m, path, "metadata", false)
	return c
}

// content reads a required content member that is a string or an array of
// content parts.
func (d *decoder) content(m map[string]json.RawMessage, path string) (string, []ContentPart) {
	raw, ok := d.member(m, path, "content", true)
	if !ok {
		return "", nil
	}
	if len(raw) > 0 && raw[0] == '[' {
		return "", d.parts(m, path, "content")
	}
	return d.str(m, path, "content", true), nil
}

func (d *decoder) parts(m map[string]json.RawMessage, path, key string) []ContentPart {
	items, ok := d.array(m, path, key, true, MaxInputItems)
	if !ok {
		return nil
	}
	out := make([]ContentPart, 0, len(items))
	for i, item := range items {
		out = append(out, d.part(item, index(jsonmember.Path(path, key), i)))
	}
	return out
}

func (d *decoder) part(raw json.RawMessage, path string) ContentPart {
	m, ok := d.object(raw, path, "a content part object")
	if !ok {
		return ContentPart{}
	}
	n := d.count()
	p := ContentPart{Type: PartType(d.enum(m, path, "type", true, "text", "image", "audio", "video", "document"))}
	if d.count() != n {
		return ContentPart{}
	}
	p.ID = d.str(m, path, "id", false)
	p.Metadata = d.value(m, path, "metadata", false, false)
	if p.Type == PartText {
		p.Text = d.str(m, path, "text", true)
		return p
	}
	raw, ok = d.member(m, path, "source", true)
	if !ok {
		return p
	}
	sp := jsonmember.Path(path, "source")
	s, ok := d.object(raw, sp, "a source object")
	if !ok {
		return p
	}
	n = d.count()
	src := &PartSource{Type: SourceType(d.enum(s, sp, "type", true, "data", "url", "file"))}
	if d.count() != n {
		return p
	}
	src.Value = d.str(s, sp, "value", true)
	src.MimeType = d.str(s, sp, "mimeType", src.Type == SourceData)
	if src.Type == SourceFile {
		src.Provider = d.str(s, sp, "provider", false)
	}
	p.Source = src
	return p
}

// decodeValue decodes any JSON value, keeping numbers as json.Number.
func decodeValue(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(raw, []byte("null")) }
