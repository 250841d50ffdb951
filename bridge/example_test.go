package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
)

// A bridge over the default registry, and a go-sdk client talking to it
// in memory: a delegated task, then a failure as the client sees it.
func Example() {
	ctx := context.Background()
	m := agent.NewManager(agent.Default().Build(agent.BuildOptions{}), agent.Options{})
	if err := m.Start(ctx); err != nil {
		panic(err)
	}
	defer m.Shutdown()
	b := bridge.New(bridge.Options{Manager: m})

	st, ct := mcp.NewInMemoryTransports()
	ss, _ := b.Server().Connect(ctx, st, nil)
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	cs, _ := client.Connect(ctx, ct, nil)
	defer cs.Close()

	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tasks_delegate",
		Arguments: map[string]any{"agentId": "echo", "prompt": "hello"}})
	out, _ := json.Marshal(res.StructuredContent)
	var done struct{ Text, State string }
	_ = json.Unmarshal(out, &done)
	fmt.Println(done.Text, done.State)

	res, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sessions_prompt",
		Arguments: map[string]any{"sessionId": "abc-123", "prompt": "hi"}})
	fmt.Println(res.IsError)
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// You said: hello closed
	// true
	// Failed to submit prompt to session 'abc-123':
	// Session not found: abc-123 (UPSTREAM, not retryable, session not valid)
	//
	// The session may have expired, been closed, or lost its worker. You can:
	// 1. Create a new session with sessions_create
	// 2. Check available agents with agents_discover
}
