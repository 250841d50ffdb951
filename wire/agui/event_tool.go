package agui

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/triage-go/triage/internal/jsonmember"
)

// The event types of tool calls, state deltas and message snapshots.
const (
	TypeToolCallStart    EventType = "TOOL_CALL_START"
	TypeToolCallArgs     EventType = "TOOL_CALL_ARGS"
	TypeToolCallEnd      EventType = "TOOL_CALL_END"
	TypeToolCallResult   EventType = "TOOL_CALL_RESULT"
	TypeStateDelta       EventType = "STATE_DELTA"
	TypeMessagesSnapshot EventType = "MESSAGES_SNAPSHOT"
)

// ToolCallStart opens a tool call; TOOL_CALL_ARGS events stream its
// arguments and TOOL_CALL_END closes it, meaning the arguments are
// complete. The official client then hands the call to the application
// (onToolCallEndEvent, onNewToolCall), which may run it.
type ToolCallStart struct {
	ToolCallID   string `json:"toolCallId"`
	ToolCallName string `json:"toolCallName"`
	// ParentMessageID names the assistant message that carries the call;
	// empty omits it.
	ParentMessageID string `json:"parentMessageId,omitempty"`
	BaseEvent
}

// ToolCallArgs appends Delta, a fragment of the call's JSON arguments, to a
// started tool call.
type ToolCallArgs struct {
	ToolCallID string `json:"toolCallId"`
	Delta      string `json:"delta"`
	BaseEvent
}

// ToolCallEnd closes a tool call: its arguments are complete.
type ToolCallEnd struct {
	ToolCallID string `json:"toolCallId"`
	BaseEvent
}

// ToolCallResult carries what a tool returned. It mints a tool message of
// its own, with MessageID.
type ToolCallResult struct {
	MessageID  string `json:"messageId"`
	ToolCallID string `json:"toolCallId"`
	// Content is the result as text, used when Parts is nil.
	Content string `json:"-"`
	// Parts is the result as content parts; nil means Content.
	Parts []ContentPart `json:"-"`
	// Role is RoleTool or empty, which omits it.
	Role Role `json:"role,omitempty"`
	BaseEvent
}

// StateDelta changes the agent state by a JSON Patch (RFC 6902): the
// operations apply in order. Whether they apply to the client's state is
// the client's to find out; the schema checks their shape only.
type StateDelta struct {
	// Delta is the patch; nil is sent as [], a valid no-op.
	Delta []PatchOperation `json:"delta"`
	BaseEvent
}

// MessagesSnapshot restates the conversation: the messages the agent owns,
// in order.
type MessagesSnapshot struct {
	// Messages is the conversation; nil is sent as [].
	Messages []Message `json:"messages"`
	BaseEvent
}

// PatchOp is the operation of a JSON Patch operation.
type PatchOp string

// The operations of RFC 6902.
const (
	PatchAdd     PatchOp = "add"
	PatchRemove  PatchOp = "remove"
	PatchReplace PatchOp = "replace"
	PatchMove    PatchOp = "move"
	PatchCopy    PatchOp = "copy"
	PatchTest    PatchOp = "test"
)

// PatchOperation is one operation of a JSON Patch. Path and From are JSON
// Pointers (RFC 6901): "" for the whole document, or "/"-prefixed tokens
// with "~" escaped as "~0" and "/" as "~1".
type PatchOperation struct {
	Op   PatchOp
	Path string
	// From is the source of move and copy (required there, and only there).
	From string
	// Value is the value of add, replace and test, any JSON value (nil is
	// null); the other operations have none.
	Value any
}

// MarshalJSON encodes the operation with the members of its op.
func (p PatchOperation) MarshalJSON() ([]byte, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	type withValue struct {
		Op    PatchOp `json:"op"`
		Path  string  `json:"path"`
		Value any     `json:"value"`
	}
	type withFrom struct {
		Op   PatchOp `json:"op"`
		From string  `json:"from"`
		Path string  `json:"path"`
	}
	switch p.Op {
	case PatchAdd, PatchReplace, PatchTest:
		return marshal(withValue{p.Op, p.Path, p.Value})
	case PatchMove, PatchCopy:
		return marshal(withFrom{p.Op, p.From, p.Path})
	}
	return marshal(struct {
		Op   PatchOp `json:"op"`
		Path string  `json:"path"`
	}{p.Op, p.Path})
}

func (p *PatchOperation) check() error {
	switch p.Op {
	case PatchAdd, PatchReplace, PatchTest:
		if p.From != "" {
			return fmt.Errorf("%s has no from", p.Op)
		}
	case PatchMove, PatchCopy:
		if p.Value != nil {
			return fmt.Errorf("%s has no value", p.Op)
		}
		if !jsonPointer(p.From) {
			return fmt.Errorf("from %q is not a JSON Pointer", p.From)
		}
	case PatchRemove:
		if p.From != "" || p.Value != nil {
			return errors.New("remove has neither from nor value")
		}
	default:
		return fmt.Errorf("op %q is not add, remove, replace, move, copy or test", p.Op)
	}
	if !jsonPointer(p.Path) {
		return fmt.Errorf("path %q is not a JSON Pointer", p.Path)
	}
	return nil
}

// jsonPointer reports whether s is a JSON Pointer, as the schema's pattern
// ^(/([^/~]|~[01])*)*$ says.
func jsonPointer(s string) bool {
	if s != "" && s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
			return false
		}
	}
	return true
}

// Type returns TypeToolCallStart.
func (*ToolCallStart) Type() EventType { return TypeToolCallStart }

// Type returns TypeToolCallArgs.
func (*ToolCallArgs) Type() EventType { return TypeToolCallArgs }

