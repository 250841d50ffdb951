package handler

import (
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// DefaultMaxMetricSources is how many reporting agents the reports metric
// names by default (Config.MaxMetricSources).
const DefaultMaxMetricSources = 500

// OtherSource is the source label of the reports of the agents beyond
// Config.MaxMetricSources: parenthesized, so that no agent ID (an
// identifier) can be it.
const OtherSource = "(other)"

// sources bounds the values of the reports metric's source label: the
// agent IDs come from the reports, so without a bound a client could make
// a time series per report and exhaust the memory of the process and of
// Prometheus. The first max agents seen keep their names; the others are
// counted as OtherSource.
type sources struct {
	mu   sync.RWMutex
	max  int
	seen map[string]struct{}
}

func (s *sources) label(agent string) string {
	s.mu.RLock()
	_, ok := s.seen[agent]
	full := len(s.seen) >= s.max
	s.mu.RUnlock()
	if ok {
		return agent
	}
	if full {
		return OtherSource
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.seen[agent]; ok {
		return agent
	}
	if len(s.seen) >= s.max {
		return OtherSource
	}
	s.seen[agent] = struct{}{}
	return agent
}

// metrics are the handler's Prometheus metrics.
type metrics struct {
	reports    *prometheus.CounterVec
	sources    sources
	duplicates prometheus.Counter
	invalid    prometheus.Counter
	failures   *prometheus.CounterVec
	actions    *prometheus.CounterVec
	duration   prometheus.Histogram
}

func newMetrics(maxSources int) *metrics {
	switch {
	case maxSources == 0:
		maxSources = DefaultMaxMetricSources
	case maxSources < 0:
		maxSources = 0 // every agent is past the bound
	}
	return &metrics{
		sources: sources{max: maxSources, seen: map[string]struct{}{}},
		reports: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "triage_handler_reports_total",
			Help: "Error reports handled, by canonical type, severity, reporting agent (\"(other)\" past the first agents seen) and next action (duplicates excluded).",
		}, []string{"error_type", "severity", "source", "next_action"}),
		duplicates: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "triage_handler_duplicates_total",
			Help: "Duplicate deliveries answered with the feedback given before, no action run again.",
		}),
		invalid: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "triage_handler_invalid_reports_total",
			Help: "Error reports refused as invalid.",
		}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "triage_handler_failures_total",
			Help: "Error reports not handled, by the fault code of the reason (INVALID_REQUEST included).",
		}, []string{"code"}),
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "triage_handler_actions_total",
			Help: "Recovery actions run, by action and outcome (done, skipped, failed).",
		}, []string{"action", "status"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "triage_handler_duration_seconds",
			Help:    "Time to handle one error report, from ingress to feedback.",
			Buckets: []float64{.00001, .000025, .00005, .0001, .00025, .0005, .001, .0025, .005, .01, .05, .1, .5, 1},
		}),
	}
}

func (m *metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.reports, m.duplicates, m.invalid, m.failures, m.actions, m.duration}
}

func (m *metrics) register(r prometheus.Registerer) error {
	var errs []error
	for _, c := range m.collectors() {
		errs = append(errs, r.Register(c))
	}
	return errors.Join(errs...)
}
