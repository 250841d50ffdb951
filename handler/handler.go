package handler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/classify"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/memory"
	"github.com/triage-go/triage/policy"
)

// Config configures a Handler. Every zero field means the documented
// default.
type Config struct {
	// Policy decides the recovery. Defaults to policy.Default(), seed 004's
	// scenario table.
	Policy *policy.Policy

	// Model classifies the reports that no code and no rule decides.
	// Defaults to the small text classifier Triage ships
	// (classify.DefaultModel); a function returning "" turns it off. The
	// agent error codes the reports are classified by are the Policy's
	// (policy.Policy.Codes).
	Model classify.Predictor

	// State keeps the attempts, the recent failures and the deliveries
	// (with the feedback given to each) for Handle and HandleReport.
	// Defaults to a memory.State, which lives as long as the Handler.
	// Decide uses none: its caller starts and completes the delivery.
	State triage.State
	// Synonyms is the schema inventory map_synonym looks in, and Cache the
	// last good results use_cache offers, for Handle and HandleReport.
	// Default to empty in-memory ones.
	Synonyms triage.Synonyms
	Cache    triage.Cache

	// Notifier is told the escalations Handle and HandleReport decide on,
	// once the feedback is complete. Defaults to nil: the escalate action
	// is recorded as skipped ("escalate:no_notifier") and the next action
	// is still escalate.
	Notifier triage.Notifier

	// Actions adds actions to the built-in ones (clarify, map_synonym,
	// suggest_chart, use_cache, reduce_scope, retry, escalate), or
	// replaces the one with the same name.
	Actions []Action
	// ActionTimeout bounds the actions of one report, together. Defaults to
	// 10 seconds.
	ActionTimeout time.Duration
	// RetryBase and RetryMax shape the retry action's backoff. Default to
	// 2 seconds and 5 minutes.
	RetryBase, RetryMax time.Duration

	// Logger receives one structured line per report refused (at warn or
	// error level) and, at debug level, per report handled (error_id,
	// query_id, severity, actions_taken, next_action); the counters count
	// the reports handled whatever the level. Defaults to nil: no logs.
	Logger *slog.Logger
	// Registerer registers the handler's Prometheus metrics. Defaults to
	// nil: the metrics are kept but not registered (see Collectors).
	Registerer prometheus.Registerer
	// MaxMetricSources bounds the reporting agents the reports metric
	// names in its source label: the agents seen after that many are
	// counted as "(other)" (OtherSource), so that the agent IDs clients
	// send cannot make time series without end. Defaults to
	// DefaultMaxMetricSources.
	MaxMetricSources int
	// TracerProvider makes the spans: one per report and one per step of
	// the pipeline and per action, carrying error_id and query_id.
	// Defaults to otel's global provider. The step and action spans are
	// made only when the report's span records (a provider is set and the
	// trace is sampled): the children of an unrecorded span would be
	// dropped anyway, and skipping them saves allocations when tracing is
	// off.
	TracerProvider trace.TracerProvider

	// Now tells the time. Defaults to time.Now.
	Now func() time.Time
}

// Handler is the Error Handler engine. Decide is the engine itself: a
// report and what is known of it in, a Result out; it writes nothing,
// reading only through the Input's small read-only interfaces. Handle and
// HandleReport run it in the process, around Config's State. A Handler is
// safe for concurrent use.
type Handler struct {
	cfg     Config
	policy  *policy.Policy
	classes *classify.Chain
	actions map[string]Action
	metrics *metrics
	tracer  trace.Tracer
	// global is otel's global provider while none is set behind it,
	// when the handler's spans come from it (Config.TracerProvider
	// nil): see tracing.
	global trace.TracerProvider
}

