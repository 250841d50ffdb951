package agui

import (
	"encoding/json"
	"maps"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember"
)

// Options configures how a fault becomes events: RunErrorFrom, EventsFrom
// and Writer.WriteError. A nil *Options is the zero value: no debug output,
// timestamps from time.Now, no text message. (A Writer itself is configured
// by WriterOptions.)
type Options struct {
	// Debug adds what only developers may see: metadata.debug (the fault's
	// Debug facet, redacted: Go type, cause text, extras) and seed 000's
	// error_type in metadata.details. Defaults to false, which emits
	// neither. Turn it on in development only.
	Debug bool

	// Now returns the time events are stamped with. Defaults to time.Now.
	Now func() time.Time

	// TextMessageID, when set, makes EventsFrom send a text message with
	// this id before RUN_ERROR: TEXT_MESSAGE_START (role assistant),
	// TEXT_MESSAGE_CONTENT and TEXT_MESSAGE_END, so that a client that does
	// not render RUN_ERROR still tells the user something. Defaults to ""
	// (no text message). Use an id unique in the thread: a client appends
	// to an existing message with the same id.
	TextMessageID string

	// Text is the text message's content. Defaults to the fault's Message,
	// which is safe for users.
	Text string
}

func (o *Options) now() time.Time {
	if o != nil && o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// RunErrorFrom returns the RUN_ERROR event for err, classified with
// fault.From (a *fault.Error anywhere in err's chain is used as it is):
//
//   - message is the fault's Message, which is safe for end users (an error
//     nothing recognises gets a generic one);
//   - code is the fault's code ("RATE_LIMITED");
//   - timestamp is opts.Now in milliseconds;
//   - metadata holds the rest of the fault's JSON (fault.Payload):
//     http_status, retryable, retry_after (whole seconds, rounded up, and
//     only when positive), session_valid, category, domain, details
//     (sanitized: no credentials, headers or stacks, at any depth), and
//     source and errors (invalid fields) when the fault has them; a detail
//     JSON cannot encode is left out, so that the error is always reported;
//   - with opts.Debug, metadata.debug holds the redacted Debug facet and
//     metadata.details.error_type the Go type of the cause (seed 000's
//     error_type). Without it, neither appears anywhere.
//
// Metadata values are plain JSON values (map[string]any, []any, string,
// bool, json.Number), as Parse returns them.
//
// The facets live in metadata because it is the only place the official
// client leaves alone: its enforcement stage strips every top-level member
// the schema does not describe (see the package documentation). A Go
// client gets the fault back with (*RunError).Fault, and a relay re-encodes
// an upstream's RUN_ERROR with RunErrorFrom(upstream.Fault(), opts), which
// sanitizes it again.
//
// RunErrorFrom returns nil for a nil error.
func RunErrorFrom(err error, opts *Options) *RunError {
	if err == nil {
		return nil
	}
	f := fault.From(err)
	debug := opts != nil && opts.Debug
	p := f.Payload(debug)
	details := encodable(p.Details)
	md := map[string]any{
		"http_status":   p.HTTPStatus,
		"retryable":     p.Retryable,
		"session_valid": p.SessionValid,
		"category":      p.Category,
		"domain":        p.Domain,
		"details":       details,
	}
	if p.RetryAfter > 0 {
		md["retry_after"] = p.RetryAfter
	}
	if p.Source != "" {
		md["source"] = p.Source
	}
	if len(p.Errors) > 0 {
		md["errors"] = p.Errors
	}
	if p.Debug != nil {
		d := *p.Debug
		if d.Extra = encodable(d.Extra); len(d.Extra) == 0 {
			d.Extra = nil
		}
		md["debug"] = d
		if d.ErrorType != "" {
			details["error_type"] = d.ErrorType
		}
	}
	// Metadata holds plain JSON values, as Parse returns them, so that an
	// event and its decoded copy are equal and encode identically.
	if v, err := jsonValue(md); err == nil {
		md = v.(map[string]any)
	}
	return &RunError{
		Message:   p.Message,
		Code:      string(p.Code),
		BaseEvent: BaseEvent{Timestamp: opts.now().UnixMilli(), Metadata: md},
	}
}

// encodable copies m without the values JSON cannot encode (a channel, a
// function, a cycle): a detail like that must not stop the error itself
// from being reported.
func encodable(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if _, err := json.Marshal(v); err == nil {
			out[k] = v
		}
	}
	return out
}

