package service

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// A failure's report is a valid report that keeps its links (run, thread,
// trace) and not the fault's debug output; two runs of one agent failing
// alike group into one record, and each run has its own key.
func TestFailureReport(t *testing.T) {
	at := time.Date(2026, 12, 2, 18, 0, 0, 123, time.UTC)
	f := fault.Wrap(errors.New("secret-cause"), fault.RateLimited, "Request rate limit exceeded (token sk-abcdefghijklmnopqrstuvwxyz0123).", fault.WithDetail("agentId", "echo"))
	run := Failure{Door: DoorAGUI, AgentID: "echo", Fault: f, At: at, RunID: "1b4e28ba-2fa1-11d2-883f-0016d3cca427",
		ThreadID: "thread-1", TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	body, err := run.Report()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(body), "secret-cause") || strings.Contains(string(body), "sk-abcdefghijklmnopqrstuvwxyz0123") {
		t.Errorf("the report holds the cause's text: %s", body)
	}
	rep, err := triage.DecodeReport(body)
	if err != nil {
		t.Fatalf("DecodeReport(%s): %v", body, err)
	}
	c := rep.Data.Context
	if rep.AgentID != "echo" || !rep.Timestamp.Equal(at) || rep.Data.ErrorCode != "RATE_LIMITED" || rep.Data.QueryID != "agui:run" ||
		rep.Data.Fault == nil || rep.Data.Fault.Code != fault.RateLimited || rep.Tags["door"] != DoorAGUI ||
		c["run_id"] != run.RunID || c["thread_id"] != "thread-1" || c["trace_id"] != "4bf92f3577b34da6a3ce929d0e0e4736" ||
		c["traceparent"] != run.TraceParent || c["door"] != DoorAGUI {
		t.Errorf("the report %s", body)
	}

	other := run
	other.RunID, other.ThreadID, other.TraceParent, other.At = "run-2", "", "", at.Add(time.Second)
	body2, err := other.Report()
	if err != nil {
		t.Fatal(err)
	}
	rep2, err := triage.DecodeReport(body2)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := triage.ErrorID(triage.Fingerprint(rep)), triage.ErrorID(triage.Fingerprint(rep2)); a != b {
		t.Errorf("two runs failing alike are two records: %s, %s", a, b)
	}
	if _, ok := rep2.Data.Context["trace_id"]; ok {
		t.Errorf("a run without a trace has a trace_id: %s", body2)
	}
	if again := run; run.Key() == other.Key() || run.Key() != again.Key() || CheckKey("key", run.Key()) != nil {
		t.Errorf("keys %q, %q: want one per run, valid", run.Key(), other.Key())
	}

	// An MCP call about no agent, with a tool name that is no identifier,
	// and no fault.
	call := Failure{Door: DoorMCP, Tool: "bad tool", SessionID: "S1", CallID: "c1", At: at}
	body3, err := call.Report()
	if err != nil {
		t.Fatal(err)
	}
	rep3, err := triage.DecodeReport(body3)
	if err != nil {
		t.Fatalf("DecodeReport(%s): %v", body3, err)
	}
	if rep3.AgentID != BridgeAgent || rep3.Data.QueryID != "mcp:tool" || rep3.Data.ErrorCode != string(fault.InternalError) ||
		rep3.Data.Context["session_id"] != "S1" || rep3.Data.Context["tool"] != "bad tool" {
		t.Errorf("the call's report %s", body3)
	}
}
