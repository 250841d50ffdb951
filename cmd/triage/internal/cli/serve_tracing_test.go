package cli_test

import (
	"bytes"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP trace receiver (protobuf): it keeps every
// request's raw body and the spans it decodes.
type otlpReceiver struct {
	*httptest.Server
	mu    sync.Mutex
	raw   [][]byte
	reqs  []*coltracepb.ExportTraceServiceRequest
	spans []*tracepb.Span
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	rc := &otlpReceiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("the exporter sent %s %s (%s)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
			http.Error(w, "not a trace export", http.StatusNotFound)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			t.Errorf("the export is not an ExportTraceServiceRequest: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		rc.raw = append(rc.raw, body)
		rc.reqs = append(rc.reqs, &req)
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				rc.spans = append(rc.spans, ss.Spans...)
			}
		}
		rc.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *otlpReceiver) received() ([]*tracepb.Span, [][]byte, []*coltracepb.ExportTraceServiceRequest) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]*tracepb.Span(nil), rc.spans...), append([][]byte(nil), rc.raw...), append([]*coltracepb.ExportTraceServiceRequest(nil), rc.reqs...)
}

func attr(attrs []*commonpb.KeyValue, key string) (string, bool) {
	for _, a := range attrs {
		if a.Key == key {
			switch v := a.Value.Value.(type) {
			case *commonpb.AnyValue_StringValue:
				return v.StringValue, true
			case *commonpb.AnyValue_IntValue:
				return strconv.FormatInt(v.IntValue, 10), true
			default:
				return a.Value.String(), true
			}
		}
	}
	return "", false
}

// TestServeExportsTraces: with an OTLP endpoint set, a report posted with
// a W3C traceparent is traced in the caller's trace: the request's span is
// the caller's span's child, with the route, the status and the tenant;
// the handler's span is the request's child, with error_id and query_id;
// the spans still queued are sent when serve stops; and nothing exported
// holds the API key or the Authorization header.
func TestServeExportsTraces(t *testing.T) {
	rc := newOTLPReceiver(t)
	const key = "acme-key-0123456789ab"
	t.Setenv("TRIAGE_API_KEYS", "acme="+key)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rc.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_SERVICE_NAME", "triage-under-test")
	t.Setenv("OTEL_SDK_DISABLED", "")
	t.Setenv("OTEL_TRACES_SAMPLER", "")
	svc := startServe(t, "--db", filepath.Join(t.TempDir(), "triage.db"))

	const traceID, callerSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	r := call(t, "POST", svc.base+"/v1/errors", goldenFile(t, "db_timeout.json"),
		"Authorization", "Bearer "+key, "traceparent", "00-"+traceID+"-"+callerSpan+"-01",
		"tracestate", "vendor=opaque", "baggage", "pipeline=nl2viz")
	if r.status != 201 {
		t.Fatalf("POST /v1/errors: %d %s", r.status, r.body)
	}
	errorID := r.field(t, "error_id").(string)
	if len(exporterGoroutines()) == 0 {
		t.Error("no goroutine of the SDK's runs while exporting: TestServeTracingOff's check would prove nothing")
	}
	if code := svc.stop(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, svc.stderr.String())
	}

	spans, raw, reqs := rc.received()
	if len(spans) == 0 {
		t.Fatalf("no span was exported; stderr:\n%s", svc.stderr.String())
	}
	byName := map[string]*tracepb.Span{}
	for _, s := range spans {
		if got := hex.EncodeToString(s.TraceId); got != traceID {
			t.Errorf("span %s is in trace %s, not the caller's %s", s.Name, got, traceID)
		}
		byName[s.Name] = s
	}
	req := byName["POST /v1/errors"]
	if req == nil {
		t.Fatalf("no request span among %d spans: %v", len(spans), names(spans))
	}
	if got := hex.EncodeToString(req.ParentSpanId); got != callerSpan {
		t.Errorf("the request span's parent is %q, want the caller's %s", got, callerSpan)
	}
	if req.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("the request span's kind is %v", req.Kind)
	}
	if req.TraceState != "vendor=opaque" {
		t.Errorf("the request span's tracestate is %q, want the caller's", req.TraceState)
	}
	for k, want := range map[string]string{"http.request.method": "POST", "http.route": "/v1/errors",
		"http.response.status_code": "201", "triage.tenant": "acme", "url.path": "/v1/errors"} {
		if got, _ := attr(req.Attributes, k); got != want {
			t.Errorf("the request span's %s = %q, want %q", k, got, want)
		}
	}
	h := byName["triage.handler.handle"]
	if h == nil {
		t.Fatalf("no handler span among %v", names(spans))
	}
	if !bytes.Equal(h.ParentSpanId, req.SpanId) {
		t.Errorf("the handler span's parent is %x, want the request span %x", h.ParentSpanId, req.SpanId)
	}
	if got, _ := attr(h.Attributes, "triage.error_id"); got != errorID {
		t.Errorf("the handler span's triage.error_id = %q, want %q", got, errorID)
	}
	if got, _ := attr(h.Attributes, "triage.query_id"); got != "q_456" {
		t.Errorf("the handler span's triage.query_id = %q, want q_456", got)
	}
	// The pipeline's nodes are the handler span's descendants.
	if n := byName["triage.handler.classify"]; n == nil || !bytes.Equal(n.ParentSpanId, h.SpanId) {
		t.Errorf("the classify node's span is not the handler span's child: %v", n)
	}
	svcName := ""
	for _, q := range reqs {
		for _, rs := range q.ResourceSpans {
			svcName, _ = attr(rs.Resource.Attributes, "service.name")
		}
	}
	if svcName != "triage-under-test" {
		t.Errorf("service.name = %q, want OTEL_SERVICE_NAME's", svcName)
	}
	for _, b := range raw {
		for _, secret := range []string{key, "Bearer", "authorization", "Authorization"} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("an export holds %q", secret)
			}
		}
	}
}

