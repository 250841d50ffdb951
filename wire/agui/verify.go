package agui

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrOutOfOrder is matched by every *SequenceError.
var ErrOutOfOrder = errors.New("agui: event out of order")

// SequenceError reports an event that a 1.0 client would reject at that
// point of the stream.
type SequenceError struct {
	// Index is the event's position in the stream, counting from 0 (the
	// events the Verifier accepted before it).
	Index int
	// Type is the rejected event's type.
	Type EventType
	// Reason is the rule it breaks, in the official client's words.
	Reason string
}

func (e *SequenceError) Error() string {
	return fmt.Sprintf("agui: event %d (%s) out of order: %s", e.Index, e.Type, e.Reason)
}

// Is reports whether target is ErrOutOfOrder.
func (e *SequenceError) Is(target error) bool { return target == ErrOutOfOrder }

// Verifier checks that a stream of events follows the ordering rules of
// AG-UI 1.0, as the official client enforces them: verifyEvents in
// @ag-ui/client 1.0.0 (src/verify/verify.ts), which fails the run on the
// first violation. For the events this package models, the rules are:
//
//   - the first event is RUN_STARTED or RUN_ERROR (a run may fail before it
//     starts);
//   - after RUN_ERROR nothing but a new RUN_STARTED;
//   - after RUN_FINISHED nothing but a new RUN_STARTED or a RUN_ERROR;
//   - no RUN_STARTED while a run is active;
//   - TEXT_MESSAGE_START not for a message id that is already open;
//     TEXT_MESSAGE_CONTENT and TEXT_MESSAGE_END only for an open one;
//   - TOOL_CALL_START not for a tool call id that is already open;
//     TOOL_CALL_ARGS and TOOL_CALL_END only for an open one;
//   - STEP_STARTED not for a step name that is already active;
//     STEP_FINISHED only for an active one;
//   - no RUN_FINISHED while a step, text message or tool call is open
//     (RUN_ERROR may end a run anywhere, with anything open);
//   - a TOOL_CALL_START whose id the run already knows (an earlier call,
//     or a tool call of a message in a MESSAGES_SNAPSHOT or in
//     RUN_STARTED's input) must not name a parent message that belongs to
//     another subagent than the call does (Message.SubagentRunID);
//   - a new RUN_STARTED after a run ended forgets that run's messages,
//     tool calls and steps.
//
// Messages and tool calls interleave freely: several may be open at once,
// a tool call inside an open text message or not, and a message id may be
// reused once it is closed. TOOL_CALL_RESULT, STATE_SNAPSHOT, STATE_DELTA,
// MESSAGES_SNAPSHOT and CUSTOM are accepted anywhere inside a run.
//
// The client's other rules (reasoning, activities, subagent lifecycle and
// attribution tags on events) concern members and events this package does
// not model. The zero Verifier is ready to check a new stream; it is not
// safe for concurrent use.
type Verifier struct {
	n        int
	seq      int  // counts openings, to list open things in the order they opened
	seen     bool // an event was accepted
	started  bool // RUN_STARTED was accepted
	finished bool // the current run sent RUN_FINISHED
	errored  bool // the current run sent RUN_ERROR
	// messages, toolCalls and steps map what is open to when it opened.
	messages  map[string]int
	toolCalls map[string]int
	steps     map[string]int
	// msgOwners and callOwners record, for the run, the subagent each
	// message and tool call id belongs to, as the client's owners maps do.
	msgOwners  map[string]owner
	callOwners map[string]owner
}

// owner is the subagent a message or tool call belongs to; the zero owner
// is the parent agent.
type owner struct {
	subagent bool
	id       string
}

func (o owner) String() string {
	if !o.subagent {
		return "(the parent agent)"
	}
	return o.id
}

func ownerOf(m *Message) owner {
	return owner{subagent: m.SubagentRunID != "", id: m.SubagentRunID}
}

// Running reports whether a run is in progress: RUN_STARTED was accepted
// and neither RUN_FINISHED nor RUN_ERROR since.
func (v *Verifier) Running() bool { return v.started && !v.finished && !v.errored }

// Verify checks e against the events accepted so far. It returns a
// *SequenceError, and changes nothing, if a 1.0 client would reject e here;
// otherwise it records e.
func (v *Verifier) Verify(e Event) error {
	if isNil(e) {
		return &SequenceError{Index: v.n, Reason: "nil event"}
	}
	if reason := v.check(e); reason != "" {
		return &SequenceError{Index: v.n, Type: e.Type(), Reason: reason}
	}
	v.apply(e)
	v.n++
	return nil
}