// Type returns TypeToolCallEnd.
func (*ToolCallEnd) Type() EventType { return TypeToolCallEnd }

// Type returns TypeToolCallResult.
func (*ToolCallResult) Type() EventType { return TypeToolCallResult }

// Type returns TypeStateDelta.
func (*StateDelta) Type() EventType { return TypeStateDelta }

// Type returns TypeMessagesSnapshot.
func (*MessagesSnapshot) Type() EventType { return TypeMessagesSnapshot }

func (e *ToolCallStart) validate() error { return e.BaseEvent.validate() }
func (e *ToolCallArgs) validate() error  { return e.BaseEvent.validate() }
func (e *ToolCallEnd) validate() error   { return e.BaseEvent.validate() }

func (e *ToolCallResult) validate() error {
	if e.Role != "" && e.Role != RoleTool {
		return fmt.Errorf("role %q is not tool", e.Role)
	}
	if e.Parts != nil && e.Content != "" {
		return errors.New("content and parts are exclusive")
	}
	for i := range e.Parts {
		if err := e.Parts[i].check(); err != nil {
			return fmt.Errorf("content[%d]: %w", i, err)
		}
	}
	return e.BaseEvent.validate()
}

func (e *StateDelta) validate() error {
	for i := range e.Delta {
		if err := e.Delta[i].check(); err != nil {
			return fmt.Errorf("delta[%d]: %w", i, err)
		}
	}
	return e.BaseEvent.validate()
}

func (e *MessagesSnapshot) validate() error {
	for i := range e.Messages {
		if err := e.Messages[i].check(); err != nil {
			return fmt.Errorf("messages[%d]: %w", i, err)
		}
	}
	return e.BaseEvent.validate()
}

// MarshalJSON encodes the event with its type member.
func (e ToolCallStart) MarshalJSON() ([]byte, error) {
	type plain ToolCallStart
	return marshal(struct {
		Type EventType `json:"type"`
		plain
	}{TypeToolCallStart, plain(e)})
}

// MarshalJSON encodes the event with its type member.
func (e ToolCallArgs) MarshalJSON() ([]byte, error) {
	type plain ToolCallArgs
	return marshal(struct {
		Type EventType `json:"type"`
		plain
	}{TypeToolCallArgs, plain(e)})
}

// MarshalJSON encodes the event with its type member.
func (e ToolCallEnd) MarshalJSON() ([]byte, error) {
	type plain ToolCallEnd
	return marshal(struct {
		Type EventType `json:"type"`
		plain
	}{TypeToolCallEnd, plain(e)})
}

// MarshalJSON encodes the event with its type member, and its content as a
// string or an array of parts.
func (e ToolCallResult) MarshalJSON() ([]byte, error) {
	return marshal(struct {
		Type       EventType `json:"type"`
		MessageID  string    `json:"messageId"`
		ToolCallID string    `json:"toolCallId"`
		Content    any       `json:"content"`
		Role       Role      `json:"role,omitempty"`
		BaseEvent
	}{TypeToolCallResult, e.MessageID, e.ToolCallID, partsOrText(e.Parts, e.Content), e.Role, e.BaseEvent})
}

// MarshalJSON encodes the event with its type member.
func (e StateDelta) MarshalJSON() ([]byte, error) {
	type plain StateDelta
	if e.Delta == nil {
		e.Delta = []PatchOperation{}
	}
	return marshal(struct {
		Type EventType `json:"type"`
		plain
	}{TypeStateDelta, plain(e)})
}

// MarshalJSON encodes the event with its type member.
func (e MessagesSnapshot) MarshalJSON() ([]byte, error) {
	type plain MessagesSnapshot
	if e.Messages == nil {
		e.Messages = []Message{}
	}
	return marshal(struct {
		Type EventType `json:"type"`
		plain
	}{TypeMessagesSnapshot, plain(e)})
}

// patchOps are the ops, in the order messages list them.
var patchOps = []string{"add", "remove", "replace", "move", "copy", "test"}

// patch reads a required JSON Patch member: the operations' shapes, as the
// schema checks them (members an operation does not define are ignored,
// as RFC 6902 requires).
func (d *decoder) patch(m map[string]json.RawMessage, path, key string) []PatchOperation {
	items, ok := d.array(m, path, key, true, MaxInputItems)
	if !ok {
		return nil
	}
	out := make([]PatchOperation, 0, len(items))
	for i, item := range items {
		p := index(jsonmember.Path(path, key), i)
		om, ok := d.object(item, p, "a JSON Patch operation")
		if !ok {
			continue
		}
		n := d.count()
		o := PatchOperation{Op: PatchOp(d.enum(om, p, "op", true, patchOps...))}
		if d.count() != n {
			continue
		}
		o.Path = d.pointer(om, p, "path")
		switch o.Op {
		case PatchAdd, PatchReplace, PatchTest:
			if raw, ok := d.member(om, p, "value", true); ok {
				o.Value = d.open(raw, jsonmember.Path(p, "value"))
			}
		case PatchMove, PatchCopy:
			o.From = d.pointer(om, p, "from")
		}
		out = append(out, o)
	}
	return out
}

// pointer reads a required JSON Pointer member.
func (d *decoder) pointer(m map[string]json.RawMessage, path, key string) string {
	n := d.count()
	s := d.str(m, path, key, true)
	if d.count() == n && !jsonPointer(s) {
		d.fail(jsonmember.Path(path, key), "must be a JSON Pointer (\"\" or \"/\"-prefixed tokens, ~ escaped as ~0 or ~1), not %q", s)
	}
	return s
}
