package natsingress

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the ingress's, on the service's /metrics:
//
//	triage_nats_messages_total{outcome,code}   handled messages: outcome
//	    "answered" (committed, feedback published, acknowledged),
//	    "dead_letter" (refused for good, its problem stored,
//	    acknowledged) or "retried" (NAK: delivered again later); code is
//	    the fault's for the last two
//	triage_nats_handle_seconds{outcome}         the time a message took
type metrics struct {
	messages *prometheus.CounterVec
	seconds  *prometheus.HistogramVec
}

func newMetrics(r prometheus.Registerer) *metrics {
	m := &metrics{
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "triage_nats_messages_total",
			Help: "Reports taken from NATS JetStream, by outcome (answered, dead_letter, retried) and fault code.",
		}, []string{"outcome", "code"}),
		seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "triage_nats_handle_seconds",
			Help:    "Time to handle a report taken from NATS JetStream, by outcome.",
			Buckets: prometheus.DefBuckets,
		}, []string{"outcome"}),
	}
	m.messages = register(r, m.messages)
	m.seconds = register(r, m.seconds)
	return m
}

// register registers c, or returns the collector registered already (a
// second consumer on one service counts into the same series).
func register[C prometheus.Collector](r prometheus.Registerer, c C) C {
	if r == nil {
		return c
	}
	if err := r.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
	}
	return c
}
