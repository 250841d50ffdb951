package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genai"
	"google.golang.org/genai/interactions"
	"google.golang.org/genai/interactions/models/apierrors"
	"google.golang.org/genai/interactions/models/components"
	ixmodels "google.golang.org/genai/interactions/models/interactions"
	"google.golang.org/genai/interactions/retry"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/provider/internal/upstream"
)

// useInteractions replaces the Interactions API clients that genai.NewClient
// built (Client.Interactions, Voices, Webhooks, Agents, Credentials and
// Environments, from one generated interactions.GenAI) with clients whose
// retries are off.
func useInteractions(client *genai.Client) {
	ix := newInteractions(client.ClientConfig())
	client.Interactions = ix.Interactions
	client.Voices = ix.Voices
	client.Webhooks = ix.Webhooks
	client.Agents = ix.Agents
	client.Credentials = ix.Credentials
	client.Environments = ix.Environments
}

// newInteractions builds the Interactions API client as genai's unexported
// newInteractionsClient (client.go, v1.77.0) does, from the configuration
// genai.NewClient resolved (backend, key from the environment, base URL, API
// version, HTTP client), plus one option: retry.Config{Strategy: "none"}. The
// generated client otherwise retries 408, 409, 429 and 5xx (and connection
// errors) up to 4 times with its own backoff, whatever genai's RetryOptions
// say.
//
// What it cannot copy: genai adds its telemetry headers to the default
// headers with the unexported appendSDKHeaders, a User-Agent and an
// x-goog-api-client of "google-genai-sdk/<genai's unexported version>
// gl-go/<Go version>" (with a "vertex-genai-modules/…" label of the caller's
// User-Agent folded in). They are not reproduced here rather than forged, so
// Interactions requests carry the generated client's own User-Agent
// ("speakeasy-sdk/go …") and no x-goog-api-client. Nothing in the SDK reads
// their values (they are usage telemetry for Google); their one side effect,
// that genai's Security is never empty, is kept (see below). A caller who
// wants them sets them in HTTPOptions.Headers, which are passed on as genai
// passes them.
func newInteractions(cc genai.ClientConfig) *interactions.GenAI {
	opts := []interactions.SDKOption{interactions.WithRetryConfig(retry.Config{Strategy: "none"})}
	sec := components.Security{}
	if cc.APIKey != "" {
		key := cc.APIKey
		sec.APIKey = &key
	}
	if len(cc.HTTPOptions.Headers) > 0 {
		sec.DefaultHeaders = make(map[string]string, len(cc.HTTPOptions.Headers))
		for k, vs := range cc.HTTPOptions.Headers {
			if len(vs) > 0 {
				sec.DefaultHeaders[k] = strings.Join(vs, " ")
			}
		}
	}
	// Always, even empty: genai's telemetry headers make its Security never
	// empty, and only with a Security does the generated client's hook run,
	// which sets the Api-Revision header (the API revision the client was
	// generated for) as well as the key.
	opts = append(opts, interactions.WithSecurity(sec))
	if cc.HTTPClient != nil {
		// The client NewClient made or copied, whose transport tags its
		// errors as Gemini's.
		opts = append(opts, interactions.WithClient(cc.HTTPClient))
	}
	if cc.HTTPOptions.BaseURL != "" {
		opts = append(opts, interactions.WithServerURL(cc.HTTPOptions.BaseURL))
	}
	if v := cc.HTTPOptions.APIVersion; v != "" {
		if vertex(cc.Backend) && cc.Project != "" && cc.Location != "" {
			v = fmt.Sprintf("%s/projects/%s/locations/%s", v, cc.Project, cc.Location)
		}
		opts = append(opts, interactions.WithAPIVersion(v))
	}
	if cc.HTTPOptions.Timeout != nil {
		opts = append(opts, interactions.WithTimeout(*cc.HTTPOptions.Timeout))
	}
	return interactions.New(opts...)
}

// ixError is what Triage reads from an error of the Interactions API client.
type ixError struct {
	status int
	header http.Header
	// body is the answer's raw body, when the error kept it.
	body string
	// code and message are the error.code and error.message a typed error
	// decoded (the body is gone by then).
	code, message string
	debug         string
}

