package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// EventType is the discriminator every event carries in its type member.
type EventType string

// The event types this package models: the run lifecycle, streamed text
// messages, steps, state snapshots and custom events (and, in
// event_tool.go, tool calls, state deltas and message snapshots).
const (
	TypeRunStarted         EventType = "RUN_STARTED"
	TypeRunFinished        EventType = "RUN_FINISHED"
	TypeRunError           EventType = "RUN_ERROR"
	TypeTextMessageStart   EventType = "TEXT_MESSAGE_START"
	TypeTextMessageContent EventType = "TEXT_MESSAGE_CONTENT"
	TypeTextMessageEnd     EventType = "TEXT_MESSAGE_END"
	TypeStepStarted        EventType = "STEP_STARTED"
	TypeStepFinished       EventType = "STEP_FINISHED"
	TypeStateSnapshot      EventType = "STATE_SNAPSHOT"
	TypeCustom             EventType = "CUSTOM"
)

// protocolTypes are the event types AG-UI 1.0 defines (the EventType enum of
// @ag-ui/core 1.0.0). Parse tells the ones this package does not model
// (ErrUnsupportedType) from ones no 1.0 peer sends (ErrUnknownType).
var protocolTypes = map[EventType]bool{
	"TEXT_MESSAGE_START": true, "TEXT_MESSAGE_CONTENT": true, "TEXT_MESSAGE_END": true,
	"TEXT_MESSAGE_CHUNK": true, "TOOL_CALL_START": true, "TOOL_CALL_ARGS": true,
	"TOOL_CALL_END": true, "TOOL_CALL_CHUNK": true, "TOOL_CALL_RESULT": true,
	"STATE_SNAPSHOT": true, "STATE_DELTA": true, "MESSAGES_SNAPSHOT": true,
	"ACTIVITY_SNAPSHOT": true, "ACTIVITY_DELTA": true, "RAW": true, "CUSTOM": true,
	"RUN_STARTED": true, "RUN_FINISHED": true, "RUN_ERROR": true,
	"STEP_STARTED": true, "STEP_FINISHED": true, "REASONING_START": true,
	"REASONING_MESSAGE_START": true, "REASONING_MESSAGE_CONTENT": true,
	"REASONING_MESSAGE_END": true, "REASONING_MESSAGE_CHUNK": true, "REASONING_END": true,
	"REASONING_ENCRYPTED_VALUE": true, "SUBAGENT_STARTED": true, "SUBAGENT_FINISHED": true,
	"SUBAGENT_ERROR": true,
}

// Event is one AG-UI event. The set is closed: it is implemented by the
// pointer types of this package (*RunStarted, *RunError, …), which are what
// Parse returns.
type Event interface {
	// Type is the event's type member.
	Type() EventType
	// Base returns the members every event has, for reading or changing.
	Base() *BaseEvent
	validate() error
}

// BaseEvent holds the members every event may carry.
type BaseEvent struct {
	// Timestamp is when the event happened, in milliseconds since the Unix
	// epoch. Zero omits it. The protocol requires an integer within
	// ±(2^53−1), which is what a JavaScript number holds exactly.
	Timestamp int64 `json:"timestamp,omitempty"`
	// RawEvent is the event this one was translated from, passed through
	// untouched. Nil omits it; it must not encode as JSON null, which 1.0
	// consumers reject.
	RawEvent any `json:"rawEvent,omitempty"`
	// Metadata is extra information, open by key: any JSON value under any
	// key, except that the key "ag-ui" is reserved for the protocol. Nil
	// omits it; an empty map is sent as {}. It is the one place where a
	// producer's own members survive the official client (see the package
	// documentation), which is why RUN_ERROR's error facets live here.
	Metadata map[string]any `json:"metadata,omitzero"`
}

// Base returns b.
func (b *BaseEvent) Base() *BaseEvent { return b }

// maxSafeInteger is Number.MAX_SAFE_INTEGER, the bound of the protocol's
// integer timestamps.
const maxSafeInteger = 1<<53 - 1

