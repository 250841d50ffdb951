package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jobsui"
	"github.com/triage-go/triage/policy"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/wire/problem"
)

// Config configures a Server. Every zero field means the documented
// default.
type Config struct {
	// Store keeps everything durably. Required.
	Store store.Store
	// Policy decides recoveries. Defaults to policy.Default().
	Policy *policy.Policy

	// APIKeys maps each API key to its tenant. With none, every request
	// is the "default" tenant's and New logs a warning.
	APIKeys map[string]string

	// RateLimit is each tenant's sustained request rate, per second, and
	// RateBurst its bucket. Default 50 and 100. A negative RateLimit turns
	// rate limiting off.
	RateLimit float64
	RateBurst int
	// MaxConcurrent bounds the API requests in progress; beyond it the
	// service answers 503 with Retry-After. Default 256.
	MaxConcurrent int
	// MaxBody bounds a request body, in bytes. Default 1 MiB.
	MaxBody int64
	// TenantConcurrent bounds the API requests one tenant has in
	// progress, within MaxConcurrent: beyond it that tenant is answered
	// 429 with Retry-After while the others are still served. Default: a
	// quarter of MaxConcurrent (at least 1) when APIKeys name more than one
	// tenant, else MaxConcurrent.
	TenantConcurrent int
	// BodyTimeout bounds how long a request body may take to arrive,
	// counted from when its headers were read; a body later than that is
	// answered 408 (TIMEOUT). Default 10s, at most ReadTimeout; negative:
	// only ReadTimeout bounds it.
	BodyTimeout time.Duration
	// MinBodyRate is the slowest average rate, in bytes a second, a body
	// may arrive at once BodyGrace has passed (408 below it): a body of n
	// bytes read so far must have the next byte by BodyGrace + n/MinBodyRate
	// after the request's start. Default 1024 and 2s; a negative
	// MinBodyRate checks no rate.
	MinBodyRate int64
	BodyGrace   time.Duration
	// AuthFailRate is each client address's sustained rate of failed
	// authentications (401, 403), per second, and AuthFailBurst its
	// bucket: past them the address is answered 429 until a token is back.
	// A valid key is never refused. Default 1 and 10; a negative
	// AuthFailRate turns the limit off. The address is the connection's
	// peer (an IPv6 peer's /64), never X-Forwarded-For.
	AuthFailRate  float64
	AuthFailBurst int

	// Webhook receives escalations (a POST of the escalation's JSON, as a
	// durable job). Defaults to "": escalations are logged.
	Webhook string
	// HTTPClient makes the jobs' calls (callbacks, webhook). Defaults to a
	// client with a 10-second timeout. Callbacks go through a copy of it
	// unless PrivateCallbacks.
	HTTPClient *http.Client
	// PrivateCallbacks lets the agents' callbacks (a retry job's POST to
	// the callback_url a tenant registers with PUT /v1/agents/{agent_id})
	// reach loopback, private (RFC 1918, fc00::/7), link-local (169.254.0.0/16,
	// the cloud metadata address among them, fe80::/10), unspecified,
	// multicast and other special-use addresses. Defaults to false when
	// APIKeys are set (tenants must not probe the service's network):
	// PUT /v1/agents answers 422 for a callback_url whose host is such an
	// IP address or "localhost", and a callback whose name resolves to one
	// is refused as it connects (so DNS rebinding does not get past), its
	// attempt failing for good. With no APIKeys, every request is the
	// operator's and they are allowed. The Webhook is the operator's and
	// never checked. The check dials through a clone of HTTPClient's
	// Transport if it is an *http.Transport (or nil: http.DefaultTransport),
	// its DialContext replaced and its DialTLS, DialTLSContext and Proxy
	// unset (a proxy's address would be the one checked); a Transport of
	// another type is used as it is, unchecked, and New logs a warning.
	PrivateCallbacks bool
	// JobPoll is how often the job worker looks for due jobs. Default
	// 500ms. A negative JobPoll runs no worker.
	JobPoll time.Duration
	// JobOptions tune the job worker (River) but for its Poll, which is
	// JobPoll: how many jobs run at once, an attempt's timeout (default
	// DefaultJobTimeout), the backoff, when a job whose instance died
	// runs again (default DefaultJobRescueAfter).
	JobOptions store.WorkOptions
	// TenantJobWorkers bounds the jobs of one tenant running at once on
	// this instance, within JobOptions.Workers: a job of a tenant that
	// has as many running is put off (store.Defer: 1 s, doubling each time
	// it is put off again, at most 30 s; no attempt counted) rather than
	// holding a worker, so that a tenant whose callbacks hang cannot make
	// the others' jobs wait. Default: a quarter of the workers (at least
	// 1) when APIKeys name more than one tenant, else all of them.
	TenantJobWorkers int

	// Retention says how long delivery claims, idempotency keys and
	// attempt counts are kept (store.Retention's defaults: 7 days, 24
	// hours, 7 days), and error records (default: for ever); ExpireEvery
	// how often Serve deletes what is older (default 1 hour; negative:
	// never).
	Retention   store.Retention
	ExpireEvery time.Duration

	// Heartbeat is the interval of /v1/events' keep-alive comments.
	// Default 15s.
	Heartbeat time.Duration
	// EventPoll is how often an event stream reads the store for feedback
	// that other instances saved (this instance's wakes it at once). On a
	// store that announces the instances' changes (store.Announcer:
	// PostgreSQL's LISTEN/NOTIFY) a stream wakes on them, and polls only
	// as a fallback. Default 1s, or DefaultEventPollAnnounced (10s) on a
	// store that announces.
	EventPoll time.Duration
	// TenantStreams bounds the event streams (GET /v1/events) one tenant
	// holds open: beyond it the tenant is answered 429 with Retry-After
	// while the others are still served. A stream takes no request slot
	// (it lasts), and reads the store at each EventPoll. Default 32.
	TenantStreams int
	// MaxReplay bounds the feedback a stream reconnecting with
	// Last-Event-ID is sent from the store; past it, the stream skips to
	// the newest. Default 1,000.
	MaxReplay int

	// Debug adds debug details to problems (never stack traces, keys or
	// headers).
	Debug bool
	// ProblemBaseURI is an absolute http or https URI that each problem's
	// type is resolved against ("https://docs.example/" makes
	// "/errors/rate-limited" "https://docs.example/errors/rate-limited").
	// Defaults to "": types stay relative, and resolve to the type pages
	// this service serves at /errors/{type}.
	ProblemBaseURI string
	// Logger receives the service's logs (and the handler's), through a
	// guard: every string value is redacted (fault.Redact) and cut to
	// MaxLogValue bytes, and of the lines of one message at one level,
	// Warn and above, at most LogRepeat are written per LogRepeatWindow,
	// the others counted in one line at the window's end (default 10 per
	// 10s; a negative LogRepeat writes them all). Defaults to
	// slog.Default().
	Logger          *slog.Logger
	LogRepeat       int
	LogRepeatWindow time.Duration
	// TracerProvider, when set, makes a span per request, a child of the
	// caller's span when the request carries a W3C traceparent header
	// (its attributes: method, route, path, status and tenant; never a
	// header or the body), and is the handler's, whose spans are the
	// request's children. Defaults to nil: no request spans, and the
	// handler's go to otel's global provider (a no-op unless set).
	TracerProvider trace.TracerProvider
	// Propagator reads the caller's trace context from a request's
	// headers. Defaults to W3C trace context and baggage.
	Propagator propagation.TextMapPropagator
	// Now tells the time. Defaults to time.Now.
	Now func() time.Time

	// Agents, when set, are run for AG-UI clients at POST
	// /v1/agents/{agent_id}/runs (each agent as a graph; see package aguirun).
	Agents *agent.Manager
	// Bridge, when set, is served at /mcp over MCP's streamable HTTP
	// transport, behind the same API keys and tenants; build it with
	// Owner: MCPOwner so that sessions belong to tenants.
	Bridge *bridge.Bridge
	// TenantMCPSessions bounds the MCP sessions one tenant holds open at
	// /mcp (a session lasts until it is deleted or idle for 30 minutes):
	// a request that would open one more closes the tenant's least
	// recently used session with nothing in flight, and is answered 429
	// with Retry-After only when every one has work in flight (or is in
	// its handshake); the other tenants are still served. Default 64.
	TenantMCPSessions int
	// MCPMaxBody bounds an /mcp request body. Default 8 MiB: a 1 MiB
	// prompt may take six times its size as escaped JSON.
	MCPMaxBody int64
	// MCPWriteTimeout bounds the answer to an /mcp POST, which streams
	// while a prompt runs. Default 6 minutes, a minute more than a
	// prompt's default timeout.
	MCPWriteTimeout time.Duration
	// MCPStallTimeout bounds how long writing 64 KiB of an /mcp answer
	// may take (a client that stops reading): past it the connection is
	// cut and what the answer held freed. Default 30 s.
	MCPStallTimeout time.Duration
	// MCPMaxBatch bounds a JSON-RPC batch, in messages, in the sessions
	// whose protocol version has batches (2025-03-26 and before; later
	// ones are refused any). Default 16.
	MCPMaxBatch int
	// MCPEventBytesSession and MCPEventBytesTenant bound the events /mcp
	// keeps for streams to resume (GET with Last-Event-ID): a session's,
	// and all of one tenant's sessions'. Default 4 MiB and 16 MiB.
	MCPEventBytesSession, MCPEventBytesTenant int

	// UI, when set, is the dashboard (package web's Handler), served
	// without authentication at GET / and GET /assets/{file}, its own
	// static files only: the page sends the API key with its API
	// requests. An asset UI answers 404 is the API's 404 problem, as is
	// every other unknown path: the UI shadows no route. Defaults to nil:
	// no dashboard.
	UI http.Handler
	// JobsUI, when set, serves River's own web UI for the job queue
	// (riverqueue.com/riverui) at JobsUIPath + "/": every tenant's jobs,
	// which it can retry, cancel and delete, and the queue, which it can
	// pause. It is the operators' surface: OperatorKey opens it, no
	// tenant's API key does (see package internal/jobsui). Default off.
	JobsUI bool
	// OperatorKey opens JobsUI and, when APIKeys are set, GET /metrics
	// (at least 16 characters, none of APIKeys'): sent as the password of
	// HTTP Basic authentication, which a browser prompts for, or as an
	// API key is sent. Required with JobsUI when APIKeys are set; with no
	// APIKeys and no OperatorKey, JobsUI is as open as the rest of the
	// API. /metrics names the reporting agents, whose IDs are the
	// tenants', in triage_handler_reports_total's source label: with
	// APIKeys and no OperatorKey it stays open and names none (every
	// report counted as "(other)"), and New logs a warning.
	OperatorKey string
}