// check returns why e is out of order, or "".
func (v *Verifier) check(e Event) string {
	t := e.Type()
	switch {
	case v.errored && t != TypeRunStarted:
		return fmt.Sprintf("Cannot send event type '%s': The run has already errored with 'RUN_ERROR'. No further events can be sent.", t)
	case v.finished && t != TypeRunError && t != TypeRunStarted:
		return fmt.Sprintf("Cannot send event type '%s': The run has already finished with 'RUN_FINISHED'. Start a new run with 'RUN_STARTED'.", t)
	case !v.seen && t != TypeRunStarted && t != TypeRunError:
		return "First event must be 'RUN_STARTED'"
	case v.seen && t == TypeRunStarted && v.Running():
		return "Cannot send 'RUN_STARTED' while a run is still active. The previous run must be finished with 'RUN_FINISHED' before starting a new run."
	}
	switch e := e.(type) {
	case *TextMessageStart:
		if _, open := v.messages[e.MessageID]; open {
			return fmt.Sprintf("Cannot send 'TEXT_MESSAGE_START' event: A text message with ID '%s' is already in progress. Complete it with 'TEXT_MESSAGE_END' first.", e.MessageID)
		}
	case *TextMessageContent:
		if _, open := v.messages[e.MessageID]; !open {
			return fmt.Sprintf("Cannot send 'TEXT_MESSAGE_CONTENT' event: No active text message found with ID '%s'. Start a text message with 'TEXT_MESSAGE_START' first.", e.MessageID)
		}
	case *TextMessageEnd:
		if _, open := v.messages[e.MessageID]; !open {
			return fmt.Sprintf("Cannot send 'TEXT_MESSAGE_END' event: No active text message found with ID '%s'. A 'TEXT_MESSAGE_START' event must be sent first.", e.MessageID)
		}
	case *ToolCallStart:
		return v.checkToolCallStart(e)
	case *ToolCallArgs:
		if _, open := v.toolCalls[e.ToolCallID]; !open {
			return fmt.Sprintf("Cannot send 'TOOL_CALL_ARGS' event: No active tool call found with ID '%s'. Start a tool call with 'TOOL_CALL_START' first.", e.ToolCallID)
		}
	case *ToolCallEnd:
		if _, open := v.toolCalls[e.ToolCallID]; !open {
			return fmt.Sprintf("Cannot send 'TOOL_CALL_END' event: No active tool call found with ID '%s'. A 'TOOL_CALL_START' event must be sent first.", e.ToolCallID)
		}
	case *StepStarted:
		if _, open := v.steps[e.StepName]; open {
			return fmt.Sprintf("Step %q is already active for 'STEP_STARTED'", e.StepName)
		}
	case *StepFinished:
		if _, open := v.steps[e.StepName]; !open {
			return fmt.Sprintf("Cannot send 'STEP_FINISHED' for step %q that was not started", e.StepName)
		}
	case *RunFinished:
		if len(v.steps) > 0 {
			return "Cannot send 'RUN_FINISHED' while steps are still active: " + strings.Join(inOrder(v.steps), ", ")
		}
		if len(v.messages) > 0 {
			return "Cannot send 'RUN_FINISHED' while text messages are still active: " + strings.Join(inOrder(v.messages), ", ")
		}
		if len(v.toolCalls) > 0 {
			return "Cannot send 'RUN_FINISHED' while tool calls are still active: " + strings.Join(inOrder(v.toolCalls), ", ")
		}
	}
	return ""
}

func (v *Verifier) checkToolCallStart(e *ToolCallStart) string {
	if _, open := v.toolCalls[e.ToolCallID]; open {
		return fmt.Sprintf("Cannot send 'TOOL_CALL_START' event: A tool call with ID '%s' is already in progress. Complete it with 'TOOL_CALL_END' first.", e.ToolCallID)
	}
	// An untagged call inherits its parent message's owner; a call the run
	// already knows must keep its owner.
	existing, known := v.callOwners[e.ToolCallID]
	if !known || e.ParentMessageID == "" {
		return ""
	}
	if inherited, ok := v.msgOwners[e.ParentMessageID]; ok && inherited != existing {
		return fmt.Sprintf("Cannot send 'TOOL_CALL_START': tool call '%s' is owned by '%s' but its parent message '%s' is owned by '%s'. A tool call belongs to the message that carries it.",
			e.ToolCallID, existing, e.ParentMessageID, inherited)
	}
	return ""
}

