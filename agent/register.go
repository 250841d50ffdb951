package agent

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/triage-go/triage/fault"
)

// Provider is what a model provider's package registers so that agents of
// its kind can call the provider: how to reach it and how to stream an
// answer. Package agent does the rest, the same for every provider: the
// key and the model (CONFIG faults naming the provider), the sessions and
// their conversation, cancellation, and the faults of an answer that is no
// answer.
type Provider struct {
	// Kind is the kind an agents file names ("openai"). It may not be one
	// of package agent's own kinds (script, acp, team).
	Kind Kind
	// ID is the provider's id, as its faults' Source and
	// details.providerId spell it ("openai", "google-gemini").
	ID string
	// Name names the provider in messages ("OpenAI").
	Name string
	// Env are the environment variables that hold the key when the agent's
	// configuration names none (Config.APIKeyEnv), tried in order.
	Env []string
	// Wrap, when set, makes every error of a call name the provider (the
	// provider package's Wrap), so that fault.From classifies it with the
	// provider's tables.
	Wrap func(error) error
	// Connect builds the provider's client with key for the agent c (its
	// Model, BaseURL, System and MaxTokens) and returns how to stream an
	// answer. It is called once, by Start.
	Connect func(ctx context.Context, key string, c Config) (Stream, error)
}

// Stream sends one prompt, after the session's history (oldest first),
// and passes each text delta of the answer to delta, in order. It returns
// how the stream ended, or the provider's error (which Provider.Wrap and
// fault.From classify). A Stream whose ctx ends should return promptly.
type Stream func(ctx context.Context, history []Turn, prompt string, delta func(string)) (Ending, error)

// Ending is how a provider's answer ended. A stream that ended with no
// Reason was cut off (UPSTREAM_ERROR, retryable); a refusal is
// CONTENT_REFUSED; an answer without text is UPSTREAM_ERROR.
type Ending struct {
	// Reason is the provider's own finish or stop reason ("stop",
	// "end_turn", "STOP"); empty when the stream ended without one.
	Reason string
	// Refused says the model refused, or a safety filter blocked the
	// prompt or the answer; Refusal is the model's words, if any (kept in
	// the fault's debug only).
	Refused bool
	Refusal string
	// Truncated says the answer stopped at the token limit (stop reason
	// "max_tokens").
	Truncated bool
}

// providerPackages are the packages that register the provider kinds
// Triage ships: an agents file may name these kinds whether or not the
// program imported their package, and starting one that is not
// registered says which package to import.
var providerPackages = map[Kind]string{
	KindOpenAI:    "github.com/triage-go/triage/provider/openai/openaiagent",
	KindAnthropic: "github.com/triage-go/triage/provider/anthropic/anthropicagent",
	KindGemini:    "github.com/triage-go/triage/provider/gemini/geminiagent",
}

var providers = struct {
	sync.RWMutex
	m map[Kind]Provider
}{m: map[Kind]Provider{}}

// RegisterProvider makes agents of p.Kind call p. A provider's package
// calls it from init, as database/sql drivers register themselves, so
// that a program that imports the package (for its side effect, with the
// blank identifier) can run agents of its kind, and a program that does
// not carries none of its SDK. It panics if p has no Kind or no Connect,
// if p.Kind is one of package agent's own kinds, or if p.Kind is
// registered already.
func RegisterProvider(p Provider) {
	switch {
	case p.Kind == "" || p.Connect == nil:
		panic("agent: RegisterProvider needs a Kind and a Connect")
	case p.Kind == KindScript || p.Kind == KindACP || p.Kind == KindTeam:
		panic(fmt.Sprintf("agent: RegisterProvider: %q is a kind of package agent's own", p.Kind))
	}
	p.Env = slices.Clone(p.Env)
	if p.ID == "" {
		p.ID = string(p.Kind)
	}
	if p.Name == "" {
		p.Name = p.ID
	}
	providers.Lock()
	defer providers.Unlock()
	if _, dup := providers.m[p.Kind]; dup {
		panic(fmt.Sprintf("agent: RegisterProvider called twice for kind %q", p.Kind))
	}
	providers.m[p.Kind] = p
}

// Providers returns the registered provider kinds, sorted.
func Providers() []Kind {
	providers.RLock()
	defer providers.RUnlock()
	kinds := make([]Kind, 0, len(providers.m))
	for k := range providers.m {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return kinds
}

// providerOf returns the provider registered for k.
func providerOf(k Kind) (Provider, bool) {
	providers.RLock()
	defer providers.RUnlock()
	p, ok := providers.m[k]
	return p, ok
}

// isProvider reports whether an agents file may name k as a provider
// agent's kind: a kind Triage ships, or one registered.
func isProvider(k Kind) bool {
	if _, ok := providerPackages[k]; ok {
		return true
	}
	_, ok := providerOf(k)
	return ok
}

// errNotRegistered is the CONFIG fault of a provider kind nothing
// registered: for a kind Triage ships, it names the package to import.
func errNotRegistered(k Kind, opts ...fault.Option) *fault.Error {
	msg := fmt.Sprintf("Provider %q is not registered", k)
	opts = append(opts, fault.WithDetail("providerId", string(k)))
	if pkg, ok := providerPackages[k]; ok {
		msg += ": the program must import " + pkg
		opts = append(opts, fault.WithDetail("package", pkg))
	}
	return fault.New(fault.ConfigError, msg, opts...)
}