// The defaults.
const (
	DefaultRateLimit     = 50
	DefaultRateBurst     = 100
	DefaultMaxConcurrent = 256
	DefaultMaxBody       = 1 << 20
	DefaultMCPMaxBody    = 8 << 20
	DefaultMCPMaxBatch   = 16
	DefaultJobPoll       = 500 * time.Millisecond
	// DefaultJobTimeout bounds a job's attempt: a callback or webhook
	// call, itself bounded by the HTTP client's timeout (10 s by
	// default).
	DefaultJobTimeout = 30 * time.Second
	// DefaultJobRescueAfter is when a job running on an instance that
	// died runs again (River's leader looks every 30 s): River's own
	// default, an hour, suits long jobs; a job here is one HTTP call.
	DefaultJobRescueAfter = 2 * time.Minute
	DefaultHeartbeat      = 15 * time.Second
	DefaultEventPoll      = time.Second
	// DefaultEventPollAnnounced is EventPoll's default on a store that
	// announces the instances' changes: a fallback only.
	DefaultEventPollAnnounced = 10 * time.Second
	DefaultMaxReplay          = 1000
	DefaultTenantStreams      = 32
	DefaultTenantMCPSessions  = 64
	DefaultBodyTimeout        = 10 * time.Second
	DefaultMinBodyRate        = 1024
	DefaultBodyGrace          = 2 * time.Second
	DefaultAuthFailRate       = 1
	DefaultAuthFailBurst      = 10
	DefaultLogRepeat          = 10
	DefaultLogRepeatWindow    = 10 * time.Second
	// DefaultTenant is the tenant of every request when no API keys are
	// configured.
	DefaultTenant = service.DefaultTenant
)

