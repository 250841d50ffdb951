package aguirun_test

import (
	"testing"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/agui"
)

// An agent's RUN_ERROR says whether the thread can go on: its code's
// session_valid (fault's table), not the agent session the run opened
// and closed, which every failure of a run would otherwise mark invalid.
func TestRunErrorSaysWhetherTheThreadGoesOn(t *testing.T) {
	const agents = "agents:\n  - {id: echo, kind: script}\n"
	for _, code := range []fault.Code{fault.RateLimited, fault.Timeout, fault.UpstreamError, fault.TransportError,
		fault.ServiceUnavailable, fault.SessionNotFound, fault.InternalError} {
		t.Run(string(code), func(t *testing.T) {
			spec, _ := fault.Lookup(code)
			events, _, err := runAgentOf(t, agents, "echo", "fail with "+string(code))
			if fault.CodeOf(err) != code {
				t.Fatalf("run: %v", err)
			}
			last, ok := events[len(events)-1].(*agui.RunError)
			if !ok || last.Code != string(code) || last.Metadata["session_valid"] != spec.SessionValid {
				t.Fatalf("last event %#v, want session_valid %v", events[len(events)-1], spec.SessionValid)
			}
			if f, _ := fault.As(err); f.SessionValid != spec.SessionValid {
				t.Errorf("Run's fault says session_valid %v", f.SessionValid)
			}
		})
	}
	t.Run("TeamMember", func(t *testing.T) {
		events, _, _ := runAgent(t, "strained", "go")
		last, ok := events[len(events)-1].(*agui.RunError)
		if !ok || last.Code != "RATE_LIMITED" || last.Metadata["session_valid"] != true {
			t.Fatalf("last event %#v", events[len(events)-1])
		}
	})
}
