package agui

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/triage-go/triage/internal/jsonmember"
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
	m, err := jsonmember.Decoder{}.Object(data, "")
	if err != nil {
		if json.Valid(data) {
			return nil, fmt.Errorf("%w: not a JSON object: %s", ErrInvalidEvent, jsonmember.Kind(data))
		}
		return nil, fmt.Errorf("%w: not a JSON object: %w", ErrInvalidEvent, errors.Unwrap(err))
	}
	rawType, ok := m["type"]
	if !ok {
		return nil, fmt.Errorf("%w: missing required member \"type\"", ErrInvalidEvent)
	}
	s, ok := jsonmember.StringOfMember(rawType)
	if !ok {
		return nil, fmt.Errorf("%w: member \"type\" must be a string", ErrInvalidEvent)
	}
	typ := EventType(s)
	d := &decoder{event: true}
	var e Event
	switch typ {
	case TypeRunStarted:
		e = &RunStarted{
			ThreadID:    d.str(m, "", "threadId", true),
			RunID:       d.str(m, "", "runId", true),
			ParentRunID: d.str(m, "", "parentRunId", false),
			Input:       d.eventInput(m),
			BaseEvent:   d.base(m),
		}
	case TypeRunFinished:
		e = &RunFinished{
			ThreadID:  d.str(m, "", "threadId", true),
			RunID:     d.str(m, "", "runId", true),
			Result:    d.value(m, "", "result", false, false),
			Outcome:   d.outcome(m),
			BaseEvent: d.base(m),
		}
	case TypeRunError:
		e = &RunError{
			Message:   d.str(m, "", "message", true),
			Code:      d.str(m, "", "code", false),
			BaseEvent: d.base(m),
		}
	case TypeTextMessageStart:
		e = &TextMessageStart{
			MessageID: d.str(m, "", "messageId", true),
			Role:      d.role(m),
			Name:      d.str(m, "", "name", false),
			BaseEvent: d.base(m),
		}
	case TypeTextMessageContent:
		e = &TextMessageContent{
			MessageID: d.str(m, "", "messageId", true),
			Delta:     d.str(m, "", "delta", true),
			BaseEvent: d.base(m),
		}
	case TypeTextMessageEnd:
		e = &TextMessageEnd{MessageID: d.str(m, "", "messageId", true), BaseEvent: d.base(m)}
	case TypeStepStarted:
		e = &StepStarted{StepName: d.str(m, "", "stepName", true), BaseEvent: d.base(m)}
	case TypeStepFinished:
		e = &StepFinished{StepName: d.str(m, "", "stepName", true), BaseEvent: d.base(m)}
	case TypeStateSnapshot:
		e = &StateSnapshot{Snapshot: d.value(m, "", "snapshot", true, true), BaseEvent: d.base(m)}
	case TypeCustom:
		e = &Custom{
			Name:      d.str(m, "", "name", true),
			Value:     d.value(m, "", "value", true, true),
			BaseEvent: d.base(m),
		}
	case TypeToolCallStart:
		e = &ToolCallStart{
			ToolCallID:      d.str(m, "", "toolCallId", true),
			ToolCallName:    d.str(m, "", "toolCallName", true),
			ParentMessageID: d.str(m, "", "parentMessageId", false),
			BaseEvent:       d.base(m),
		}
	case TypeToolCallArgs:
		e = &ToolCallArgs{ToolCallID: d.str(m, "", "toolCallId", true), Delta: d.str(m, "", "delta", true), BaseEvent: d.base(m)}
	case TypeToolCallEnd:
		e = &ToolCallEnd{ToolCallID: d.str(m, "", "toolCallId", true), BaseEvent: d.base(m)}
	case TypeToolCallResult:
		r := &ToolCallResult{MessageID: d.str(m, "", "messageId", true), ToolCallID: d.str(m, "", "toolCallId", true)}
		d.nested(func() { r.Content, r.Parts = d.content(m, "") })
		if _, ok := m["role"]; ok {
			n := d.count()
			if r.Role = Role(d.str(m, "", "role", false)); d.count() == n && r.Role != RoleTool {
				d.fail("role", "must be tool, not %q", r.Role)
			}
		}
		r.BaseEvent = d.base(m)
		e = r
	case TypeStateDelta:
		sd := &StateDelta{}
		d.nested(func() { sd.Delta = d.patch(m, "", "delta") })
		sd.BaseEvent = d.base(m)
		e = sd
	case TypeMessagesSnapshot:
		ms := &MessagesSnapshot{}
		d.nested(func() { ms.Messages = d.messages(m, "", "messages") })
		ms.BaseEvent = d.base(m)
		e = ms
	default:
		if protocolTypes[typ] {
			return nil, fmt.Errorf("%w %q: AG-UI 1.0 defines it, this package does not model it", ErrUnsupportedType, typ)
		}
		return nil, fmt.Errorf("%w %q", ErrUnknownType, typ)
	}
	if msg := d.first(); msg != "" {
		return nil, fmt.Errorf("%w: %s: %s", ErrInvalidEvent, typ, msg)
	}
	return e, nil
}

