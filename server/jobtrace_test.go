package server

import (
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestJobContinuesTheTrace: a job keeps the trace context of the request
// that caused it, so that its attempt, run later by the worker (on any
// instance), is a span of the caller's trace, a child of the request's
// span, and its POST carries the trace on to the receiver. The context is
// never part of the API's view of the job.
func TestJobContinuesTheTrace(t *testing.T) {
	t.Parallel()
	const (
		traceID  = "4bf92f3577b34da6a3ce929d0e0e4736"
		parentID = "00f067aa0ba902b7"
	)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	hook := newCallbacks(t)
	f := newFixture(t, func(c *Config) {
		fastJobs(c)
		c.TracerProvider = tp
		c.Webhook = hook.srv.URL + "/escalations"
	})
	r := f.do("POST", "/v1/errors", readFile(t, goldenDir+"/service_outage.json"),
		map[string]string{"traceparent": "00-" + traceID + "-" + parentID + "-01"})
	if r.status != 201 {
		t.Fatalf("POST: %d %s", r.status, r.body)
	}
	id := r.json(t)["error_id"].(string)
	if raw := f.do("GET", "/v1/errors/"+id, nil, nil); strings.Contains(string(raw.body), traceID) {
		t.Errorf("the record's view shows the trace context: %s", raw.body)
	}
	var request sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "POST /v1/errors" {
			request = s
		}
	}
	if request == nil || request.SpanContext().TraceID().String() != traceID {
		t.Fatalf("the request's span: %v", request)
	}

	runWorker(t, f.srv)
	f.waitJobs(id, "the escalation", oneJobIn("completed"))
	var job sdktrace.ReadOnlySpan
	deadline := time.Now().Add(5 * time.Second)
	for job == nil && time.Now().Before(deadline) {
		for _, s := range rec.Ended() {
			if s.Name() == "job escalation" {
				job = s
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if job == nil {
		t.Fatal("no span of the job's attempt")
	}
	// Its parent is the span it was enqueued in: the request's, or one
	// of the handler's within it.
	parents := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		parents[s.SpanContext().SpanID()] = s
	}
	var path []string
	for p := parents[job.Parent().SpanID()]; p != nil; p = parents[p.Parent().SpanID()] {
		path = append(path, p.Name())
		if p == request {
			break
		}
	}
	if job.SpanContext().TraceID().String() != traceID || len(path) == 0 || path[len(path)-1] != request.Name() ||
		job.SpanKind() != trace.SpanKindConsumer {
		t.Errorf("the job's span: trace %s, ancestors %v, kind %v; want trace %s, a descendant of the request's span",
			job.SpanContext().TraceID(), path, job.SpanKind(), traceID)
	}
	t.Logf("the job's span's ancestors: %v", path)
	attrs := spanAttrs(job)
	if attrs["triage.job.kind"] != "escalation" || attrs["triage.error_id"] != id || attrs["triage.job.attempt"] != "1" {
		t.Errorf("the job's span's attributes: %v", attrs)
	}
	sent := hook.header(0).Get("traceparent")
	if want := "00-" + traceID + "-" + job.SpanContext().SpanID().String() + "-01"; sent != want {
		t.Errorf("the webhook got traceparent %q, want %q (the job's span)", sent, want)
	}
}
