package graph

import (
	"encoding/json"
	"fmt"

	"github.com/triage-go/triage/fault"
)

// EventType says what an Event reports.
type EventType string

// The events of a streamed run.
const (
	EventNodeStarted  EventType = "node_started"  // a node is about to run
	EventNodeFinished EventType = "node_finished" // a node ran; State is its result
	EventOutput       EventType = "output"        // a node sent output (Emit); Output is it
	EventNotice       EventType = "notice"        // a node sent a non-fatal notice (a user_error)
	EventErrorRouted  EventType = "error_routed"  // a node failed and its error route runs next
	EventError        EventType = "error"         // the run failed; the last event, in ErrorEvents mode
	EventEnd          EventType = "end"           // the run finished; State is its result
)

// Event is one step of a streamed run. Its JSON depends on its type; the
// error event is exactly seed 003's {"type":"error","node":…,"error":…,
// "state":…}.
type Event[S any] struct {
	Type EventType
	Node string
	// Step is the node call's number, from 1, on the events of a node
	// call: node_started, output, notice (not in its JSON) and
	// node_finished. Each call has its own; the calls of concurrent
	// branches are numbered as they are reached, so their node_started
	// events may come out of that order.
	Step  int
	State S
	// Err is the failure, for EventError and EventErrorRouted.
	Err *NodeError
	// Handler is the error route's node, for EventErrorRouted.
	Handler string
	// Notice is the notice, for EventNotice. Its JSON is the fault's
	// payload without debug (fault.Error.Payload(false)).
	Notice *fault.Error
	// Output is what the node sent with Emit, for EventOutput.
	Output any
}

// MarshalJSON writes the event's members for its type.
func (e Event[S]) MarshalJSON() ([]byte, error) {
	type step struct {
		Type EventType `json:"type"`
		Node string    `json:"node"`
		Step int       `json:"step"`
	}
	switch e.Type {
	case EventNodeStarted:
		return json.Marshal(step{e.Type, e.Node, e.Step})
	case EventNodeFinished:
		return json.Marshal(struct {
			step
			State S `json:"state"`
		}{step{e.Type, e.Node, e.Step}, e.State})
	case EventOutput:
		return json.Marshal(struct {
			step
			Output any `json:"output"`
		}{step{e.Type, e.Node, e.Step}, e.Output})
	case EventNotice:
		return json.Marshal(struct {
			Type   EventType     `json:"type"`
			Node   string        `json:"node"`
			Notice fault.Payload `json:"notice"`
		}{e.Type, e.Node, e.Notice.Payload(false)})
	case EventErrorRouted:
		return json.Marshal(struct {
			Type    EventType `json:"type"`
			Node    string    `json:"node"`
			Error   string    `json:"error"`
			Handler string    `json:"handler"`
		}{e.Type, e.Node, causeText(e.Err), e.Handler})
	case EventError:
		return json.Marshal(struct {
			Type  EventType `json:"type"`
			Node  string    `json:"node"`
			Error string    `json:"error"`
			State S         `json:"state"`
		}{e.Type, e.Node, causeText(e.Err), e.State})
	}
	return json.Marshal(struct {
		Type  EventType `json:"type"`
		State S         `json:"state"`
	}{e.Type, e.State})
}

// causeText is the error member of an event: the cause's message, as seed
// 003's error dict carries str(exception), followed by every other failed
// branch's, so that no failure is lost on the wire.
func causeText(e *NodeError) string {
	if e == nil || e.Err == nil {
		return ""
	}
	text := e.Err.Error()
	for _, br := range e.Branches[min(1, len(e.Branches)):] {
		text += fmt.Sprintf("; error in node %q: %v", br.Node, br.Err)
	}
	return text
}
