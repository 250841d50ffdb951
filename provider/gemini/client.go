package gemini

import (
	"context"
	"os"
	"strings"

	"google.golang.org/genai"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/internal/upstream"
)

// NewClient builds a Gen AI client for use under Triage's resilience layer.
// cfg is copied, not changed; nil means the zero configuration (the Gemini
// API backend, with its key from the environment).
//
//   - Its retries are off: HTTPOptions.RetryOptions is set to one attempt.
//     The SDK retries only when RetryOptions asks it to (then 5 attempts by
//     default, on 408, 429, 500, 502, 503, 504 and transport errors, with
//     backoff that ignores Retry-After and RetryInfo), so this only keeps a
//     RetryOptions in cfg from turning retries on; a call's own
//     GenerateContentConfig.HTTPOptions.RetryOptions still can.
//   - The retries of its Interactions API clients (Client.Interactions,
//     Voices, Webhooks, Agents, Credentials and Environments, which
//     genai generates separately and which retry 408, 409, 429, 5xx and
//     connection errors up to 4 times by default) are off too: NewClient
//     replaces them with clients built as genai builds them (key, headers
//     of HTTPOptions.Headers, HTTP client, base URL, API version and Vertex
//     AI project and location, timeout) plus retry.Config{Strategy:
//     "none"}. A call's own operations.WithRetries still can turn them on.
//     genai's telemetry headers (User-Agent and x-goog-api-client
//     "google-genai-sdk/… gl-go/…") are not reproduced: the SDK adds them
//     with unexported code. Nothing reads them, and their one side effect
//     (the generated client sets its Api-Revision header only when it has
//     security settings, which those headers always gave it) is kept.
//     Interactions requests carry the generated client's own User-Agent
//     instead, or the one in HTTPOptions.Headers.
//   - Errors of its HTTP transport are tagged, so Classify names Gemini in
//     the faults of refused connections, timeouts and other network
//     failures, through the main API and the Interactions API alike. A
//     cfg.HTTPClient is copied to do so, never changed.
//
// On the Gemini API backend the API key is cfg.APIKey, or GOOGLE_API_KEY or
// GEMINI_API_KEY as the SDK reads them; with none of them, NewClient returns
// a CONFIG_ERROR fault, "missing required credential: apiKey". (The Vertex
// AI backend authenticates with a project and Application Default
// Credentials instead, and the SDK checks those.) Any other configuration
// the SDK rejects is a CONFIG_ERROR fault too, whose cause keeps the SDK's
// reason but not its dump of the configuration, which holds the key.
//
// Some loops are not the SDKs' HTTP retries and stay as they are: a file
// upload re-sends a chunk whose answer lacks an upload status; a stream with
// automatic continuation resumes after a dropped connection once the server
// has sent a continuation token (GenerateContentConfig.AutomaticContinuation);
// and Interactions.Create's automatic continuation sends a further request
// for each continuation token of a long answer, and reconnects a dropped
// stream (at most interactions.MaxStreamReconnectsWithoutProgress times
// without progress).
func NewClient(ctx context.Context, cfg *genai.ClientConfig) (*genai.Client, error) {
	var c genai.ClientConfig
	if cfg != nil {
		c = *cfg
	}
	if !vertex(c.Backend) && c.APIKey == "" && os.Getenv("GOOGLE_API_KEY") == "" && os.Getenv("GEMINI_API_KEY") == "" {
		return nil, provider.MissingCredential("apiKey")
	}
	// The key is scrubbed from every fault's text, whatever an upstream
	// echoes back.
	fault.RegisterSecret(c.APIKey)
	fault.RegisterSecret(os.Getenv("GOOGLE_API_KEY"))
	fault.RegisterSecret(os.Getenv("GEMINI_API_KEY"))
	one := int32(1)
	c.HTTPOptions.RetryOptions = &genai.HTTPRetryOptions{Attempts: &one}
	own := c.HTTPClient == nil
	if !own {
		hc := *c.HTTPClient
		hc.Transport = upstream.Transport(ProviderID, hc.Transport)
		c.HTTPClient = &hc
	}
	client, err := genai.NewClient(ctx, &c)
	if err != nil {
		return nil, provider.InvalidConfig(err)
	}
	if own && c.HTTPClient != nil {
		// The SDK made this client for this configuration alone (a plain one
		// for an API key, an authorizing one for Vertex AI); nothing has
		// used it yet.
		c.HTTPClient.Transport = upstream.Transport(ProviderID, c.HTTPClient.Transport)
	}
	// The Interactions API clients that genai.NewClient built retry on
	// their own: replace them with the same clients, retries off, on the
	// same (tagged) HTTP client.
	useInteractions(client)
	return client, nil
}

// vertex reports whether a configuration uses the Vertex AI backend, as
// genai.NewClient decides it: the backend named, or else the environment.
func vertex(b genai.Backend) bool {
	switch b {
	case genai.BackendVertexAI, genai.BackendEnterprise:
		return true
	case genai.BackendGeminiAPI:
		return false
	}
	if v, ok := os.LookupEnv("GOOGLE_GENAI_USE_ENTERPRISE"); ok {
		return truthy(v)
	}
	return truthy(os.Getenv("GOOGLE_GENAI_USE_VERTEXAI"))
}

func truthy(v string) bool {
	v = strings.ToLower(v)
	return v == "1" || v == "true"
}

// Wrap marks err, an error that a call through a Gen AI client returned, as
// Gemini's, so that fault.From names Gemini (details.providerId
// "google-gemini") whatever the error is. Most errors need no mark: the
// SDK's error answers are Gemini's by their type, and a client built by
// NewClient tags what its transport returns, and what reading an answer's
// body returns; genai wraps both with %w, so even a passed deadline or a
// cancelled call names Gemini. What is left are the SDK's own errors, such
// as an answer it could not decode ("iterateResponseStream: invalid stream
// chunk"): marked, they are seed 002's unknown provider error,
// UPSTREAM_ERROR, not retryable (unmarked, fault's rules would read a JSON
// error as the caller's invalid request).
//
// Wrap changes nothing else: an SDK error's fault is the same marked or
// not. A nil err stays nil, and an error holding a fault is returned as it
// is.
//
//	for resp, err := range client.Models.GenerateContentStream(ctx, model, contents, nil) {
//		if err != nil {
//			return fault.From(gemini.Wrap(err))
//		}
//		…
//	}
func Wrap(err error) error { return upstream.Wrap(ProviderID, err) }
