package service

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// FuzzJobPayload: whatever a job's stored payload holds, decodePayload
// either fails the job for good (store.ErrPermanent) or reads a value whose
// JSON reads back to the same JSON, for both kinds of job.
func FuzzJobPayload(f *testing.F) {
	f.Add([]byte(`{"agent_id":"sql_agent","query_id":"q_1","error_id":"err_1","attempt":2,"delay_seconds":4}`))
	f.Add([]byte(`{"error_id":"err_1","agent_id":"sql_agent","reason":"persistent","attempt":3,"at":"2025-08-08T12:30:00Z"}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		checkPayload[triage.RetryJob](t, "a retry", payload)
		checkPayload[triage.Escalation](t, "an escalation", payload)
	})
}

func checkPayload[T any](t *testing.T, what string, payload []byte) {
	v, err := decodePayload[T](what, payload)
	if err != nil {
		if !errors.Is(err, store.ErrPermanent) {
			t.Fatalf("%s: %v does not fail the job for good", what, err)
		}
		return
	}
	first, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %+v does not encode: %v", what, v, err)
	}
	again, err := decodePayload[T](what, first)
	if err != nil {
		t.Fatalf("%s: its own JSON %s does not read back: %v", what, first, err)
	}
	second, _ := json.Marshal(again)
	if !bytes.Equal(first, second) {
		t.Fatalf("%s: %s reads back as %s", what, first, second)
	}
}
