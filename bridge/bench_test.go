package bridge_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
)

const benchScript = `
agents:
  - id: echo
    kind: script
    maxSessions: 1024
`

// BenchmarkPromptScript is one sessions_prompt round trip through the
// go-sdk's in-memory transport, with the script agent (no delay).
func BenchmarkPromptScript(b *testing.B) {
	benchPrompt(b, benchScript, "echo")
}

// BenchmarkPromptWorker is the same through one ACP worker process.
func BenchmarkPromptWorker(b *testing.B) {
	benchPrompt(b, workerAgents(b, 1, "0s"), "worker")
}

func benchPrompt(b *testing.B, yaml, id string) {
	reg, err := agent.Parse([]byte(yaml), "bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	cs := connect(b, reg, agent.ManagerConfig{}, bridge.Config{})
	s, _ := call(b, cs, "sessions_create", map[string]any{"agentId": id})
	args := map[string]any{"sessionId": s["sessionId"], "prompt": "hello there"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sessions_prompt", Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
}

// BenchmarkConcurrentClients runs 100 clients at once, each in a loop of
// tasks_delegate (a session created, prompted and closed), and reports
// sessions and prompts per second.
func BenchmarkConcurrentClients(b *testing.B) {
	for _, c := range []struct{ name, yaml, id string }{
		{"script", benchScript, "echo"},
		{"worker", workerAgents(b, 2, "0s"), "worker"},
	} {
		b.Run(c.name, func(b *testing.B) {
			reg, err := agent.Parse([]byte(c.yaml), "bench.yaml")
			if err != nil {
				b.Fatal(err)
			}
			m := agent.NewManager(reg.Build(nil), agent.ManagerConfig{})
			if err := m.Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			defer m.Shutdown()
			br := bridge.New(bridge.Config{Manager: m, MaxConcurrent: 256})
			const clients = 100
			sessions := make([]*mcp.ClientSession, clients)
			for i := range sessions {
				st, ct := mcp.NewInMemoryTransports()
				ss, err := br.Server().Connect(context.Background(), st, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer ss.Close()
				cl := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
				if sessions[i], err = cl.Connect(context.Background(), ct, nil); err != nil {
					b.Fatal(err)
				}
				defer sessions[i].Close()
			}
			var next, failed atomic.Int64
			start := time.Now()
			b.ResetTimer()
			var wg sync.WaitGroup
			for _, cs := range sessions {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for next.Add(1) <= int64(b.N) {
						res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_delegate",
							Arguments: map[string]any{"agentId": c.id, "prompt": "hello there"}})
						if err != nil || res.IsError {
							failed.Add(1)
						}
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			if n := failed.Load(); n > 0 {
				b.Fatalf("%d of %d delegations failed", n, b.N)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "sessions/s")
		})
	}
}
