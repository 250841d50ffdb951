// Package openaiagent registers the openai kind of agent with package
// agent: an agent that calls OpenAI's chat completions, streamed, through
// the client package provider/openai builds (the SDK's own retries off)
// and whose faults that package classifies. Import it for its side
// effect, as a database/sql driver is imported:
//
//	import _ "github.com/triage-go/triage/provider/openai/openaiagent"
//
// A program that does not import it carries none of OpenAI's SDK, and an
// agents file naming the kind fails to start with a CONFIG fault naming
// this package. `triage serve` and `triage bridge` import it.
//
// An agent of the kind takes a model, and its key from OPENAI_API_KEY (or
// the variable apiKeyEnv names); baseURL, system and maxTokens are
// optional (docs/bridge.md).
package openaiagent
