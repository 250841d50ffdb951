package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// ErrUnknownType is matched by Parse's error for a type member that AG-UI
// 1.0 does not define.
var ErrUnknownType = errors.New("agui: unknown event type")

// ErrUnsupportedType is matched by Parse's error for an AG-UI 1.0 event
// type that this package does not model (REASONING_START, say). A reader
// that only cares about the modelled events can skip these.
var ErrUnsupportedType = errors.New("agui: unsupported event type")

// Parse reads one event from the JSON of a data line, checking it the way
// the @ag-ui/core 1.0.0 schema (EventSchemas) does: required members must be
// present and of the right JSON type, optional ones absent or of the right
// type (null is not "absent": "code": null is rejected, as the schema
// rejects it), timestamp an integer within ±(2^53−1), metadata an object,
// rawEvent and result anything but null, role and outcome one of their
// values; RUN_STARTED's input a RunAgentInput, MESSAGES_SNAPSHOT's messages
// and TOOL_CALL_RESULT's content as ParseRunAgentInput checks them (without
// its bounds), STATE_DELTA's operations of a known op with JSON Pointer
// paths. Member names are matched exactly, as JavaScript matches them, not
// case-insensitively as encoding/json would.
//
// Members the package does not model are ignored. (The schema keeps them;
// the official client's enforcement stage strips them before an
// application sees the event.) Errors match ErrInvalidEvent,
// ErrUnknownType or ErrUnsupportedType and name the member at fault.
//
// Values of open members (rawEvent, input, result, snapshot, value,
// metadata, a patch operation's value) decode to map[string]any, []any,
// string, bool, nil and json.Number, so that numbers keep every digit when
// re-encoded.
func Parse(data []byte) (Event, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: not a JSON object: %w", ErrInvalidEvent, err)
	}
	if m == nil {
		return nil, fmt.Errorf("%w: not a JSON object: null", ErrInvalidEvent)
	}
	rawType, ok := m["type"]
	if !ok {
		return nil, fmt.Errorf("%w: missing required member \"type\"", ErrInvalidEvent)
	}
	var typ EventType
	if err := json.Unmarshal(rawType, &typ); err != nil || isNull(rawType) {
		return nil, fmt.Errorf("%w: member \"type\" must be a string", ErrInvalidEvent)
	}
	o := &object{typ: typ, m: m}
	var e Event
	switch typ {
	case TypeRunStarted:
		e = &RunStarted{
			ThreadID:    o.str("threadId", true),
			RunID:       o.str("runId", true),
			ParentRunID: o.str("parentRunId", false),
			Input:       o.input(),
			BaseEvent:   o.base(),
		}
	case TypeRunFinished:
		e = &RunFinished{
			ThreadID:  o.str("threadId", true),
			RunID:     o.str("runId", true),
			Result:    o.value("result", false, false),
			Outcome:   o.outcome(),
			BaseEvent: o.base(),
		}
	case TypeRunError:
		e = &RunError{
			Message:   o.str("message", true),
			Code:      o.str("code", false),
			BaseEvent: o.base(),
		}
	case TypeTextMessageStart:
		e = &TextMessageStart{
			MessageID: o.str("messageId", true),
			Role:      o.role(),
			Name:      o.str("name", false),
			BaseEvent: o.base(),
		}
	case TypeTextMessageContent:
		e = &TextMessageContent{
			MessageID: o.str("messageId", true),
			Delta:     o.str("delta", true),
			BaseEvent: o.base(),
		}
	case TypeTextMessageEnd:
		e = &TextMessageEnd{MessageID: o.str("messageId", true), BaseEvent: o.base()}
	case TypeStepStarted:
		e = &StepStarted{StepName: o.str("stepName", true), BaseEvent: o.base()}
	case TypeStepFinished:
		e = &StepFinished{StepName: o.str("stepName", true), BaseEvent: o.base()}
	case TypeStateSnapshot:
		e = &StateSnapshot{Snapshot: o.value("snapshot", true, true), BaseEvent: o.base()}
	case TypeCustom:
		e = &Custom{
			Name:      o.str("name", true),
			Value:     o.value("value", true, true),
			BaseEvent: o.base(),
		}
	case TypeToolCallStart:
		e = &ToolCallStart{
			ToolCallID:      o.str("toolCallId", true),
			ToolCallName:    o.str("toolCallName", true),
			ParentMessageID: o.str("parentMessageId", false),
			BaseEvent:       o.base(),
		}
	case TypeToolCallArgs:
		e = &ToolCallArgs{ToolCallID: o.str("toolCallId", true), Delta: o.str("delta", true), BaseEvent: o.base()}
	case TypeToolCallEnd:
		e = &ToolCallEnd{ToolCallID: o.str("toolCallId", true), BaseEvent: o.base()}
	case TypeToolCallResult:
		r := &ToolCallResult{MessageID: o.str("messageId", true), ToolCallID: o.str("toolCallId", true)}
		o.decode(func(d *decoder) { r.Content, r.Parts = d.content(o.m, "") })
		if _, ok := o.get("role", false); ok {
			if r.Role = Role(o.str("role", false)); o.err == nil && r.Role != RoleTool {
				o.fail("member \"role\" must be tool, not %q", r.Role)
			}
		}
		r.BaseEvent = o.base()
		e = r
	case TypeStateDelta:
		sd := &StateDelta{}
		o.decode(func(d *decoder) { sd.Delta = d.patch(o.m, "", "delta") })
		sd.BaseEvent = o.base()
		e = sd
	case TypeMessagesSnapshot:
		ms := &MessagesSnapshot{}
		o.decode(func(d *decoder) { ms.Messages = d.messages(o.m, "", "messages") })
		ms.BaseEvent = o.base()
		e = ms
	default:
		if protocolTypes[typ] {
			return nil, fmt.Errorf("%w %q: AG-UI 1.0 defines it, this package does not model it", ErrUnsupportedType, typ)
		}
		return nil, fmt.Errorf("%w %q", ErrUnknownType, typ)
	}
	if o.err != nil {
		return nil, o.err
	}
	return e, nil
}

