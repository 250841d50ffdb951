package main

import "testing"

// TestMCPClient builds the triage binary and runs testdata/mcp-client's
// tests (`node --test`) against it: the official TypeScript MCP client
// (@modelcontextprotocol/sdk, pinned in package.json and package-lock.json)
// talks to `triage bridge` over stdio and to `triage serve`'s /mcp over
// streamable HTTP, and checks what a client sees: the tools, a whole
// session with the answer as progress notifications, and every failure of
// seed 002. Node's output is streamed into the test log.
//
// Its acp-sdk tests put an ACP agent written with the official TypeScript
// ACP SDK (testdata/acp-agent, @agentclientprotocol/sdk pinned there)
// behind the bridge.
//
// It needs Node.js 20 or later and the packages installed:
//
//	npm ci --prefix cmd/triage/testdata/mcp-client
//	npm ci --prefix cmd/triage/testdata/acp-agent
//
// and skips, saying which is missing, without them (CI installs them: see
// .ci/run, where nothing may skip).
func TestMCPClient(t *testing.T) {
	runNodeSuite(t, nodeSuite{
		dir:         "testdata/mcp-client",
		checks:      "the bridge is not checked with the official TypeScript MCP client",
		requires:    []string{"@modelcontextprotocol/sdk"},
		needs:       []nodeProject{{dir: "testdata/acp-agent", requires: []string{"@agentclientprotocol/sdk"}}},
		concurrency: 4,
	})
}
