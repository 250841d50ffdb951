package agui

import (
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
//   - STEP_STARTED not for a step name that is already active;
//     STEP_FINISHED only for an active one;
//   - no RUN_FINISHED while a text message or step is open (RUN_ERROR may
//     end a run anywhere);
//   - a new RUN_STARTED after a run ended forgets that run's messages and
//     steps.
//
// The client's rules about subagent attribution, tool calls and reasoning
// concern events this package does not model. The zero Verifier is ready
// to check a new stream; it is not safe for concurrent use.
type Verifier struct {
	n        int
	seen     bool // an event was accepted
	started  bool // RUN_STARTED was accepted
	finished bool // the current run sent RUN_FINISHED
	errored  bool // the current run sent RUN_ERROR
	messages map[string]bool
	steps    map[string]bool
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
		if v.messages[e.MessageID] {
			return fmt.Sprintf("Cannot send 'TEXT_MESSAGE_START' event: A text message with ID '%s' is already in progress. Complete it with 'TEXT_MESSAGE_END' first.", e.MessageID)
		}
	case *TextMessageContent:
		if !v.messages[e.MessageID] {
			return fmt.Sprintf("Cannot send 'TEXT_MESSAGE_CONTENT' event: No active text message found with ID '%s'. Start a text message with 'TEXT_MESSAGE_START' first.", e.MessageID)
		}
	case *TextMessageEnd:
		if !v.messages[e.MessageID] {
			return fmt.Sprintf("Cannot send 'TEXT_MESSAGE_END' event: No active text message found with ID '%s'. A 'TEXT_MESSAGE_START' event must be sent first.", e.MessageID)
		}
	case *StepStarted:
		if v.steps[e.StepName] {
			return fmt.Sprintf("Step %q is already active for 'STEP_STARTED'", e.StepName)
		}
	case *StepFinished:
		if !v.steps[e.StepName] {
			return fmt.Sprintf("Cannot send 'STEP_FINISHED' for step %q that was not started", e.StepName)
		}
	case *RunFinished:
		if len(v.steps) > 0 {
			return "Cannot send 'RUN_FINISHED' while steps are still active: " + joinKeys(v.steps)
		}
		if len(v.messages) > 0 {
			return "Cannot send 'RUN_FINISHED' while text messages are still active: " + joinKeys(v.messages)
		}
	}
	return ""
}

func (v *Verifier) apply(e Event) {
	if e.Type() == TypeRunStarted && (v.finished || v.errored) {
		clear(v.messages)
		clear(v.steps)
		v.finished, v.errored = false, false
	}
	v.seen = true
	switch e := e.(type) {
	case *RunStarted:
		v.started = true
	case *RunFinished:
		v.finished = true
	case *RunError:
		v.errored = true
	case *TextMessageStart:
		if v.messages == nil {
			v.messages = make(map[string]bool)
		}
		v.messages[e.MessageID] = true
	case *TextMessageEnd:
		delete(v.messages, e.MessageID)
	case *StepStarted:
		if v.steps == nil {
			v.steps = make(map[string]bool)
		}
		v.steps[e.StepName] = true
	case *StepFinished:
		delete(v.steps, e.StepName)
	}
}

// joinKeys lists a set's keys in sorted order (the client lists them in
// insertion order; sorting keeps the message deterministic).
func joinKeys(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
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
