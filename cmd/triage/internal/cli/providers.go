package cli

// The provider kinds of agent register themselves when their package is
// imported (package agent's RegisterProvider, as database/sql drivers
// do): the triage command runs agents of all three, so it imports them,
// and carries the three SDKs; a program that builds on agent, bridge or
// aguirun imports the ones it runs.
import (
	_ "github.com/triage-go/triage/provider/anthropic/anthropicagent"
	_ "github.com/triage-go/triage/provider/gemini/geminiagent"
	_ "github.com/triage-go/triage/provider/openai/openaiagent"
)