// New returns a Handler. It fails when the policy names an action the
// handler does not have.
func New(cfg Config) (*Handler, error) {
	h := &Handler{cfg: cfg}
	if h.cfg.Policy == nil {
		h.cfg.Policy = policy.Default()
	}
	h.policy = h.cfg.Policy
	if h.cfg.Model == nil {
		h.cfg.Model = classify.DefaultModel()
	}
	h.classes = classify.New(classify.Config{Codes: h.policy.Codes(), Model: h.cfg.Model})
	if h.cfg.State == nil {
		h.cfg.State = &memory.State{}
	}
	if h.cfg.Synonyms == nil {
		h.cfg.Synonyms = &memory.Synonyms{}
	}
	if h.cfg.Cache == nil {
		h.cfg.Cache = &memory.Cache{}
	}
	if h.cfg.ActionTimeout <= 0 {
		h.cfg.ActionTimeout = 10 * time.Second
	}
	if h.cfg.Now == nil {
		h.cfg.Now = time.Now
	}
	tp := h.cfg.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
		if isGlobalDefault(tp) {
			h.global = tp
		}
	}
	h.tracer = tp.Tracer("github.com/triage-go/triage/handler")
	h.metrics = newMetrics(h.cfg.MaxMetricSources)
	if h.cfg.Registerer != nil {
		if err := h.metrics.register(h.cfg.Registerer); err != nil {
			return nil, fmt.Errorf("handler: metrics: %w", err)
		}
	}

	h.actions = map[string]Action{}
	for _, a := range []Action{
		Clarify{}, MapSynonym{}, SuggestChart{}, UseCache{},
		ReduceScope{}, Retry{Base: h.cfg.RetryBase, Max: h.cfg.RetryMax}, Escalate{},
	} {
		h.actions[a.Name()] = a
	}
	for _, a := range h.cfg.Actions {
		h.actions[a.Name()] = a
	}
	var missing []string
	for _, name := range h.policy.Actions() {
		if _, ok := h.actions[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("handler: the policy names actions the handler does not have: %s", strings.Join(missing, ", "))
	}
	return h, nil
}

// Collectors returns the handler's metrics, to register where the Config's
// Registerer did not.
func (h *Handler) Collectors() []prometheus.Collector { return h.metrics.collectors() }

// MaxAttempts is the policy's maximum number of attempts per query and
// error code before the recovery escalates.
func (h *Handler) MaxAttempts() int { return h.policy.MaxAttempts() }

// Prepared is what is known of a valid report before it is handled: its
// identity, and the State.Start request that claims its delivery, counts
// its attempt and records its failure.
type Prepared struct {
	// Fingerprint groups the report with its kind (triage.Fingerprint);
	// ErrorID is the record's id (triage.ErrorID).
	Fingerprint, ErrorID string
	// Key is the delivery's key (triage.DeliveryKey).
	Key string
	// Start is what to give State.Start.
	Start triage.StartRequest

	// fault is the report's fault when Prepare classified it (a report
	// without an error code) or Classify did, for Decide not to classify
	// it again; class is its class when Classify settled it (classified).
	fault      *fault.Error
	class      classify.Result
	classified bool
}

// Prepare returns what is known of r, a valid report, before it is
// handled.
func (h *Handler) Prepare(r *triage.Report) Prepared {
	fp := triage.Fingerprint(r)
	p := Prepared{Fingerprint: fp, ErrorID: triage.ErrorID(fp), Key: deliveryKey(fp, r.Timestamp)}
	code := strings.ToUpper(r.Data.ErrorCode)
	if code == "" {
		p.fault = h.classes.Fault(r)
		code = string(p.fault.Code)
	}
	p.Start = triage.StartRequest{Key: p.Key, AttemptKey: r.Data.QueryID + "/" + code, Agent: r.AgentID,
		Code: code, At: r.Timestamp, Window: persistentWindow, QueryID: r.Data.QueryID}
	return p
}

// Classify returns p, Prepare(r), with r's fault and class settled ahead
// of Decide (which then does not classify r again), and p.Start.NoRecent
// set when the analysis settles r's cause without the window's failures:
// a caller that starts the delivery after it (the service's peek) spares
// its store the count. Decide decides the same with p or without it.
// For a repeat, which Decide does not classify, it is work done for
// nothing: call it where a report is most likely a first delivery.
func (h *Handler) Classify(r *triage.Report, p Prepared) Prepared {
	if p.fault == nil {
		p.fault = h.classes.Fault(r)
	}
	p.class, p.classified = h.classes.Classify(r, p.fault), true
	p.Start.NoRecent = !readsRecent(r, p.class, p.fault)
	return p
}

// deliveryKey is triage.DeliveryKey of a report whose fingerprint is
// known (that one computes it again): the report's time in UTC, fixed
// width with nanoseconds (so that keys sort by time), "/" and the
// fingerprint.
func deliveryKey(fingerprint string, at time.Time) string {
	var buf [128]byte
	b := append(at.UTC().AppendFormat(buf[:0], "20060102T150405.000000000Z"), '/')
	return string(append(b, fingerprint...))
}