// Server is the Error Handler service: an http.Handler with the API, and
// the worker that runs durable jobs.
type Server struct {
	cfg    Config
	svc    *service.Service
	keys   *keyring
	limits *tenantLimits
	slots  chan struct{}
	// inProgress bounds each tenant's share of slots.
	inProgress *tenantSlots
	// streams bounds each tenant's event streams.
	streams *tenantSlots
	// jobShares bounds each tenant's share of the job workers.
	jobShares *tenantSlots
	authFails *authLimits
	body      bodyLimits
	logs      *logGuard
	registry  *prometheus.Registry
	metrics   *httpMetrics
	mux       *http.ServeMux
	problems  *problem.Options
	log       *slog.Logger
	runs      *runs
	ready     readiness // the ingresses' checks, besides the store's
	// jobTracer traces the jobs' attempts (nil: Config.TracerProvider
	// unset).
	jobTracer *requestTracer
	// callbacks makes the retry jobs' calls: Config.HTTPClient, through
	// guardedClient unless privateCallbacks (Config.PrivateCallbacks, or
	// no APIKeys).
	callbacks        *http.Client
	privateCallbacks bool
	// jobsUI is River's web UI (Config.JobsUI), operator the SHA-256 of
	// Config.OperatorKey, crossOrigin the UI's guard against changes
	// another origin's page makes with the operator's credentials.
	jobsUI      jobsui.Handler
	operator    *[32]byte
	crossOrigin *http.CrossOriginProtection

	// stopping ends when the server shuts down (Close), its cause the
	// fault of the runs it stops (shuttingDown); stopped is its Done.
	stopping context.Context
	stop     context.CancelCauseFunc
	stopped  <-chan struct{}
}

