package present

import (
	"encoding/json"
	"strings"

	"github.com/triage-go/triage/internal/jsonmember"
)

// Op is a stream packet's operation code; it decides what the payload is.
type Op string

// The operations of CAP's StreamPacket.
const (
	OpDelta Op = "delta" // p is a string: a partial text chunk
	OpEvent Op = "event" // p is a presentation event (see Event)
	OpError Op = "error" // p is a StreamError: the stream failed
	OpClose Op = "close" // p is null: the stream ended
)

// Valid reports whether o is one of the four operations.
func (o Op) Valid() bool {
	switch o {
	case OpDelta, OpEvent, OpError, OpClose:
		return true
	}
	return false
}

// Packet is a CAP stream packet, {"op": …, "p": …}: one message of an
// agent's response stream. Exactly one payload field is used, the one Op
// selects; the others stay zero.
//
// StreamID and Seq are the optional "stream_id" and "seq" members that a
// later version of CAP adds for multiplexed, ordered streams. They are read
// when present and written when set; a packet without them is CAP 1.0's.
type Packet struct {
	Op Op
	// Delta is the text chunk of a delta packet (it may be empty).
	Delta string
	// Event is the presentation event of an event packet.
	Event *Event
	// Error is the stream error of an error packet.
	Error *StreamError
	// StreamID names the stream the packet belongs to; empty for none.
	StreamID string
	// Seq is the packet's position in its stream, from 0; nil for none.
	Seq *int64
}

// Severity says whether a stream that failed may be retried.
type Severity string

// The severities of a StreamError.
const (
	SeverityTransient Severity = "transient" // interrupted by a temporary issue: retry the stream, with backoff
	SeverityFatal     Severity = "fatal"     // dead: do not retry, report it
)

// StreamError is the payload of an error packet (CAP's StreamError): the
// stream itself failed, fatally or transiently. It is a system exception,
// not a notice; for a failure the agent survives, send a user_error event
// instead (see the package documentation).
type StreamError struct {
	// Code is machine-readable; errors from faults carry the Triage code
	// ("RATE_LIMITED"). Required.
	Code string
	// Message is human-readable.
	Message string
	// Severity is transient or fatal. Required.
	Severity Severity
	// Details is arbitrary, safe context ({"retry_after": 30}); nil is
	// written as null. A numeric retry_after in it is the retry delay in
	// whole seconds; decoding caps it at fault.MaxRetryAfter.
	Details map[string]any
}

// Error returns "stream error CODE (severity): message", so that a client
// can return a stream's error as a Go error.
func (e *StreamError) Error() string {
	return "stream error " + e.Code + " (" + string(e.Severity) + "): " + e.Message
}

// DeltaPacket returns a delta packet carrying a text chunk.
func DeltaPacket(text string) *Packet { return &Packet{Op: OpDelta, Delta: text} }

// EventPacket returns an event packet carrying a presentation event.
func EventPacket(e *Event) *Packet { return &Packet{Op: OpEvent, Event: e} }

// ErrorPacket returns an error packet carrying a stream error.
func ErrorPacket(e *StreamError) *Packet { return &Packet{Op: OpError, Error: e} }

// ClosePacket returns the close packet that ends a stream.
func ClosePacket() *Packet { return &Packet{Op: OpClose} }

// Validate checks a stream error: code is not empty and severity is
// transient or fatal. It returns a *ValidationError.
func (e *StreamError) Validate() error { return e.validate("") }

func (e *StreamError) validate(field string) error {
	if strings.TrimSpace(e.Code) == "" {
		return dec.Invalid(jsonmember.Path(field, "code"), "is required")
	}
	if e.Severity != SeverityTransient && e.Severity != SeverityFatal {
		return dec.Invalid(jsonmember.Path(field, "severity"), "unknown severity %q; allowed: transient, fatal", e.Severity)
	}
	return nil
}

// Validate checks a packet: Op is one of the four; the payload it selects
// is set and valid (an event or stream error); the other payloads are zero;
// Seq, when set, is not negative. It returns a *ValidationError.
func (p *Packet) Validate() error {
	if !p.Op.Valid() {
		return dec.Invalid("op", "unknown op %q; allowed: delta, event, error, close", p.Op)
	}
	if p.Seq != nil && (*p.Seq < 0 || *p.Seq > jsonmember.MaxSafeInteger) {
		return dec.Invalid("seq", "%d out of range 0-%d", *p.Seq, int64(jsonmember.MaxSafeInteger))
	}
	if p.Delta != "" && p.Op != OpDelta {
		return dec.Invalid("p", "op %s carries no text", p.Op)
	}
	if p.Event != nil && p.Op != OpEvent {
		return dec.Invalid("p", "op %s carries no event", p.Op)
	}
	if p.Error != nil && p.Op != OpError {
		return dec.Invalid("p", "op %s carries no stream error", p.Op)
	}
	switch p.Op {
	case OpEvent:
		if p.Event == nil {
			return dec.Invalid("p", "an event packet needs an event")
		}
		return p.Event.validate("p")
	case OpError:
		if p.Error == nil {
			return dec.Invalid("p", "an error packet needs a stream error")
		}
		return p.Error.validate("p")
	}
	return nil
}

// MarshalJSON encodes the stream error; nil Details are null. It fails with
// a *ValidationError for a stream error Validate rejects.
func (e StreamError) MarshalJSON() ([]byte, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		Code     string         `json:"code"`
		Message  string         `json:"message"`
		Severity Severity       `json:"severity"`
		Details  map[string]any `json:"details"`
	}{e.Code, e.Message, e.Severity, e.Details})
}

