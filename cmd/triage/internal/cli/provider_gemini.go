//go:build gemini

package cli

// Gemini's agents (kind: gemini) are built in with -tags gemini: the provider's
// package registers the kind when imported (package agent's
// RegisterProvider), and brings its SDK.
import _ "github.com/triage-go/triage/provider/gemini/geminiagent"
