// Package geminiagent registers the gemini kind of agent with package
// agent: an agent that calls the Gemini API's GenerateContentStream
// through the client package provider/gemini builds (the SDK's own
// retries off) and whose faults that package classifies. Import it for
// its side effect, as a database/sql driver is imported:
//
//	import _ "github.com/triage-go/triage/provider/gemini/geminiagent"
//
// A program that does not import it carries none of Google's Gen AI SDK
// (nor the gRPC and Cloud libraries it brings), and an agents file naming
// the kind fails to start with a CONFIG fault naming this package.
// `triage serve` and `triage bridge` import it.
//
// An agent of the kind takes a model, and its key from GEMINI_API_KEY,
// else GOOGLE_API_KEY (or the variable apiKeyEnv names); baseURL, system
// and maxTokens are optional (docs/bridge.md).
package geminiagent
