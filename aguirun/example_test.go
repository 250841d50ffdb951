package aguirun_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/triage-go/triage/aguirun"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/wire/agui"
	"github.com/triage-go/triage/wire/sse"
)

// A graph whose node streams two words and then fails, written as AG-UI.
// In a handler, the sse.Writer is on the http.ResponseWriter (after
// sse.SetHeaders); here it is on a buffer.
func ExampleRun() {
	type state struct{}
	g, _ := graph.New[state]().
		AddNode("answer", func(ctx context.Context, s state) (state, error) {
			graph.Emit(ctx, aguirun.Text{MessageID: "m1", Delta: "Hello, "})
			graph.Emit(ctx, aguirun.Text{MessageID: "m1", Delta: "wor"})
			return s, fault.New(fault.RateLimited, "", fault.WithRetryAfter(30*time.Second))
		}).
		AddEdge("answer", graph.End).
		SetEntry("answer").
		Compile(nil)

	var buf bytes.Buffer
	w := agui.NewWriter(sse.NewWriter(&buf), nil)
	_, err := aguirun.Run(context.Background(), w, g, state{}, aguirun.Options[state]{
		ThreadID: "t1", RunID: "r1",
		Now: func() time.Time { return time.UnixMilli(1700000000000) },
	})
	fmt.Println("run:", fault.CodeOf(err))
	for _, line := range strings.Split(buf.String(), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			fmt.Println(data)
		}
	}
	// Output:
	// run: RATE_LIMITED
	// {"type":"RUN_STARTED","threadId":"t1","runId":"r1","timestamp":1700000000000}
	// {"type":"STEP_STARTED","stepName":"answer","timestamp":1700000000000}
	// {"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","timestamp":1700000000000}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello, ","timestamp":1700000000000}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"wor","timestamp":1700000000000}
	// {"type":"TEXT_MESSAGE_END","messageId":"m1","timestamp":1700000000000}
	// {"type":"RUN_ERROR","message":"Request rate limit exceeded. Please wait before retrying.","code":"RATE_LIMITED","timestamp":1700000000000,"metadata":{"category":"UPSTREAM","details":{"node":"answer"},"domain":"client","http_status":429,"retry_after":30,"retryable":true,"session_valid":true}}
}

// A run stopped by its context, cancelled with a fault as the cause (as
// `triage serve` stops its runs when it shuts down): the RUN_ERROR is that
// fault, with its retry delay, rather than CANCELLED.
func ExampleRun_cancelCause() {
	type state struct{}
	ctx, cancel := context.WithCancelCause(context.Background())
	g, _ := graph.New[state]().
		AddNode("answer", func(ctx context.Context, s state) (state, error) {
			cancel(fault.New(fault.ServiceUnavailable, "The service is shutting down.", fault.WithRetryAfter(5*time.Second)))
			<-ctx.Done()
			return s, ctx.Err()
		}).
		AddEdge("answer", graph.End).
		SetEntry("answer").
		Compile(nil)

	var buf bytes.Buffer
	w := agui.NewWriter(sse.NewWriter(&buf), nil)
	_, err := aguirun.Run(ctx, w, g, state{}, aguirun.Options[state]{
		ThreadID: "t1", RunID: "r1",
		Now: func() time.Time { return time.UnixMilli(1700000000000) },
	})
	fmt.Println("run:", fault.CodeOf(err))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	fmt.Println(strings.TrimPrefix(lines[len(lines)-1], "data: "))
	// Output:
	// run: SERVICE_UNAVAILABLE
	// {"type":"RUN_ERROR","message":"The service is shutting down.","code":"SERVICE_UNAVAILABLE","timestamp":1700000000000,"metadata":{"category":"TRANSPORT","details":{"node":"answer"},"domain":"system","http_status":503,"retry_after":5,"retryable":true,"session_valid":true}}
}