// object reads the members of one JSON object; the first error sticks and
// later reads return zero values.
type object struct {
	typ  EventType
	path string // prefix for member names in errors ("outcome.")
	m    map[string]json.RawMessage
	err  error
}

func (o *object) fail(format string, args ...any) {
	if o.err == nil {
		o.err = fmt.Errorf("%w: %s: %s", ErrInvalidEvent, o.typ, fmt.Sprintf(format, args...))
	}
}

// get returns a member's raw value, recording an error if a required one is
// missing.
func (o *object) get(key string, required bool) (json.RawMessage, bool) {
	if o.err != nil {
		return nil, false
	}
	raw, ok := o.m[key]
	if !ok && required {
		o.fail("missing required member %q", o.path+key)
	}
	return raw, ok
}

func (o *object) str(key string, required bool) string {
	raw, ok := o.get(key, required)
	if !ok {
		return ""
	}
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		o.fail("member %q must be a string", o.path+key)
	}
	return s
}

// value decodes an open member: any JSON value, null only when nullable.
func (o *object) value(key string, required, nullable bool) any {
	raw, ok := o.get(key, required)
	if !ok {
		return nil
	}
	if !nullable && isNull(raw) {
		o.fail("member %q must not be null", o.path+key)
		return nil
	}
	v, err := decodeValue(raw)
	if err != nil {
		o.fail("member %q: %v", o.path+key, err)
	}
	return v
}

// objectValue decodes an optional member that must be a JSON object.
func (o *object) objectValue(key string) map[string]any {
	raw, ok := o.get(key, false)
	if !ok {
		return nil
	}
	v, err := decodeValue(raw)
	m, isObject := v.(map[string]any)
	if err != nil || !isObject {
		o.fail("member %q must be an object", o.path+key)
		return nil
	}
	return m
}

func (o *object) strings(key string) []string {
	raw, ok := o.get(key, false)
	if !ok {
		return nil
	}
	var items []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		o.fail("member %q must be an array of strings", o.path+key)
		return nil
	}
	ss := make([]string, len(items))
	for i, item := range items {
		if len(item) == 0 || item[0] != '"' || json.Unmarshal(item, &ss[i]) != nil {
			o.fail("member %q must be an array of strings", o.path+key)
			return nil
		}
	}
	return ss
}

