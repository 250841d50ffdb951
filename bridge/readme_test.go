package bridge_test

import (
	"os"
	"strings"
	"testing"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
)

// The README shows what the default agent's "fail with RATE_LIMITED"
// comes back as; it must be what the bridge says.
func TestREADMEShowsTheRealFailure(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	const marker = "the\nprompt `fail with RATE_LIMITED` comes back as\n\n```\n"
	i := strings.Index(readme, marker)
	if i < 0 {
		t.Fatal("README: the bridge's example is gone")
	}
	shown := readme[i+len(marker):]
	shown = shown[:strings.Index(shown, "\n```")]

	cs := connect(t, agent.Default(), agent.ManagerConfig{}, bridge.Config{})
	s, _ := call(t, cs, "sessions_create", map[string]any{"agentId": "echo"})
	_, txt := failed(t, cs, "sessions_prompt", map[string]any{"sessionId": s["sessionId"], "prompt": "fail with RATE_LIMITED"})
	if txt != shown {
		t.Errorf("README shows\n%s\nthe bridge says\n%s", shown, txt)
	}
}