// New returns a Server.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("server: Config.Store is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.RateLimit == 0 {
		cfg.RateLimit = DefaultRateLimit
	}
	if cfg.RateBurst <= 0 {
		cfg.RateBurst = DefaultRateBurst
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.TenantConcurrent <= 0 {
		cfg.TenantConcurrent = cfg.MaxConcurrent
		if tenantCount(cfg.APIKeys) > 1 {
			cfg.TenantConcurrent = max(1, cfg.MaxConcurrent/4)
		}
	}
	cfg.TenantConcurrent = min(cfg.TenantConcurrent, cfg.MaxConcurrent)
	switch {
	case cfg.BodyTimeout == 0:
		cfg.BodyTimeout = DefaultBodyTimeout
	case cfg.BodyTimeout < 0 || cfg.BodyTimeout > ReadTimeout:
		cfg.BodyTimeout = ReadTimeout
	}
	if cfg.MinBodyRate == 0 {
		cfg.MinBodyRate = DefaultMinBodyRate
	}
	if cfg.BodyGrace <= 0 {
		cfg.BodyGrace = DefaultBodyGrace
	}
	if cfg.AuthFailRate == 0 {
		cfg.AuthFailRate = DefaultAuthFailRate
	}
	if cfg.AuthFailBurst <= 0 {
		cfg.AuthFailBurst = DefaultAuthFailBurst
	}
	if cfg.JobOptions.Timeout <= 0 {
		cfg.JobOptions.Timeout = DefaultJobTimeout
	}
	if cfg.JobOptions.RescueAfter <= 0 {
		cfg.JobOptions.RescueAfter = DefaultJobRescueAfter
	}
	if cfg.JobOptions.Workers <= 0 {
		cfg.JobOptions.Workers = store.DefaultJobWorkers
	}
	if cfg.TenantJobWorkers <= 0 {
		cfg.TenantJobWorkers = cfg.JobOptions.Workers
		if tenantCount(cfg.APIKeys) > 1 {
			cfg.TenantJobWorkers = max(1, cfg.JobOptions.Workers/4)
		}
	}
	cfg.TenantJobWorkers = min(cfg.TenantJobWorkers, cfg.JobOptions.Workers)
	if cfg.LogRepeat == 0 {
		cfg.LogRepeat = DefaultLogRepeat
	}
	if cfg.LogRepeatWindow <= 0 {
		cfg.LogRepeatWindow = DefaultLogRepeatWindow
	}
	logs := newLogGuard(cfg.Logger.Handler(), MaxLogValue, cfg.LogRepeat, cfg.LogRepeatWindow)
	cfg.Logger = slog.New(logs)
	if cfg.MCPMaxBody <= 0 {
		cfg.MCPMaxBody = DefaultMCPMaxBody
	}
	mcpDefaults(&cfg)
	if cfg.JobPoll == 0 {
		cfg.JobPoll = DefaultJobPoll
	}
	if cfg.ExpireEvery == 0 {
		cfg.ExpireEvery = time.Hour
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if _, announces := cfg.Store.(store.Announcer); cfg.EventPoll <= 0 && announces {
		cfg.EventPoll = DefaultEventPollAnnounced
	} else if cfg.EventPoll <= 0 {
		cfg.EventPoll = DefaultEventPoll
	}
	if cfg.MaxReplay <= 0 {
		cfg.MaxReplay = DefaultMaxReplay
	}
	if cfg.TenantStreams <= 0 {
		cfg.TenantStreams = DefaultTenantStreams
	}
	if cfg.TenantMCPSessions <= 0 {
		cfg.TenantMCPSessions = DefaultTenantMCPSessions
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.ProblemBaseURI != "" {
		u, err := url.Parse(cfg.ProblemBaseURI)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, errors.New("server: Config.ProblemBaseURI must be an absolute http or https URI")
		}
	}
	keys, err := newKeyring(cfg.APIKeys)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:        cfg,
		keys:       keys,
		limits:     newTenantLimits(cfg.RateLimit, cfg.RateBurst),
		slots:      make(chan struct{}, cfg.MaxConcurrent),
		inProgress: newTenantSlots(cfg.TenantConcurrent),
		streams:    newTenantSlots(cfg.TenantStreams),
		jobShares:  newTenantSlots(cfg.TenantJobWorkers),
		authFails:  newAuthLimits(cfg.AuthFailRate, cfg.AuthFailBurst),
		body:       bodyLimits{timeout: cfg.BodyTimeout, rate: float64(max(cfg.MinBodyRate, 0)), grace: cfg.BodyGrace},
		logs:       logs,
		registry:   prometheus.NewRegistry(),
		metrics:    newHTTPMetrics(),
		problems:   &problem.Options{Debug: cfg.Debug, BaseURI: cfg.ProblemBaseURI},
		log:        cfg.Logger,
		jobTracer:  newRequestTracer(cfg.TracerProvider, cfg.Propagator),
	}
	s.stopping, s.stop = context.WithCancelCause(context.Background())
	s.stopped = s.stopping.Done()
	s.privateCallbacks = cfg.PrivateCallbacks || keys.empty()
	s.callbacks = cfg.HTTPClient
	if !s.privateCallbacks {
		s.callbacks = guardedClient(cfg.HTTPClient, cfg.Logger)
	}
	if cfg.Agents != nil {
		s.runs = newRuns(cfg.Agents)
	}
	s.svc, err = service.New(service.Config{
		Store:      cfg.Store,
		Tenants:    keys.tenants, // none: DefaultTenant
		MaxBody:    cfg.MaxBody,
		Problems:   s.problems,
		Policy:     cfg.Policy,
		Logger:     cfg.Logger,
		Registerer: s.registry,
		// /metrics is open with API keys and no operator key: it names
		// no tenant's agent then.
		MaxMetricSources: metricSources(keys, cfg.OperatorKey),
		Now:              cfg.Now,
		// nil leaves the engine its own default (otel's global provider).
		TracerProvider: cfg.TracerProvider,
	})
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s.registry.MustRegister(s.metrics.collectors()...)
	if err := s.setupJobsUI(); err != nil {
		return nil, err
	}
	if keys.empty() {
		cfg.Logger.Warn("no API keys configured: every request is the default tenant's; set TRIAGE_API_KEYS=\"tenant=key,…\" to require keys")
	}
	s.routes()
	return s, nil
}

