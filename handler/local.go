package handler

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// Handle decodes, validates and handles one report (seed 004's standard
// input, as JSON) in the process: the delivery is started and completed
// in Config's State, the actions read Config's Synonyms and Cache, and
// the escalations decided are told to Config's Notifier once the feedback
// is complete (one it fails to take is logged: the feedback stands). Retries are the caller's (the feedback's retry says when):
// nothing in the process calls a pipeline back. An invalid report is
// refused with an INVALID_REQUEST *fault.Error listing every problem, and
// nothing is recorded for it.
//
// The service (triage serve) runs the same engine, Decide, around its
// durable store instead.
func (h *Handler) Handle(ctx context.Context, raw []byte) (*triage.Feedback, error) {
	r, err := triage.DecodeReport(raw) // which redacts the context
	if err != nil {
		h.Invalid(ctx, err)
		return nil, err
	}
	return h.handle(ctx, r)
}

// HandleReport validates and handles a report built in code (see
// Report.Validate), as Handle does. The report is not changed: its
// context is redacted on a copy, so that no secret in it reaches the
// feedback, the stores, the logs or the policy.
func (h *Handler) HandleReport(ctx context.Context, r *triage.Report) (*triage.Feedback, error) {
	if err := r.Validate(); err != nil { // nil is invalid too
		h.Invalid(ctx, err)
		return nil, err
	}
	if len(r.Data.Context) > 0 {
		c := *r
		c.Data.Context = triage.RedactContext(c.Data.Context)
		r = &c
	}
	return h.handle(ctx, r)
}

// handle starts the delivery, decides and completes it: the pipeline in
// the process.
func (h *Handler) handle(ctx context.Context, r *triage.Report) (*triage.Feedback, error) {
	p := h.Prepare(r)
	var attrs trace.SpanStartEventOption
	sctx := ctx
	var span trace.Span
	if h.tracing() {
		attrs = spanAttributes(&p, r) // this span's and Decide's
		sctx, span = h.tracer.Start(ctx, "triage.handler.start", attrs)
	}
	started, err := h.cfg.State.Start(sctx, p.Start)
	if span != nil {
		span.End()
	}
	if err != nil {
		f := fault.From(storeFailure("deliveries", err))
		h.Refused(ctx, f, r)
		return nil, f
	}
	res, err := h.decideWith(ctx, Input{Report: r, Prepared: p, Started: started,
		Synonyms: h.cfg.Synonyms, Cache: h.cfg.Cache, Escalations: h.cfg.Notifier != nil}, attrs)
	if err == nil && started.First {
		if cerr := h.cfg.State.Complete(ctx, p.Key, res.Feedback); cerr != nil {
			err = fault.From(storeFailure("deliveries", cerr))
			h.Refused(ctx, err.(*fault.Error), r)
		}
	}
	if err != nil {
		if started.First {
			// The report was not handled: its next delivery is not a
			// duplicate.
			if rerr := h.cfg.State.Release(context.WithoutCancel(ctx), p.Key); rerr != nil {
				h.log(ctx, slog.LevelError, "releasing a delivery claim failed", slog.String("error_id", p.ErrorID), slog.Any("error", fault.From(rerr)))
			}
		}
		return nil, err
	}
	for _, j := range res.Jobs {
		if j.Escalation == nil || h.cfg.Notifier == nil {
			continue
		}
		if nerr := h.cfg.Notifier.Notify(ctx, *j.Escalation); nerr != nil {
			h.log(ctx, slog.LevelError, "escalation not delivered", slog.String("error_id", p.ErrorID), slog.Any("error", fault.From(nerr)))
		}
	}
	return res.Feedback, nil
}
