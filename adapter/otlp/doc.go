// Package otlp sets up OpenTelemetry tracing for `triage serve` from
// the standard OTEL_* environment variables: an SDK tracer provider that
// exports spans over OTLP (HTTP, or gRPC), or nothing at all when no
// endpoint is set.
//
// The caller hands TracerProvider and Propagator to server.Config, and
// calls Shutdown when it stops, so that the spans still queued are sent.
package otlp
