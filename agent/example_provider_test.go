package agent_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-go/triage/agent"
)

// A provider's package registers its kind when imported, as a database/sql
// driver does; here a toy provider, "shout", which answers in capitals.
func init() {
	agent.RegisterProvider(agent.Provider{
		Kind: "shout",
		Name: "Shout",
		Env:  []string{"SHOUT_API_KEY"},
		Connect: func(_ context.Context, key string, c agent.Config) (agent.Stream, error) {
			return func(ctx context.Context, history []agent.Turn, prompt string, delta func(string)) (agent.Ending, error) {
				for _, word := range strings.Fields(prompt) {
					delta(strings.ToUpper(word) + "! ")
				}
				return agent.Ending{Reason: "stop"}, nil
			}, nil
		},
	})
}

// An agents file names the registered kind; package agent reads the key,
// holds the sessions and turns what the provider streams into chunks and
// faults.
func ExampleRegisterProvider() {
	reg, err := agent.Parse([]byte("agents:\n  - {id: loud, kind: shout, model: v1}\n"), "agents.yaml")
	if err != nil {
		panic(err)
	}
	getenv := func(name string) string {
		if name == "SHOUT_API_KEY" {
			return "shout-key-0123456789abcdef"
		}
		return ""
	}
	ctx := context.Background()
	m := agent.NewManager(reg.Build(&agent.BuildOptions{Getenv: getenv}), agent.ManagerConfig{})
	if err := m.Start(ctx); err != nil {
		panic(err)
	}
	defer m.Shutdown()
	s, _ := m.Create(ctx, "", "loud", nil)
	res, _ := m.Prompt(ctx, "", s.ID, "hello there", func(c agent.Chunk) { fmt.Printf("chunk %q\n", c.Text) })
	fmt.Println(res.StopReason)
	// Output:
	// chunk "HELLO! "
	// chunk "THERE! "
	// end_turn
}
