package handler

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"
)

// TestSpansFromGlobalProvider: a handler without a TracerProvider makes no
// span while otel's global provider has none set behind it (its spans
// would record nothing), and makes them as before once one is set, after
// the handler was made as well as before.
func TestSpansFromGlobalProvider(t *testing.T) {
	if !isGlobalDefault(otel.GetTracerProvider()) {
		t.Skip("a global tracer provider is set already")
	}
	t.Cleanup(func() { otel.SetTracerProvider(noop.NewTracerProvider()) })
	h := newHandler(t, Config{})
	if h.tracing() {
		t.Fatal("tracing with otel's global provider and none set behind it")
	}
	if _, err := h.Handle(context.Background(), []byte(validReport)); err != nil {
		t.Fatal(err)
	}

	rec := tracetest.NewSpanRecorder()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	if !h.tracing() {
		t.Fatal("no tracing once a global provider is set")
	}
	if _, err := newHandler(t, Config{}).Handle(context.Background(), []byte(validReport)); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Handle(context.Background(), []byte(validReport)); err != nil { // a duplicate for h
		t.Fatal(err)
	}
	spans := map[string]int{}
	for _, s := range rec.Ended() {
		spans[s.Name()]++
	}
	if spans["triage.handler.handle"] != 2 || spans["triage.handler.start"] != 2 {
		t.Errorf("spans after a global provider was set: %v", spans)
	}
}
