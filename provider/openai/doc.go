// Package openai classifies the errors of the OpenAI Go SDK
// (github.com/openai/openai-go/v3) into Triage faults, and builds SDK clients
// whose retries the resilience layer owns.
//
// Importing the package registers its classifier with fault.Register, as
// database/sql drivers register themselves, so a plain fault.From
// classifies the SDK's errors:
//
//	import _ "github.com/triage-go/triage/provider/openai"
//
//	_, err := client.Chat.Completions.New(ctx, params)
//	f := fault.From(err) // RATE_LIMITED, retryable, RetryAfter from the headers
//
// Classify does the same without the registration's side effect.
//
// # Classification
//
// An *openai.Error is classified by its code and type first, then by its
// HTTP status:
//
//	insufficient_quota (code or type)         QUOTA_EXHAUSTED       not retryable
//	401, invalid_api_key                      PROVIDER_AUTH_FAILED  not retryable
//	403                                       PROVIDER_AUTH_FAILED  not retryable
//	429, rate_limit_exceeded                  RATE_LIMITED          retryable, RetryAfter
//	context_length_exceeded, string_above_…   PAYLOAD_TOO_LARGE     not retryable
//	content_policy_violation, invalid_prompt,
//	  moderation_blocked, content_filter, …   CONTENT_REFUSED       not retryable
//	404, model_not_found                      CAPABILITY_NOT_FOUND  not retryable
//	408                                       TIMEOUT               retryable
//	other 4xx (400, 409, 422, …)              UPSTREAM_ERROR        not retryable
//	503                                       SERVICE_UNAVAILABLE   retryable
//	other 5xx                                 UPSTREAM_ERROR        retryable
//	anything else                             UPSTREAM_ERROR        not retryable
//
// A 402 or 413 without a more specific code follows fault.FromStatus
// (QUOTA_EXHAUSTED, PAYLOAD_TOO_LARGE). RetryAfter comes from Retry-After-Ms, Retry-After or the RateLimit header
// fields (see fault.RetryDelay), and failing those from OpenAI's own
// x-ratelimit-reset-requests and x-ratelimit-reset-tokens of an exhausted
// quota. An error event inside a stream (*ssestream.StreamError) is
// classified by its type and code the same way; its status was 200.
//
// Every fault has Source "openai" and details providerId, providerType and
// providerCode (OpenAI's type and code), providerParam, upstream_status and
// requestId (the x-request-id header). Its Message is Triage's own; OpenAI's
// message goes only to debug output, redacted. No fault carries the API key,
// a header or the request body.
//
// Network failures are fault's to classify: the SDK returns them as it got
// them from net/http, so a refused connection is TRANSPORT_ERROR (rule
// connection_refused), retryable, and a passed deadline (the caller's
// context, or option.WithRequestTimeout's) comes back as the bare
// context.DeadlineExceeded, TIMEOUT, retryable. Neither names a provider;
// Classify declines them, except that a client built by NewClient tags its
// transport's errors and its answers' read errors (a stream cut short or
// timed out mid-stream), whose faults then carry providerId "openai". The
// bare context errors the SDK returns in place of its transport's, and its
// own errors (an answer it cannot decode), name OpenAI once marked with
// Wrap: every provider error then carries providerId, as seed 002 asks.
//
// # Retries
//
// The SDK retries 408, 409, 429, 5xx and connection errors twice by
// default, honouring Retry-After. Under a resilience policy that would
// multiply attempts and hide the provider's answers from it, so NewClient
// sets option.WithMaxRetries(0): every call is one request, and the
// resilience layer retries what the fault says is retryable, once, after
// RetryAfter. A client built without NewClient should set
// option.WithMaxRetries(0) itself.
package openai