func names(spans []*tracepb.Span) []string {
	var n []string
	for _, s := range spans {
		n = append(n, s.Name)
	}
	return n
}

// exporterGoroutines lists the goroutines of an OpenTelemetry SDK span
// processor or OTLP exporter.
func exporterGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var found []string
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, "go.opentelemetry.io/otel/sdk/trace") || strings.Contains(g, "go.opentelemetry.io/otel/exporters/otlp") {
			found = append(found, g)
		}
	}
	return found
}

// TestServeTracingOff: without an endpoint, or with OTEL_SDK_DISABLED or
// OTEL_TRACES_EXPORTER=none, serve runs no exporter (no goroutine of the
// SDK's) and sends nothing, whatever traceparent the requests carry.
func TestServeTracingOff(t *testing.T) {
	for _, c := range []struct {
		name, endpoint, disabled, exporter string
	}{
		{"no endpoint", "", "", ""},
		{"OTEL_SDK_DISABLED", "receiver", "true", ""},
		{"OTEL_TRACES_EXPORTER=none", "receiver", "", "none"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rc := newOTLPReceiver(t)
			endpoint := c.endpoint
			if endpoint == "receiver" {
				endpoint = rc.URL
			}
			t.Setenv("TRIAGE_API_KEYS", "")
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
			t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
			t.Setenv("OTEL_SDK_DISABLED", c.disabled)
			t.Setenv("OTEL_TRACES_EXPORTER", c.exporter)
			svc := startServe(t, "--db", filepath.Join(t.TempDir(), "triage.db"))
			r := call(t, "POST", svc.base+"/v1/errors", goldenFile(t, "db_timeout.json"),
				"traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
			if r.status != 201 {
				t.Fatalf("POST /v1/errors: %d %s", r.status, r.body)
			}
			if g := exporterGoroutines(); len(g) > 0 {
				t.Errorf("tracing is off, yet %d SDK goroutines run:\n%s", len(g), strings.Join(g, "\n\n"))
			}
			if code := svc.stop(); code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, svc.stderr.String())
			}
			if spans, raw, _ := rc.received(); len(raw) > 0 {
				t.Errorf("tracing is off, yet %d spans were exported: %v", len(spans), names(spans))
			}
		})
	}
}
