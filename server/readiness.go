package server

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/triage-go/triage/fault"
)

// readiness is what /readyz asks besides the store: each ingress that
// registered a check.
type readiness struct {
	mu     sync.Mutex
	checks []readyCheck
}

type readyCheck struct {
	name  string
	ready func(context.Context) error
}

// RegisterReadiness adds a check to /readyz: while ready returns an
// error, /readyz answers 503 SERVICE_UNAVAILABLE with the reason
// name+"_down" (the NATS ingress registers "nats": "nats_down"); the
// error itself is logged, never answered. ready is called on every
// /readyz, with a deadline, once the store is ready.
func (s *Server) RegisterReadiness(name string, ready func(context.Context) error) {
	s.ready.mu.Lock()
	defer s.ready.mu.Unlock()
	s.ready.checks = append(s.ready.checks, readyCheck{name: name, ready: ready})
}

// ingressReady runs the registered checks: the first failure, as
// /readyz answers it.
func (s *Server) ingressReady(ctx context.Context) error {
	s.ready.mu.Lock()
	checks := s.ready.checks
	s.ready.mu.Unlock()
	for _, c := range checks {
		if err := c.ready(ctx); err != nil {
			reason := c.name + "_down"
			s.log.Warn("ingress not ready", slog.String("reason", reason), slog.Any("error", fault.From(err)))
			return fault.New(fault.ServiceUnavailable, "The "+c.name+" ingress is down.",
				fault.WithRetryAfter(5*time.Second), fault.WithDetail("reason", reason))
		}
	}
	return nil
}
