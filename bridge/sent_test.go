package bridge_test

import (
	"strings"
	"testing"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
)

// A failure's text says the id that was sent, even when the call failed
// before the id was read (a prompt or metadata too large, arguments the
// schema refuses), bounded and made safe; or it says that none was sent.
// Issue 23: the texts quoted an empty id ("…to agent", "session" and
// two quotes).
func TestFailureTextSaysTheIDSent(t *testing.T) {
	cs := connect(t, agent.Default(), agent.ManagerConfig{}, bridge.Config{MaxPromptBytes: 8, MaxMetadataBytes: 16})
	long := strings.Repeat("s", 300)
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		lead       string
		sessionID  any // details.sessionId, nil for none
		agentID    any
	}{
		{"prompt too large", "sessions_prompt", map[string]any{"sessionId": "abc-123", "prompt": "a long prompt"},
			"Failed to submit prompt to session 'abc-123':\n", "abc-123", nil},
		{"metadata too large", "sessions_create", map[string]any{"agentId": "echo", "metadata": map[string]any{"k": strings.Repeat("x", 40)}},
			"Failed to create a session with agent 'echo':\n", nil, "echo"},
		{"delegated prompt too large", "tasks_delegate", map[string]any{"agentId": "echo", "prompt": "a long prompt"},
			"Failed to delegate the task to agent 'echo':\n", nil, "echo"},
		{"no sessionId", "sessions_prompt", map[string]any{"prompt": "hi"},
			"Failed to submit prompt to session (no sessionId was sent):\n", nil, nil},
		{"an empty sessionId", "sessions_status", map[string]any{"sessionId": ""},
			"Failed to get the status of session (an empty sessionId was sent):\n", nil, nil},
		{"a sessionId that is not a string", "sessions_cancel", map[string]any{"sessionId": 42},
			"Failed to cancel session (the sessionId sent is not a string: 42):\n", nil, nil},
		{"a sessionId too long", "sessions_close", map[string]any{"sessionId": long},
			"Failed to close session '" + strings.Repeat("s", 127) + "…':\n", strings.Repeat("s", 127) + "…", nil},
		// The id reached the Manager: the details keep it as it was sent
		// (JSON escapes it), the text shows it safe.
		{"a sessionId with a line break and a bidi override", "sessions_status", map[string]any{"sessionId": "ab\nc\u202ed"},
			"Failed to get the status of session 'ab\uFFFDc\uFFFDd':\nSession not found: ab\uFFFDc\uFFFDd (", "ab\nc\u202ed", nil},
		{"an agentId the schema refuses", "sessions_create", map[string]any{"agentId": "echo", "extra": true},
			"Failed to create a session with agent 'echo':\n", nil, "echo"},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			f, txt := failed(t, cs, tc.tool, tc.args)
			if !strings.HasPrefix(txt, tc.lead) {
				t.Errorf("text %q, want it to begin %q", txt, tc.lead)
			}
			if f.Details["sessionId"] != tc.sessionID || f.Details["agentId"] != tc.agentID {
				t.Errorf("details %v, want sessionId %v, agentId %v", f.Details, tc.sessionID, tc.agentID)
			}
		})
	}
}