func (o *object) base() BaseEvent {
	b := BaseEvent{
		RawEvent: o.value("rawEvent", false, false),
		Metadata: o.objectValue("metadata"),
	}
	if raw, ok := o.get("timestamp", false); ok {
		ts, err := safeInteger(raw)
		if err != nil {
			o.fail("member \"timestamp\" must be an integer within ±(2^53−1)")
		}
		b.Timestamp = ts
	}
	return b
}

func (o *object) role() Role {
	if _, ok := o.get("role", false); !ok {
		return ""
	}
	r := Role(o.str("role", false))
	if o.err == nil && !r.valid() {
		o.fail("member \"role\" must be developer, system, assistant or user, not %q", r)
	}
	return r
}

func (o *object) input() any {
	raw, ok := o.get("input", false)
	if !ok {
		return nil
	}
	o.decode(func(d *decoder) { d.input(raw, "input") })
	if o.err != nil {
		return nil
	}
	return o.value("input", false, false)
}

// decode runs a decoder over the event's members, unbounded (an event is
// checked as the schema checks it), and records its first invalid member.
func (o *object) decode(read func(d *decoder)) {
	if o.err != nil {
		return
	}
	d := &decoder{}
	read(d)
	if msg := d.first(); msg != "" {
		o.fail("%s", msg)
	}
}

func (o *object) outcome() *Outcome {
	raw, ok := o.get("outcome", false)
	if !ok {
		return nil
	}
	sub := o.sub(raw, "outcome")
	if sub == nil {
		return nil
	}
	out := &Outcome{Type: OutcomeType(sub.str("type", true))}
	switch {
	case sub.err != nil:
	case out.Type == OutcomeSuccess:
		out.PendingToolCallIDs = sub.strings("pendingToolCallIds")
	case out.Type == OutcomeInterrupt:
		out.Interrupts = sub.interrupts()
	case out.Type == OutcomeCancelled:
	default:
		sub.fail("member \"outcome.type\" must be success, interrupt or cancelled, not %q", out.Type)
	}
	if sub.err != nil {
		o.err = sub.err
		return nil
	}
	return out
}

func (o *object) interrupts() []Interrupt {
	raw, ok := o.get("interrupts", true)
	if !ok {
		return nil
	}
	var items []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		o.fail("member %q must be an array", o.path+"interrupts")
		return nil
	}
	if len(items) == 0 {
		o.fail("member %q needs at least one interrupt", o.path+"interrupts")
		return nil
	}
	out := make([]Interrupt, 0, len(items))
	for i, item := range items {
		sub := o.sub(item, fmt.Sprintf("%sinterrupts[%d]", o.path, i))
		if sub == nil {
			return nil
		}
		in := Interrupt{
			ID:             sub.str("id", true),
			Reason:         sub.str("reason", true),
			Message:        sub.str("message", false),
			ToolCallID:     sub.str("toolCallId", false),
			ResponseSchema: sub.objectValue("responseSchema"),
			ExpiresAt:      sub.str("expiresAt", false),
			Metadata:       sub.objectValue("metadata"),
		}
		if sub.err != nil {
			o.err = sub.err
			return nil
		}
		out = append(out, in)
	}
	return out
}

// sub returns a reader for a nested object member, or nil (recording an
// error) if it is not an object.
func (o *object) sub(raw json.RawMessage, path string) *object {
	var m map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		o.fail("member %q must be an object", path)
		return nil
	}
	return &object{typ: o.typ, path: path + ".", m: m}
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

// safeInteger parses a JSON number the way JavaScript reads it (a double)
// and accepts it if it is an integer within ±(2^53−1): 1000, 1e3 and 1000.0
// all qualify.
func safeInteger(raw json.RawMessage) (int64, error) {
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, errors.New("not a number")
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > maxSafeInteger {
		return 0, errors.New("not a safe integer")
	}
	return int64(f), nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(raw, []byte("null")) }
