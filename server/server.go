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
	"github.com/rs/cors"

	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/apidoc"
	"github.com/triage-go/triage/internal/logguard"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/wire/problem"
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
	inProgress *service.Shares
	// streams bounds each tenant's event streams.
	streams   *service.Shares
	authFails *authLimits
	body      bodyLimits
	logs      *logguard.Guard
	registry  *prometheus.Registry
	metrics   *httpMetrics
	mux       *http.ServeMux
	mcp       apiFunc // /mcp's handler, when the service runs agents (Config.Bridge)
	// mcpSessions are /mcp's sessions (nil without Config.Bridge).
	mcpSessions *mcpSessions
	problems    *problem.Options
	log         *slog.Logger
	runs        *runs
	ready       readiness // the ingresses' checks, besides the store's
	// jobsUI is River's web UI (Config.JobsUI), operator the SHA-256 of
	// Config.OperatorKey, crossOrigin the UI's guard against changes
	// another origin's page makes with the operator's credentials.
	jobsUI      JobsUI
	operator    *[32]byte
	crossOrigin *http.CrossOriginProtection
	// cors answers the browsers on Config.CORSOrigins at /v1/ (nil: CORS
	// off), preflight its handler of preflight requests.
	cors      *cors.Cors
	preflight http.Handler

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
	logs := logguard.New(cfg.Logger.Handler(), logguard.Config{Burst: cfg.LogRepeat, Window: cfg.LogRepeatWindow})
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
		inProgress: service.NewShares(cfg.TenantConcurrent),
		streams:    service.NewShares(cfg.TenantStreams),
		authFails:  newAuthLimits(cfg.AuthFailRate, cfg.AuthFailBurst),
		body:       bodyLimits{timeout: cfg.BodyTimeout, rate: float64(max(cfg.MinBodyRate, 0)), grace: cfg.BodyGrace},
		logs:       logs,
		registry:   prometheus.NewRegistry(),
		metrics:    newHTTPMetrics(),
		problems:   &problem.Options{Debug: cfg.Debug, BaseURI: cfg.ProblemBaseURI},
		log:        cfg.Logger,
	}
	s.stopping, s.stop = context.WithCancelCause(context.Background())
	s.stopped = s.stopping.Done()
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
		Jobs:           jobs(cfg, keys.empty()),
		Alerts:         cfg.Alerts,
		PublicURL:      cfg.PublicURL,
	})
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s.registry.MustRegister(s.metrics.collectors()...)
	if err := s.setupJobsUI(); err != nil {
		return nil, err
	}
	if s.cors, err = newCORS(cfg.CORSOrigins, !keys.empty()); err != nil {
		return nil, err
	}
	if s.cors != nil {
		s.preflight = s.observe("OPTIONS "+corsPrefix, http.HandlerFunc(s.cors.HandlerFunc))
		if keys.empty() {
			cfg.Logger.Warn("CORS allows browsers on other origins and no API keys are configured: the pages on those origins act as the default tenant", slog.Any("origins", cfg.CORSOrigins))
		}
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
//
// With Config.CORSOrigins, a request to the API (/v1/…) from a browser on
// one of them is answered with CORS headers, and its preflight (OPTIONS
// with Access-Control-Request-Method) is answered here, 204, before any
// route, key or limit: it carries no key, and changes nothing.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/") {
		s.observe("unmatched", s.handle(s.notAPath)).ServeHTTP(w, r)
		return
	}
	if s.cors != nil && inCORS(r.URL.Path) {
		if isPreflight(r) {
			s.preflight.ServeHTTP(w, r)
			return
		}
		s.cors.HandlerFunc(w, r) // the headers of an actual request, for an allowed origin
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
		if s.mcpSessions != nil {
			s.mcpSessions.records.shutdown() // their ends are the shutdown's
		}
		ctx, cancel := context.WithTimeout(context.Background(), bridge.DefaultShutdownTimeout)
		if err := s.cfg.Bridge.Shutdown(ctx); err != nil {
			s.log.Warn("MCP calls still unanswered at shutdown", slog.Any("error", err))
		}
		cancel()
		s.cfg.Bridge.Disconnect()
		if s.mcpSessions != nil {
			s.mcpSessions.endAll(store.SessionShutdown)
			if !s.mcpSessions.records.wait(service.RunRecordTimeout) {
				s.log.Warn("MCP sessions' ends still being recorded at shutdown")
			}
		}
	}
	s.logs.Flush()
}

