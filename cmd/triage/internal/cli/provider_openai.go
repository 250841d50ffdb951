//go:build openai

package cli

// OpenAI's agents (kind: openai) are built in with -tags openai: the provider's
// package registers the kind when imported (package agent's
// RegisterProvider), and brings its SDK.
import _ "github.com/triage-go/triage/provider/openai/openaiagent"