// findInteractions finds an error of the Interactions API client in err's
// chain, as errors.AsType finds one (behind %w, errors.Join, and
// *apierrors.ContinuationInterruptedError, which wraps one of them, or a
// transport or context error). A chain holds at most one of them; they are
// looked for in this order:
//
//   - *apierrors.APIError: any 4xx or 5xx of Agents, Voices, Webhooks,
//     Credentials, Environments, and an answer of an unexpected status or
//     content type from Interactions;
//   - *apierrors.ResponseValidationError: an error answer of Interactions
//     whose body is not the declared {"error":{"code":string,"message"}}:
//     Google's own error body, whose code is a number, is one;
//   - the typed errors of Interactions.Create, Get, Delete and Cancel
//     (*apierrors.CreateInteractionClientError, …ServerError, …) for a body
//     that matched the declared shape.
//
// A nil pointer of these types is not one. Nothing is allocated when there
// is none (a classifier runs on every fault.From).
func findInteractions(err error) (ixError, bool) {
	if e, ok := errors.AsType[*apierrors.APIError](err); ok && e != nil {
		return ixError{status: e.StatusCode, header: responseHeader(e.RawResponse), body: e.Body, debug: e.Error()}, true
	}
	if e, ok := errors.AsType[*apierrors.ResponseValidationError](err); ok && e != nil {
		// Its text is only the decoding error; the debug text is the
		// answer's, as APIError's would be.
		return ixError{status: e.StatusCode, header: responseHeader(e.RawResponse), body: e.Body,
			debug: fmt.Sprintf("%s: Status %d\n%s", e.Message, e.StatusCode, e.Body)}, true
	}
	if e, ok := errors.AsType[*apierrors.CreateInteractionClientError](err); ok && e != nil {
		return typedError(e, e.Error_, e.HTTPMeta), true
	}
	if e, ok := errors.AsType[*apierrors.CreateInteractionServerError](err); ok && e != nil {
		return typedError(e, e.Error_, e.HTTPMeta), true
	}
	if e, ok := errors.AsType[*apierrors.GetInteractionByIDClientError](err); ok && e != nil {
		return typedError(e, e.Error_, e.HTTPMeta), true
	}
	if e, ok := errors.AsType[*apierrors.GetInteractionByIDServerError](err); ok && e != nil {
		return typedError(e, e.Error_, e.HTTPMeta), true
	}
	if e, ok := errors.AsType[*apierrors.DeleteInteractionClientError](err); ok && e != nil {
		return typedError(e, e.Error_, e.HTTPMeta), true
	}
	if e, ok := errors.AsType[*apierrors.DeleteInteractionServerError](err); ok && e != nil {
		return typedError(e, e.Error_, e.HTTPMeta), true
	}
	if e, ok := errors.AsType[*apierrors.CancelInteractionByIDClientError](err); ok && e != nil {
		return typedError(e, e.Error_, e.HTTPMeta), true
	}
	if e, ok := errors.AsType[*apierrors.CancelInteractionByIDServerError](err); ok && e != nil {
		return typedError(e, e.Error_, e.HTTPMeta), true
	}
	return ixError{}, false
}

// typedError reads a typed error of Interactions.Create, Get, Delete or
// Cancel: the declared error body, decoded, and the response.
func typedError(err error, body ixmodels.Error, meta components.HTTPMetadata) ixError {
	ix := ixError{debug: err.Error()}
	if body.Code != nil {
		ix.code = *body.Code
	}
	if body.Message != nil {
		ix.message = *body.Message
	}
	if res := meta.Response; res != nil {
		ix.status, ix.header = res.StatusCode, res.Header
	}
	return ix
}

func responseHeader(res *http.Response) http.Header {
	if res == nil {
		return nil
	}
	return res.Header
}

// maxErrorBody bounds the body read for an error's details: Google's error
// bodies are small, and an answer is not trusted to be.
const maxErrorBody = 1 << 20

// googleError is Google's error body, {"error":{"code","message","status",
// "details"}}, as the Interactions API answers too; code is the HTTP status
// there, a string in the SDK's declared shape.
type googleError struct {
	Error struct {
		Code    any              `json:"code"`
		Message string           `json:"message"`
		Status  string           `json:"status"`
		Details []map[string]any `json:"details"`
	} `json:"error"`
}

// fromInteractions classifies an Interactions API error with the table of
// the main API (see verdict): the answer's google.rpc status and details
// when its body is Google's error body, else its HTTP status; RetryAfter from
// the Retry-After-Ms, Retry-After or RateLimit headers (an HTTP-date measured
// from now), else from RetryInfo.
func fromInteractions(err error, ix ixError, now time.Time) *fault.Error {
	var g googleError
	if ix.body != "" && len(ix.body) <= maxErrorBody {
		// A field of the wrong type is skipped; the others are kept.
		_ = json.Unmarshal([]byte(ix.body), &g)
	}
	status, message := g.Error.Status, g.Error.Message
	if code, ok := g.Error.Code.(string); ok && ix.code == "" {
		ix.code = code
	}
	if message == "" {
		message = ix.message
	}
	a := upstream.Answer{Status: ix.status, Header: ix.header, Debug: ix.debug}
	a.ProviderStatus = canonicalStatus(status)
	if a.ProviderStatus == "" {
		// The declared shape's code ("A URI that identifies the error
		// type"), or a status name in its place.
		if a.ProviderStatus = canonicalStatus(ix.code); a.ProviderStatus == "" {
			a.Code = ix.code
		}
	}
	d := parseDetails(g.Error.Details)
	a.Reason, a.RetryDelay, a.HasRetryDelay = d.reason, d.retryDelay, d.hasRetryDelay
	if d.quotaID != "" {
		a.Details = map[string]any{"quotaId": d.quotaID}
		if d.quotaMetric != "" {
			a.Details["quotaMetric"] = d.quotaMetric
		}
	}
	return provider.Fault(err, a, verdict(ix.status, a.ProviderStatus, d, message), now)
}
