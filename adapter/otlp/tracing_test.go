package otlp_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/triage-go/triage/adapter/otlp"
)

// clearEnv unsets every variable FromEnv and the exporter read, for the
// test.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, k := range []string{otlp.EnvEndpoint, otlp.EnvTracesEndpoint, otlp.EnvProtocol,
		otlp.EnvTracesProtocol, otlp.EnvSDKDisabled, otlp.EnvTracesExporter, "OTEL_SERVICE_NAME",
		"OTEL_RESOURCE_ATTRIBUTES", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG", "OTEL_EXPORTER_OTLP_HEADERS"} {
		t.Setenv(k, "")
	}
}

func TestOff(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		off  string
	}{
		{"nothing set", nil, "no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"},
		{"protocol but no endpoint", map[string]string{otlp.EnvProtocol: "grpc"}, "no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"},
		{"disabled", map[string]string{otlp.EnvEndpoint: "http://127.0.0.1:4318", otlp.EnvSDKDisabled: "TRUE"}, "OTEL_SDK_DISABLED=true"},
		{"exporter none", map[string]string{otlp.EnvTracesEndpoint: "http://127.0.0.1:4318/v1/traces", otlp.EnvTracesExporter: "none"}, "OTEL_TRACES_EXPORTER=none"},
	} {
		t.Run(c.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			tr, err := otlp.FromEnv(context.Background(), otlp.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if tr.Enabled() || tr.TracerProvider() != nil || tr.Off != c.off || tr.Endpoint != "" {
				t.Errorf("FromEnv = enabled %v, provider %v, off %q, endpoint %q; want off: %q", tr.Enabled(), tr.TracerProvider(), tr.Off, tr.Endpoint, c.off)
			}
			if err := tr.Shutdown(context.Background()); err != nil {
				t.Errorf("Shutdown of no tracing: %v", err)
			}
		})
	}
}

func TestSettings(t *testing.T) {
	for _, c := range []struct {
		name               string
		env                map[string]string
		endpoint, protocol string
		warning            string
		err                string
	}{
		{name: "base endpoint", env: map[string]string{otlp.EnvEndpoint: "http://collector:4318"},
			endpoint: "http://collector:4318/v1/traces", protocol: "http/protobuf"},
		{name: "traces endpoint wins, as is", env: map[string]string{otlp.EnvEndpoint: "http://a:4318", otlp.EnvTracesEndpoint: "https://b/otlp/traces"},
			endpoint: "https://b/otlp/traces", protocol: "http/protobuf"},
		{name: "password redacted", env: map[string]string{otlp.EnvEndpoint: "https://user:hunter2@collector:4318/"},
			endpoint: "https://user:xxxxx@collector:4318/v1/traces", protocol: "http/protobuf"},
		{name: "json", env: map[string]string{otlp.EnvEndpoint: "http://c:4318", otlp.EnvProtocol: "http/json"},
			endpoint: "http://c:4318/v1/traces", protocol: "http/json"},
		{name: "traces protocol wins", env: map[string]string{otlp.EnvEndpoint: "http://c:4317", otlp.EnvProtocol: "http/json", otlp.EnvTracesProtocol: "grpc"},
			endpoint: "http://c:4317/v1/traces", protocol: "grpc"},
		{name: "unknown protocol", env: map[string]string{otlp.EnvEndpoint: "http://c:4318", otlp.EnvProtocol: "thrift"},
			endpoint: "http://c:4318/v1/traces", protocol: "http/protobuf", warning: `OTEL_EXPORTER_OTLP_PROTOCOL="thrift" is not`},
		{name: "unknown exporter", env: map[string]string{otlp.EnvEndpoint: "http://c:4318", otlp.EnvTracesExporter: "otlp,console"},
			endpoint: "http://c:4318/v1/traces", protocol: "http/protobuf", warning: "only otlp is supported; ignoring console"},
		{name: "odd disabled", env: map[string]string{otlp.EnvEndpoint: "http://c:4318", otlp.EnvSDKDisabled: "yes"},
			endpoint: "http://c:4318/v1/traces", protocol: "http/protobuf", warning: `OTEL_SDK_DISABLED="yes" is not true or false`},
		{name: "not a URL", env: map[string]string{otlp.EnvEndpoint: "collector:4318"}, err: "OTEL_EXPORTER_OTLP_ENDPOINT must be an http or https URL"},
		{name: "not http", env: map[string]string{otlp.EnvTracesEndpoint: "ftp://collector/"}, err: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http or https URL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			tr, err := otlp.FromEnv(context.Background(), otlp.Config{})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("FromEnv error = %v, want %q", err, c.err)
				}
				if strings.Contains(err.Error(), "collector") {
					t.Errorf("the error quotes the endpoint, which may hold a password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Shutdown(context.Background())
			if !tr.Enabled() || tr.Endpoint != c.endpoint || tr.Protocol != c.protocol {
				t.Errorf("FromEnv = enabled %v, endpoint %q, protocol %q; want %q, %q", tr.Enabled(), tr.Endpoint, tr.Protocol, c.endpoint, c.protocol)
			}
			warnings := strings.Join(tr.Warnings, "\n")
			if (c.warning == "") != (warnings == "") || !strings.Contains(warnings, c.warning) {
				t.Errorf("warnings %q, want %q", warnings, c.warning)
			}
		})
	}
}

