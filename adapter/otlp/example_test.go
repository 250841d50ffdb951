package otlp_test

import (
	"context"
	"fmt"
	"os"

	"github.com/triage-go/triage/adapter/otlp"
)

func ExampleFromEnv() {
	ctx := context.Background()
	os.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	off, _ := otlp.FromEnv(ctx, otlp.Config{})
	fmt.Println(off.Enabled(), off.Off)

	// An endpoint turns tracing on; nothing is sent before a span ends.
	os.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
	defer os.Unsetenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	on, err := otlp.FromEnv(ctx, otlp.Config{ServiceName: "triage"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer on.Shutdown(ctx)
	fmt.Println(on.Enabled(), on.Endpoint, on.Protocol)
	// Output:
	// false no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
	// true http://127.0.0.1:4318/v1/traces http/protobuf
}
