package server

import (
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/wire/agui"
)

// runOutline keeps an outline of a run's AG-UI stream, as its Writer
// writes it (agui.WriterOptions.Written), for the run's record: each
// event's type, time, names and ids, never its content (see
// triage.RunEvent). A stretch of TEXT_MESSAGE_CONTENT of one message, or
// of TOOL_CALL_ARGS of one call, is one event counted. It holds at most
// store.MaxRunEvents: the first half of them, and the latest half in a
// ring; the events between, dropped, are counted. It is written once,
// with the run's end.
type runOutline struct {
	mu      sync.Mutex
	now     func() time.Time
	head    []store.RunEvent // the first MaxRunEvents/2
	tail    []store.RunEvent // a ring of the latest MaxRunEvents/2, from next
	next    int              // the oldest of tail, once it is full
	omitted int              // events dropped from between head and tail
}

func newRunOutline(now func() time.Time) *runOutline {
	return &runOutline{now: now}
}

const outlineHalf = store.MaxRunEvents / 2

// written adds e to the outline.
func (o *runOutline) written(e agui.Event) {
	ev := outlineOf(e)
	if ts := e.Base().Timestamp; ts > 0 {
		ev.At = time.UnixMilli(ts).UTC()
	} else {
		ev.At = o.now().UTC()
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if last := o.last(); last != nil && stretches(last, &ev) {
		last.Count++
		return
	}
	switch {
	case len(o.head) < outlineHalf:
		o.head = append(o.head, ev)
	case len(o.tail) < outlineHalf:
		o.tail = append(o.tail, ev)
	default:
		o.omitted += o.tail[o.next].Count
		o.tail[o.next] = ev
		o.next = (o.next + 1) % outlineHalf
	}
}

// last is the latest event of the outline, nil before the first.
func (o *runOutline) last() *store.RunEvent {
	switch {
	case len(o.tail) == outlineHalf:
		return &o.tail[(o.next+outlineHalf-1)%outlineHalf]
	case len(o.tail) > 0:
		return &o.tail[len(o.tail)-1]
	case len(o.head) > 0:
		return &o.head[len(o.head)-1]
	}
	return nil
}

// events returns the outline, oldest first, and how many events were
// dropped between its first half and its second.
func (o *runOutline) events() ([]store.RunEvent, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]store.RunEvent, 0, len(o.head)+len(o.tail))
	out = append(out, o.head...)
	out = append(out, o.tail[o.next:]...)
	out = append(out, o.tail[:o.next]...)
	return out, o.omitted
}

// stretches says whether next continues last's stretch of content: one
// message's text, or one call's arguments.
func stretches(last, next *store.RunEvent) bool {
	return last.Type == next.Type && last.MessageID == next.MessageID && last.ToolCallID == next.ToolCallID &&
		(next.Type == string(agui.TypeTextMessageContent) || next.Type == string(agui.TypeToolCallArgs))
}

// outlineOf is e's outline, without its time: its type, names and ids.
func outlineOf(e agui.Event) store.RunEvent {
	ev := store.RunEvent{Type: string(e.Type()), Count: 1}
	switch e := e.(type) {
	case *agui.StepStarted:
		ev.StepName = e.StepName
	case *agui.StepFinished:
		ev.StepName = e.StepName
	case *agui.TextMessageStart:
		ev.MessageID, ev.Role = e.MessageID, string(e.Role)
	case *agui.TextMessageContent:
		ev.MessageID = e.MessageID
	case *agui.TextMessageEnd:
		ev.MessageID = e.MessageID
	case *agui.ToolCallStart:
		ev.ToolCallID, ev.ToolCallName, ev.MessageID = e.ToolCallID, e.ToolCallName, e.ParentMessageID
	case *agui.ToolCallArgs:
		ev.ToolCallID = e.ToolCallID
	case *agui.ToolCallEnd:
		ev.ToolCallID = e.ToolCallID
	case *agui.ToolCallResult:
		ev.ToolCallID, ev.MessageID = e.ToolCallID, e.MessageID
	case *agui.Custom:
		ev.Name = e.Name
	case *agui.RunError:
		ev.Code = e.Code
	}
	for _, s := range []*string{&ev.Type, &ev.StepName, &ev.ToolCallName, &ev.Name, &ev.Code, &ev.MessageID, &ev.ToolCallID, &ev.Role} {
		*s = storable(*s)
	}
	return ev
}

// storable is s as a run record holds an id: UTF-8 without NULs, cut to
// store.MaxRunIDBytes on a character's boundary.
func storable(s string) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "\uFFFD")
	if len(s) <= store.MaxRunIDBytes {
		return s
	}
	cut := store.MaxRunIDBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
