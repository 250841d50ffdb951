package present

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/testkit/golden"
)

// TestGolden pins the wire shapes that docs/jsonrpc-present.md shows.
func TestGolden(t *testing.T) {
	t.Parallel()
	defaults, err := NewUserErrorEvent(NewUserError("Something went wrong while formatting the answer."), fixed)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file string
		v    any
	}{
		{"user_error_defaults.json", EventPacket(defaults)},
		{"user_error_fault.json", EventPacket(EventFrom(fault.New(fault.UpstreamError,
			"The search tool is currently unavailable. Please try again later.",
			fault.WithStatus(503), fault.WithRetryable(true), fault.WithDetail("tool", "search")), fixed))},
		{"user_error_retry_after.json", EventPacket(EventFrom(fault.New(fault.RateLimited,
			"The model is busy. Please try again in a minute.", fault.WithRetryAfter(59500*time.Millisecond)), fixed))},
		{"stream_error_transient.json", ErrorPacket(StreamErrorFrom(fault.New(fault.RateLimited,
			"Too many requests", fault.WithRetryAfter(60*time.Second), fault.WithDetail("providerId", "anthropic"))))},
		{"stream_error_fatal.json", ErrorPacket(StreamErrorFrom(fault.New(fault.ProviderAuthFailed,
			"Incorrect API key provided", fault.WithDetail("providerId", "openai"))))},
		{"delta.json", DeltaPacket("The")},
		{"close.json", ClosePacket()},
		{"stream_id_seq.json", &Packet{Op: OpDelta, Delta: "token", StreamID: "run-9", Seq: seq(3)}},
		{"other_event.json", EventPacket(&Event{ID: fixedID, Timestamp: fixedTime, Type: "progress_indicator",
			Data: json.RawMessage(`{"label":"Analyzing documents...","status":"running","progress_percent":0.45}`)})},
		{"secrets_stream_error.json", ErrorPacket(StreamErrorFrom(leakyFault()))},
		{"secrets_user_error.json", EventPacket(EventFrom(leakyFault(), fixed))},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			golden.Check(t, tt.file, golden.Indent(t, tt.v))
		})
	}
}

// TestGoldenCodes pins, for every code in the table, the user_error event
// packet and the stream error packet of a fault with that code, one per
// line.
func TestGoldenCodes(t *testing.T) {
	t.Parallel()
	var events, errs bytes.Buffer
	for _, spec := range fault.Codes() {
		f := fault.New(spec.Code, "")
		events.Write(golden.Marshal(t, EventPacket(EventFrom(f, fixed))))
		events.WriteByte('\n')
		errs.Write(golden.Marshal(t, ErrorPacket(StreamErrorFrom(f))))
		errs.WriteByte('\n')
	}
	golden.Check(t, "codes_user_error.jsonl", events.Bytes())
	golden.Check(t, "codes_stream_error.jsonl", errs.Bytes())
}
