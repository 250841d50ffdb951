package cli

import (
	"context"
	"log/slog"

	"github.com/triage-go/triage/adapter/otlp"
	"github.com/triage-go/triage/server"
)

// startTracing sets up the export of serve's spans from the OTEL_*
// environment variables (see package tracing) and hands them to cfg: off,
// and free, unless an OTLP endpoint is set.
func startTracing(ctx context.Context, cfg *server.Config, log *slog.Logger) (*otlp.Tracing, error) {
	tr, err := otlp.FromEnv(ctx, otlp.Config{ServiceName: "triage", ServiceVersion: Version(), Logger: log})
	if err != nil {
		return nil, usagef("%v", err)
	}
	for _, w := range tr.Warnings {
		log.Warn("tracing: " + w)
	}
	if !tr.Enabled() {
		log.Debug("traces are not exported", slog.String("reason", tr.Off))
		return tr, nil
	}
	log.Info("exporting traces over OTLP", slog.String("endpoint", tr.Endpoint), slog.String("protocol", tr.Protocol))
	cfg.TracerProvider, cfg.Propagator = tr.TracerProvider(), tr.Propagator()
	return tr, nil
}

// stopTracing sends the spans still queued, within otlp.ShutdownTimeout.
func stopTracing(tr *otlp.Tracing, log *slog.Logger) {
	if err := tr.Shutdown(context.Background()); err != nil {
		log.Warn("tracing: shutting down", slog.Any("error", err))
	}
}
