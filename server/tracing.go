package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/triage-go/triage/fault"
)

// requestTracer makes a span per request (Config.TracerProvider), a child
// of the caller's span when the request carries a W3C traceparent header.
// Its attributes are allow-listed: the method, the route template, the
// path (redacted), the status and the tenant; never a header, the query
// string, the body or the client's address. A nil requestTracer traces
// nothing and costs nothing.
type requestTracer struct {
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

// newRequestTracer returns the tracer of Config's TracerProvider and
// Propagator, or nil when no provider is set.
func newRequestTracer(tp trace.TracerProvider, prop propagation.TextMapPropagator) *requestTracer {
	if tp == nil {
		return nil
	}
	if prop == nil {
		prop = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	return &requestTracer{tracer: tp.Tracer("github.com/triage-go/triage/server"), prop: prop}
}

// maxTracedPath bounds the url.path attribute, in bytes.
const maxTracedPath = 256

// start starts the span of a request that route serves: route is the
// ServeMux pattern ("POST /v1/errors"), or a name for a request no pattern
// has ("unmatched"). It returns the request with the span in its context,
// and the span (nil for a nil tracer).
func (t *requestTracer) start(r *http.Request, route string) (*http.Request, trace.Span) {
	if t == nil {
		return r, nil
	}
	ctx := t.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	method := knownMethod(r.Method)
	name := method
	if name == "_OTHER" {
		name = "HTTP"
	}
	attrs := []attribute.KeyValue{semconv.HTTPRequestMethodKey.String(method), semconv.URLScheme(scheme(r))}
	if _, path, ok := strings.Cut(route, " "); ok {
		name += " " + path
		attrs = append(attrs, semconv.HTTPRoute(path))
	}
	ctx, span := t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	if span.IsRecording() {
		p := fault.Redact(r.URL.EscapedPath())
		if len(p) > maxTracedPath {
			p = p[:maxTracedPath]
		}
		span.SetAttributes(semconv.URLPath(p))
	}
	return r.WithContext(ctx), span
}

// endRequestSpan ends a request's span with its status (0: none was
// written): a 5xx is an error (a 4xx is the client's, not the server's, as
// the HTTP conventions have it).
func endRequestSpan(span trace.Span, status int) {
	if span == nil {
		return
	}
	if status != 0 {
		span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	}
	if status >= 500 {
		span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(status)))
		span.SetStatus(codes.Error, http.StatusText(status))
	}
	span.End()
}

// traceTenant puts the request's tenant on its span, once the API key is
// known (never the key).
func traceTenant(ctx context.Context, tenant string) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(attribute.String("triage.tenant", tenant))
	}
}

// knownMethod is the method as the HTTP conventions record it: a method
// outside RFC 9110's and PATCH is "_OTHER", so that clients cannot make
// values without end.
func knownMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete,
		http.MethodConnect, http.MethodOptions, http.MethodTrace, http.MethodPatch:
		return m
	}
	return "_OTHER"
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}
