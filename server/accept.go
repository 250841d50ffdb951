package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/wire/problem"
)

// Submission is one report for Accept, from whichever ingress took it.
type Submission struct {
	// Tenant owns the report, as the ingress authenticated it: a tenant
	// that Config.APIKeys name or, without API keys, DefaultTenant. ""
	// is DefaultTenant.
	Tenant string
	// Body is the report's JSON, as the client sent it.
	Body []byte
	// ContentType is the media type the client gave Body; "" is JSON.
	ContentType string
	// Key is the client's idempotency key, "" for none: 1 to 255
	// printable ASCII characters, without spaces, quotes or backslashes.
	// KeyName is what the ingress calls it, for the problem of a key that
	// is not one. Defaults to "Idempotency-Key".
	Key, KeyName string
}

// Answer is what Accept answers a report it took: what POST /v1/errors
// writes.
type Answer struct {
	// Status is 201 for a new delivery, 200 for a duplicate (the same
	// error_id); under a key, the stored answer's status, which may be the
	// 422 of an invalid report.
	Status int
	// ContentType is application/json, or application/problem+json for a
	// stored 422.
	ContentType string
	// Body is the feedback (or the stored problem).
	Body []byte
	// Replayed tells that the answer is the stored one of Key's first
	// request (HTTP's Idempotent-Replayed: true).
	Replayed bool
}

// Accept accepts one report for a tenant: the pipeline behind every
// ingress (POST /v1/errors, a message bus). It checks the submission
// (tenant, content type, size, key), handles the report and commits its
// record, its jobs and the key's answer before it returns: an Answer means
// the report is durable, and a repeat (the same Key, or without one the
// same report: its fingerprint and timestamp) answers the same error_id
// without a second record.
//
// An error is a refusal, a *fault.Error as the API answers it: for the
// submission or the report, TENANT_UNAUTHORIZED, INVALID_REQUEST (400,
// 415, 422), PAYLOAD_TOO_LARGE; SESSION_BUSY while the same report or key
// is being handled; SERVICE_UNAVAILABLE when the store failed (nothing
// is committed then, and a retry is handled anew). The retryable ones
// (fault.Error.Retryable) are worth the same submission again later; the
// others are final.
func (s *Server) Accept(ctx context.Context, sub Submission) (Answer, error) {
	tenant := sub.Tenant
	if tenant == "" {
		tenant = DefaultTenant
	}
	if !s.knownTenant(tenant) {
		return Answer{}, fault.New(fault.TenantUnauthorized, "The tenant is not one this service knows.")
	}
	if err := checkContentType(sub.ContentType); err != nil {
		return Answer{}, err
	}
	if int64(len(sub.Body)) > s.cfg.MaxBody {
		return Answer{}, tooLarge(s.cfg.MaxBody)
	}
	keyName := sub.KeyName
	if keyName == "" {
		keyName = "Idempotency-Key"
	}
	if sub.Key != "" {
		if err := checkKey(keyName, sub.Key); err != nil {
			return Answer{}, err
		}
	}
	ctx = context.WithValue(ctx, tenantKey{}, tenant)
	if sub.Key == "" {
		status, out, err := s.report(ctx, sub.Body)
		if err != nil {
			return Answer{}, err
		}
		return Answer{Status: status, ContentType: "application/json", Body: out}, nil
	}
	return s.acceptKeyed(ctx, s.cfg.Store.Tenant(tenant), sub.Body, sub.Key, keyName)
}

// acceptKeyed handles a report under an idempotency key: the key's stored
// answer for a repeat, else the report's, stored under the key (its 422
// too: an invalid report stays invalid).
func (s *Server) acceptKeyed(ctx context.Context, t store.Tenant, body []byte, key, keyName string) (Answer, error) {
	sum := sha256.Sum256(body)
	state, prior, err := t.BeginRequest(ctx, key, hex.EncodeToString(sum[:]))
	if err != nil {
		return Answer{}, storeFailure(err)
	}
	switch state {
	case store.IdemInFlight:
		return Answer{}, fault.New(fault.SessionBusy, "A request with this "+keyName+" is still being handled. Retry shortly.",
			fault.WithRetryAfter(time.Second))
	case store.IdemMismatch:
		return Answer{}, fault.New(fault.InvalidRequest, "This "+keyName+" was used with a different request body.",
			fault.WithStatus(http.StatusUnprocessableEntity),
			fault.WithFieldErrors(fault.FieldError{Field: keyName, Message: "reused with a different payload"}))
	case store.IdemDone:
		return Answer{Status: prior.Status, ContentType: prior.ContentType, Body: prior.Body, Replayed: true}, nil
	}
	status, out, err := s.report(ctx, body)
	resp := store.StoredResponse{Status: status, ContentType: "application/json", Body: out}
	if err != nil {
		f := fault.From(err)
		if f.Code != fault.InvalidRequest { // not a final answer: the client may retry with the key
			if aerr := t.AbandonRequest(context.WithoutCancel(ctx), key); aerr != nil {
				s.log.Error("abandoning an idempotency key failed", "error", fault.From(aerr))
			}
			return Answer{}, err
		}
		p := problem.From(f, s.problems)
		resp.Status, resp.ContentType = f.HTTPStatus(), problem.ContentType
		if resp.Body, err = json.Marshal(p); err != nil {
			return Answer{}, err
		}
	}
	if err := t.FinishRequest(ctx, key, resp); err != nil {
		return Answer{}, storeFailure(err)
	}
	return Answer{Status: resp.Status, ContentType: resp.ContentType, Body: resp.Body}, nil
}

// knownTenant tells whether tenant is one the API can read: one the API
// keys name, or, without keys, DefaultTenant.
func (s *Server) knownTenant(tenant string) bool {
	if s.keys.empty() {
		return tenant == DefaultTenant
	}
	return triage.IsIdentifier(tenant) && slices.Contains(s.keys.tenants, tenant)
}

// Tenants returns the tenants the service knows, sorted, each once: those
// the API keys name, or, without keys, DefaultTenant alone. An ingress
// that keeps something per tenant (the NATS ingress's streams) keeps it
// for these.
func (s *Server) Tenants() []string {
	if s.keys.empty() {
		return []string{DefaultTenant}
	}
	ts := slices.Clone(s.keys.tenants)
	slices.Sort(ts)
	return slices.Compact(ts)
}

// ProblemOptions returns the options the API writes its problems with
// (Config.ProblemBaseURI, Config.Debug), so that an ingress other than
// HTTP answers the same problem documents. The result is a copy.
func (s *Server) ProblemOptions() *problem.Options {
	o := *s.problems
	return &o
}

// Registerer is the registry /metrics serves, for an ingress's own
// metrics.
func (s *Server) Registerer() prometheus.Registerer { return s.registry }

// Logger returns the service's logger: Config.Logger behind the service's
// guard (every string redacted, repeated warnings counted rather than
// written), for an ingress's logs.
func (s *Server) Logger() *slog.Logger { return s.log }