// collector counts the spans an OTLP receiver is sent, by name, and the
// service.name of their resource.
type collector struct {
	mu      sync.Mutex
	spans   []string
	service string
}

func (c *collector) add(req *coltracepb.ExportTraceServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		for _, a := range rs.Resource.Attributes {
			if a.Key == "service.name" {
				c.service = a.Value.GetStringValue()
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				c.spans = append(c.spans, s.Name)
			}
		}
	}
}

func (c *collector) got() (string, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.spans, ","), c.service
}

// exportOne makes one span with FromEnv's provider and shuts it down: the
// span is sent by Shutdown, before the batch's delay.
func exportOne(t *testing.T) {
	t.Helper()
	tr, err := otlp.FromEnv(context.Background(), otlp.Config{ServiceName: "svc", ServiceVersion: "v1.2.3"})
	if err != nil || !tr.Enabled() {
		t.Fatalf("FromEnv: %v, enabled %v (%s)", err, tr.Enabled(), tr.Off)
	}
	_, span := tr.TracerProvider().Tracer("test").Start(context.Background(), "one")
	span.End()
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

func TestExportHTTP(t *testing.T) {
	clearEnv(t)
	var c collector
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if r.URL.Path != "/custom/traces" || proto.Unmarshal(body, &req) != nil {
			t.Errorf("export to %s of %d bytes", r.URL.Path, len(body))
		}
		c.add(&req)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	t.Setenv(otlp.EnvTracesEndpoint, srv.URL+"/custom/traces")
	exportOne(t)
	if spans, service := c.got(); spans != "one" || service != "svc" {
		t.Errorf("the receiver got spans %q of service %q, want one of svc", spans, service)
	}
}

type grpcReceiver struct {
	coltracepb.UnimplementedTraceServiceServer
	c *collector
}

func (g grpcReceiver) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	g.c.add(req)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

func TestExportGRPC(t *testing.T) {
	clearEnv(t)
	var c collector
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, grpcReceiver{c: &c})
	go func() { _ = srv.Serve(ln) }()
	defer srv.Stop()
	t.Setenv(otlp.EnvEndpoint, "http://"+ln.Addr().String()) // http: plaintext
	t.Setenv(otlp.EnvProtocol, "grpc")
	t.Setenv("OTEL_SERVICE_NAME", "from-env")
	exportOne(t)
	if spans, service := c.got(); spans != "one" || service != "from-env" {
		t.Errorf("the receiver got spans %q of service %q, want one of from-env (OTEL_SERVICE_NAME wins)", spans, service)
	}
}

// TestShutdownBounded: a collector that never answers holds Shutdown no
// longer than its context allows, and the spans lost are an error.
func TestShutdownBounded(t *testing.T) {
	clearEnv(t)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	t.Setenv(otlp.EnvEndpoint, srv.URL)
	tr, err := otlp.FromEnv(context.Background(), otlp.Config{})
	if err != nil {
		t.Fatal(err)
	}
	_, span := tr.TracerProvider().Tracer("test").Start(context.Background(), "lost")
	span.End()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = tr.Shutdown(ctx)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("Shutdown took %v with a 300ms deadline", took)
	}
	if err == nil {
		t.Error("Shutdown dropped a span and said nothing")
	}
}
