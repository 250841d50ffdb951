package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/fault"
)

// The triage command's optional parts, each built in with a build tag of
// the same name: the agents of each model provider (their SDKs are more
// than a third of a full build's machine code and compile time) and
// River's web UI for the jobs (--riverui). A default build has none of
// them; `go build -tags openai,anthropic,gemini,riverui ./cmd/triage`
// has all. A configuration that asks for a part the binary does not have
// fails at startup and says which tag to rebuild with.
var optionalTags = []string{"openai", "anthropic", "gemini", "riverui"}

// AllTags is the -tags value that builds every optional part in.
var AllTags = strings.Join(optionalTags, ",")

// providerTags is the build tag of each provider kind the command ships.
var providerTags = map[agent.Kind]string{
	agent.KindOpenAI:    "openai",
	agent.KindAnthropic: "anthropic",
	agent.KindGemini:    "gemini",
}

// BuiltIn returns the build tags of the optional parts this binary has,
// in optionalTags' order.
func BuiltIn() []string {
	have := agent.Providers()
	var tags []string
	for _, tag := range optionalTags {
		switch {
		case tag == "riverui" && riverUIBuilt:
			tags = append(tags, tag)
		case slices.ContainsFunc(have, func(k agent.Kind) bool { return providerTags[k] == tag }):
			tags = append(tags, tag)
		}
	}
	return tags
}

// builtInLine is `triage version`'s second line: the optional parts built
// in, and the tags of those that are not.
func builtInLine() string {
	in := BuiltIn()
	var out []string
	for _, tag := range optionalTags {
		if !slices.Contains(in, tag) {
			out = append(out, tag)
		}
	}
	switch {
	case len(out) == 0:
		return "built in: " + strings.Join(in, ", ")
	case len(in) == 0:
		return "built in: none (optional: -tags " + strings.Join(out, ",") + ")"
	}
	return "built in: " + strings.Join(in, ", ") + " (not: -tags " + strings.Join(out, ",") + ")"
}

// rebuildHint is how to get a binary with the optional part of tag.
func rebuildHint(tag string) string {
	return fmt.Sprintf("rebuild it with -tags %s (go build -tags %s ./cmd/triage; or -tags %s for every optional part)", tag, tag, AllTags)
}

// checkProviders refuses an agents file that names a provider kind this
// binary was built without: a CONFIG fault that names the agent and the
// build tag, before any agent starts (package agent alone would say only
// that the kind is not registered).
func checkProviders(reg *agent.Registry, file string) error {
	have := agent.Providers()
	for i, a := range reg.Agents {
		tag, ok := providerTags[a.Kind]
		if !ok || slices.Contains(have, a.Kind) {
			continue
		}
		return fault.New(fault.ConfigError,
			fmt.Sprintf("This triage command was built without the %s provider: %s", a.Kind, rebuildHint(tag)),
			fault.WithDetail("agentId", a.ID), fault.WithDetail("providerId", string(a.Kind)),
			fault.WithDetail("file", file), fault.WithDetail("field", fmt.Sprintf("agents[%d].kind", i)),
			fault.WithDetail("buildTag", tag))
	}
	return nil
}