// Input is what Decide decides on.
type Input struct {
	// Report is a valid report, its context redacted: triage.DecodeReport
	// returns one; a report built in code passes Report.Validate and has
	// its context given to triage.RedactContext. Decide trusts it.
	Report *triage.Report
	// Prepared is Prepare(Report); Decide computes it when its Key is
	// empty.
	Prepared Prepared
	// Started is what State.Start answered for Prepared.Start: a first
	// delivery (with its attempt and recent failures), or a repeat (with
	// the feedback given before, nil while the first is being handled).
	Started triage.StartResult

	// Synonyms and Cache are the report's owner's schema inventory and
	// last good results, which map_synonym, use_cache and the analysis
	// read; nil: none known.
	Synonyms triage.Synonyms
	Cache    triage.Cache
	// Callbacks says whether the report's agent has a callback URL, to
	// which the retries planned for it are posted; nil: none has, the
	// caller retries.
	Callbacks triage.Callbacks
	// Escalations tells that someone is told of escalations (a webhook,
	// a log); false: the escalate action is skipped.
	Escalations bool
	// Tentative tells that the caller may decide the report again (its
	// commit found that Started moved meanwhile) and calls Observe with
	// the Result it commits: Decide then counts and logs nothing of the
	// report, so that a report decided twice is counted once.
	Tentative bool
}

// Result is what Decide decided: the feedback, and the work the actions
// asked for, to be done once the report's handling is committed.
type Result struct {
	// Feedback is the answer; for a repeat, the one given before, with
	// Duplicate set. Its Outcomes hold what every action did.
	Feedback *triage.Feedback
	// Jobs are the retries (for agents with a callback) and the
	// escalations the actions asked for; none for a repeat.
	Jobs []triage.Job

	run *run // for Observe
}

// Decide handles one report: classification, root-cause analysis, the
// policy's decision, the actions and the feedback. It stores nothing and
// sends nothing: the caller commits the Result (the feedback for the
// delivery's repeats, the jobs). A repeat whose first delivery has
// feedback gets it again, with Duplicate set and no action run; one whose
// first delivery is still being handled is a SESSION_BUSY fault. Its
// errors are *fault.Error values.
func (h *Handler) Decide(ctx context.Context, in Input) (*Result, error) {
	return h.decideWith(ctx, in, nil)
}

// spanKindInternal is the kind of the report's span, made once: the
// option is a closure.
var spanKindInternal = trace.WithSpanKind(trace.SpanKindInternal)

// spanAttributes are the attributes of a report's spans: its error_id
// and query_id.
func spanAttributes(p *Prepared, r *triage.Report) trace.SpanStartEventOption {
	return trace.WithAttributes(attribute.String("triage.error_id", p.ErrorID), attribute.String("triage.query_id", r.Data.QueryID))
}

// tracing reports whether the handler's spans may record: not while they
// come from otel's global provider with no provider set behind it, whose
// tracer makes a span that records nothing and carries its parent's span
// context, which ctx carries already (three allocations a span, and the
// attributes' two, for nothing). Once a provider is set the global one
// hands it over and the spans are made as before.
func (h *Handler) tracing() bool {
	return h.global == nil || otel.GetTracerProvider() != h.global
}

// isGlobalDefault reports whether tp is otel's global provider itself,
// the one otel.GetTracerProvider returns until a provider is set.
func isGlobalDefault(tp trace.TracerProvider) bool {
	t := reflect.TypeOf(tp)
	return t != nil && t.Kind() == reflect.Pointer && t.Elem().PkgPath() == "go.opentelemetry.io/otel/internal/global"
}

