package present_test

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/present"
)

// fixed stamps the examples' events with a fixed id and time; leave Options
// nil in real code for random UUIDs and the current time.
var fixed = &present.Options{
	Now:   func() time.Time { return time.Date(2025, 5, 20, 10, 0, 0, 0, time.UTC) },
	NewID: func() string { return "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab" },
}

func printJSON(v any) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Println(err)
	}
}

// A tool failed but the agent carries on: tell the user with a user_error
// event built from the fault, in an event packet.
func ExampleEventFrom() {
	f := fault.New(fault.UpstreamError, "The search tool is currently unavailable. Please try again later.",
		fault.WithStatus(503), fault.WithRetryable(true))
	printJSON(present.EventPacket(present.EventFrom(f, fixed)))
	// Output:
	// {
	//   "op": "event",
	//   "p": {
	//     "id": "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab",
	//     "timestamp": "2025-05-20T10:00:00Z",
	//     "type": "user_error",
	//     "data": {
	//       "message": "The search tool is currently unavailable. Please try again later.",
	//       "code": 503,
	//       "domain": "tool",
	//       "retryable": true
	//     }
	//   }
	// }
}

// A user_error with only a message takes the defaults: no code, domain
// system, not retryable.
func ExampleNewUserErrorEvent() {
	ev, err := present.NewUserErrorEvent(present.NewUserError("Could not format the table."), fixed)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := json.Marshal(ev)
	fmt.Println(string(b))

	_, err = present.NewUserErrorEvent(present.UserError{Message: "x", Domain: "network"}, fixed)
	fmt.Println(err)
	// Output:
	// {"id":"6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab","timestamp":"2025-05-20T10:00:00Z","type":"user_error","data":{"message":"Could not format the table.","code":null,"domain":"system","retryable":false}}
	// present: member "data.domain": unknown domain "network"; allowed: client, system, llm, tool, security
}

// The stream itself failed: send a stream error packet. A retryable fault is
// transient, and its delay travels as details.retry_after.
func ExampleStreamErrorFrom() {
	f := fault.New(fault.RateLimited, "Too many requests", fault.WithRetryAfter(60*time.Second))
	printJSON(present.ErrorPacket(present.StreamErrorFrom(f)))
	// Output:
	// {
	//   "op": "error",
	//   "p": {
	//     "code": "RATE_LIMITED",
	//     "message": "Too many requests",
	//     "severity": "transient",
	//     "details": {
	//       "retry_after": 60
	//     }
	//   }
	// }
}

// A client switches on the packet's op.
func ExampleParsePacket() {
	stream := []string{
		`{"op":"delta","p":"Searching"}`,
		`{"op":"event","p":{"id":"6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab","timestamp":"2025-05-20T10:00:00Z","type":"user_error","data":{"message":"The search tool is unavailable.","code":503,"domain":"tool","retryable":true}}}`,
		`{"op":"error","p":{"code":"TIMEOUT","message":"Request timed out.","severity":"transient","details":null},"stream_id":"run-9","seq":2}`,
		`{"op":"close","p":null}`,
		`{"op":"error","p":"Error: something broke"}`,
	}
	for _, line := range stream {
		p, err := present.ParsePacket([]byte(line))
		if err != nil {
			fmt.Println(err)
			continue
		}
		switch p.Op {
		case present.OpDelta:
			fmt.Printf("text %q\n", p.Delta)
		case present.OpEvent:
			if u := p.Event.UserError; u != nil {
				fmt.Printf("notice (%s, %d, retryable %v): %s\n", u.Domain, u.Code, u.Retryable, u.Message)
			}
		case present.OpError:
			fmt.Printf("stream %s seq %d failed: %v\n", p.StreamID, *p.Seq, p.Error)
		case present.OpClose:
			fmt.Println("closed")
		}
	}
	// Output:
	// text "Searching"
	// notice (tool, 503, retryable true): The search tool is unavailable.
	// stream run-9 seq 2 failed: stream error TIMEOUT (transient): Request timed out.
	// closed
	// present: member "p": an error packet carries a stream error object, got string
}
