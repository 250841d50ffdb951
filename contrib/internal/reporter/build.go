package reporter

import (
	"context"
	"maps"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// build is f's report (see the package documentation).
func (r *Reporter) build(ctx context.Context, f Failure) *triage.Report {
	flt := fault.From(f.Err).Clone()
	flt.Debug = fault.Debug{}
	if flt.Source == "" {
		flt.Source = f.Name
	}
	msg := oneLine(fault.Redact(f.Err.Error()))
	if msg == "" {
		msg = flt.Message
	}
	if len(msg) > triage.MaxMessage {
		msg = strings.ToValidUTF8(msg[:triage.MaxMessage], "")
	}
	ids := IDsOf(ctx)
	query := ids.Query
	if !triage.IsIdentifier(query) {
		outer := f.Outer
		if outer == "" {
			outer = f.Name
		}
		query = r.defaultQuery(outer)
	}
	c := map[string]any{"framework": r.cfg.Framework, "classified_by": string(flt.Classification.Method)}
	if rule := flt.Classification.Rule; rule != "" {
		c["classified_by"] = string(flt.Classification.Method) + ":" + rule
	}
	for k, v := range map[string]string{"component": f.Component, "node": f.Name, "session_id": ids.Session, "run_id": ids.Run} {
		if v != "" {
			c[k] = v
		}
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		c["trace_id"] = sc.TraceID().String()
		c["traceparent"] = "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
	}
	tags := maps.Clone(r.cfg.Tags)
	if tags == nil {
		tags = map[string]string{}
	}
	tags["framework"] = r.cfg.Framework
	return &triage.Report{
		AgentID:     r.cfg.AgentID,
		Timestamp:   r.cfg.Now().UTC(),
		Status:      "error",
		Environment: r.cfg.Environment,
		Release:     r.cfg.Release,
		Tags:        tags,
		Data: triage.Data{
			ErrorCode: string(flt.Code),
			Message:   msg,
			QueryID:   query,
			Context:   c,
			Fault:     flt,
		},
	}
}

// defaultQuery is "<framework>:<name>" with the characters an identifier
// does not allow as '_', or "<framework>:run" for no name.
func (r *Reporter) defaultQuery(name string) string {
	if name == "" {
		name = "run"
	}
	b := []byte(r.cfg.Framework + ":" + name)
	for i, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.' || c == ':' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 128 {
		b = b[:128]
	}
	return string(b)
}