// ServeHTTP serves the API. A request whose target is not a path
// (CONNECT's "host:port"; "*", but OPTIONS', which net/http answers before
// this) matches no pattern, not even "/", and ServeMux would answer it
// itself, in text/plain or with no body: it gets a problem instead.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/") {
		s.observe("unmatched", s.handle(s.notAPath)).ServeHTTP(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// notAPath answers a request whose target is not a path: "*" is a 400, as
// ServeMux has it (only OPTIONS takes it), and CONNECT's "host:port" a 404
// (the service is no proxy).
func (s *Server) notAPath(w http.ResponseWriter, r *http.Request) error {
	if r.RequestURI == "*" {
		return fault.New(fault.InvalidRequest, `The request target "*" is only for OPTIONS.`)
	}
	return s.unmatched(w, r)
}

// Close ends the event streams (a "shutdown" event), cancels the AG-UI
// runs in progress (each ends with a RUN_ERROR SERVICE_UNAVAILABLE,
// retryable after ShutdownRetryAfter, and is recorded as
// store.RunShutdown; a run asked for later is refused with a 503),
// answers every /mcp call in flight SERVICE_UNAVAILABLE (its prompt
// cancelled; bridge.Shutdown, at most bridge.DefaultShutdownTimeout) and
// ends the MCP connections, so that none holds a graceful shutdown
// (Serve) open; then it writes the count of the log lines suppressed so
// far. It may be called more than once.
func (s *Server) Close() {
	s.stop(shuttingDown())
	if s.cfg.Bridge != nil {
		// The /mcp sessions are told first: each call in flight has its
		// prompt cancelled and is answered SERVICE_UNAVAILABLE, retryable
		// (the go-sdk writes no answer on a closing connection), within
		// the bridge's shutdown timeout; then the connections close.
		ctx, cancel := context.WithTimeout(context.Background(), bridge.DefaultShutdownTimeout)
		if err := s.cfg.Bridge.Shutdown(ctx); err != nil {
			s.log.Warn("MCP calls still unanswered at shutdown", slog.Any("error", err))
		}
		cancel()
		s.cfg.Bridge.Disconnect()
	}
	s.logs.flush()
}

// tenantCount returns how many tenants keys name.
func tenantCount(keys map[string]string) int {
	seen := map[string]bool{}
	for _, t := range keys {
		seen[t] = true
	}
	return len(seen)
}

// Timeouts of the HTTP server Serve runs.
const (
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 30 * time.Second
	WriteTimeout      = 30 * time.Second // not for /v1/events, which lifts it
	IdleTimeout       = 120 * time.Second
	// ShutdownTimeout bounds how long a shutdown waits for the requests
	// in progress.
	ShutdownTimeout = 25 * time.Second
	// ShutdownRetryAfter is the retry delay of the runs a shutdown stops
	// and refuses (RUN_ERROR SERVICE_UNAVAILABLE; a 503 problem): time for
	// the instance to come back, or for a load balancer to send the
	// client to another.
	ShutdownRetryAfter = 5 * time.Second
)

// Serve serves on ln until ctx is cancelled, then shuts down gracefully:
// it ends the event streams and the AG-UI runs in progress (see Close),
// stops taking connections, waits for the requests in progress (at most
// ShutdownTimeout) and stops the job worker.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	workerCtx, stopWorker := context.WithCancel(context.WithoutCancel(ctx))
	if s.jobsUI != nil {
		if err := s.jobsUI.Start(workerCtx); err != nil {
			stopWorker()
			return fmt.Errorf("server: River's UI: %w", err)
		}
	}
	var wg sync.WaitGroup
	if s.cfg.JobPoll > 0 {
		wg.Go(func() { s.work(workerCtx) })
	}
	if s.cfg.ExpireEvery > 0 {
		wg.Go(func() { s.expire(workerCtx) })
	}
	// The other instances' changes wake this one's event streams.
	wg.Go(func() { _ = s.svc.Listen(workerCtx) })
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		s.Close()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
		err = srv.Shutdown(sctx)
		cancel()
		if err != nil {
			// Past the timeout: close what is left (a client that stopped
			// reading its stream, say), so that nothing runs on after
			// Serve returns and the store is closed.
			_ = srv.Close()
		}
		if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
			err = serr
		}
	}
	stopWorker()
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// routes registers every route; openapi.json lists the same (a test
// holds them together).
func (s *Server) routes() {
	s.mux = http.NewServeMux()
	for _, rt := range s.routeTable() {
		h := rt.h
		if rt.api != nil {
			h = s.api(rt.api, rt.path != "/v1/events" && rt.path != "/mcp")
		}
		s.mux.Handle(rt.method+" "+rt.path, s.observe(rt.method+" "+rt.path, s.handle(h)))
	}
	if s.cfg.UI != nil {
		ui := s.observe("GET /", s.handle(s.dashboard))
		s.mux.Handle("GET /{$}", ui)
		s.mux.Handle("GET /assets/{file}", ui)
	}
	if s.jobsUI != nil {
		s.mux.Handle(JobsUIPath+"/", s.observe(JobsUIPath+"/", s.handle(s.jobsUIHandler)))
	}
	s.mux.Handle("/", s.observe("unmatched", s.handle(s.unmatched)))
}

