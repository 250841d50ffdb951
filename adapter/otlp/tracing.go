package otlp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// The environment variables FromEnv reads itself. The exporter reads the
// rest of OTEL_EXPORTER_OTLP_* (headers, timeout, compression,
// certificates), the SDK OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG,
// OTEL_BSP_*, OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	EnvSDKDisabled    = "OTEL_SDK_DISABLED"
	EnvTracesExporter = "OTEL_TRACES_EXPORTER"
)

// The protocols the exporter speaks.
const (
	ProtocolHTTPProtobuf = "http/protobuf"
	ProtocolHTTPJSON     = "http/json"
	ProtocolGRPC         = "grpc"
)

// Config is what FromEnv cannot read from the environment. Every zero
// field means the documented default.
type Config struct {
	// ServiceName is service.name when OTEL_SERVICE_NAME (or service.name
	// in OTEL_RESOURCE_ATTRIBUTES) does not say. Defaults to "triage".
	ServiceName string
	// ServiceVersion is service.version. Defaults to none.
	ServiceVersion string
	// Logger receives the SDK's errors (a failed export, say) as
	// warnings, through otel's global error handler, which FromEnv sets
	// when tracing is on. Defaults to nil: the SDK's default handler,
	// which writes to the standard logger.
	Logger *slog.Logger
}

// Tracing is the tracing FromEnv set up: an SDK tracer provider exporting
// over OTLP, or nothing.
type Tracing struct {
	provider *sdktrace.TracerProvider
	// Endpoint is where the spans go, its password removed; "" when
	// tracing is off.
	Endpoint string
	// Protocol is the exporter's: http/protobuf, http/json or grpc.
	Protocol string
	// Off says why tracing is off ("" when it is on).
	Off string
	// Warnings are settings FromEnv ignored, one sentence each, for the
	// caller to log.
	Warnings []string
}

// FromEnv sets tracing up from the standard OpenTelemetry environment
// variables. Tracing is off — no provider, no exporter, no goroutine —
// when OTEL_SDK_DISABLED is true, when OTEL_TRACES_EXPORTER is "none", and
// when neither OTEL_EXPORTER_OTLP_TRACES_ENDPOINT nor
// OTEL_EXPORTER_OTLP_ENDPOINT is set (unlike the SDK's own default of
// localhost: a service that was not told where to send spans sends none).
// An endpoint that is not an http or https URL is an error; a protocol or
// exporter it does not know is a warning, and the default is used.
func FromEnv(ctx context.Context, cfg Config) (*Tracing, error) {
	t := &Tracing{}
	if v := strings.TrimSpace(os.Getenv(EnvSDKDisabled)); strings.EqualFold(v, "true") {
		t.Off = EnvSDKDisabled + "=true"
		return t, nil
	} else if v != "" && !strings.EqualFold(v, "false") {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s=%q is not true or false; taken as false", EnvSDKDisabled, v))
	}
	if off, warn := exporterOff(os.Getenv(EnvTracesExporter)); off {
		t.Off = EnvTracesExporter + "=none"
		return t, nil
	} else if warn != "" {
		t.Warnings = append(t.Warnings, warn)
	}
	endpoint, name := os.Getenv(EnvTracesEndpoint), EnvTracesEndpoint
	if endpoint == "" {
		endpoint, name = os.Getenv(EnvEndpoint), EnvEndpoint
	}
	if endpoint == "" {
		t.Off = "no " + EnvEndpoint + " or " + EnvTracesEndpoint
		return t, nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s must be an http or https URL, such as http://localhost:4318", name)
	}
	t.Endpoint = u.Redacted()
	if name == EnvEndpoint {
		t.Endpoint = strings.TrimSuffix(t.Endpoint, "/") + "/v1/traces"
	}
	var warn string
	t.Protocol, warn = protocol()
	if warn != "" {
		t.Warnings = append(t.Warnings, warn)
	}
	exp, err := newExporter(ctx, t.Protocol)
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	res, err := newResource(ctx, cfg)
	if err != nil {
		// A partial resource (a malformed OTEL_RESOURCE_ATTRIBUTES) is
		// still usable; say what was wrong.
		t.Warnings = append(t.Warnings, "resource: "+err.Error())
	}
	if cfg.Logger != nil {
		log := cfg.Logger
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
			log.Warn("tracing: "+err.Error(), slog.String("endpoint", t.Endpoint))
		}))
	}
	// The sampler is the SDK's: OTEL_TRACES_SAMPLER, by default
	// parentbased_always_on, which follows the caller's sampled flag.
	t.provider = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return t, nil
}

