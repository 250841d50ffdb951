package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/wire/agui"
)

// An HttpAgent keeps the assistant message the server streamed and sends
// it back on the next run of the thread: the server's own message id must
// be one its input parser accepts, whatever the length of the runId
// ("msg-" + a runId of 128 bytes was refused).
func TestRunMessageIDComesBack(t *testing.T) {
	t.Parallel()
	f := runsFixture(t, agent.ManagerConfig{})
	runID := strings.Repeat("r", agui.MaxInputIDBytes) // a runId the parser accepts
	events := runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody(runID, "hello"), nil))
	var msgID, text string
	for _, e := range events {
		switch e := e.(type) {
		case *agui.TextMessageStart:
			msgID = e.MessageID
		case *agui.TextMessageContent:
			text += e.Delta
		}
	}
	msgs := []map[string]any{
		{"id": "m1", "role": "user", "content": "hello"},
		{"id": msgID, "role": "assistant", "content": text},
		{"id": "m2", "role": "user", "content": "again"},
	}
	body, _ := json.Marshal(map[string]any{"threadId": "t1", "runId": "second", "messages": msgs})
	r := f.do("POST", "/v1/agents/echo/runs", body, nil)
	if r.status != http.StatusOK {
		t.Fatalf("second run of the thread, echoing the server's own message %q (%d bytes): %d %s", msgID, len(msgID), r.status, r.body)
	}
}

// A team whose members both call a tool, overlapping: the run finishes
// (the calls' ids were the members' own, alike, and the second was refused
// with the stream cut short, no RUN_FINISHED nor RUN_ERROR).
func TestTeamToolCallsEndTheStream(t *testing.T) {
	t.Parallel()
	reg, err := agent.Parse([]byte(`agents:
  - {id: a, kind: script, script: {delay: 20ms}}
  - {id: b, kind: script, script: {delay: 20ms}}
  - {id: duo, kind: team, members: [a, b]}
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := agent.NewManager(reg.Build(nil), agent.ManagerConfig{})
	if err := m.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	f := newFixture(t, func(c *Config) { c.Agents = m })
	r := f.do("POST", "/v1/agents/duo/runs", runBody("dup-ids", `call get_weather {"city":"Paris"}`), nil)
	body := strings.TrimSpace(string(r.body))
	lastLine := body[strings.LastIndex(body, "\n")+1:]
	if r.status != http.StatusOK || !strings.Contains(lastLine, `"RUN_FINISHED"`) {
		t.Fatalf("HTTP %d; the stream ends with %s; want RUN_FINISHED", r.status, lastLine)
	}
}
