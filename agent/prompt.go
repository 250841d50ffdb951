package agent

import (
	"strings"

	"github.com/triage-go/triage/fault"
)

// EmptyPrompt reports whether text is no prompt at all: empty, or white
// space only. It is the one rule every door to the agents shares: an
// agent is never asked such a prompt. Manager.Prompt, Delegate and
// DelegateWithHistory refuse it (INVALID_REQUEST, field "prompt"), as the
// MCP tools' input schema refuses "", and POST /v1/agents/{agent_id}/runs
// refuses a thread whose last user message has no text (422) before its
// stream starts.
func EmptyPrompt(text string) bool { return strings.TrimSpace(text) == "" }

// errEmptyPrompt is a prompt EmptyPrompt refuses.
func errEmptyPrompt() *fault.Error {
	return fault.Invalid("The prompt is empty: send some text.",
		fault.FieldError{Field: "prompt", Message: "must have a character other than white space"})
}
