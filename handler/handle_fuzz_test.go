package handler

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// handleSecret is a secret the process knows (fault.RegisterSecret),
// which a report may carry anywhere.
const handleSecret = "handle-secret-5be0c3d1a7"

// FuzzHandle runs any report through the whole pipeline, default policy
// and all, as triage handle and the service do: what classify, the root
// cause analysis (dates, numbers and lists read from the context) and the
// policy make of a report's text and context. A report DecodeReport
// refuses is INVALID_REQUEST; any other gets feedback with an error_id,
// valid type, severity and next action, confidences in [0, 1], a message
// on one line, and no secret. Seeds: testdata/fuzz/FuzzHandle.
func FuzzHandle(f *testing.F) {
	fault.RegisterSecret(handleSecret)
	f.Fuzz(func(t *testing.T, raw []byte) {
		h := newHandler(t, Config{}) // a fresh state: no report is a duplicate
		fb, err := h.Handle(context.Background(), raw)
		if _, derr := triage.DecodeReport(raw); (derr != nil) != (err != nil) {
			t.Fatalf("DecodeReport: %v; Handle: %v", derr, err)
		}
		if err != nil {
			if fault.CodeOf(err) != fault.InvalidRequest {
				t.Fatalf("refused with %v", err)
			}
			return
		}
		if fb.ErrorID == "" || !fb.ErrorType.Valid() || !fb.Severity.Valid() || !fb.NextAction.Valid() || fb.Attempt < 1 ||
			fb.Confidence < 0 || fb.Confidence > 1 || fb.RootCause.Confidence < 0 || fb.RootCause.Confidence > 1 {
			t.Fatalf("feedback %+v", fb)
		}
		if fb.UserMessage == "" || strings.Join(strings.Fields(fb.UserMessage), " ") != fb.UserMessage {
			t.Fatalf("user message %q", fb.UserMessage)
		}
		out, err := json.Marshal(fb)
		if err != nil {
			t.Fatalf("the feedback does not encode: %v", err)
		}
		if strings.Contains(string(out), handleSecret) {
			t.Fatalf("the secret is in the feedback: %s", out)
		}
	})
}
