package handler

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/triage-go/triage"
)

// TestHandleReportRedactsContext: a report built in code has its context
// redacted as a decoded one's, on a copy: no secret in it reaches the
// feedback or the logs, and the caller's report is not changed.
func TestHandleReportRedactsContext(t *testing.T) {
	r, err := triage.DecodeReport([]byte(validReport))
	if err != nil {
		t.Fatal(err)
	}
	r.Data.QueryID = "q_code"
	r.Data.Context = map[string]any{
		"checkpoint_id": "run_7f3a",
		"api_key":       "sk-proj-Canary0123456789abcdef",
		"note":          "retry with password=hunter2hunter2",
		"nested":        map[string]any{"aws": []any{"AKIAIOSFODNN7CANARY0"}, "trace": "boom\ngoroutine 7 [running]:\n/srv/app/main.go:42 +0x1d"},
	}
	var logs bytes.Buffer
	h := newHandler(t, Config{Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	fb, err := h.HandleReport(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(fb)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"sk-proj-Canary", "hunter2hunter2", "AKIAIOSFODNN7CANARY0", "/srv/app/main.go"} {
		if strings.Contains(string(out), secret) || strings.Contains(logs.String(), secret) {
			t.Errorf("%q leaked:\n%s\n%s", secret, out, logs.String())
		}
	}
	if fb.Context["checkpoint_id"] != "run_7f3a" || fb.ContextRef != "run_7f3a" {
		t.Errorf("context %v", fb.Context)
	}
	if r.Data.Context["api_key"] != "sk-proj-Canary0123456789abcdef" {
		t.Error("HandleReport changed the caller's report")
	}
}
