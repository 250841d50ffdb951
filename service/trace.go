package service

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// JobTrace is the W3C trace context of ctx's span (traceparent,
// tracestate), which a job carries so that its attempts are children of
// the request that asked for it; nil when ctx has no span.
func JobTrace(ctx context.Context) map[string]string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return c
}