// jobs is the service's job worker's configuration: the callbacks may
// reach private addresses with PrivateCallbacks, or with no API keys
// (every request is the operator's then).
func jobs(cfg Config, noKeys bool) service.Jobs {
	o := cfg.JobOptions
	o.Poll = cfg.JobPoll
	return service.Jobs{
		Webhook:            cfg.Webhook,
		EscalationThrottle: cfg.EscalationThrottle,
		HTTPClient:         cfg.HTTPClient,
		PrivateCallbacks:   cfg.PrivateCallbacks || noKeys,
		Options:            o,
		TenantWorkers:      cfg.TenantJobWorkers,
		TracerProvider:     cfg.TracerProvider,
		Propagator:         cfg.Propagator,
	}
}

// work runs the service's jobs until ctx ends.
func (s *Server) work(ctx context.Context) {
	if err := s.svc.Work(ctx); err != nil {
		s.log.Error("the job worker stopped", slog.Any("error", fault.From(err)))
	}
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
// stops taking connections, closes those that have sent no request (after
// QuietConnGrace), waits for the requests in progress (at most
// ShutdownTimeout) and stops the job worker.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	var quiet quietConns
	srv := &http.Server{
		ConnState:         quiet.track,
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
		over := make(chan struct{})
		go quiet.closeAfter(QuietConnGrace, over)
		err = srv.Shutdown(sctx)
		close(over)
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

// routes registers every route: the operations' (the table openapi.json
// is written from), and the dashboard's pages.
func (s *Server) routes() {
	s.mux = http.NewServeMux()
	if s.cfg.Bridge != nil {
		s.mcp = s.mcpHandler(s.cfg.Bridge)
		s.cfg.Bridge.OnFailure(s.recordCall)
	}
	for _, rt := range s.routeTable() {
		var h handlerFunc
		if api := rt.api; api != nil {
			h = s.api(func(w http.ResponseWriter, r *http.Request, tenant string) error { return api(s, w, r, tenant) },
				rt.Path != "/v1/events" && rt.Path != "/mcp")
		} else {
			public := rt.h
			h = func(w http.ResponseWriter, r *http.Request) error { return public(s, w, r) }
		}
		pattern := rt.Method + " " + rt.Path
		s.mux.Handle(pattern, s.observe(pattern, s.handle(h)))
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

// route is one operation of the API and its handler: a public route has
// h; an API route (authenticated, tenant-scoped, rate limited) has api,
// which is given the request's tenant. Both are method expressions, so
// that the table (operations) is one value, with no Server.
type route struct {
	apidoc.Operation
	h   func(*Server, http.ResponseWriter, *http.Request) error
	api func(*Server, http.ResponseWriter, *http.Request, string) error
}

// routeTable is the operations this server serves: /mcp's only when it
// runs agents.
func (s *Server) routeTable() []route {
	var out []route
	for _, rt := range operations {
		if rt.Path == "/mcp" && s.mcp == nil {
			continue
		}
		out = append(out, rt)
	}
	return out
}

// Operations describes every operation of the API, /mcp's included, as
// the server serves them: cmd/openapigen writes openapi.json from it. A
// route without an API handler is public (no API key), unless its
// Security says otherwise.
func Operations() []apidoc.Operation {
	out := make([]apidoc.Operation, len(operations))
	for i, rt := range operations {
		out[i] = rt.Operation
		out[i].Public = rt.api == nil && rt.Security == nil
	}
	return out
}

// serveMCP serves /mcp: the MCP bridge's handler (see mcpHandler), which
// routes sets when the service runs agents.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request, tenant string) error {
	return s.mcp(w, r, tenant)
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
	if r.URL.RawQuery == "" {
		return nil
	}
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
