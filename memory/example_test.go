package memory_test

import (
	"context"
	"fmt"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/memory"
)

// State.Start claims a delivery and, for a first delivery only, counts the
// attempt and records the failure; a re-sent report is answered with the
// feedback completed for the first.
func ExampleState_Start() {
	ctx := context.Background()
	var s memory.State
	at := time.Date(2025, 8, 8, 12, 0, 0, 0, time.UTC)
	req := triage.StartRequest{Key: "delivery-1", AttemptKey: "q_1/TIMEOUT",
		Agent: "query_agent", Code: "TIMEOUT", At: at, Window: time.Hour}

	res, _ := s.Start(ctx, req)
	fmt.Println("first:", res.First, "attempt:", res.Attempt, "recent:", res.Recent)
	_ = s.Complete(ctx, req.Key, &triage.Feedback{ErrorID: "err_1", NextAction: triage.Resume})

	res, _ = s.Start(ctx, req) // the same delivery again
	fmt.Println("first:", res.First, "prior:", res.Prior.ErrorID, res.Prior.NextAction)

	req.Key, req.At = "delivery-2", at.Add(time.Minute) // the same error, later
	res, _ = s.Start(ctx, req)
	fmt.Println("first:", res.First, "attempt:", res.Attempt, "recent:", res.Recent)
	// Output:
	// first: true attempt: 1 recent: 1
	// first: false prior: err_1 resume
	// first: true attempt: 2 recent: 2
}
