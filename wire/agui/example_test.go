package agui_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/agui"
	"github.com/triage-go/triage/wire/sse"
)

// clock is a fixed clock for the examples: 2026-01-11T12:00:00Z.
func clock() time.Time { return time.Date(2026, 1, 11, 12, 0, 0, 0, time.UTC) }

// A RUN_ERROR frame from an error: a deadline that passed becomes TIMEOUT,
// 504, retryable, with its facets in metadata.
func ExampleRunErrorFrom() {
	err := fmt.Errorf("call search tool: %w", context.DeadlineExceeded)
	w := agui.NewWriter(sse.NewWriter(os.Stdout), &agui.WriterOptions{EventLine: true})
	w.WriteEvent(agui.RunErrorFrom(err, &agui.Options{Now: clock}))
	// Output:
	// event: RUN_ERROR
	// data: {"type":"RUN_ERROR","message":"Request timed out. Please try again.","code":"TIMEOUT","timestamp":1768132800000,"metadata":{"category":"TIMEOUT","details":{},"domain":"system","http_status":504,"retryable":true,"session_valid":true}}
}

// Debug output is opt-in: the Go type and the (redacted) cause of an error
// nothing recognises appear only with Options.Debug.
func ExampleRunErrorFrom_debug() {
	err := errors.New("dial db: password=hunter2 refused")
	for _, debug := range []bool{false, true} {
		e := agui.RunErrorFrom(err, &agui.Options{Debug: debug, Now: clock})
		fmt.Println(e.Metadata["details"], e.Metadata["debug"])
	}
	// Output:
	// map[] <nil>
	// map[error_type:*errors.errorString] map[cause:dial db: password=[REDACTED] refused error_type:*errors.errorString]
}

// The error sequence: a text message for clients that do not render
// RUN_ERROR, then RUN_ERROR, and nothing after it.
func ExampleWriter_WriteError() {
	w := agui.NewWriter(sse.NewWriter(os.Stdout), nil)
	w.WriteEvent(&agui.RunStarted{ThreadID: "thread-1", RunID: "run-1"})
	limit := fault.New(fault.RateLimited, "Too many requests. Please wait.", fault.WithRetryAfter(time.Minute))
	w.WriteError(limit, &agui.Options{TextMessageID: "msg-error-run-1", Now: clock})

	// RUN_FINISHED after RUN_ERROR (seed 000's bridge did this) is refused.
	err := w.WriteEvent(&agui.RunFinished{ThreadID: "thread-1", RunID: "run-1"})
	fmt.Println(errors.Is(err, agui.ErrOutOfOrder))
	// Output:
	// data: {"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}
	//
	// data: {"type":"TEXT_MESSAGE_START","messageId":"msg-error-run-1","role":"assistant","timestamp":1768132800000}
	//
	// data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-error-run-1","delta":"Too many requests. Please wait.","timestamp":1768132800000}
	//
	// data: {"type":"TEXT_MESSAGE_END","messageId":"msg-error-run-1","timestamp":1768132800000}
	//
	// data: {"type":"RUN_ERROR","message":"Too many requests. Please wait.","code":"RATE_LIMITED","timestamp":1768132800000,"metadata":{"category":"UPSTREAM","details":{},"domain":"client","http_status":429,"retry_after":60,"retryable":true,"session_valid":true}}
	//
	// true
}

// Reading a stream: frames from package sse, events from Parse, and the
// fault back from a RUN_ERROR.
func ExampleParse() {
	stream := `data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}

data: {"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search"}

event: RUN_ERROR
data: {"type":"RUN_ERROR","message":"Too many requests.","code":"RATE_LIMITED","metadata":{"http_status":429,"retry_after":30,"retryable":true}}

`
	r := sse.NewReader(strings.NewReader(stream))
	for {
		frame, err := r.Next()
		if err == io.EOF {
			break
		}
		e, err := agui.Parse([]byte(frame.Data))
		if errors.Is(err, agui.ErrUnsupportedType) {
			fmt.Println("skipped:", err)
			continue
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println(e.Type())
		if re, ok := e.(*agui.RunError); ok {
			f := re.Fault()
			fmt.Println(f.Code, f.HTTPStatus(), f.Retryable, f.RetryAfter)
		}
	}
	// Output:
	// RUN_STARTED
	// skipped: agui: unsupported event type "TOOL_CALL_START": AG-UI 1.0 defines it, this package does not model it
	// RUN_ERROR
	// RATE_LIMITED 429 true 30s
}

func ExampleVerify() {
	err := agui.Verify(
		&agui.RunStarted{ThreadID: "t", RunID: "r"},
		&agui.RunError{Message: "Request timed out.", Code: "TIMEOUT"},
		&agui.RunFinished{ThreadID: "t", RunID: "r"},
	)
	fmt.Println(err)
	// Output:
	// agui: event 2 (RUN_FINISHED) out of order: Cannot send event type 'RUN_FINISHED': The run has already errored with 'RUN_ERROR'. No further events can be sent.
}
