// Package upstream holds what the provider packages share: the fault that a
// provider's answer becomes (its message, domain, details and delay), the tag
// that marks errors from a provider client's own HTTP transport, and the
// faults of a client that cannot be built.
//
// Each provider package decides the Verdict (which code, whether retryable)
// from its SDK's error; Provider.Fault turns the verdict into a fault the
// same way for all three, so their faults differ only where the providers do.
package upstream
