package agent_test

import (
	"context"
	"testing"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/fault"
)

func TestEmptyPrompt(t *testing.T) {
	for text, empty := range map[string]bool{"": true, " ": true, "\n\t \u00a0\u3000": true, "hi": false, " x ": false, ".": false} {
		if got := agent.EmptyPrompt(text); got != empty {
			t.Errorf("EmptyPrompt(%q) = %v", text, got)
		}
	}
}

// An agent is never asked an empty prompt: Prompt and Delegate refuse it
// as the MCP tools' schema refuses "" (INVALID_REQUEST), whatever the door,
// and Delegate opens no session for it.
func TestEmptyPromptRefused(t *testing.T) {
	m := manager(t, oneEcho, agent.ManagerConfig{})
	ctx := context.Background()
	s, err := m.Create(ctx, "acme", "echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"", "  \n"} {
		res, err := m.Prompt(ctx, "acme", s.ID, text, nil)
		f, ok := fault.As(err)
		if !ok || f.Code != fault.InvalidRequest || res.Text != "" || len(f.FieldErrors) != 1 || f.FieldErrors[0].Field != "prompt" {
			t.Fatalf("Prompt(%q): %+v %v", text, res, err)
		}
		if st, _ := m.Status("acme", s.ID); st.State != agent.StateIdle || st.Prompts != 0 {
			t.Errorf("the refused prompt changed the session: %+v", st)
		}
		if _, _, err := m.Delegate(ctx, "acme", "echo", text, nil, nil); fault.CodeOf(err) != fault.InvalidRequest {
			t.Fatalf("Delegate(%q): %v", text, err)
		}
		if _, _, err := m.DelegateWithHistory(ctx, "acme", "echo", []agent.Turn{{User: "a", Assistant: "b"}}, text, nil, nil); fault.CodeOf(err) != fault.InvalidRequest {
			t.Fatalf("DelegateWithHistory(%q): %v", text, err)
		}
	}
	if n := m.Health().Sessions; n != 1 {
		t.Errorf("%d sessions: Delegate opened one for an empty prompt", n)
	}
	if res, err := m.Prompt(ctx, "acme", s.ID, "hi", nil); err != nil || res.Text != "You said: hi" {
		t.Fatalf("%+v %v", res, err)
	}
}
