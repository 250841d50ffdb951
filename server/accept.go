package server

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/wire/problem"
)

// Service is the pipeline the server's doors call (POST /v1/errors, and a
// NATS ingress built beside the server).
func (s *Server) Service() *service.Service { return s.svc }

// Tenants returns the tenants the server knows, sorted: those its API
// keys name, or DefaultTenant without keys.
func (s *Server) Tenants() []string { return s.svc.Tenants() }

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
