package otlp

import (
	"context"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// supported says whether this build speaks a protocol.
func supported(string) bool { return true }

// newGRPCExporter makes the OTLP/gRPC exporter, which reads its endpoint
// (an http URL is plaintext), headers, timeout, compression and
// certificates from the environment.
func newGRPCExporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	return otlptracegrpc.New(ctx)
}
