// Package providertest holds what the provider packages' tests share: the
// conformance suite every provider package passes (Exercise, given a
// Provider adapter and the package's own cases), a local HTTP server that
// answers like a provider (status, headers, body, delay) and counts the
// requests that reach it, the URL of a closed port, and a check that a
// secret appears nowhere a fault is shown (its JSON, plain and debug, and
// its log/slog output).
//
// A provider package's test runs the suite from a test that is not
// parallel (Exercise's cases are):
//
//	func TestConformance(t *testing.T) {
//		providertest.Exercise(t, providertest.Provider[*openai.Error]{ID: openai.ProviderID, ...})
//	}
//
// It is meant for _test.go files only.
package providertest