// jsonValue converts v to the plain JSON value Parse would produce for it.
func jsonValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeValue(b)
}

// EventsFrom returns the events that report err to an AG-UI 1.0 client:
// with opts.TextMessageID set, a text message carrying the safe text
// (TEXT_MESSAGE_START, TEXT_MESSAGE_CONTENT, TEXT_MESSAGE_END) for clients
// that do not render RUN_ERROR, then RUN_ERROR itself (see RunErrorFrom).
// Nothing follows RUN_ERROR: it ends the run, and a 1.0 client rejects any
// later event but a new RUN_STARTED, so the RUN_FINISHED that seed 000's
// bridge sent after it would fail the client's run.
//
// The text message belongs inside a run: send these events after
// RUN_STARTED. A failure before the run started is reported by RUN_ERROR
// alone, which 1.0 clients accept as a stream's first event
// (Writer.WriteError does this by itself).
//
// EventsFrom returns nil for a nil error.
func EventsFrom(err error, opts *Options) []Event {
	re := RunErrorFrom(err, opts)
	if re == nil {
		return nil
	}
	if opts == nil || opts.TextMessageID == "" {
		return []Event{re}
	}
	text := opts.Text
	if text == "" {
		text = re.Message
	}
	id, ts := opts.TextMessageID, BaseEvent{Timestamp: re.Timestamp}
	return []Event{
		&TextMessageStart{MessageID: id, Role: RoleAssistant, BaseEvent: ts},
		&TextMessageContent{MessageID: id, Delta: text, BaseEvent: ts},
		&TextMessageEnd{MessageID: id, BaseEvent: ts},
		re,
	}
}

// Fault rebuilds the fault a RUN_ERROR reports, from its code, message and
// metadata: the inverse of RunErrorFrom for a Go client. It never returns
// nil. Its Classification's Method is fault.MethodWire.
//
// When the code is one the code table knows (a Triage peer sent it), the
// message is the fault's Message (passed through fault.Redact; the code's
// default when empty): Rule "agui_code", confidence 1. Otherwise the
// message is not known to be safe for end users, so the fault's Message is
// its code's default and the peer's message goes, redacted, to
// Debug.Cause, as fault.ClassifyText does with foreign text. The code is
// then the event's own when it has one this version does not know (Rule
// "agui_unknown_code", confidence 0.5; "abort", which the official client
// sends when a run is aborted, is one), and AGENT_EXECUTION_ERROR for an
// event without a code (Rule "agui_no_code", confidence 0.3).
//
// Metadata written by RunErrorFrom overrides the code's defaults: the
// facets fault.(*Error).UnmarshalJSON reads, retry_after capped at
// fault.MaxRetryAfter. Metadata that is not of that shape (a facet of the
// wrong type, an unknown domain: another producer's metadata) is ignored
// as a whole; members it does not define are always ignored.
func (e *RunError) Fault() *fault.Error {
	code := fault.Code(e.Code)
	c := fault.Classification{Method: fault.MethodWire}
	switch {
	case code == "":
		code = fault.AgentExecutionError
		c.Rule, c.Confidence = "agui_no_code", 0.3
	case code.Known():
		c.Rule, c.Confidence = "agui_code", 1
	default:
		c.Rule, c.Confidence = "agui_unknown_code", 0.5
	}
	f := fromMetadata(code, e.Metadata)
	f.Classification = c
	if c.Rule == "agui_code" {
		if m := fault.Redact(e.Message); m != "" {
			f.Message = m
		}
	} else {
		f.Debug.Cause = jsonmember.PeerCause(e.Message, f.Debug.Cause)
	}
	return f
}

// fromMetadata returns the fault with the given code whose facets
// RunErrorFrom's metadata gives, or the code's defaults when the metadata is
// not of that shape.
func fromMetadata(code fault.Code, md map[string]any) *fault.Error {
	doc := make(map[string]any, len(md)+2)
	maps.Copy(doc, md)
	doc["code"], doc["message"] = code, ""
	f := new(fault.Error)
	if b, err := json.Marshal(doc); err != nil || json.Unmarshal(b, f) != nil {
		return fault.New(code, "")
	}
	return f
}
