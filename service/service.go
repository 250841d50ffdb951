package service

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/handler"
	"github.com/triage-go/triage/policy"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/wire/problem"
)

// DefaultTenant is the tenant of every report when the service knows no
// tenants (no API keys).
const DefaultTenant = "default"

// DefaultMaxBody is the largest report a Submission may hold, in bytes,
// when Config.MaxBody is zero.
const DefaultMaxBody = 1 << 20

// Config configures a Service. Every zero field means the documented
// default.
type Config struct {
	// Store keeps the tenants' records, deliveries and jobs. Required.
	Store store.Store
	// Tenants are the tenants the service knows; a submission for another
	// is refused (TENANT_UNAUTHORIZED). Defaults to DefaultTenant alone.
	Tenants []string
	// MaxBody bounds a submission's report, in bytes (PAYLOAD_TOO_LARGE
	// beyond). Defaults to DefaultMaxBody.
	MaxBody int64
	// Problems are the options of the problem documents the service
	// stores as the answer of an invalid report under an idempotency key.
	// Defaults to relative types and no debug output.
	Problems *problem.Options

	// Policy decides the recovery. Defaults to policy.Default().
	Policy *policy.Policy
	// Logger receives the engine's lines and the service's own. Defaults
	// to nil: no logs.
	Logger *slog.Logger
	// Registerer registers the engine's metrics. Defaults to nil: not
	// registered.
	Registerer prometheus.Registerer
	// MaxMetricSources bounds the reporting agents the engine's reports
	// metric names (handler.Config.MaxMetricSources).
	MaxMetricSources int
	// TracerProvider makes the engine's spans. Defaults to otel's global
	// provider.
	TracerProvider trace.TracerProvider
	// Now tells the time. Defaults to time.Now.
	Now func() time.Time

	// Jobs configures the worker of the durable jobs (Work).
	Jobs Jobs

	// Alerts are the alert rules and targets of the tenants an alerts
	// file names (triage serve --alerts), each checked by
	// AlertConfig.Check: such a tenant has these, read-only through the
	// API; the others keep theirs in the store (PutAlertRule, …).
	Alerts map[string]AlertConfig
	// PublicURL is where the alerts' readers reach the dashboard
	// ("https://triage.example.com"): an alert links to its record's page
	// under it. Defaults to "": alerts carry no link.
	PublicURL string
}

// Service is the pipeline. It is safe for concurrent use.
type Service struct {
	cfg     Config
	handler *handler.Handler
	events  *Events
	worker  *worker
	announcing
	// rulesAt keeps the tenants' alert rules by the version a report's
	// peek read (keptRules, by tenant: alertRulesAt).
	rulesAt sync.Map
}

// New returns a Service.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("service: no store")
	}
	if len(cfg.Tenants) == 0 {
		cfg.Tenants = []string{DefaultTenant}
	}
	cfg.Tenants = slices.Compact(slices.Sorted(slices.Values(cfg.Tenants)))
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Problems == nil {
		cfg.Problems = &problem.Options{}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	for tenant, c := range cfg.Alerts {
		if _, ok := slices.BinarySearch(cfg.Tenants, tenant); !ok {
			return nil, fmt.Errorf("service: the alerts name tenant %q, which the service does not know", tenant)
		}
		if err := c.Check(); err != nil {
			return nil, fmt.Errorf("service: the alerts of tenant %q: %w", tenant, alertConfigError(err))
		}
	}
	h, err := handler.New(handler.Config{
		Policy:           cfg.Policy,
		Logger:           cfg.Logger,
		Registerer:       cfg.Registerer,
		MaxMetricSources: cfg.MaxMetricSources,
		TracerProvider:   cfg.TracerProvider,
		Now:              cfg.Now,
	})
	if err != nil {
		return nil, fmt.Errorf("service: %w", err)
	}
	svc := &Service{cfg: cfg, handler: h, events: newEvents(), worker: newWorker(cfg.Jobs, cfg.Logger)}
	if cfg.Registerer != nil {
		for _, c := range []prometheus.Collector{svc.worker.attempts, svc.worker.held, svc.worker.alertsHeld, svc.worker.failures} {
			if err := cfg.Registerer.Register(c); err != nil {
				return nil, fmt.Errorf("service: %w", err)
			}
		}
	}
	svc.announcer, _ = cfg.Store.(store.Announcer)
	return svc, nil
}

// Tenants returns the tenants the service knows, sorted.
func (s *Service) Tenants() []string { return slices.Clone(s.cfg.Tenants) }

// Known reports whether tenant is one the service knows.
func (s *Service) Known(tenant string) bool {
	_, ok := slices.BinarySearch(s.cfg.Tenants, tenant)
	return ok && triage.IsIdentifier(tenant)
}

// Events is the service's wake-ups of the tenants' event streams.
func (s *Service) Events() *Events { return s.events }

// Handler is the engine the service runs.
func (s *Service) Handler() *handler.Handler { return s.handler }

// peekedReads answers two of the handler's reads of a tenant, whether
// an agent registered a callback URL (triage.Callbacks) and a query's
// cached result (triage.Cache), from what the report's peek read with
// its delivery (read), when it did and they are the report's agent and
// query; else from the store. A cached result the peek found is read
// again in full (Get). The answers it holds are at hand for the handler
// (handler.CacheAtHand, handler.CallbacksAtHand): the actions asking for
// them run without the actions' deadline.
type peekedReads struct {
	t            reporting
	read         store.PeekedReads
	agent, query string
}

var (
	_ handler.CacheAtHand     = (*peekedReads)(nil)
	_ handler.CallbacksAtHand = (*peekedReads)(nil)
)

func (c *peekedReads) HasCallbackAtHand(agentID string) bool {
	return c.read.Valid && agentID == c.agent
}

func (c *peekedReads) HasCallback(ctx context.Context, agentID string) (bool, error) {
	if c.HasCallbackAtHand(agentID) {
		return c.read.Callback, nil
	}
	a, ok, err := c.t.Agent(ctx, agentID)
	return ok && a.CallbackURL != "", err
}

func (c *peekedReads) GetAtHand(queryID string) bool {
	return c.read.Valid && queryID == c.query && !c.read.Cached
}

func (c *peekedReads) Get(ctx context.Context, queryID string) (triage.CachedResult, bool, error) {
	if c.GetAtHand(queryID) {
		return triage.CachedResult{}, false, nil
	}
	return c.t.Get(ctx, queryID)
}
