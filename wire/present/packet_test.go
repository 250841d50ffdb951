package present

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember/jsonmembertest"
	"github.com/triage-go/triage/internal/testkit/golden"
)

func seq(n int64) *int64 { return &n }

// TestPacketOps writes a packet of every op and reads it back.
func TestPacketOps(t *testing.T) {
	t.Parallel()
	ev, err := NewUserErrorEvent(UserError{Message: "The search tool is unavailable.", Code: 503, Domain: fault.DomainTool, Retryable: true}, fixed)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		packet *Packet
		want   string
	}{
		{"Delta", DeltaPacket("The"), `{"op":"delta","p":"The"}`},
		{"EmptyDelta", DeltaPacket(""), `{"op":"delta","p":""}`},
		{"Event", EventPacket(ev), `{"op":"event","p":{"id":"6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab","timestamp":"2025-05-20T10:00:00Z","type":"user_error","data":{"message":"The search tool is unavailable.","code":503,"domain":"tool","retryable":true}}}`},
		{"OtherEvent", EventPacket(&Event{ID: fixedID, Timestamp: fixedTime, Type: "markdown_block", Data: json.RawMessage(`{"content":"hi"}`)}),
			`{"op":"event","p":{"id":"6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab","timestamp":"2025-05-20T10:00:00Z","type":"markdown_block","data":{"content":"hi"}}}`},
		{"Error", ErrorPacket(&StreamError{Code: "RATE_LIMITED", Message: "Too many requests", Severity: SeverityTransient, Details: map[string]any{"retry_after": 60}}),
			`{"op":"error","p":{"code":"RATE_LIMITED","message":"Too many requests","severity":"transient","details":{"retry_after":60}}}`},
		{"ErrorNullDetails", ErrorPacket(&StreamError{Code: "INTERNAL_ERROR", Message: "Internal error.", Severity: SeverityFatal}),
			`{"op":"error","p":{"code":"INTERNAL_ERROR","message":"Internal error.","severity":"fatal","details":null}}`},
		{"Close", ClosePacket(), `{"op":"close","p":null}`},
		{"StreamIDAndSeq", &Packet{Op: OpDelta, Delta: "token", StreamID: "run-9", Seq: seq(0)}, `{"op":"delta","p":"token","stream_id":"run-9","seq":0}`},
		{"SeqOnly", &Packet{Op: OpClose, Seq: seq(41)}, `{"op":"close","p":null,"seq":41}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tt.packet)
			if err != nil || string(b) != tt.want {
				t.Fatalf("Marshal = %s, %v\nwant %s", b, err, tt.want)
			}
			got, err := ParsePacket(b)
			if err != nil {
				t.Fatal(err)
			}
			if !samePacket(got, tt.packet) {
				t.Errorf("ParsePacket = %+v, want %+v", got, tt.packet)
			}
		})
	}
}

func TestParsePacket(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Packet
	}{
		{"CloseWithoutP", `{"op":"close"}`, Packet{Op: OpClose}},
		{"NullStreamIDAndSeq", `{"op":"delta","p":"x","stream_id":null,"seq":null}`, Packet{Op: OpDelta, Delta: "x"}},
		{"IntegralFloatSeq", `{"op":"delta","p":"x","seq":7.0}`, Packet{Op: OpDelta, Delta: "x", Seq: seq(7)}},
		{"UnknownMembersIgnored", `{"op":"delta","p":"x","ts":123}`, Packet{Op: OpDelta, Delta: "x"}},
		{"WireProtocolError", `{"op":"error","p":{"code":"rate_limit_exceeded","message":"Too many requests","severity":"transient","details":{"retry_after":60}}}`,
			Packet{Op: OpError, Error: &StreamError{Code: "rate_limit_exceeded", Message: "Too many requests", Severity: SeverityTransient, Details: map[string]any{"retry_after": float64(60)}}}},
		{"StreamErrorWithoutDetails", `{"op":"error","p":{"code":"X","message":"","severity":"fatal"}}`,
			Packet{Op: OpError, Error: &StreamError{Code: "X", Severity: SeverityFatal}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParsePacket([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !samePacket(got, &tt.want) {
				t.Errorf("ParsePacket = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParsePacketInvalid(t *testing.T) {
	t.Parallel()
	const ev = `{"id":"6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab","timestamp":"2025-05-20T10:00:00Z","type":"user_error","data":{"message":"x"}}`
	tests := []struct {
		name   string
		in     string
		field  string
		reason string
	}{
		{"NotJSON", `{"op":"delta","p":"x"`, "", "invalid JSON"},
		{"NotObject", `"delta"`, "", "must be an object, got string"},
		{"MissingOp", `{"p":"x"}`, "op", "is required"},
		{"OpNotString", `{"op":1,"p":"x"}`, "op", "must be a string, got number"},
		{"UnknownOp", `{"op":"ping","p":null}`, "op", `unknown op "ping"; allowed: delta, event, error, close`},
		{"OpIsCaseSensitive", `{"op":"DELTA","p":"x"}`, "op", "unknown op"},
		{"DeltaWithoutP", `{"op":"delta"}`, "p", "is required"},
		{"DeltaNumber", `{"op":"delta","p":42}`, "p", "a delta packet carries a string, got number"},
		{"DeltaNull", `{"op":"delta","p":null}`, "p", "a delta packet carries a string, got null"},
		{"DeltaObject", `{"op":"delta","p":{"text":"x"}}`, "p", "got object"},
		{"EventWithoutP", `{"op":"event"}`, "p", "is required"},
		{"EventString", `{"op":"event","p":"user_error"}`, "p", "an event packet carries a presentation event object, got string"},
		{"EventInvalid", `{"op":"event","p":{"type":"user_error"}}`, "p.id", "is required"},
		{"EventBadDomain", `{"op":"event","p":` + ev[:len(ev)-2] + `,"domain":"moon"}}}`, "p.data.domain", `unknown domain "moon"`},
		{"EventBadTimestamp", `{"op":"event","p":{"id":"6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab","timestamp":"now","type":"x","data":1}}`, "p.timestamp", "RFC 3339"},
		{"ErrorWithoutP", `{"op":"error"}`, "p", "is required"},
		{"ErrorString", `{"op":"error","p":"Error: Rate limit exceeded"}`, "p", "an error packet carries a stream error object, got string"},
		{"ErrorNoCode", `{"op":"error","p":{"message":"m","severity":"fatal"}}`, "p.code", "is required"},
		{"ErrorEmptyCode", `{"op":"error","p":{"code":" ","message":"m","severity":"fatal"}}`, "p.code", "is required"},
		{"ErrorCodeNumber", `{"op":"error","p":{"code":503,"message":"m","severity":"fatal"}}`, "p.code", "must be a string, got number"},
		{"ErrorNoMessage", `{"op":"error","p":{"code":"X","severity":"fatal"}}`, "p.message", "is required"},
		{"ErrorNoSeverity", `{"op":"error","p":{"code":"X","message":"m"}}`, "p.severity", "is required"},
		{"ErrorWarning", `{"op":"error","p":{"code":"X","message":"m","severity":"warning"}}`, "p.severity", `unknown severity "warning"; allowed: transient, fatal`},
		{"ErrorDetailsArray", `{"op":"error","p":{"code":"X","message":"m","severity":"fatal","details":[1]}}`, "p.details", "must be an object, got array"},
		{"CloseWithPayload", `{"op":"close","p":"bye"}`, "p", "a close packet carries null, got string"},
		{"CloseWithObject", `{"op":"close","p":{}}`, "p", "got object"},
		{"StreamIDNumber", `{"op":"delta","p":"x","stream_id":7}`, "stream_id", "must be a string, got number"},
		{"SeqNegative", `{"op":"delta","p":"x","seq":-1}`, "seq", "-1 out of range"},
		{"SeqFraction", `{"op":"delta","p":"x","seq":1.5}`, "seq", "must be an integer"},
		{"SeqString", `{"op":"delta","p":"x","seq":"1"}`, "seq", "must be an integer, got string"},
		{"SeqHuge", `{"op":"delta","p":"x","seq":9007199254740992}`, "seq", "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParsePacket([]byte(tt.in))
			if got != nil {
				t.Errorf("ParsePacket = %+v, want nil", got)
			}
			jsonmembertest.WantInvalid(t, err, tt.field, tt.reason)
		})
	}
}

func TestPacketValidate(t *testing.T) {
	t.Parallel()
	ev := &Event{ID: fixedID, Timestamp: fixedTime, Type: "thought_trace", Data: json.RawMessage(`{}`)}
	se := &StreamError{Code: "X", Message: "m", Severity: SeverityFatal}
	tests := []struct {
		name   string
		p      Packet
		field  string
		reason string
	}{
		{"NoOp", Packet{}, "op", `unknown op ""`},
		{"EventWithoutEvent", Packet{Op: OpEvent}, "p", "needs an event"},
		{"ErrorWithoutError", Packet{Op: OpError}, "p", "needs a stream error"},
		{"DeltaWithEvent", Packet{Op: OpDelta, Delta: "x", Event: ev}, "p", "op delta carries no event"},
		{"CloseWithText", Packet{Op: OpClose, Delta: "x"}, "p", "op close carries no text"},
		{"EventWithError", Packet{Op: OpEvent, Event: ev, Error: se}, "p", "op event carries no stream error"},
		{"InvalidEvent", Packet{Op: OpEvent, Event: &Event{ID: "x"}}, "p.id", "must be a UUID"},
		{"InvalidError", Packet{Op: OpError, Error: &StreamError{Code: "X", Severity: "bad"}}, "p.severity", "unknown severity"},
		{"NegativeSeq", Packet{Op: OpClose, Seq: seq(-2)}, "seq", "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			jsonmembertest.WantInvalid(t, tt.p.Validate(), tt.field, tt.reason)
			if b, err := json.Marshal(tt.p); err == nil {
				t.Errorf("Marshal = %s, want an error", b)
			}
		})
	}
}

func TestStreamErrorError(t *testing.T) {
	t.Parallel()
	e := &StreamError{Code: "TIMEOUT", Message: "Request timed out.", Severity: SeverityTransient}
	if got, want := e.Error(), "stream error TIMEOUT (transient): Request timed out."; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	got, err := ParseStreamError(golden.Marshal(t, e))
	if err != nil || !reflect.DeepEqual(got, e) {
		t.Errorf("ParseStreamError = %+v, %v", got, err)
	}
	if _, err := ParseStreamError([]byte(`{"code":"X","message":"m","severity":"fatal","details":"x"}`)); err == nil {
		t.Error("ParseStreamError accepted string details")
	}
}

// samePacket compares packets as values.
func samePacket(a, b *Packet) bool {
	if a.Op != b.Op || a.Delta != b.Delta || a.StreamID != b.StreamID || (a.Seq == nil) != (b.Seq == nil) ||
		(a.Seq != nil && *a.Seq != *b.Seq) {
		return false
	}
	if (a.Event == nil) != (b.Event == nil) || (a.Event != nil && !sameEvent(a.Event, b.Event)) {
		return false
	}
	if (a.Error == nil) != (b.Error == nil) {
		return false
	}
	return a.Error == nil || (a.Error.Code == b.Error.Code && a.Error.Message == b.Error.Message &&
		a.Error.Severity == b.Error.Severity && golden.SameJSON(mustJSON(a.Error.Details), mustJSON(b.Error.Details)))
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
