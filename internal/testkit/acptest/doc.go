// Package acptest gives tests an Agent Client Protocol agent nobody here
// wrote: cmd/triage/testdata/acp-agent, an agent on the official
// TypeScript ACP SDK (@agentclientprotocol/sdk, pinned by its
// package-lock.json), run by node. SDKAgent returns the command that
// starts it, for an acp.Config or an agents file's `kind: acp` agent, and
// skips the test, saying what to install, when node or the agent's
// packages are missing (CI installs them: see .ci/run).
//
// The agent's prompts and environment are described at the top of
// agent.mjs: "refuse", "stray", "hang", "stubborn", "exit CODE", "pid",
// SDK_AGENT_REFUSE_INIT=1 and SDK_AGENT_BANNER=1.
package acptest