// MarshalJSON encodes the packet as {"op", "p"}, followed by "stream_id"
// and "seq" when they are set. It fails with a *ValidationError for a
// packet Validate rejects.
func (p Packet) MarshalJSON() ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	var payload any
	switch p.Op {
	case OpDelta:
		payload = p.Delta
	case OpEvent:
		payload = p.Event
	case OpError:
		payload = p.Error
	}
	return json.Marshal(struct {
		Op       Op     `json:"op"`
		P        any    `json:"p"`
		StreamID string `json:"stream_id,omitempty"`
		Seq      *int64 `json:"seq,omitempty"`
	}{p.Op, payload, p.StreamID, p.Seq})
}

// ParsePacket decodes a stream packet. It fails with a *ValidationError
// when the document is not a JSON object; when op is missing or not one of
// delta, event, error and close; when p does not have the type the op
// requires (a string for delta, a presentation event object for event, a
// stream error object for error, null or absent for close) or is not valid
// (see ParseEvent and ParseStreamError); when stream_id is present but not
// a string; or when seq is present but not a non-negative integer. Null is
// the same as absent for stream_id and seq; other members are ignored.
func ParsePacket(data []byte) (*Packet, error) {
	p := new(Packet)
	if err := p.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	return p, nil
}

// UnmarshalJSON decodes a packet as ParsePacket does.
func (p *Packet) UnmarshalJSON(data []byte) error {
	m, err := dec.Object(data, "")
	if err != nil {
		return err
	}
	raw, ok := m["op"]
	if !ok {
		return dec.Invalid("op", "is required")
	}
	op, err := dec.String(raw, "op")
	if err != nil {
		return err
	}
	out := Packet{Op: Op(op)}
	if !out.Op.Valid() {
		return dec.Invalid("op", "unknown op %q; allowed: delta, event, error, close", op)
	}
	raw, ok = m["p"]
	switch out.Op {
	case OpDelta:
		if !ok {
			return dec.Invalid("p", "is required")
		}
		if k := jsonmember.Kind(raw); k != "string" {
			return dec.Invalid("p", "a delta packet carries a string, got %s", k)
		}
		if out.Delta, err = dec.String(raw, "p"); err != nil {
			return err
		}
	case OpEvent:
		if !ok {
			return dec.Invalid("p", "is required")
		}
		if k := jsonmember.Kind(raw); k != "object" {
			return dec.Invalid("p", "an event packet carries a presentation event object, got %s", k)
		}
		out.Event = new(Event)
		if err := out.Event.decode(raw, "p"); err != nil {
			return err
		}
	case OpError:
		if !ok {
			return dec.Invalid("p", "is required")
		}
		if k := jsonmember.Kind(raw); k != "object" {
			return dec.Invalid("p", "an error packet carries a stream error object, got %s", k)
		}
		out.Error = new(StreamError)
		if err := out.Error.decode(raw, "p"); err != nil {
			return err
		}
	case OpClose:
		if !jsonmember.IsNull(raw) {
			return dec.Invalid("p", "a close packet carries null, got %s", jsonmember.Kind(raw))
		}
	}
	if raw := m["stream_id"]; !jsonmember.IsNull(raw) {
		if out.StreamID, err = dec.String(raw, "stream_id"); err != nil {
			return err
		}
	}
	if raw := m["seq"]; !jsonmember.IsNull(raw) {
		n, err := dec.Int(raw, "seq")
		if err != nil {
			return err
		}
		if n < 0 {
			return dec.Invalid("seq", "%d out of range 0-%d", n, int64(jsonmember.MaxSafeInteger))
		}
		out.Seq = &n
	}
	*p = out
	return nil
}

// ParseStreamError decodes the payload of an error packet. It fails with a
// *ValidationError when the document is not a JSON object; when code is
// missing, not a string or empty; when message is missing or not a string;
// when severity is missing or not transient or fatal; or when details is
// present but not an object. Null details are the same as absent.
//
// A numeric details.retry_after is read as every delay Triage parses: a
// fraction rounds up to whole seconds, more than fault.MaxRetryAfter (86400
// seconds) is 86400, and a negative one is 0. A retry_after of another type
// is an arbitrary detail, kept as it is.
func ParseStreamError(data []byte) (*StreamError, error) {
	e := new(StreamError)
	if err := e.decode(data, ""); err != nil {
		return nil, err
	}
	return e, nil
}

// UnmarshalJSON decodes a stream error as ParseStreamError does.
func (e *StreamError) UnmarshalJSON(data []byte) error { return e.decode(data, "") }

func (e *StreamError) decode(data []byte, field string) error {
	m, err := dec.Object(data, field)
	if err != nil {
		return err
	}
	var out StreamError
	for _, s := range []struct {
		name string
		dst  *string
	}{{"code", &out.Code}, {"message", &out.Message}} {
		raw, ok := m[s.name]
		if !ok {
			return dec.Invalid(jsonmember.Path(field, s.name), "is required")
		}
		if *s.dst, err = dec.String(raw, jsonmember.Path(field, s.name)); err != nil {
			return err
		}
	}
	raw, ok := m["severity"]
	if !ok {
		return dec.Invalid(jsonmember.Path(field, "severity"), "is required")
	}
	sev, err := dec.String(raw, jsonmember.Path(field, "severity"))
	if err != nil {
		return err
	}
	out.Severity = Severity(sev)
	if out.Details, err = dec.Details(m["details"], jsonmember.Path(field, "details")); err != nil {
		return err
	}
	if n, ok := out.Details["retry_after"].(float64); ok {
		out.Details["retry_after"] = float64(retryAfterSeconds(max(n, 0)))
	}
	if err := out.validate(field); err != nil {
		return err
	}
	*e = out
	return nil
}
