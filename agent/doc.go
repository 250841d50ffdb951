// Package agent is Triage's agent registry and executors: the agents an
// MCP client (package bridge) or an AG-UI frontend reaches, and the
// sessions it holds with them, behind one error contract (seed 002).
//
// An agents file (YAML; see Config) lists the agents, each of a Kind:
//
//   - script: a scripted agent described in the file, which runs with no
//     key and no network. Default's registry holds one, "echo".
//   - openai, anthropic, gemini: an in-process agent calling the provider
//     through its official SDK. Each kind is registered by its package
//     (provider/openai/openaiagent, provider/anthropic/anthropicagent,
//     provider/gemini/geminiagent) when a program imports it, as
//     database/sql drivers are: package agent imports no SDK, and a
//     program carries only those of the kinds it imports. Another
//     provider registers a kind of its own with RegisterProvider.
//   - acp: a command spawned as a pool of worker processes speaking the
//     Agent Client Protocol over stdio, so existing ACP agents plug in
//     unchanged (see package agent/acp, and `triage worker`).
//   - team: agents of the file answering one prompt in parallel; the first
//     member to fail fails the team with its fault. Over AG-UI a team is a
//     fan-out graph (package aguirun).
//
// A Manager runs them: sessions with ids, an owner agent and an owner
// (a tenant), a state (idle, running, cancelled, closed, failed), a
// capacity per agent and per owner, an idle TTL and a prompt timeout.
//
// # Failures
//
// Every error a Manager returns is a *fault.Error with seed 002's category,
// message and retryability, and SessionValid saying truthfully whether the
// session survives:
//
//	before Start, after Shutdown   INTERNAL   "Executor not started"
//	no agents                      CONFIG     "No agents registered"
//	unknown agent                  UPSTREAM   "Agent not found: {agentId}"
//	agent at capacity              UPSTREAM   "Session capacity reached"
//	unknown session                UPSTREAM   "Session not found: {sessionId}"
//	agent's unexpected error       UPSTREAM   "Agent {agentId} failed" (cause in debug only)
//	prompt past its deadline       TIMEOUT    "Prompt timed out after {d}" (retryable)
//	cancelled prompt               TRANSPORT  "Prompt cancelled" (session still valid)
//	second prompt in a session     UPSTREAM   SESSION_BUSY (retryable)
//
// A fault an agent returns (a provider's RATE_LIMITED, a worker's crash)
// passes through with the agent named in Source and details.agentId. A
// failure the session does not survive (a crashed worker) moves the
// session to the failed state and frees its slot.
//
// # Scripted failures
//
// A script agent fails on request, so integrators can exercise every
// failure their client must handle: a prompt "fail with RATE_LIMITED"
// ends in that code's fault with its facets from the code table (and a
// 2-second retry delay when the code is retryable; "fail with RATE_LIMITED
// after 5s" sets it), "fail" is an unexpected error ("Agent echo failed"),
// "hang" waits until the prompt is cancelled or times out, "warn with
// SERVICE_UNAVAILABLE" sends that fault as a notice (Chunk.Notice) and
// answers, and
// `call get_weather {"city":"Paris"}` streams a call to the caller's tool
// (ending "… then fail with CODE" fails before the call's arguments are
// complete).
package agent
