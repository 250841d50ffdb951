// Package resilience retries, breaks circuits and bounds calls on
// failsafe-go, steered by each failure's fault: only what fault.From says is
// retryable is retried, never before the fault's RetryAfter, and a
// non-idempotent call only when the failure proves the request was not
// processed.
//
// Wrapping a call takes two lines:
//
//	policy := resilience.New(resilience.Config{}) // once, shared
//	resp, err := resilience.Do(ctx, policy, resilience.Operation{Source: "openai", Idempotent: true},
//		func(ctx context.Context) (*openai.ChatCompletion, error) { return client.Chat.Completions.New(ctx, params) })
//
// failsafe-go runs the retry loop, counts attempts and waits; its circuit
// breaker (one per source) and bulkhead are used as they are. Triage adds
// the decisions:
//
//   - Retry only a retryable fault (ShouldRetry); return anything else at
//     once, unchanged.
//   - Wait max(backoff with jitter, RetryAfter): jitter never shortens a
//     wait the upstream asked for. (failsafe-go applies its own jitter after
//     the delay function, so this package never configures it.)
//   - If a wait would pass the context's deadline or Config.MaxDuration,
//     give up at once and return the fault, its RetryAfter intact, instead
//     of sleeping into a timeout.
//   - When attempts run out, return the last fault with the attempt count
//     in its details; errors.Is still finds the original error.
//
// Transport does the same for an http.Client, classifying responses and
// transport errors and reading Retry-After, Retry-After-Ms and the RateLimit
// header fields. Config.OnRetry and Config.Logger report each retry (source,
// operation, code, attempt, delay).
//
// The provider packages turn their SDKs' own retries off, so that retries
// happen here, once.
package resilience