// decideWith is Decide, its span given attrs (spanAttributes of the
// report, which Handle made for its own span already), or making them
// when nil.
func (h *Handler) decideWith(ctx context.Context, in Input, attrs trace.SpanStartEventOption) (*Result, error) {
	started := h.cfg.Now()
	if in.Prepared.Key == "" {
		in.Prepared = h.Prepare(in.Report)
	}
	var span trace.Span // nil when no span can record (see tracing)
	if h.tracing() {
		if attrs == nil {
			attrs = spanAttributes(&in.Prepared, in.Report)
		}
		ctx, span = h.tracer.Start(ctx, "triage.handler.handle", spanKindInternal, attrs)
		defer span.End()
	}
	r := &run{in: in, report: in.Report, errorID: in.Prepared.ErrorID, started: started}
	var err error
	if in.Started.First {
		err = h.pipeline(ctx, r)
	} else {
		err = h.step(ctx, "replay", r, (*Handler).replay)
	}
	if err != nil {
		f := fault.From(err)
		if span != nil {
			span.RecordError(f)
			span.SetStatus(codes.Error, string(f.Code))
		}
		h.Refused(ctx, f, in.Report)
		return nil, f
	}
	res := &r.result // one allocation for the run and its result
	*res = Result{Feedback: r.feedback, Jobs: r.jobs}
	if in.Tentative {
		res.run = r // counted by Observe, once committed
	} else {
		h.telemetry(ctx, r)
	}
	return res, nil
}

// Observe counts and logs res, the Result of a tentative Decide
// (Input.Tentative) that its caller committed. It does nothing for a nil
// Result or one Decide counted already.
func (h *Handler) Observe(ctx context.Context, res *Result) {
	if res == nil || res.run == nil {
		return
	}
	h.telemetry(ctx, res.run)
}

// steps are the steps of a first delivery, in order: method expressions,
// so that running them allocates no method value per report.
var steps = [...]struct {
	name string
	fn   func(*Handler, context.Context, *run) error
}{
	{"classify", (*Handler).classify},
	{"analyze", (*Handler).analyze},
	{"policy", (*Handler).decide},
	{"act", (*Handler).act},
	{"message", (*Handler).message},
	{"format", (*Handler).format},
}

// pipeline runs the steps of a first delivery, in order.
func (h *Handler) pipeline(ctx context.Context, r *run) error {
	for _, s := range steps {
		if err := h.step(ctx, s.name, r, s.fn); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

// step runs one step in a span named after it.
func (h *Handler) step(ctx context.Context, name string, r *run, fn func(*Handler, context.Context, *run) error) error {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return fn(h, ctx, r) // the report's span is not recorded: neither would the step's be
	}
	ctx, span := h.tracer.Start(ctx, "triage.handler."+name, trace.WithAttributes(
		attribute.String("triage.error_id", r.errorID), attribute.String("triage.query_id", r.report.Data.QueryID)))
	defer span.End()
	err := fn(h, ctx, r)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, string(fault.CodeOf(err)))
	}
	return err
}

// Invalid counts and logs a report refused before it was handled (one
// that did not decode or validate), as the handler's own refusals are.
func (h *Handler) Invalid(ctx context.Context, err error) {
	h.metrics.invalid.Inc()
	h.Refused(ctx, fault.From(err), nil)
}

// Refused counts and logs a report not handled, for a caller whose own
// step failed (its store's, say): the engine's refusals and the caller's
// are counted and logged alike. r may be nil.
func (h *Handler) Refused(ctx context.Context, f *fault.Error, r *triage.Report) {
	h.metrics.failures.WithLabelValues(string(f.Code)).Inc()
	attrs := []any{slog.Any("fault", f)}
	if r != nil {
		attrs = append(attrs, slog.String("query_id", r.Data.QueryID), slog.String("agent_id", r.AgentID))
	}
	level := slog.LevelError
	if f.Code == fault.InvalidRequest || f.Code == fault.SessionBusy {
		level = slog.LevelWarn
	}
	h.log(ctx, level, "error report not handled", attrs...)
}

func (h *Handler) log(ctx context.Context, level slog.Level, msg string, attrs ...any) {
	if h.cfg.Logger != nil {
		h.cfg.Logger.Log(ctx, level, msg, attrs...)
	}
}

// storeFailure is the fault of a store's failure: the handler's storage is
// unavailable, SERVICE_UNAVAILABLE, worth a retry in a second (the report
// is not recorded, so a retry is handled anew). A cancelled or expired
// context, or a fault the store gave itself, stays what it is.
func storeFailure(store string, err error) error {
	if _, ok := fault.As(err); ok || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", store, err)
	}
	return fault.Wrap(err, fault.ServiceUnavailable, "The error handler's storage is unavailable; please retry shortly.",
		fault.WithRetryAfter(time.Second), fault.WithDetail("store", store))
}