func (b *BaseEvent) validate() error {
	if b.Timestamp > maxSafeInteger || b.Timestamp < -maxSafeInteger {
		return fmt.Errorf("timestamp %d is outside ±(2^53−1)", b.Timestamp)
	}
	if b.RawEvent != nil && encodesNull(b.RawEvent) {
		return errors.New("rawEvent must not be null")
	}
	return nil
}

// RunStarted opens a run.
type RunStarted struct {
	ThreadID string `json:"threadId"`
	RunID    string `json:"runId"`
	// ParentRunID names the run this one continues or branches from;
	// empty omits it.
	ParentRunID string `json:"parentRunId,omitempty"`
	// Input echoes the RunAgentInput that started the run: an object with
	// at least threadId, runId and messages. Nil omits it.
	Input any `json:"input,omitempty"`
	BaseEvent
}

// RunFinished closes a run that did not fail.
type RunFinished struct {
	ThreadID string `json:"threadId"`
	RunID    string `json:"runId"`
	// Result is what the run produced; nil omits it. It must not encode as
	// JSON null.
	Result any `json:"result,omitempty"`
	// Outcome says why the run ended; nil omits it, which means success.
	Outcome *Outcome `json:"outcome,omitempty"`
	BaseEvent
}

// RunError ends a run that failed. It is terminal: a 1.0 client accepts no
// event after it but a new RUN_STARTED. RunErrorFrom builds one from any
// error.
type RunError struct {
	// Message is shown to the user.
	Message string `json:"message"`
	// Code is a stable, machine-readable reason; empty omits it. Triage
	// puts its fault code here.
	Code string `json:"code,omitempty"`
	BaseEvent
}

// Role is the role of a message.
type Role string

// The roles of messages. TEXT_MESSAGE_START allows the first four (a tool's
// output is a TOOL_CALL_RESULT, never a streamed text message); a Message
// may have any of them.
const (
	RoleDeveloper Role = "developer"
	RoleSystem    Role = "system"
	RoleAssistant Role = "assistant"
	RoleUser      Role = "user"
	RoleTool      Role = "tool"
	RoleActivity  Role = "activity"
	RoleReasoning Role = "reasoning"
)

// valid reports whether r is a role TEXT_MESSAGE_START allows.
func (r Role) valid() bool {
	switch r {
	case RoleDeveloper, RoleSystem, RoleAssistant, RoleUser:
		return true
	}
	return false
}

// TextMessageStart opens a streamed text message; TEXT_MESSAGE_CONTENT
// events append to it and TEXT_MESSAGE_END closes it.
type TextMessageStart struct {
	MessageID string `json:"messageId"`
	// Role is the message's role; empty omits it, which clients read as
	// assistant.
	Role Role `json:"role,omitempty"`
	// Name names the author; empty omits it.
	Name string `json:"name,omitempty"`
	BaseEvent
}

// TextMessageContent appends Delta to a started text message.
type TextMessageContent struct {
	MessageID string `json:"messageId"`
	Delta     string `json:"delta"`
	BaseEvent
}

// TextMessageEnd closes a text message.
type TextMessageEnd struct {
	MessageID string `json:"messageId"`
	BaseEvent
}

// StepStarted opens a named step within a run.
type StepStarted struct {
	StepName string `json:"stepName"`
	BaseEvent
}

// StepFinished closes a named step.
type StepFinished struct {
	StepName string `json:"stepName"`
	BaseEvent
}

// StateSnapshot replaces the agent state wholesale. Snapshot is any JSON
// value, null included.
type StateSnapshot struct {
	Snapshot any `json:"snapshot"`
	BaseEvent
}

// Custom is an application's own event. Value is any JSON value, null
// included.
type Custom struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
	BaseEvent
}

// OutcomeType says how a run ended.
type OutcomeType string

// The outcomes of RUN_FINISHED.
const (
	// OutcomeSuccess: the run completed. An absent outcome means the same.
	OutcomeSuccess OutcomeType = "success"
	// OutcomeInterrupt: the run paused, waiting for what Interrupts name.
	OutcomeInterrupt OutcomeType = "interrupt"
	// OutcomeCancelled: whoever ran the run stopped it; it did not fail.
	OutcomeCancelled OutcomeType = "cancelled"
)

