// Package gemini classifies the errors of the Google Gen AI Go SDK
// (google.golang.org/genai) into Triage faults, and builds SDK clients whose
// retries the resilience layer owns.
//
// Importing the package registers its classifier with fault.Register, as
// database/sql drivers register themselves, so a plain fault.From
// classifies the SDK's errors:
//
//	import _ "github.com/triage-go/triage/provider/gemini"
//
//	_, err := client.Models.GenerateContent(ctx, model, genai.Text(prompt), nil)
//	f := fault.From(err) // RATE_LIMITED, retryable, RetryAfter from RetryInfo
//
// Classify does the same without the registration's side effect.
//
// # Classification
//
// A genai.APIError, and an error answer of the Interactions API clients
// (Client.Interactions, Agents, Voices, Webhooks, Credentials,
// Environments; see below), is classified by the ErrorInfo reason of a
// rejected key, then by its google.rpc status, then by its HTTP code:
//
//	ErrorInfo reason API_KEY_INVALID, … (400)     PROVIDER_AUTH_FAILED  not retryable
//	UNAUTHENTICATED (401), PERMISSION_DENIED (403) PROVIDER_AUTH_FAILED  not retryable
//	RESOURCE_EXHAUSTED (429)                       RATE_LIMITED          retryable, RetryAfter from RetryInfo
//	  with a per-day quota or a quota of 0
//	  violated (QuotaFailure, ErrorInfo)           QUOTA_EXHAUSTED       not retryable
//	INVALID_ARGUMENT, FAILED_PRECONDITION,
//	  OUT_OF_RANGE (400)                           UPSTREAM_ERROR        not retryable
//	  whose message says the input token count
//	  exceeds the maximum                          PAYLOAD_TOO_LARGE     not retryable
//	NOT_FOUND (404), UNIMPLEMENTED (501)           CAPABILITY_NOT_FOUND  not retryable
//	INTERNAL, UNKNOWN, DATA_LOSS (500)             UPSTREAM_ERROR        retryable
//	UNAVAILABLE (503)                              SERVICE_UNAVAILABLE   retryable
//	DEADLINE_EXCEEDED (504)                        TIMEOUT               retryable
//	no known status: fault.FromStatus's table, 404 being CAPABILITY_NOT_FOUND,
//	  and anything outside 400-599 UPSTREAM_ERROR, not retryable
//
// Gemini puts its delay in the google.rpc.RetryInfo detail
// ({"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"17s"}),
// which the SDK itself ignores and which becomes RetryAfter here; the SDK's
// APIError keeps no response headers. Gemini answers every quota violation
// with 429 RESOURCE_EXHAUSTED and the same message, per-minute or per-day,
// so the google.rpc.QuotaFailure detail decides between RATE_LIMITED and
// QUOTA_EXHAUSTED (see docs/providers.md).
//
// The Interactions API clients are generated separately (package
// google.golang.org/genai/interactions) and have their own error types, in
// interactions/models/apierrors: *APIError (status code, raw body and the
// response, for every service), *ResponseValidationError (an error answer
// of Interactions.Create, Get, Delete or Cancel whose body is not the
// declared shape, as Google's error body is not: its code is a number) and
// the typed *CreateInteractionClientError, *GetInteractionByIDServerError,
// … (a body of the declared shape, {"error":{"code":string,"message"}},
// decoded, the rest of it dropped). Classify reads Google's error body from
// the first two (status, details), a status name from a typed error's code
// (any other code becomes providerCode), and the HTTP status from all;
// their response headers are kept, so RetryAfter comes from Retry-After-Ms,
// Retry-After or the RateLimit fields first, else from RetryInfo. An
// *apierrors.ContinuationInterruptedError (Create's automatic continuation
// cut short) is classified by the error it wraps.
//
// Every fault has Source "google-gemini" and details providerId,
// providerStatus (the google.rpc status), providerReason (the ErrorInfo
// reason), upstream_status, and quotaId and quotaMetric of a quota
// violation. Its Message is Triage's own; Gemini's message goes only to
// debug output, redacted. No fault carries the API key, a header or the
// request body. Gemini's answers carry no request id.
//
// Gemini reports a prompt or an answer its safety filters blocked in a
// successful response (PromptFeedback.BlockReason, a candidate's
// FinishReason SAFETY), not as an error, so no error of this SDK is
// CONTENT_REFUSED.
//
// Network failures are fault's to classify: a refused connection is
// TRANSPORT_ERROR (rule connection_refused), retryable, and a passed
// deadline (the caller's, or HTTPOptions.Timeout) TIMEOUT, retryable; the
// SDK wraps them with %w, which hides nothing. Classify declines them,
// except that a client built by NewClient tags its transport's errors and
// its answers' read errors (a stream cut short or timed out mid-stream),
// whose faults then carry providerId "google-gemini"; its Interactions API
// clients share its HTTP client, and so its tag. The SDK's own errors (an
// answer it cannot decode) name Gemini once marked with Wrap.
//
// # Retries
//
// The SDK's HTTP retries are off unless HTTPOptions.RetryOptions asks for
// them; NewClient makes sure a configuration does not. The Interactions API
// clients retry 408, 409, 429, 5xx and connection errors up to 4 times by
// default, whatever RetryOptions says; NewClient replaces them with the
// same clients, built from the same configuration, with retries off
// (retry.Config{Strategy: "none"}), all but genai's telemetry headers (see
// NewClient, also for the SDK's other loops). The resilience layer retries
// what the fault says is retryable, once, after RetryAfter, which RetryInfo
// gives and the SDK's own backoff would ignore.
package gemini
