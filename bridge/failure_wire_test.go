package bridge_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/testkit/golden"
	"github.com/triage-go/triage/wire/jsonrpc"
)

// A failed call's result, whole, as the client receives it: the text in
// seed 002's words and the structured {"error": …}, both written by
// wire/jsonrpc's ToolResult (the one writer of isError results, which
// /mcp serves too). The golden files hold the bridge's output from before
// it wrote its own text, byte for byte; wire/jsonrpc reads each back to
// the fault it reports.
func TestFailureWireOutput(t *testing.T) {
	reg := scripted(t, "agents:\n  - {id: echo, kind: script}\n")
	cs := connect(t, reg, agent.ManagerConfig{}, bridge.Config{MaxPromptBytes: 64})
	s, _ := call(t, cs, "sessions_create", map[string]any{"agentId": "echo"})
	id := s["sessionId"].(string)
	for _, c := range []struct {
		golden string
		tool   string
		args   map[string]any
		code   fault.Code
	}{
		{"failure_session_not_found.json", "sessions_prompt", map[string]any{"sessionId": "abc-123", "prompt": "hi"}, fault.SessionNotFound},
		{"failure_rate_limited.json", "sessions_prompt", map[string]any{"sessionId": id, "prompt": "fail with RATE_LIMITED after 7s"}, fault.RateLimited},
		{"failure_too_large.json", "tasks_delegate", map[string]any{"agentId": "echo", "prompt": string(make([]byte, 100))}, fault.PayloadTooLarge},
		{"failure_unknown_agent.json", "sessions_create", map[string]any{"agentId": "nobody"}, fault.CapabilityNotFound},
	} {
		t.Run(c.tool+"/"+string(c.code), func(t *testing.T) {
			_, res := call(t, cs, c.tool, c.args)
			if !res.IsError {
				t.Fatalf("%s succeeded", c.tool)
			}
			raw, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			// The session's id is random: the golden file says "s-1".
			golden.Check(t, c.golden, golden.Indent(t, json.RawMessage(bytes.ReplaceAll(raw, []byte(id), []byte("s-1")))))
			f, err := jsonrpc.ParseToolResult(raw)
			if err != nil || f == nil || f.Code != c.code || f.Classification.Rule != "tool_result_data" {
				t.Errorf("wire/jsonrpc reads %+v, %v; want %s", f, err, c.code)
			}
		})
	}
}
