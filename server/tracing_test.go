package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func spanAttrs(s sdktrace.ReadOnlySpan) map[attribute.Key]string {
	m := map[attribute.Key]string{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value.String()
	}
	return m
}

// TestRequestSpans: each request has one server span, named after its
// route, with allow-listed attributes only: the tenant once the key is
// known, never the key, even where a client put it in the path.
func TestRequestSpans(t *testing.T) {
	t.Parallel()
	const key = "tracing-key-0123456789"
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	f := newFixture(t, func(c *Config) {
		c.APIKeys = map[string]string{key: "acme"}
		c.TracerProvider = tp
	})
	for _, c := range []struct {
		method, path string
		header       map[string]string
		name         string
		want         map[attribute.Key]string
	}{
		{"GET", "/healthz", nil, "GET /healthz",
			map[attribute.Key]string{"http.request.method": "GET", "http.route": "/healthz", "http.response.status_code": "200", "url.path": "/healthz", "url.scheme": "http"}},
		{"GET", "/v1/errors", nil, "GET /v1/errors",
			map[attribute.Key]string{"http.request.method": "GET", "http.route": "/v1/errors", "http.response.status_code": "401", "url.path": "/v1/errors", "url.scheme": "http"}},
		{"GET", "/v1/errors/" + key, map[string]string{"Authorization": "Bearer " + key}, "GET /v1/errors/{error_id}",
			map[attribute.Key]string{"http.request.method": "GET", "http.route": "/v1/errors/{error_id}", "http.response.status_code": "404", "url.path": "/v1/errors/[REDACTED]", "url.scheme": "http", "triage.tenant": "acme"}},
		{"FROB", "/nowhere", nil, "HTTP",
			map[attribute.Key]string{"http.request.method": "_OTHER", "http.response.status_code": "404", "url.path": "/nowhere", "url.scheme": "http"}},
	} {
		rec.Reset()
		f.do(c.method, c.path, nil, c.header)
		spans := rec.Ended()
		if len(spans) != 1 {
			t.Fatalf("%s %s: %d spans", c.method, c.path, len(spans))
		}
		s := spans[0]
		if s.Name() != c.name || s.SpanKind() != trace.SpanKindServer || s.Parent().IsValid() {
			t.Errorf("%s %s: span %q, kind %v, parent %v", c.method, c.path, s.Name(), s.SpanKind(), s.Parent())
		}
		got := spanAttrs(s)
		if len(got) != len(c.want) {
			t.Errorf("%s %s: attributes %v, want %v", c.method, c.path, got, c.want)
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s %s: %s = %q, want %q", c.method, c.path, k, got[k], v)
			}
		}
		for k, v := range got {
			if strings.Contains(v, key) {
				t.Errorf("%s %s: %s holds the API key: %q", c.method, c.path, k, v)
			}
		}
		if s.Status().Code != codes.Unset {
			t.Errorf("%s %s: a 4xx made the span's status %v", c.method, c.path, s.Status())
		}
	}
}

// TestRequestSpanStatus: a 5xx is an error; a 4xx, the client's, is not;
// an answer cut short has no status code.
func TestRequestSpanStatus(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tr := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)).Tracer("t")
	for _, c := range []struct {
		status int
		code   codes.Code
		attrs  int
	}{{503, codes.Error, 2}, {429, codes.Unset, 1}, {0, codes.Unset, 0}} {
		rec.Reset()
		_, span := tr.Start(context.Background(), "s")
		endRequestSpan(span, c.status)
		s := rec.Ended()[0]
		if s.Status().Code != c.code || len(s.Attributes()) != c.attrs {
			t.Errorf("status %d: span status %v, attributes %v", c.status, s.Status(), s.Attributes())
		}
	}
	endRequestSpan(nil, 500) // tracing off: nothing to end
}

// TestNoTracerProvider: with no provider, a request carries no span, and
// the caller's trace context is not even read.
func TestNoTracerProvider(t *testing.T) {
	t.Parallel()
	if tr := newRequestTracer(nil, nil); tr != nil {
		t.Fatalf("newRequestTracer(nil) = %v", tr)
	}
	f := newFixture(t, nil)
	var seen trace.SpanContext
	h := f.srv.observe("GET /probe", http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		seen = trace.SpanContextFromContext(r.Context())
	}))
	req := httptest.NewRequest("GET", "/probe", nil)
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	h.ServeHTTP(httptest.NewRecorder(), req)
	if seen.IsValid() {
		t.Errorf("with no provider, the request's context holds a span context: %v", seen)
	}
}