// exporterOff reads OTEL_TRACES_EXPORTER: "none" turns tracing off; "otlp"
// (the default) is the only exporter; any other is a warning.
func exporterOff(v string) (bool, string) {
	v = strings.TrimSpace(strings.ToLower(v))
	if v == "none" {
		return true, ""
	}
	var unknown []string
	for e := range strings.SplitSeq(v, ",") {
		if e = strings.TrimSpace(e); e != "" && e != "otlp" {
			unknown = append(unknown, e)
		}
	}
	if len(unknown) > 0 {
		return false, fmt.Sprintf("%s: only otlp is supported; ignoring %s", EnvTracesExporter, strings.Join(unknown, ", "))
	}
	return false, ""
}

// protocol reads OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else
// OTEL_EXPORTER_OTLP_PROTOCOL; the default is http/protobuf.
func protocol() (string, string) {
	v, name := os.Getenv(EnvTracesProtocol), EnvTracesProtocol
	if v == "" {
		v, name = os.Getenv(EnvProtocol), EnvProtocol
	}
	switch p := strings.TrimSpace(strings.ToLower(v)); p {
	case "":
		return ProtocolHTTPProtobuf, ""
	case ProtocolHTTPProtobuf, ProtocolHTTPJSON, ProtocolGRPC:
		if !supported(p) {
			return ProtocolHTTPProtobuf, fmt.Sprintf("%s=%s is not supported by this build; using %s", name, p, ProtocolHTTPProtobuf)
		}
		return p, ""
	default:
		return ProtocolHTTPProtobuf, fmt.Sprintf("%s=%q is not %s, %s or %s; using %s", name, v,
			ProtocolHTTPProtobuf, ProtocolHTTPJSON, ProtocolGRPC, ProtocolHTTPProtobuf)
	}
}

// newExporter makes the OTLP exporter of a protocol. The exporter reads
// its endpoint, headers, timeout, compression and certificates from the
// environment, and the encoding (protobuf or JSON) of OTLP/HTTP.
func newExporter(ctx context.Context, protocol string) (sdktrace.SpanExporter, error) {
	if protocol == ProtocolGRPC {
		return newGRPCExporter(ctx)
	}
	return otlptracehttp.New(ctx)
}

// newResource describes the service: service.name (Config.ServiceName
// unless OTEL_SERVICE_NAME says), service.version, service.instance.id (a
// random one per process, so that the spans of many instances sharing a
// database can be told apart), host.name, the SDK's own attributes and
// OTEL_RESOURCE_ATTRIBUTES. Nothing from the command line, which may hold
// a database URL's password.
func newResource(ctx context.Context, cfg Config) (*resource.Resource, error) {
	name := cfg.ServiceName
	if name == "" {
		name = "triage"
	}
	attrs := []resource.Option{resource.WithSchemaURL(semconv.SchemaURL), resource.WithAttributes(
		semconv.ServiceName(name), semconv.ServiceInstanceID(uuid.NewString()))}
	if cfg.ServiceVersion != "" {
		attrs = append(attrs, resource.WithAttributes(semconv.ServiceVersion(cfg.ServiceVersion)))
	}
	attrs = append(attrs, resource.WithHost(), resource.WithTelemetrySDK(), resource.WithFromEnv())
	return resource.New(ctx, attrs...)
}

// Enabled says whether spans are exported.
func (t *Tracing) Enabled() bool { return t != nil && t.provider != nil }

// TracerProvider makes the spans that are exported; nil when tracing is
// off, so that a caller can skip tracing altogether.
func (t *Tracing) TracerProvider() trace.TracerProvider {
	if !t.Enabled() {
		return nil
	}
	return t.provider
}

// Propagator reads and writes the W3C trace context (traceparent,
// tracestate) and baggage headers.
func (t *Tracing) Propagator() propagation.TextMapPropagator {
	return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
}

// ShutdownTimeout bounds Shutdown when its context has no deadline.
const ShutdownTimeout = 5 * time.Second

// Shutdown exports the spans still queued and stops the exporter, within
// ctx's deadline or ShutdownTimeout. It does nothing when tracing is off.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if !t.Enabled() {
		return nil
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, ShutdownTimeout)
		defer cancel()
	}
	err := t.provider.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("tracing: spans still queued were dropped: %w", err)
	}
	return err
}
