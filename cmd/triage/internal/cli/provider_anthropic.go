//go:build anthropic

package cli

// Anthropic's agents (kind: anthropic) are built in with -tags anthropic: the provider's
// package registers the kind when imported (package agent's
// RegisterProvider), and brings its SDK.
import _ "github.com/triage-go/triage/provider/anthropic/anthropicagent"
