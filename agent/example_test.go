package agent_test

import (
	"context"
	"fmt"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/fault"
)

// A manager over the default registry: one script agent, "echo".
func ExampleManager() {
	ctx := context.Background()
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
	if err := m.Start(ctx); err != nil {
		panic(err)
	}
	defer m.Shutdown()

	s, _ := m.Create(ctx, "", "echo", nil)
	res, _ := m.Prompt(ctx, "", s.ID, "hello", func(c agent.Chunk) { fmt.Printf("chunk %q\n", c.Text) })
	fmt.Println(res.Text, res.StopReason)

	_, err := m.Prompt(ctx, "", s.ID, "fail with RATE_LIMITED", nil)
	f, _ := fault.As(err)
	fmt.Println(f.Code, f.Category, f.Retryable, f.RetryAfter, f.SessionValid)

	_, err = m.Prompt(ctx, "", "abc-123", "hi", nil)
	f, _ = fault.As(err)
	fmt.Println(f.Message, f.Category, f.SessionValid)
	// Output:
	// chunk "You "
	// chunk "said: "
	// chunk "hello"
	// You said: hello end_turn
	// RATE_LIMITED UPSTREAM true 2s true
	// Session not found: abc-123 UPSTREAM false
}

// An agents file with a scripted agent that always fails after one chunk.
func ExampleParse() {
	reg, err := agent.Parse([]byte(`
agents:
  - id: flaky
    kind: script
    script: {chunks: ["partial ", "answer"], fail: {code: UPSTREAM_ERROR, after: 1}}
`), "agents.yaml")
	if err != nil {
		panic(err)
	}
	fmt.Println(reg.Agents[0].ID, reg.Agents[0].Kind)

	_, err = agent.Parse([]byte("agents:\n  - {id: x, kind: mistral}\n"), "agents.yaml")
	f, _ := fault.As(err)
	fmt.Println(f.Code, f.Message)
	// Output:
	// flaky script
	// CONFIG_ERROR Provider "mistral" is not registered
}

// A team: its members answer the same prompt in parallel, and its answer is
// theirs in the team's order; the first member to fail fails the team.
func ExampleKindTeam() {
	ctx := context.Background()
	reg, err := agent.Parse([]byte(`
agents:
  - {id: fast, kind: script, script: {reply: "quick {{prompt}}"}}
  - {id: slow, kind: script, script: {chunks: ["one ", "two"], delay: 20ms}}
  - {id: limited, kind: script, script: {fail: {code: RATE_LIMITED, retryAfter: 3s}}}
  - {id: panel, kind: team, members: [slow, fast]}
  - {id: strained, kind: team, members: [fast, limited]}
`), "agents.yaml")
	if err != nil {
		panic(err)
	}
	m := agent.NewManager(reg.Build(nil), agent.ManagerConfig{})
	if err := m.Start(ctx); err != nil {
		panic(err)
	}
	defer m.Shutdown()

	res, _, _ := m.Delegate(ctx, "acme", "panel", "hi", nil, nil)
	fmt.Println(res.Text)

	_, _, err = m.Delegate(ctx, "acme", "strained", "hi", nil, nil)
	f, _ := fault.As(err)
	fmt.Println(f.Code, f.RetryAfter, f.Details["agentId"])
	// Output:
	// slow: one two
	//
	// fast: quick hi
	// RATE_LIMITED 3s limited
}

// An agent is never asked an empty prompt: whatever the door (MCP, AG-UI,
// the Go API), the Manager refuses one as INVALID_REQUEST.
func ExampleEmptyPrompt() {
	ctx := context.Background()
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
	if err := m.Start(ctx); err != nil {
		panic(err)
	}
	defer m.Shutdown()

	fmt.Println(agent.EmptyPrompt(""), agent.EmptyPrompt(" \n"), agent.EmptyPrompt("hi"))
	_, _, err := m.Delegate(ctx, "", "echo", "  ", nil, nil)
	f, _ := fault.As(err)
	fmt.Println(f.Code, f.FieldErrors[0].Field, f.FieldErrors[0].Message)
	// Output:
	// true true false
	// INVALID_REQUEST prompt must have a character other than white space
}

// A team's answer: each member's section in the team's order; the first
// member that stopped otherwise than "end_turn" gives the stop reason.
func ExampleJoinAnswers() {
	res := agent.JoinAnswers([]string{"a", "b", "c"}, []agent.Result{
		{Text: "yes", StopReason: "end_turn"},
		{Text: "", StopReason: agent.StopToolCall},
		{Text: "no", StopReason: "max_tokens"},
	})
	fmt.Printf("%q %s\n", res.Text, res.StopReason)
	// Output: "a: yes\n\nb: \n\nc: no" tool_call
}
