// Package agenttest is the conformance suite of the provider agents: the
// agents of the kinds Triage's provider agent packages register with
// package agent (provider/openai/openaiagent,
// provider/anthropic/anthropicagent, provider/gemini/geminiagent). Each
// package's test runs Exercise with a Fake of its provider's HTTP API,
// enough of it for an agent: the suite starts a Manager with one agent of
// the Fake's kind calling it, and checks what every provider agent owes
// its caller: the answer streamed in order, a conversation per session
// (bounded), the provider's failures classified (RATE_LIMITED with its
// delay, PROVIDER_AUTH_FAILED, TRANSPORT_ERROR), an answer that is no
// answer a fault, a missing key or model a CONFIG fault, cancellation and
// the prompt timeout, and no fault that shows the key.
//
//	func TestAgent(t *testing.T) { agenttest.Exercise(t, fake) }
//
// It is meant for _test.go files only.
package agenttest