// route is one route of the API.
// route is one of the routes: a public one has h; an API one (api:
// authenticated, tenant-scoped, rate limited) has api, which is given
// the request's tenant.
type route struct {
	method, path string
	h            handlerFunc
	api          apiFunc
}

func (s *Server) routeTable() []route {
	var mcp []route
	if s.cfg.Bridge != nil {
		h := s.mcpHandler(s.cfg.Bridge)
		mcp = []route{{"POST", "/mcp", nil, h}, {"GET", "/mcp", nil, h}, {"DELETE", "/mcp", nil, h}}
	}
	return append(mcp, []route{
		{"POST", "/v1/errors", nil, s.postError},
		{"GET", "/v1/errors", nil, s.listErrors},
		{"GET", "/v1/errors/{error_id}", nil, s.getError},
		{"GET", "/v1/errors/{error_id}/occurrences", nil, s.listOccurrences},
		{"GET", "/v1/events", nil, s.streamEvents},
		{"PUT", "/v1/schemas/{source}", nil, s.putSchema},
		{"PUT", "/v1/cache/{query_id}", nil, s.putCache},
		{"GET", "/v1/agents", nil, s.listAgents},
		{"PUT", "/v1/agents/{agent_id}", nil, s.putAgent},
		{"POST", "/v1/agents/{agent_id}/runs", nil, s.postRun},
		{"GET", "/v1/runs/{run_id}", nil, s.getRun},
		{"GET", "/healthz", s.healthz, nil},
		{"GET", "/readyz", s.readyz, nil},
		{"GET", "/metrics", s.metricsHandler, nil},
		{"GET", "/openapi.json", s.openAPI, nil},
		{"GET", "/errors", s.problemTypes, nil},
		{"GET", "/errors/{type}", s.problemType, nil},
	}...)
}