// Outcome is why a run ended.
type Outcome struct {
	Type OutcomeType `json:"type"`
	// PendingToolCallIDs names the frontend tool calls a successful run
	// left for the application to answer (success only); nil omits it.
	PendingToolCallIDs []string `json:"pendingToolCallIds,omitzero"`
	// Interrupts lists what the run waits for (interrupt only, at least
	// one).
	Interrupts []Interrupt `json:"interrupts,omitzero"`
}

// Interrupt is something a paused run needs from outside before it can
// continue, such as an approval.
type Interrupt struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
	// The members below are optional; their zero values omit them.
	Message        string         `json:"message,omitempty"`
	ToolCallID     string         `json:"toolCallId,omitempty"`
	ResponseSchema map[string]any `json:"responseSchema,omitzero"`
	ExpiresAt      string         `json:"expiresAt,omitempty"`
	Metadata       map[string]any `json:"metadata,omitzero"`
}

func (o *Outcome) validate() error {
	switch o.Type {
	case OutcomeSuccess:
		if len(o.Interrupts) > 0 {
			return errors.New("a success outcome carries no interrupts")
		}
	case OutcomeInterrupt:
		if len(o.Interrupts) == 0 {
			return errors.New("an interrupt outcome needs at least one interrupt")
		}
		if o.PendingToolCallIDs != nil {
			return errors.New("pendingToolCallIds belongs to a success outcome")
		}
	case OutcomeCancelled:
		if len(o.Interrupts) > 0 || o.PendingToolCallIDs != nil {
			return errors.New("a cancelled outcome carries nothing but its type")
		}
	default:
		return fmt.Errorf("unknown outcome type %q (want success, interrupt or cancelled)", o.Type)
	}
	return nil
}

// Type returns TypeRunStarted.
func (*RunStarted) Type() EventType { return TypeRunStarted }

// Type returns TypeRunFinished.
func (*RunFinished) Type() EventType { return TypeRunFinished }

// Type returns TypeRunError.
func (*RunError) Type() EventType { return TypeRunError }

// Type returns TypeTextMessageStart.
func (*TextMessageStart) Type() EventType { return TypeTextMessageStart }

// Type returns TypeTextMessageContent.
func (*TextMessageContent) Type() EventType { return TypeTextMessageContent }

// Type returns TypeTextMessageEnd.
func (*TextMessageEnd) Type() EventType { return TypeTextMessageEnd }

// Type returns TypeStepStarted.
func (*StepStarted) Type() EventType { return TypeStepStarted }

// Type returns TypeStepFinished.
func (*StepFinished) Type() EventType { return TypeStepFinished }

// Type returns TypeStateSnapshot.
func (*StateSnapshot) Type() EventType { return TypeStateSnapshot }

// Type returns TypeCustom.
func (*Custom) Type() EventType { return TypeCustom }

// validate methods: what the 1.0 schema requires beyond Go's types.

func (e *RunStarted) validate() error {
	if e.Input != nil {
		raw, err := json.Marshal(e.Input)
		if err != nil {
			return fmt.Errorf("input: %w", err)
		}
		d := &decoder{}
		if d.input(raw, "input"); d.first() != "" {
			return errors.New(d.first())
		}
	}
	return e.BaseEvent.validate()
}

func (e *RunFinished) validate() error {
	if e.Result != nil && encodesNull(e.Result) {
		return errors.New("result must not be null")
	}
	if e.Outcome != nil {
		if err := e.Outcome.validate(); err != nil {
			return fmt.Errorf("outcome: %w", err)
		}
	}
	return e.BaseEvent.validate()
}

func (e *TextMessageStart) validate() error {
	if e.Role != "" && !e.Role.valid() {
		return fmt.Errorf("role %q is not developer, system, assistant or user", e.Role)
	}
	return e.BaseEvent.validate()
}

