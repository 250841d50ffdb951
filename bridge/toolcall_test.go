package bridge_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
)

// A prompt whose answer calls one of the client's tools returns the call
// in its result, for a client that asked for no progress: the tool's name
// and its arguments. Issue 23: the result said text "", stopReason
// "tool_call", and the call was only in a progress notification.
func TestToolCallInTheResult(t *testing.T) {
	cs := connect(t, agent.Default(), agent.ManagerConfig{}, bridge.Config{})
	s, _ := call(t, cs, "sessions_create", map[string]any{"agentId": "echo"})
	args := `{"city":"Paris","units":"metric"}`
	for tool, in := range map[string]map[string]any{
		"sessions_prompt": {"sessionId": s["sessionId"], "prompt": "call get_weather " + args},
		"tasks_delegate":  {"agentId": "echo", "prompt": "call get_weather " + args},
	} {
		out, res := call(t, cs, tool, in)
		if res.IsError || out["stopReason"] != "tool_call" {
			t.Fatalf("%s: %v %s", tool, out, text(res))
		}
		calls, _ := out["toolCalls"].([]any)
		if len(calls) != 1 {
			t.Fatalf("%s: toolCalls = %v", tool, out["toolCalls"])
		}
		c := calls[0].(map[string]any)
		if c["name"] != "get_weather" || c["arguments"] != args || c["argumentsBytes"] != float64(len(args)) ||
			c["truncated"] != nil || !strings.HasPrefix(c["id"].(string), "call-") {
			t.Errorf("%s: tool call %v", tool, c)
		}
		// The text content is the same JSON, for clients without
		// structured output.
		var again map[string]any
		if err := json.Unmarshal([]byte(text(res)), &again); err != nil || again["toolCalls"] == nil {
			t.Errorf("%s: text content %q", tool, text(res))
		}
	}
}

// Arguments past 64 KiB are cut short and marked truncated, with their
// whole size.
func TestToolCallArgumentsAreBounded(t *testing.T) {
	cs := connect(t, agent.Default(), agent.ManagerConfig{}, bridge.Config{})
	args := `{"blob":"` + strings.Repeat("é", 40<<10) + `"}`
	out, res := call(t, cs, "tasks_delegate", map[string]any{"agentId": "echo", "prompt": "call upload " + args})
	if res.IsError {
		t.Fatal(text(res))
	}
	calls, _ := out["toolCalls"].([]any)
	if len(calls) != 1 {
		t.Fatalf("toolCalls = %v", out["toolCalls"])
	}
	c := calls[0].(map[string]any)
	got, _ := c["arguments"].(string)
	if c["truncated"] != true || c["argumentsBytes"] != float64(len(args)) || len(got) > 64<<10 || len(got) < 64<<10-4 ||
		!strings.HasPrefix(args, got) {
		t.Errorf("truncated %v, argumentsBytes %v, %d bytes of arguments", c["truncated"], c["argumentsBytes"], len(got))
	}
}