// handlerFunc is a route's handler: an error it returns is written as a
// problem (RFC 9457).
type handlerFunc func(http.ResponseWriter, *http.Request) error

// apiFunc is an API route's handler: its request's tenant is an argument,
// never a context value.
type apiFunc func(w http.ResponseWriter, r *http.Request, tenant string) error

func (s *Server) handle(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkQuery(r); err != nil {
			s.fail(w, r, err)
			return
		}
		if err := h(w, r); err != nil {
			s.fail(w, r, err)
		}
	})
}

// checkQuery refuses a query string that is not valid
// application/x-www-form-urlencoded (a malformed percent-encoding, a
// semicolon): url.Values would drop the pair silently, and a filter the
// client meant would be ignored.
func checkQuery(r *http.Request) error {
	if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
		return fault.Invalid("The query string is malformed: "+queryReason(err)+".",
			fault.FieldError{Field: "query", Message: "must be percent-encoded name=value pairs joined by &"})
	}
	return nil
}

// queryReason says what is wrong with a query string without echoing more
// than the bad escape itself.
func queryReason(err error) string {
	var esc url.EscapeError
	if errors.As(err, &esc) {
		return "invalid percent-encoding " + strconv.Quote(string(esc))
	}
	return "a semicolon separates pairs; use &"
}

