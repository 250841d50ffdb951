package present

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember/jsonmembertest"
	"github.com/triage-go/triage/internal/testkit/golden"
)

// FuzzParsePacket feeds stream packets (seeds in
// testdata/fuzz/FuzzParsePacket) to ParsePacket. It may not panic; every
// failure is a *ValidationError; whatever parses is valid, has its retry
// delays capped, marshals, parses again to an equal packet and marshals to
// the same bytes.
func FuzzParsePacket(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePacket(data)
		jsonmembertest.NilOrInvalid(t, err)
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("ParsePacket accepted an invalid packet: %v", err)
		}
		if p.Error != nil {
			if n, ok := p.Error.Details["retry_after"].(float64); ok && (n < 0 || n > fault.MaxRetryAfter.Seconds()) {
				t.Fatalf("details.retry_after %v out of range", n)
			}
		}
		if p.Event != nil && p.Event.UserError != nil {
			checkRetryAfter(t, p.Event.UserError)
		}
		b1, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("Marshal(%+v): %v", p, err)
		}
		p2, err := ParsePacket(b1)
		if err != nil {
			t.Fatalf("ParsePacket(%s) after Marshal: %v", b1, err)
		}
		if !samePacket(p, p2) {
			t.Fatalf("round trip changed the packet: %+v → %+v", p, p2)
		}
		if b2, err := json.Marshal(p2); err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("Marshal is not stable: %s → %s (%v)", b1, b2, err)
		}
	})
}

// FuzzParseEvent feeds presentation events (seeds in
// testdata/fuzz/FuzzParseEvent) to ParseEvent, with the same invariants as
// FuzzParsePacket, and checks that a user_error's data is valid on its own.
func FuzzParseEvent(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseEvent(data)
		jsonmembertest.NilOrInvalid(t, err)
		if err != nil {
			return
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("ParseEvent accepted an invalid event: %v", err)
		}
		if e.UserError != nil {
			if err := e.UserError.Validate(); err != nil {
				t.Fatalf("ParseEvent accepted invalid user_error data: %v", err)
			}
			checkRetryAfter(t, e.UserError)
		}
		b1, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("Marshal(%+v): %v", e, err)
		}
		e2, err := ParseEvent(b1)
		if err != nil {
			t.Fatalf("ParseEvent(%s) after Marshal: %v", b1, err)
		}
		if !sameEvent(e, e2) {
			t.Fatalf("round trip changed the event: %+v → %+v", e, e2)
		}
		if b2, err := json.Marshal(e2); err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("Marshal is not stable: %s → %s (%v)", b1, b2, err)
		}
		// The event travels in a packet just the same.
		if _, err := ParsePacket(golden.Marshal(t, EventPacket(e))); err != nil {
			t.Fatalf("the event does not travel in a packet: %v", err)
		}
	})
}

// checkRetryAfter checks that a parsed user_error's delay is within the cap.
func checkRetryAfter(t *testing.T, u *UserError) {
	t.Helper()
	if u.RetryAfter < 0 || u.RetryAfter > fault.Seconds(fault.MaxRetryAfter) {
		t.Fatalf("user_error retry_after %d out of range", u.RetryAfter)
	}
}
