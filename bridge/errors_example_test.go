package bridge_test

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// oneRecord is an error store of one record, for the example: a service's
// would be server's (on /mcp) or bridge.ServiceErrors (over the client).
type oneRecord struct{ rec triage.Record }

func (s oneRecord) List(context.Context, store.Filter) (triage.Page, error) {
	return triage.Page{Records: []triage.RecordSummary{s.rec.RecordSummary}}, nil
}

func (s oneRecord) Get(_ context.Context, id string) (triage.Record, error) {
	if id != s.rec.ErrorID {
		return triage.Record{}, fault.New(fault.NotFound, "No such error.")
	}
	return s.rec, nil
}

func (oneRecord) Report(context.Context, *triage.Report) (triage.Feedback, error) {
	return triage.Feedback{}, fault.New(fault.ServiceUnavailable, "Read-only in this example.")
}

func (oneRecord) Change(context.Context, string, triage.Change) (triage.Workflow, error) {
	return triage.Workflow{}, fault.New(fault.ServiceUnavailable, "Read-only in this example.")
}

// A coding agent reads production errors through the bridge's error tools:
// it searches, then gets one with its root cause.
func ExampleBridge_ServeErrors() {
	ctx := context.Background()
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
	if err := m.Start(ctx); err != nil {
		panic(err)
	}
	defer m.Shutdown()
	seen := time.Date(2025, 8, 8, 12, 20, 5, 0, time.UTC)
	records := oneRecord{triage.Record{
		RecordSummary: triage.RecordSummary{ErrorID: "err_7f3a", AgentID: "planner", QueryID: "q_456", ErrorType: "query_error",
			Severity: "medium", FirstSeen: seen, LastSeen: seen, Count: 2, NextAction: "resume"},
		Report: []byte(`{"agent_id":"planner","timestamp":"2025-08-08T12:20:05Z","status":"error",` +
			`"data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s","query_id":"q_456"}}`),
		Feedback: []byte(`{"error_id":"err_7f3a","next_action":"resume","fault":{"code":"TIMEOUT","retryable":true},` +
			`"root_cause":{"cause":"transient","confidence":0.6,"evidence":["TIMEOUT is usually transient"]}}`),
	}}
	b := bridge.New(bridge.Config{Manager: m})
	b.ServeErrors(func(owner string) bridge.Errors { return records })

	st, ct := mcp.NewInMemoryTransports()
	ss, _ := b.Server().Connect(ctx, st, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	defer cs.Close()

	for _, call := range []mcp.CallToolParams{
		{Name: "errors_search", Arguments: map[string]any{"agentId": "planner"}},
		{Name: "errors_get", Arguments: map[string]any{"errorId": "err_7f3a"}},
	} {
		res, err := cs.CallTool(ctx, &call)
		if err != nil {
			panic(err)
		}
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// 1 error:
	// - err_7f3a: query_error, medium, agent planner, query q_456; 2×, last seen 2025-08-08T12:20:05Z; next action resume
	// Error err_7f3a: query_error, medium; 2×, first seen 2025-08-08T12:20:05Z, last seen 2025-08-08T12:20:05Z
	// Agent planner, query q_456
	// Message: Query timed out after 30s
	// Code: DB_TIMEOUT
	// Root cause: transient (confidence 0.60)
	//   - TIMEOUT is usually transient
	// Fault: TIMEOUT (retryable)
	// Next action: resume
}
