package handler_test

import (
	"context"
	"fmt"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/handler"
)

// A pipeline agent reports seed 004's chart error; the handler classifies
// it, suggests another chart, and asks the user.
func ExampleHandler_Handle() {
	h, err := handler.New(handler.Config{})
	if err != nil {
		panic(err)
	}
	fb, err := h.Handle(context.Background(), []byte(`{
	  "agent_id": "visualization_agent",
	  "timestamp": "2025-08-08T12:01:00Z",
	  "status": "error",
	  "data": {
	    "error_type": "chart_error",
	    "error_code": "INCOMPATIBLE_CHART_TYPE",
	    "message": "Pie chart cannot display time-series data",
	    "context": {"chart": "pie", "dimension": "date", "granularity": "month", "metric": "revenue"},
	    "query_id": "q_789"
	  }
	}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(fb.ErrorType, fb.Severity, fb.NextAction)
	fmt.Println(fb.UserMessage)
	fmt.Println(fb.AutomatedActions, fb.RecoverySuggestions[0])
	// Output:
	// chart_error low await_user
	// Pie charts work best for categorical data. For monthly revenue, try: 'line chart of revenue by month'. Should I convert it to a line chart?
	// [suggest_conversion:line] Convert to line chart
}

// An invalid report is refused with every problem at once, and nothing is
// recorded for it.
func ExampleHandler_Handle_invalid() {
	h, _ := handler.New(handler.Config{})
	_, err := h.Handle(context.Background(), []byte(`{"agent_id": "query engine", "timestamp": "yesterday",
	  "status": "error", "data": {"error_type": "db_error", "message": "timeout"}}`))
	f := fault.From(err)
	fmt.Println(f.Code, f.HTTPStatus())
	for _, fe := range f.FieldErrors {
		fmt.Printf("%s: %s\n", fe.Field, fe.Message)
	}
	// Output:
	// INVALID_REQUEST 400
	// agent_id: must be 1 to 128 letters, digits, '_', '-', '.' or ':', starting with a letter or digit
	// timestamp: must be an RFC 3339 date and time, such as 2025-08-08T12:01:00Z
	// data.error_type: unknown type "db_error"; allowed: input_error, schema_error, query_error, chart_error, system_error, validation_error, unknown
	// data.query_id: is required
}

// A pipeline built on the graph package hands its failure to the handler;
// on next_action "resume" it resumes the run from its checkpoint, which the
// feedback names in context_ref.
func ExampleFromNodeError() {
	type state struct{ Rows int }
	calls := 0
	pipeline, err := graph.New[state]().
		AddNode("query", func(ctx context.Context, s state) (state, error) {
			if calls++; calls == 1 {
				return s, fault.New(fault.RateLimited, "The warehouse is rate limiting queries.", fault.WithRetryAfter(20*time.Second))
			}
			s.Rows = 42
			return s, nil
		}).
		AddEdge("query", graph.End).
		SetEntry("query").
		Compile(&graph.Config[state]{Checkpointer: &graph.MemoryCheckpointer[state]{}})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	_, runErr := pipeline.Invoke(ctx, state{}, graph.WithRunID("run_1"))

	h, _ := handler.New(handler.Config{})
	report := handler.FromNodeError("report_pipeline", "q_42", runErr, time.Date(2025, 8, 8, 12, 0, 0, 0, time.UTC))
	fb, err := h.HandleReport(ctx, report)
	if err != nil {
		panic(err)
	}
	fmt.Println(fb.ErrorType, fb.NextAction, fb.Fault.Code, fb.Fault.RetryAfter, fb.ContextRef)
	fmt.Println(fb.UserMessage)
	if fb.NextAction == triage.Resume {
		out, err := pipeline.Resume(ctx, fb.ContextRef)
		fmt.Println(out.Rows, err)
	}
	// Output:
	// system_error resume RATE_LIMITED 20 run_1
	// The service is busy right now, so I'll try again in 20 seconds.
	// 42 <nil>
}
