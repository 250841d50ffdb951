package handler

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the handler's Prometheus metrics.
type metrics struct {
	reports    *prometheus.CounterVec
	duplicates prometheus.Counter
	invalid    prometheus.Counter
	failures   *prometheus.CounterVec
	actions    *prometheus.CounterVec
	duration   prometheus.Histogram
}

func newMetrics() *metrics {
	return &metrics{
		reports: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "triage_handler_reports_total",
			Help: "Error reports handled, by canonical type, severity, reporting agent and next action (duplicates excluded).",
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
