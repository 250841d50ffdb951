package client_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"encoding/json"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/fault"
	triageserver "github.com/triage-go/triage/server"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
)

// TestAgainstTheService runs the client against the real service (package
// server on SQLite), not a stand-in.
func TestAgainstTheService(t *testing.T) {
	hs, _ := startService(t)
	const key = serviceKey
	c, err := client.New(hs.URL, client.Config{APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 8, 8, 12, 20, 5, 0, time.UTC)
	report := &triage.Report{AgentID: "query_engine", Timestamp: at, Data: triage.Data{
		ErrorType: triage.QueryError, ErrorCode: "DB_TIMEOUT", Message: "Query timed out after 30s", QueryID: "q_456",
		Context: map[string]any{"metric": "sales", "row_count": 48_000_000}}}
	fb, err := c.Report(t.Context(), report, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fb.Duplicate || fb.NextAction != triage.Resume || fb.RootCause.Cause != "scope" {
		t.Errorf("feedback: %+v", fb)
	}
	again, err := c.Report(t.Context(), report, nil)
	if err != nil || !again.Duplicate || again.ErrorID != fb.ErrorID {
		t.Errorf("the same report again: %+v %v", again, err)
	}
	rec, err := c.Get(t.Context(), fb.ErrorID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	var latest triage.Feedback
	if err := json.Unmarshal(rec.Feedback, &latest); err != nil || rec.ErrorID != fb.ErrorID || rec.Count != 1 ||
		len(rec.Occurrences) != 1 || latest.NextAction != triage.Resume {
		t.Errorf("Get: %+v (feedback %+v, %v)", rec, latest, err)
	}

	// An invalid report: a 422 with the field errors, not retried.
	_, err = c.Report(t.Context(), &triage.Report{AgentID: "query engine", Data: triage.Data{Message: "x"}}, nil)
	f, ok := fault.As(err)
	if !ok || f.Code != fault.InvalidRequest || f.HTTPStatus() != 422 || len(f.FieldErrors) == 0 {
		t.Fatalf("invalid report: %v", err)
	}
	// A wrong key: 403, not retried.
	bad, _ := client.New(hs.URL, client.Config{APIKey: "not-the-key-0123456789"})
	if _, err := bad.Report(t.Context(), report, nil); fault.CodeOf(err) != fault.TenantUnauthorized {
		t.Errorf("wrong key: %v", err)
	}
}

// serviceKey is tenant acme's key on the service startService runs.
const serviceKey = "agent-key-0123456789abcdef"

// startService runs the real service (package server on a fresh SQLite
// store) for the test, and returns its test server and its store.
func startService(t *testing.T) (*httptest.Server, store.Store) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv, err := triageserver.New(triageserver.Config{Store: st, APIKeys: map[string]string{serviceKey: "acme"}, JobPoll: -1,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs, st
}
