package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
)

// A bridge over the default registry, and a go-sdk client talking to it
// in memory: a delegated task, then a failure as the client sees it.
func Example() {
	ctx := context.Background()
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
	if err := m.Start(ctx); err != nil {
		panic(err)
	}
	defer m.Shutdown()
	b := bridge.New(bridge.Config{Manager: m})

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

// Shutdown while a prompt hangs: the call is answered, not dropped, and a
// later call is refused the same way.
func ExampleBridge_Shutdown() {
	ctx := context.Background()
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
	if err := m.Start(ctx); err != nil {
		panic(err)
	}
	defer m.Shutdown()
	b := bridge.New(bridge.Config{Manager: m})
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := b.Server().Connect(ctx, st, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	defer cs.Close()

	answered := make(chan *mcp.CallToolResult)
	go func() {
		res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tasks_delegate",
			Arguments: map[string]any{"agentId": "echo", "prompt": "hang"}})
		answered <- res
	}()
	for { // until the prompt runs
		res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bridge_health", Arguments: map[string]any{}})
		if res.StructuredContent.(map[string]any)["inFlight"] == 1.0 {
			break
		}
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	fmt.Println(b.Shutdown(sctx))
	fmt.Println((<-answered).Content[0].(*mcp.TextContent).Text)
	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bridge_health", Arguments: map[string]any{}})
	fmt.Println(res.IsError)
	// Output:
	// <nil>
	// Failed to delegate the task to agent 'echo':
	// The bridge is shutting down (TRANSPORT, retryable after 5s, session not valid)
	//
	// The bridge is shutting down: its sessions end with it. You can:
	// 1. Reconnect once the bridge is back (a client that started it over stdio starts it again)
	// 2. Create a new session with sessions_create
	// 3. Retry the call after 5 seconds with tasks_delegate
	// true
}

// An answer that calls one of the client's tools returns the call in the
// result.
func Example_toolCall() {
	ctx := context.Background()
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
	if err := m.Start(ctx); err != nil {
		panic(err)
	}
	defer m.Shutdown()
	b := bridge.New(bridge.Config{Manager: m})
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := b.Server().Connect(ctx, st, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	defer cs.Close()

	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tasks_delegate",
		Arguments: map[string]any{"agentId": "echo", "prompt": `call get_weather {"city":"Paris"}`}})
	var out struct {
		StopReason string
		ToolCalls  []struct{ Name, Arguments string }
	}
	data, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(data, &out)
	fmt.Println(out.StopReason, out.ToolCalls[0].Name, out.ToolCalls[0].Arguments)
	// Output:
	// tool_call get_weather {"city":"Paris"}
}