func (e *RunError) validate() error           { return e.BaseEvent.validate() }
func (e *TextMessageContent) validate() error { return e.BaseEvent.validate() }
func (e *TextMessageEnd) validate() error     { return e.BaseEvent.validate() }
func (e *StepStarted) validate() error        { return e.BaseEvent.validate() }
func (e *StepFinished) validate() error       { return e.BaseEvent.validate() }
func (e *StateSnapshot) validate() error      { return e.BaseEvent.validate() }
func (e *Custom) validate() error             { return e.BaseEvent.validate() }

// The MarshalJSON methods write the type member first, then the event's
// own members, then the base members.

// MarshalJSON encodes the event with its type member.
func (e RunStarted) MarshalJSON() ([]byte, error) {
	type plain RunStarted
	return marshal(struct {
		Type EventType `json:"type"`
		plain
	}{TypeRunStarted, plain(e)})
}

// MarshalJSON encodes the event with its type member.
func (e RunFinished) MarshalJSON() ([]byte, error) {
	type plain RunFinished
	return marshal(struct {
		Type EventType `json:"type"`
		plain
	}{TypeRunFinished, plain(e)})
}

// MarshalJSON encodes the event with its type member.
func (e RunError) MarshalJSON() ([]byte, error) {
	type plain RunError
	return marshal(struct {
		Type EventType `json:"type"`
		plain
	}{TypeRunError, plain(e)})
}

// MarshalJSON encodes the event with its type member.
func (e TextMessageStart) MarshalJSON() ([]byte, error) {
	type plain TextMessageStart
	return marshal(struct {
		Type EventType `json:"type"`
		plain
	}{TypeTextMessageStart, plain(e)})
}

// MarshalJSON encodes the event with its type member.
func (e TextMessageContent) MarshalJSON() ([]byte, error) {
	type plain TextMessageContent
	return marshal(struct {
		Type EventType `json:"type"`
		plain
	}{TypeTextMessageContent, plain(e)})
}

// MarshalJSON encodes the event with its type member.
func (e TextMessageEnd) MarshalJSON() ([]byte, error) {
	type plain TextMessageEnd
	return marshal(struct {
		Type EventType `json:"type"`
		plain
	}{TypeTextMessageEnd, plain(e)})
}

// MarshalJSON encodes the event with its type member.
func (e StepStarted) MarshalJSON() ([]byte, error) {
	type plain StepStarted
	return marshal(struct {
		Type EventType `json:"type"`
		plain
	}{TypeStepStarted, plain(e)})
}

// MarshalJSON encodes the event with its type member.
func (e StepFinished) MarshalJSON() ([]byte, error) {
	type plain StepFinished
	return marshal(struct {
		Type EventType `json:"type"`
		plain
	}{TypeStepFinished, plain(e)})
}

// MarshalJSON encodes the event with its type member.
func (e StateSnapshot) MarshalJSON() ([]byte, error) {
	type plain StateSnapshot
	return marshal(struct {
		Type EventType `json:"type"`
		plain
	}{TypeStateSnapshot, plain(e)})
}

// MarshalJSON encodes the event with its type member.
func (e Custom) MarshalJSON() ([]byte, error) {
	type plain Custom
	return marshal(struct {
		Type EventType `json:"type"`
		plain
	}{TypeCustom, plain(e)})
}

// ErrInvalidEvent is matched by the errors of Marshal and Parse for an
// event that AG-UI 1.0 consumers would reject.
var ErrInvalidEvent = errors.New("agui: invalid event")

// Marshal encodes e as the JSON a data line carries, after checking it the
// way a 1.0 consumer's schema would (an error matching ErrInvalidEvent says
// what is wrong). Unlike json.Marshal it leaves <, > and & unescaped.
func Marshal(e Event) ([]byte, error) {
	return AppendMarshal(nil, e)
}

// marshal encodes v without HTML escaping: the output goes to SSE data
// lines and JSON parsers, never into HTML.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// encodesNull reports whether v would encode as JSON null: a nil pointer,
// map, slice or interface, or a json.RawMessage holding null.
func encodesNull(v any) bool {
	if raw, ok := v.(json.RawMessage); ok {
		return raw == nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
	}
	return isNil(v)
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
