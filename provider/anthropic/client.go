package anthropic

import (
	"os"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/internal/upstream"
)

// NewClient builds an Anthropic client for use under Triage's resilience
// layer:
//
//   - its own retries are off (option.WithMaxRetries(0)), so each call is one
//     request and the resilience layer decides, once, whether and when to
//     retry (the SDK alone retries twice by default, and a retry policy
//     around it would multiply the attempts);
//   - errors of its HTTP transport are tagged, so Classify names Anthropic
//     in the faults of refused connections and other network failures.
//
// apiKey is the API key; when it is empty the SDK reads ANTHROPIC_API_KEY
// (or ANTHROPIC_AUTH_TOKEN, a bearer token). With none of them, NewClient
// returns a CONFIG_ERROR fault, "missing required credential: apiKey". A
// client that authenticates otherwise (configuration profiles, workload
// identity federation) is built with anthropic.NewClient and
// option.WithMaxRetries(0).
//
// opts are applied after Triage's options, so they may set the base URL, an
// HTTP client or a request timeout; an option.WithMaxRetries among them
// turns the SDK's retries back on, which only a caller without a resilience
// policy should do. The SDK's other environment variables
// (ANTHROPIC_BASE_URL, …) apply as they do for anthropic.NewClient.
func NewClient(apiKey string, opts ...option.RequestOption) (sdk.Client, error) {
	if apiKey == "" && os.Getenv("ANTHROPIC_API_KEY") == "" && os.Getenv("ANTHROPIC_AUTH_TOKEN") == "" {
		return sdk.Client{}, provider.MissingCredential("apiKey")
	}
	// The key is scrubbed from every fault's text, whatever an upstream
	// echoes back.
	fault.RegisterSecret(apiKey)
	fault.RegisterSecret(os.Getenv("ANTHROPIC_API_KEY"))
	fault.RegisterSecret(os.Getenv("ANTHROPIC_AUTH_TOKEN"))
	all := make([]option.RequestOption, 0, len(opts)+3)
	if apiKey != "" {
		all = append(all, option.WithAPIKey(apiKey))
	}
	all = append(all, option.WithMaxRetries(0))
	all = append(all, opts...)
	// Last, so that it is the innermost middleware: it tags what the
	// transport returns, not what the caller's middlewares add.
	all = append(all, option.WithMiddleware(upstream.Middleware(ProviderID)))
	return sdk.NewClient(all...), nil
}

// Wrap marks err, an error that a call through a Anthropic client returned, as
// Anthropic's, so that fault.From names Anthropic (details.providerId "anthropic")
// whatever the error is. Most errors need no mark: the SDK's error answers
// are Anthropic's by their type, and a client built by NewClient tags what its
// transport returns, and what reading an answer's body returns (a stream
// cut short, a deadline passing mid-stream). Two kinds name no provider:
//
//   - the bare context.DeadlineExceeded or context.Canceled that the SDK
//     returns, instead of its transport's error, when the caller's deadline
//     or the SDK's own per-request timeout (option.WithRequestTimeout) passes, or the
//     caller cancels, before the answer arrives: marked, they are TIMEOUT,
//     retryable, and CANCELLED, naming Anthropic;
//   - the SDK's own errors, such as an answer it could not decode: marked,
//     they are seed 002's unknown provider error, UPSTREAM_ERROR, not
//     retryable (unmarked, fault's rules would read a JSON error as the
//     caller's invalid request).
//
// Wrap changes nothing else: an SDK error's fault is the same marked or
// not. A nil err stays nil, and an error holding a fault is returned as it
// is.
//
//	_, err := client.Messages.New(ctx, params)
//	f := fault.From(anthropic.Wrap(err))
func Wrap(err error) error { return upstream.Wrap(ProviderID, err) }
