package sqlite_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
)

func Example() {
	s, closeStore := openStore(store.Config{})
	defer closeStore()
	ctx := context.Background()

	acme := s.Tenant("acme")
	for _, key := range []string{"delivery-1", "delivery-2", "delivery-2"} { // the last is a duplicate
		saved, err := acme.SaveOccurrence(ctx, store.Occurrence{
			DeliveryKey: key,
			ErrorID:     "err_5f2c",
			QueryID:     "q-42",
			AgentID:     "sql_agent",
			ErrorType:   "schema_error",
			Severity:    "high",
			NextAction:  "resume",
			Report:      json.RawMessage(`{"agent_id":"sql_agent","status":"error"}`),
			Feedback:    json.RawMessage(`{"error_id":"err_5f2c","next_action":"resume"}`),
		})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(key, "saved as occurrence", saved.ID) // 0: saved already
	}
	r, _, err := acme.ErrorRecord(ctx, "err_5f2c")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.ErrorID, r.Count, len(r.Occurrences))

	_, found, err := s.Tenant("globex").ErrorRecord(ctx, "err_5f2c")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("another tenant sees it:", found)
	// Output:
	// delivery-1 saved as occurrence 1
	// delivery-2 saved as occurrence 2
	// delivery-2 saved as occurrence 0
	// err_5f2c 2 2
	// another tenant sees it: false
}

// A job saved with its occurrence runs on River, on whichever instance
// shares the database, with the trace context it was enqueued in.
func Example_jobs() {
	s, closeStore := openStore(store.Config{})
	defer closeStore()
	ctx := context.Background()

	_, err := s.Tenant("acme").SaveOccurrence(ctx, store.Occurrence{
		DeliveryKey: "delivery-1", ErrorID: "err_5f2c", QueryID: "q-42", AgentID: "sql_agent",
		ErrorType: "schema_error", Severity: "high", NextAction: "escalate",
		Report:   json.RawMessage(`{"agent_id":"sql_agent","status":"error"}`),
		Feedback: json.RawMessage(`{"error_id":"err_5f2c","next_action":"escalate"}`),
		Jobs: []store.NewJob{{Kind: store.JobEscalation, ErrorID: "err_5f2c",
			Payload: json.RawMessage(`{"reason":"persistent"}`),
			Trace:   map[string]string{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(ctx)
	err = s.Jobs().Work(ctx, func(_ context.Context, j store.Job) error {
		fmt.Println(j.Tenant, j.Kind, j.ErrorID, "attempt", j.Attempt, string(j.Payload))
		fmt.Println("trace:", j.Trace["traceparent"])
		stop() // one job is enough here; a service works until it stops
		return nil
	}, store.WorkOptions{Poll: 20 * time.Millisecond})
	fmt.Println("stopped:", err)
	// Output:
	// acme escalation err_5f2c attempt 1 {"reason":"persistent"}
	// trace: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
	// stopped: <nil>
}

// openStore opens a store in a temporary directory; closeStore closes it
// and removes the directory.
// The record of an MCP session, opened and ended (by the service's /mcp,
// which counts its tool calls), and the records its failed calls became:
// the occurrences whose report names it (data.context.session_id),
// received while it was open.
func Example_sessions() {
	now := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	s, closeStore := openStore(store.Config{Now: func() time.Time { return now }})
	defer closeStore()
	ctx := context.Background()

	acme := s.Tenant("acme")
	if _, err := acme.OpenSession(ctx, store.MCPSession{SessionID: "mcp-7f3a", ClientName: "claude-code",
		ClientVersion: "2.1.0", ProtocolVersion: "2025-06-18"}); err != nil {
		log.Fatal(err)
	}
	now = now.Add(2 * time.Minute) // a tool call fails, and is reported
	if _, err := acme.SaveOccurrence(ctx, store.Occurrence{
		DeliveryKey: "triage-mcp-1", ErrorID: "err_91d0", QueryID: "mcp:sessions_prompt", AgentID: "planner",
		ErrorType: "system_error", Severity: "high", NextAction: "escalate",
		Report: json.RawMessage(`{"agent_id":"planner","data":{"message":"boom","context":{"door":"mcp","session_id":"mcp-7f3a"}}}`),
	}); err != nil {
		log.Fatal(err)
	}
	now = now.Add(3 * time.Minute) // the client closes the session
	if _, err := acme.EndSession(ctx, store.MCPSession{SessionID: "mcp-7f3a", Outcome: store.SessionClosed, Calls: 4, FailedCalls: 1}); err != nil {
		log.Fatal(err)
	}

	m, found, err := acme.GetSession(ctx, "mcp-7f3a")
	if err != nil || !found {
		log.Fatal(found, err)
	}
	fmt.Println(m.SessionID, m.ClientName, m.Outcome, m.Calls, m.FailedCalls, m.EndedAt.Sub(m.OpenedAt))
	page, err := acme.ListSessions(ctx, store.SessionFilter{Outcome: store.SessionClosed})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("closed sessions:", len(page.Sessions))
	records, err := acme.ErrorRecords(ctx, store.Filter{SessionID: "mcp-7f3a"})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range records.Records {
		fmt.Println("its failure:", r.ErrorID, r.AgentID)
	}
	_, err = acme.EndSession(ctx, store.MCPSession{SessionID: "mcp-7f3a", Outcome: store.SessionExpired})
	fmt.Println("ended again:", errors.Is(err, store.ErrSessionEnded))
	_, found, err = s.Tenant("globex").GetSession(ctx, "mcp-7f3a")
	fmt.Println("another tenant sees it:", found, err)
	// Output:
	// mcp-7f3a claude-code closed 4 1 5m0s
	// closed sessions: 1
	// its failure: err_91d0 planner
	// ended again: true
	// another tenant sees it: false <nil>
}

func openStore(cfg store.Config) (s *sqlite.Store, closeStore func()) {
	dir, err := os.MkdirTemp("", "triage")
	if err != nil {
		log.Fatal(err)
	}
	s, err = sqlite.Open(context.Background(), filepath.Join(dir, "triage.db"), cfg)
	if err != nil {
		os.RemoveAll(dir)
		log.Fatal(err)
	}
	return s, func() { s.Close(); os.RemoveAll(dir) }
}
