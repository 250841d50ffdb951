// Package anthropic classifies the errors of the Anthropic Go SDK
// (github.com/anthropics/anthropic-sdk-go) into Triage faults, and builds
// SDK clients whose retries the resilience layer owns.
//
// Importing the package registers its classifier with fault.Register, as
// database/sql drivers register themselves, so a plain fault.From
// classifies the SDK's errors:
//
//	import _ "github.com/triage-go/triage/provider/anthropic"
//
//	_, err := client.Messages.New(ctx, params)
//	f := fault.From(err) // SERVICE_UNAVAILABLE, retryable, on overloaded_error
//
// Classify does the same without the registration's side effect.
//
// # Classification
//
// An *anthropic.Error is classified by its error type (Error.Type, from the
// body {"type":"error","error":{"type","message"}}) first, then by its HTTP
// status:
//
//	authentication_error (401)           PROVIDER_AUTH_FAILED  not retryable
//	permission_error (403)               PROVIDER_AUTH_FAILED  not retryable
//	billing_error (402)                  QUOTA_EXHAUSTED       not retryable
//	invalid_request_error (400) whose message says
//	  "credit balance is too low"        QUOTA_EXHAUSTED       not retryable
//	  "prompt is too long", "exceed
//	  context limit", "context window"   PAYLOAD_TOO_LARGE     not retryable
//	  "content filtering policy"         CONTENT_REFUSED       not retryable
//	  anything else                      UPSTREAM_ERROR        not retryable
//	not_found_error (404)                CAPABILITY_NOT_FOUND  not retryable
//	request_too_large (413)              PAYLOAD_TOO_LARGE     not retryable
//	rate_limit_error (429)               RATE_LIMITED          retryable, RetryAfter
//	api_error (500 and others)           UPSTREAM_ERROR        retryable
//	api_error with a 503                 SERVICE_UNAVAILABLE   retryable, RetryAfter
//	timeout_error (504)                  TIMEOUT               retryable
//	overloaded_error (529)               SERVICE_UNAVAILABLE   retryable
//	no known type: fault.FromStatus's table, 404 being CAPABILITY_NOT_FOUND;
//	  a stream's error event of no known type is UPSTREAM_ERROR, not retryable
//
// RetryAfter comes from Retry-After-Ms, Retry-After or the RateLimit header
// fields (see fault.RetryDelay). The message rules read Anthropic's message
// text, which is the only place it says why a 400 failed; their
// Classification.Confidence is 0.8 instead of 0.9.
//
// Every fault has Source "anthropic" and details providerId, providerType
// (Anthropic's error type), upstream_status and requestId (the request-id
// header, or the body's request_id). Its Message is Triage's own;
// Anthropic's body goes only to debug output, redacted. No fault carries the
// API key, a header or the request body.
//
// Network failures are fault's to classify: the SDK returns them as it got
// them from net/http, so a refused connection is TRANSPORT_ERROR (rule
// connection_refused), retryable, and a passed deadline (the caller's, or
// option.WithRequestTimeout's) comes back as the bare
// context.DeadlineExceeded, TIMEOUT, retryable. Neither names a provider;
// Classify declines them, except that a client built by NewClient tags its
// transport's errors and its answers' read errors (a stream cut short or
// timed out mid-stream), whose faults then carry providerId "anthropic".
// The bare context errors the SDK returns in place of its transport's, and
// its own errors (an answer it cannot decode), name Anthropic once marked
// with Wrap: every provider error then carries providerId, as seed 002
// asks.
//
// # Retries
//
// The SDK retries 408, 409, 429, 5xx (529 included) and connection errors
// twice by default, honouring Retry-After and x-should-retry. Under a
// resilience policy that would multiply attempts and hide the provider's
// answers from it, so NewClient sets option.WithMaxRetries(0): every call is
// one request, and the resilience layer retries what the fault says is
// retryable, once, after RetryAfter. A client built without NewClient should
// set option.WithMaxRetries(0) itself.
package anthropic
