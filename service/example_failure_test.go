package service_test

import (
	"encoding/json"
	"fmt"
	"log"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/service"
)

// A door's own failure is a report like any other: a failed AG-UI run's
// names the run, its thread and its trace in data.context, and its
// query_id is the door's, so that the agent's runs failing alike are one
// record.
func ExampleFailure_Report() {
	f := service.Failure{
		Door:        service.DoorAGUI,
		AgentID:     "planner",
		Fault:       fault.New(fault.RateLimited, "Request rate limit exceeded."),
		At:          time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC),
		RunID:       "run-42",
		ThreadID:    "thread-7",
		TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	}
	body, err := f.Report()
	if err != nil {
		log.Fatal(err)
	}
	var rep struct {
		AgentID string            `json:"agent_id"`
		Tags    map[string]string `json:"tags"`
		Data    struct {
			ErrorCode string         `json:"error_code"`
			QueryID   string         `json:"query_id"`
			Context   map[string]any `json:"context"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &rep); err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep.AgentID, rep.Data.ErrorCode, rep.Data.QueryID, rep.Tags["door"])
	fmt.Println(rep.Data.Context["run_id"], rep.Data.Context["thread_id"], rep.Data.Context["trace_id"])
	// The idempotency key it is submitted under is the run's.
	fmt.Println(f.Key()[:len("triage-agui-")], len(f.Key()))
	// Output:
	// planner RATE_LIMITED agui:run agui
	// run-42 thread-7 4bf92f3577b34da6a3ce929d0e0e4736
	// triage-agui- 44
}
