package server

import (
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/problem"
)

// httpMetrics are the service's own Prometheus metrics; the handler adds
// its triage_handler_* metrics to the same registry.
type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	runs     *prometheus.CounterVec
}

func newHTTPMetrics() *httpMetrics {
	return &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "triage_http_requests_total",
			Help: "HTTP requests, by route and status.",
		}, []string{"route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "triage_http_request_duration_seconds",
			Help:    "HTTP request latency, by route (event streams excluded).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route"}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "triage_runs_total",
			Help: "AG-UI agent runs, by agent, outcome (finished, failed, disconnected) and, for a failed run, its fault code.",
		}, []string{"agent", "outcome", "code"}),
	}
}

func (m *httpMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.requests, m.duration, m.runs}
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flushes,
// write deadlines).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe counts, times and traces a route (see requestTracer), and turns
// a panic into a 500 problem (logged without its stack unless in debug
// mode).
func (s *Server) observe(route string, h http.Handler) http.Handler {
	tracer := newRequestTracer(s.cfg.TracerProvider, s.cfg.Propagator)
	m := s.metrics.route(route)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		r, span := tracer.start(r, route)
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					endRequestSpan(span, sw.status) // the answer was cut short
					panic(v)
				}
				s.log.Error("panic serving a request", slog.String("route", route), slog.String("panic", fault.Redact(panicText(v))))
				if sw.status == 0 {
					problem.Write(sw, r, fault.New(fault.InternalError, ""), s.problems)
				}
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			m.request(status)
			if route != "GET /v1/events" {
				m.duration().Observe(time.Since(start).Seconds())
			}
			endRequestSpan(span, status)
		}()
		h.ServeHTTP(sw, r)
	})
}

// routeMetrics are a route's children of the request metrics, each made
// on first use (a route never served has no series) and then kept, so
// that a request looks up no label values.
type routeMetrics struct {
	m        *httpMetrics
	route    string
	duration func() prometheus.Observer
	// byStatus holds the requests counter of each status served so far
	// (int → prometheus.Counter).
	byStatus sync.Map
}

func (m *httpMetrics) route(route string) *routeMetrics {
	return &routeMetrics{m: m, route: route,
		duration: sync.OnceValue(func() prometheus.Observer { return m.duration.WithLabelValues(route) })}
}

// request counts a request answered with status.
func (rm *routeMetrics) request(status int) {
	c, ok := rm.byStatus.Load(status)
	if !ok {
		c, _ = rm.byStatus.LoadOrStore(status, rm.m.requests.WithLabelValues(rm.route, strconv.Itoa(status)))
	}
	c.(prometheus.Counter).Inc()
}

func panicText(v any) string {
	if err, ok := v.(error); ok {
		return err.Error()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return "a non-error value"
}

// run counts a finished run by its outcome (see runOutcome) and, for a
// failed run, its fault's code. A code the table does not know (a peer's)
// is counted as OTHER, so that no client can grow the label set.
func (m *httpMetrics) run(agentID, outcome string, f *fault.Error) {
	code := ""
	if f != nil {
		code = string(f.Code)
		if !f.Code.Known() {
			code = "OTHER"
		}
	}
	m.runs.WithLabelValues(agentID, outcome, code).Inc()
}

// metricsHandler serves /metrics: behind the operator key when API keys
// are set and one is configured (see Config.OperatorKey).
func (s *Server) metricsHandler(w http.ResponseWriter, r *http.Request) error {
	if s.operator != nil && !s.keys.empty() {
		if err := s.authenticateOperator(w, r); err != nil {
			return err
		}
	}
	promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{}).ServeHTTP(w, r)
	return nil
}

// metricSources is the handler's MaxMetricSources: the default, unless
// /metrics is open to the tenants (API keys and no operator key), when
// it names no reporting agent.
func metricSources(keys *keyring, operatorKey string) int {
	if !keys.empty() && operatorKey == "" {
		return -1
	}
	return 0
}
