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

data: {"type":"REASONING_START","messageId":"r1"}

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
	// skipped: agui: unsupported event type "REASONING_START": AG-UI 1.0 defines it, this package does not model it
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

// Reading the request that starts a run: the body @ag-ui/client's
// HttpAgent POSTs.
func ExampleParseRunAgentInput() {
	body := `{"threadId":"thread-1","runId":"run-1","protocolVersion":"1.0","state":{},
	  "messages":[
	    {"id":"u1","role":"user","content":"Find the incident."},
	    {"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"search","arguments":"{\"q\":\"incident\"}"}}]},
	    {"id":"t1","role":"tool","content":"INC-42","toolCallId":"c1"},
	    {"id":"u2","role":"user","content":[{"type":"text","text":"Summarise "},{"type":"image","source":{"type":"url","value":"https://example.com/graph.png"}},{"type":"text","text":"this."}]}
	  ],
	  "tools":[{"name":"confirm","description":"Ask the user to confirm.","parameters":{"type":"object"}}],
	  "context":[],"forwardedProps":{}}`
	in, err := agui.ParseRunAgentInput([]byte(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(in.ThreadID, in.RunID, len(in.Messages), "messages")
	fmt.Println(in.Messages[1].ToolCalls[0].Function.Name, in.Messages[1].ToolCalls[0].Function.Arguments)
	fmt.Println(in.Tools[0].Name)
	fmt.Printf("%q\n", in.LastUserText())
	// Output:
	// thread-1 run-1 4 messages
	// search {"q":"incident"}
	// confirm
	// "Summarise this."
}

// An invalid request lists every invalid member; fault.From makes it an
// INVALID_REQUEST (a 400 problem) carrying them, before any stream starts.
func ExampleParseRunAgentInput_invalid() {
	body := `{"threadId":"t","messages":[{"id":"u1","role":"user"},{"id":"x","role":"bot"}],"tools":[{"name":"confirm"}]}`
	_, err := agui.ParseRunAgentInput([]byte(body))
	f := fault.From(err)
	fmt.Println(f.Code, f.HTTPStatus())
	for _, fe := range f.FieldErrors {
		fmt.Println(fe.Field+":", fe.Message)
	}
	// Output:
	// INVALID_REQUEST 400
	// runId: is required
	// messages[0].content: is required
	// messages[1].role: must be one of "developer", "system", "assistant", "user", "tool", "activity", "reasoning", not "bot"
	// tools[0].description: is required
}

// A tool call streamed in an assistant message, its result, and the state
// it changed, as a JSON Patch.
func ExampleToolCallStart() {
	w := agui.NewWriter(sse.NewWriter(os.Stdout), nil)
	for _, e := range []agui.Event{
		&agui.RunStarted{ThreadID: "t1", RunID: "r1"},
		&agui.TextMessageStart{MessageID: "m1", Role: agui.RoleAssistant},
		&agui.ToolCallStart{ToolCallID: "c1", ToolCallName: "search", ParentMessageID: "m1"},
		&agui.ToolCallArgs{ToolCallID: "c1", Delta: `{"q":"INC-42"}`},
		&agui.ToolCallEnd{ToolCallID: "c1"},
		&agui.TextMessageEnd{MessageID: "m1"},
		&agui.ToolCallResult{MessageID: "m2", ToolCallID: "c1", Content: "1 incident", Role: agui.RoleTool},
		&agui.StateDelta{Delta: []agui.PatchOperation{
			{Op: agui.PatchAdd, Path: "/incidents/-", Value: "INC-42"},
			{Op: agui.PatchRemove, Path: "/pending"},
		}},
		&agui.RunFinished{ThreadID: "t1", RunID: "r1"},
	} {
		if err := w.WriteEvent(e); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Output:
	// data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
	//
	// data: {"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
	//
	// data: {"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search","parentMessageId":"m1"}
	//
	// data: {"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"q\":\"INC-42\"}"}
	//
	// data: {"type":"TOOL_CALL_END","toolCallId":"c1"}
	//
	// data: {"type":"TEXT_MESSAGE_END","messageId":"m1"}
	//
	// data: {"type":"TOOL_CALL_RESULT","messageId":"m2","toolCallId":"c1","content":"1 incident","role":"tool"}
	//
	// data: {"type":"STATE_DELTA","delta":[{"op":"add","path":"/incidents/-","value":"INC-42"},{"op":"remove","path":"/pending"}]}
	//
	// data: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}
}

// A conversation restated whole.
func ExampleMessagesSnapshot() {
	b, err := agui.Marshal(&agui.MessagesSnapshot{Messages: []agui.Message{
		{ID: "u1", Role: agui.RoleUser, Content: "Status?"},
		{ID: "a1", Role: agui.RoleAssistant, ToolCalls: []agui.ToolCall{{ID: "c1", Function: agui.FunctionCall{Name: "status", Arguments: "{}"}}}},
		{ID: "t1", Role: agui.RoleTool, Content: "green", ToolCallID: "c1"},
	}})
	fmt.Println(string(b), err)

	// A member the role does not have is refused, not dropped.
	_, err = agui.Marshal(&agui.MessagesSnapshot{Messages: []agui.Message{{ID: "u1", Role: agui.RoleUser, ToolCallID: "c1"}}})
	fmt.Println(err)
	// Output:
	// {"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u1","role":"user","content":"Status?"},{"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"status","arguments":"{}"}}]},{"id":"t1","role":"tool","content":"green","toolCallId":"c1"}]} <nil>
	// agui: invalid event: MESSAGES_SNAPSHOT: messages[0]: a user message has no toolCallId
}

// A run that fails while a message streams: the open message is ended,
// its text stays; the fallback text is left out because its id is that
// message's; RUN_ERROR is the last event, and the Writer refuses anything
// after it.
func ExampleWriter_WriteError_openMessage() {
	w := agui.NewWriter(sse.NewWriter(os.Stdout), nil)
	w.WriteEvent(&agui.RunStarted{ThreadID: "t1", RunID: "r1"})
	w.WriteEvent(&agui.TextMessageStart{MessageID: "m1", Role: agui.RoleAssistant})
	w.WriteEvent(&agui.TextMessageContent{MessageID: "m1", Delta: "The incident started at"})

	limit := fault.New(fault.RateLimited, "Too many requests. Please wait.", fault.WithRetryAfter(time.Minute))
	if err := w.WriteError(limit, &agui.Options{TextMessageID: "m1", Now: clock}); err != nil {
		fmt.Println(err)
	}
	err := w.WriteEvent(&agui.RunStarted{ThreadID: "t1", RunID: "r2"})
	fmt.Println(errors.Is(err, agui.ErrOutOfOrder))
	// Output:
	// data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
	//
	// data: {"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
	//
	// data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"The incident started at"}
	//
	// data: {"type":"TEXT_MESSAGE_END","messageId":"m1","timestamp":1768132800000}
	//
	// data: {"type":"RUN_ERROR","message":"Too many requests. Please wait.","code":"RATE_LIMITED","timestamp":1768132800000,"metadata":{"category":"UPSTREAM","details":{},"domain":"client","http_status":429,"retry_after":60,"retryable":true,"session_valid":true}}
	//
	// true
}

func ExampleAppendMarshal() {
	var buf []byte // reused for every event of the stream
	for _, e := range []agui.Event{
		&agui.TextMessageStart{MessageID: "m1", Role: agui.RoleAssistant},
		&agui.TextMessageContent{MessageID: "m1", Delta: "<b>bold</b> & \"quoted\"", BaseEvent: agui.BaseEvent{Timestamp: 1700000000000}},
	} {
		var err error
		if buf, err = agui.AppendMarshal(buf[:0], e); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(string(buf))
	}
	// Output:
	// {"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"<b>bold</b> & \"quoted\"","timestamp":1700000000000}
}
