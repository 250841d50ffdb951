// Package anthropicagent registers the anthropic kind of agent with
// package agent: an agent that calls Anthropic's messages API, streamed,
// through the client package provider/anthropic builds (the SDK's own
// retries off) and whose faults that package classifies. Import it for
// its side effect, as a database/sql driver is imported:
//
//	import _ "github.com/triage-go/triage/provider/anthropic/anthropicagent"
//
// A program that does not import it carries none of Anthropic's SDK, and
// an agents file naming the kind fails to start with a CONFIG fault naming
// this package. `triage serve` and `triage bridge` import it.
//
// An agent of the kind takes a model, and its key from ANTHROPIC_API_KEY
// (or the variable apiKeyEnv names); baseURL, system and maxTokens are
// optional, maxTokens DefaultMaxTokens when unset, since the API requires
// a bound (docs/bridge.md).
package anthropicagent