// The members of an event, read by the decoder ParseRunAgentInput reads
// with, unbounded (an event is checked as the schema checks it). Parse
// reports the first invalid member, in the order the schema lists them.

// nested reads the members an event nests as a RunAgentInput nests them
// (an input, messages, content, a patch): Parse names an absent one as
// ParseRunAgentInput does, `member "x" is required`, and an absent member
// of the event itself as `missing required member "x"`.
func (d *decoder) nested(read func()) {
	d.event = false
	read()
	d.event = true
}

// base reads the members every event has.
func (d *decoder) base(m map[string]json.RawMessage) BaseEvent {
	b := BaseEvent{
		RawEvent: d.value(m, "", "rawEvent", false, false),
		Metadata: d.objectValue(m, "", "metadata", false),
	}
	if raw, ok := m["timestamp"]; ok {
		ts, err := jsonmember.Decoder{}.Int(raw, "")
		if err != nil {
			d.fail("timestamp", "must be an integer within ±(2^53−1)")
		}
		b.Timestamp = ts
	}
	return b
}

// role reads TEXT_MESSAGE_START's optional role.
func (d *decoder) role(m map[string]json.RawMessage) Role {
	if _, ok := m["role"]; !ok {
		return ""
	}
	n := d.count()
	r := Role(d.str(m, "", "role", false))
	if d.count() == n && !r.valid() {
		d.fail("role", "must be developer, system, assistant or user, not %q", r)
	}
	return r
}

// eventInput reads RUN_STARTED's optional input: a RunAgentInput, kept as
// the open value it is.
func (d *decoder) eventInput(m map[string]json.RawMessage) any {
	raw, ok := m["input"]
	if !ok {
		return nil
	}
	n := d.count()
	d.nested(func() { d.input(raw, "input") })
	if d.count() != n {
		return nil
	}
	return d.value(m, "", "input", false, false)
}

// outcome reads RUN_FINISHED's optional outcome.
func (d *decoder) outcome(m map[string]json.RawMessage) *Outcome {
	raw, ok := m["outcome"]
	if !ok {
		return nil
	}
	om, ok := d.object(raw, "outcome", "an object")
	if !ok {
		return nil
	}
	n := d.count()
	out := &Outcome{Type: OutcomeType(d.str(om, "outcome", "type", true))}
	switch {
	case d.count() != n:
	case out.Type == OutcomeSuccess:
		out.PendingToolCallIDs = d.strings(om, "outcome", "pendingToolCallIds")
	case out.Type == OutcomeInterrupt:
		out.Interrupts = d.interrupts(om, "outcome")
	case out.Type == OutcomeCancelled:
	default:
		d.fail("outcome.type", "must be success, interrupt or cancelled, not %q", out.Type)
	}
	if d.count() != n {
		return nil
	}
	return out
}

// strings reads an optional array of strings.
func (d *decoder) strings(m map[string]json.RawMessage, path, key string) []string {
	raw, ok := m[key]
	if !ok {
		return nil
	}
	items, err := jsonmember.ItemsOfMember(raw)
	ss := make([]string, len(items))
	for i := 0; err == nil && i < len(items); i++ {
		if ss[i], ok = jsonmember.StringOfMember(items[i]); !ok {
			err = errors.New("not a string")
		}
	}
	if err != nil {
		d.fail(jsonmember.Path(path, key), "must be an array of strings")
		return nil
	}
	return ss
}

// interrupts reads an interrupt outcome's required interrupts: at least one.
func (d *decoder) interrupts(m map[string]json.RawMessage, path string) []Interrupt {
	items, ok := d.array(m, path, "interrupts", true, MaxInputItems)
	if !ok {
		return nil
	}
	p := jsonmember.Path(path, "interrupts")
	if len(items) == 0 {
		d.fail(p, "needs at least one interrupt")
		return nil
	}
	out := make([]Interrupt, 0, len(items))
	for i, item := range items {
		ip := index(p, i)
		im, ok := d.object(item, ip, "an object")
		if !ok {
			continue
		}
		out = append(out, Interrupt{
			ID:             d.str(im, ip, "id", true),
			Reason:         d.str(im, ip, "reason", true),
			Message:        d.str(im, ip, "message", false),
			ToolCallID:     d.str(im, ip, "toolCallId", false),
			ResponseSchema: d.objectValue(im, ip, "responseSchema", false),
			ExpiresAt:      d.str(im, ip, "expiresAt", false),
			Metadata:       d.objectValue(im, ip, "metadata", false),
		})
	}
	return out
}
