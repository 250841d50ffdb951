package service

import (
	"context"
	"net/http"

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

// TraceParent is the W3C traceparent of a request: ctx's span's when it
// has one (the service traces), else the one header h carries, if valid;
// "" for none. A door's failure keeps it in its report (Failure).
func TraceParent(ctx context.Context, h http.Header) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		if h == nil {
			return ""
		}
		ctx = propagation.TraceContext{}.Extract(context.Background(), propagation.HeaderCarrier(h))
		if !trace.SpanContextFromContext(ctx).IsValid() {
			return ""
		}
	}
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return c["traceparent"]
}