// fail writes err as a problem and logs what the client is not told.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	f := fault.From(err)
	if f.HTTPStatus() >= 500 && f.Code != fault.ServiceUnavailable {
		s.log.LogAttrs(r.Context(), slog.LevelError, "request failed",
			slog.String("method", r.Method), slog.String("route", r.Pattern), slog.Any("fault", f))
	}
	problem.Write(w, r, f, s.problems)
}

// unmatched answers a path no route has (404) or a method the path does
// not take (405, with Allow).
func (s *Server) unmatched(w http.ResponseWriter, r *http.Request) error {
	var allow []string
	for _, m := range []string{"GET", "POST", "PUT", "DELETE", "PATCH"} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/" {
			allow = append(allow, m)
		}
	}
	if len(allow) == 0 {
		if r.URL.Path == "" { // CONNECT's host:port: no path to name
			return fault.New(fault.NotFound, "No such endpoint.")
		}
		return fault.New(fault.NotFound, "No such endpoint.", fault.WithDetail("path", r.URL.Path))
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	return fault.New(fault.InvalidRequest, "Method not allowed on this endpoint.",
		fault.WithStatus(http.StatusMethodNotAllowed), fault.WithDetail("allow", allow))
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	_, err := w.Write([]byte(`{"status":"ok"}` + "\n"))
	return err
}

// readyz answers whether a report can be committed now (store.Store.Ready)
// and every ingress registered with RegisterReadiness takes reports: 200,
// or 503 with the reason (unreachable, disk_full, read_only, io_error,
// corrupt, write_failed; nats_down), never the database's error itself.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.cfg.Store.Ready(ctx); err != nil {
		reason := store.WriteFailed
		var nr *store.NotReadyError
		if errors.As(err, &nr) {
			reason = nr.Reason
		}
		s.log.Warn("storage not ready", slog.String("reason", reason), slog.Any("error", fault.From(err)))
		msg := "Storage cannot commit a report now."
		if reason == store.NotReachable {
			msg = "Storage is not reachable."
		}
		return fault.New(fault.ServiceUnavailable, msg, fault.WithRetryAfter(5*time.Second),
			fault.WithDetail("reason", reason))
	}
	if err := s.ingressReady(ctx); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err := w.Write([]byte(`{"status":"ready"}` + "\n"))
	return err
}

// expire deletes the bookkeeping older than the retention, now and every
// ExpireEvery, until ctx ends.
func (s *Server) expire(ctx context.Context) {
	tick := time.NewTicker(s.cfg.ExpireEvery)
	defer tick.Stop()
	for {
		n, err := s.cfg.Store.Expire(ctx, s.cfg.Retention)
		switch {
		case err != nil && ctx.Err() == nil:
			s.log.Warn("expiring old bookkeeping failed", slog.Any("error", fault.From(err)))
		case n > 0:
			s.log.Info("expired old bookkeeping", slog.Int64("rows", n))
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