func (v *Verifier) apply(e Event) {
	if e.Type() == TypeRunStarted && (v.finished || v.errored) {
		for _, m := range []map[string]int{v.messages, v.toolCalls, v.steps} {
			clear(m)
		}
		clear(v.msgOwners)
		clear(v.callOwners)
		v.finished, v.errored = false, false
	}
	v.seen = true
	switch e := e.(type) {
	case *RunStarted:
		v.started = true
		if in := inputOf(e.Input); in != nil {
			v.seed(in.Messages, false)
		}
	case *RunFinished:
		v.finished = true
	case *RunError:
		v.errored = true
	case *TextMessageStart:
		v.messages = v.open(v.messages, e.MessageID)
		if _, ok := v.msgOwners[e.MessageID]; !ok {
			v.msgOwners = setOwner(v.msgOwners, e.MessageID, owner{})
		}
	case *TextMessageEnd:
		delete(v.messages, e.MessageID)
	case *ToolCallStart:
		v.toolCalls = v.open(v.toolCalls, e.ToolCallID)
		if _, ok := v.callOwners[e.ToolCallID]; !ok {
			var o owner // an absent parentMessageId inherits nothing
			if e.ParentMessageID != "" {
				o = v.msgOwners[e.ParentMessageID]
			}
			v.callOwners = setOwner(v.callOwners, e.ToolCallID, o)
		}
	case *ToolCallEnd:
		delete(v.toolCalls, e.ToolCallID)
	case *ToolCallResult:
		v.msgOwners = setOwner(v.msgOwners, e.MessageID, owner{})
	case *MessagesSnapshot:
		v.seed(e.Messages, true)
	case *StepStarted:
		v.steps = v.open(v.steps, e.StepName)
	case *StepFinished:
		delete(v.steps, e.StepName)
	}
}

// open records key as open in m, allocating m if need be.
func (v *Verifier) open(m map[string]int, key string) map[string]int {
	if m == nil {
		m = make(map[string]int)
	}
	v.seq++
	m[key] = v.seq
	return m
}

func setOwner(m map[string]owner, key string, o owner) map[string]owner {
	if m == nil {
		m = make(map[string]owner)
	}
	m[key] = o
	return m
}

// seed records the owners of replayed messages and their tool calls: a
// snapshot's replace those on record, an input echo's only add to them.
// (Reasoning and activity messages stream through events this package
// does not model, and have owners of their own kind.)
func (v *Verifier) seed(messages []Message, authoritative bool) {
	for i := range messages {
		m := &messages[i]
		if m.Role == RoleReasoning || m.Role == RoleActivity {
			continue
		}
		if _, ok := v.msgOwners[m.ID]; authoritative || !ok {
			v.msgOwners = setOwner(v.msgOwners, m.ID, ownerOf(m))
		}
		for _, c := range m.ToolCalls {
			if _, ok := v.callOwners[c.ID]; authoritative || !ok {
				v.callOwners = setOwner(v.callOwners, c.ID, ownerOf(m))
			}
		}
	}
}

// inputOf reads RUN_STARTED's input as a RunAgentInput, or returns nil.
func inputOf(input any) *RunAgentInput {
	switch in := input.(type) {
	case nil:
		return nil
	case *RunAgentInput:
		return in
	case RunAgentInput:
		return &in
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return nil
	}
	d := &decoder{}
	in := d.input(raw, "input")
	if d.first() != "" {
		return nil
	}
	return in
}

// openMessages lists the open text messages, the most recently opened
// first.
func (v *Verifier) openMessages() []string {
	ids := inOrder(v.messages)
	slices.Reverse(ids)
	return ids
}

// knownMessage reports whether the run has a message with this id: one it
// streamed (open or closed), a tool result's, or one replayed by a
// snapshot or RUN_STARTED's input.
func (v *Verifier) knownMessage(id string) bool {
	_, ok := v.msgOwners[id]
	return ok
}

// inOrder lists a set's keys in the order they opened, as the client lists
// them.
func inOrder(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return m[a] - m[b] })
	return keys
}

// Verify checks a whole stream with a new Verifier and returns the first
// violation, or nil.
func Verify(events ...Event) error {
	var v Verifier
	for _, e := range events {
		if err := v.Verify(e); err != nil {
			return err
		}
	}
	return nil
}
