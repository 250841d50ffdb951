package handler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/memory"
	"github.com/triage-go/triage/policy"
)

// Config configures a Handler. Every zero field means the documented
// default.
type Config struct {
	// Policy decides the recovery. Defaults to policy.Default(), seed 004's
	// scenario table.
	Policy *policy.Policy

	// Model classifies the reports that no rule decides. Defaults to the
	// small text classifier Triage ships (see DefaultModel); a function
	// returning "" turns it off.
	Model Predictor

	// State keeps the attempts, the recent failures and the deliveries
	// (with the feedback given to each). Defaults to a memory.State, which
	// lives as long as the Handler; the service gives each tenant's store.
	State triage.State
	// Synonyms is the schema inventory map_synonym looks in, and Cache the
	// last good results use_cache offers. Default to empty in-memory ones.
	Synonyms triage.Synonyms
	Cache    triage.Cache

	// Scheduler receives the retries the retry action schedules. Defaults
	// to a memory.Scheduler.
	Scheduler triage.Scheduler
	// Notifier receives escalations. Defaults to nil: the escalate action
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

	// Logger receives one structured line per report handled (error_id,
	// query_id, severity, actions_taken, next_action), and per report
	// refused. Defaults to nil: no logs.
	Logger *slog.Logger
	// Registerer registers the handler's Prometheus metrics. Defaults to
	// nil: the metrics are kept but not registered (see Collectors).
	Registerer prometheus.Registerer
	// MaxMetricSources bounds the reporting agents the reports metric
	// names in its source label: the agents seen after that many are
	// counted as "(other)" (OtherSource), so that the agent IDs clients
	// send cannot make time series without end. Defaults to
	// DefaultMaxMetricSources; negative: no agent is named, every report
	// is counted as OtherSource (for metrics that readers who must not
	// learn the reporting agents' IDs can read).
	MaxMetricSources int
	// TracerProvider makes the spans: one per report and one per pipeline
	// node and action, carrying error_id and query_id. Defaults to otel's
	// global provider. The node and action spans are made only when the
	// report's span records (a provider is set and the trace is sampled):
	// the children of an unrecorded span would be dropped anyway, and
	// skipping them saves a quarter of the allocations when tracing is off.
	TracerProvider trace.TracerProvider

	// Now tells the time. Defaults to time.Now.
	Now func() time.Time
}

// Handler is the Error Handler agent. It is safe for concurrent use.
type Handler struct {
	cfg     Config
	policy  *policy.Policy
	actions map[string]Action
	run     *graph.Runnable[state]
	metrics *metrics
	tracer  trace.Tracer
}

// The pipeline's nodes, in order.
const (
	nodeIngress   = "ingress"
	nodeValidate  = "validate"
	nodeDedupe    = "dedupe"
	nodeReplay    = "replay"
	nodeClassify  = "classify"
	nodeAnalyze   = "analyze"
	nodePolicy    = "policy"
	nodeAct       = "act"
	nodeMessage   = "message"
	nodeFormat    = "format"
	nodeTelemetry = "telemetry"
)

// New returns a Handler. It fails when the policy names an action the
// handler does not have.
func New(cfg Config) (*Handler, error) {
	h := &Handler{cfg: cfg}
	if h.cfg.Policy == nil {
		h.cfg.Policy = policy.Default()
	}
	h.policy = h.cfg.Policy
	if h.cfg.Model == nil {
		h.cfg.Model = DefaultModel()
	}
	if h.cfg.State == nil {
		h.cfg.State = &memory.State{}
	}
	if h.cfg.Synonyms == nil {
		h.cfg.Synonyms = &memory.Synonyms{}
	}
	if h.cfg.Cache == nil {
		h.cfg.Cache = &memory.Cache{}
	}
	if h.cfg.Scheduler == nil {
		h.cfg.Scheduler = &memory.Scheduler{}
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
		Clarify{}, MapSynonym{Synonyms: h.cfg.Synonyms}, SuggestChart{}, UseCache{Cache: h.cfg.Cache},
		ReduceScope{}, Retry{Scheduler: h.cfg.Scheduler, Base: h.cfg.RetryBase, Max: h.cfg.RetryMax},
		Escalate{Notifier: h.cfg.Notifier},
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

	g := graph.New[state]().
		AddNode(nodeIngress, h.traced(nodeIngress, h.ingress)).
		AddNode(nodeValidate, h.traced(nodeValidate, h.validate)).
		AddNode(nodeDedupe, h.traced(nodeDedupe, h.dedupe)).
		AddNode(nodeReplay, h.traced(nodeReplay, h.replay)).
		AddNode(nodeClassify, h.traced(nodeClassify, h.classify)).
		AddNode(nodeAnalyze, h.traced(nodeAnalyze, h.analyze)).
		AddNode(nodePolicy, h.traced(nodePolicy, h.decide)).
		AddNode(nodeAct, h.traced(nodeAct, h.act)).
		AddNode(nodeMessage, h.traced(nodeMessage, h.message)).
		AddFanIn(nodeFormat, h.format).
		AddNode(nodeTelemetry, h.traced(nodeTelemetry, h.telemetry)).
		SetEntry(nodeIngress).
		AddEdge(nodeIngress, nodeValidate).
		AddEdge(nodeValidate, nodeDedupe).
		AddConditionalEdges(nodeDedupe, func(_ context.Context, s state) (string, error) {
			if s.duplicate {
				return nodeReplay, nil
			}
			return nodeClassify, nil
		}, nodeReplay, nodeClassify).
		AddEdge(nodeReplay, nodeTelemetry).
		AddEdge(nodeClassify, nodeAnalyze).
		AddEdge(nodeAnalyze, nodePolicy).
		// One after the other on the report's goroutine: message is a few
		// microseconds of templates, less than starting and waking a
		// goroutine for it (a parallel fan-out made a report ~12 µs, a
		// quarter, slower), so act's time is the fan-out's either way.
		AddSequentialFanOut(nodePolicy, nodeFormat, nodeMessage, nodeAct).
		AddEdge(nodeAct, nodeFormat).
		AddEdge(nodeMessage, nodeFormat).
		AddEdge(nodeFormat, nodeTelemetry).
		AddEdge(nodeTelemetry, graph.End)
	run, err := g.Compile(&graph.Config[state]{WaitForAllBranches: true, Clone: state.Clone})
	if err != nil {
		return nil, fmt.Errorf("handler: %w", err)
	}
	h.run = run
	return h, nil
}

// Collectors returns the handler's metrics, to register where the Config's
// Registerer did not.
func (h *Handler) Collectors() []prometheus.Collector { return h.metrics.collectors() }

// MaxAttempts is the policy's maximum number of attempts per query and
// error code before the recovery escalates.
func (h *Handler) MaxAttempts() int { return h.policy.MaxAttempts() }

// Handle decodes, validates and handles one report (seed 004's standard
// input, as JSON). An invalid report is refused with an INVALID_REQUEST
// *fault.Error listing every problem, and nothing is recorded for it.
func (h *Handler) Handle(ctx context.Context, raw []byte) (*triage.Feedback, error) {
	return h.handle(ctx, state{raw: raw})
}

// HandleReport validates and handles a report built in code (see
// Report.Validate). The report is not changed.
func (h *Handler) HandleReport(ctx context.Context, r *triage.Report) (*triage.Feedback, error) {
	return h.handle(ctx, state{report: r})
}

// handle runs the pipeline. Its errors are *fault.Error: INVALID_REQUEST
// for an invalid report, SESSION_BUSY for a duplicate whose first delivery
// is still being handled, and what a store's failure amounts to.
func (h *Handler) handle(ctx context.Context, s state) (*triage.Feedback, error) {
	s.started = h.cfg.Now()
	ctx, span := h.tracer.Start(ctx, "triage.handler.handle", trace.WithSpanKind(trace.SpanKindInternal))
	defer span.End()
	out, err := h.run.Invoke(ctx, s)
	if err == nil {
		span.SetAttributes(attribute.String("triage.error_id", out.feedback.ErrorID),
			attribute.String("triage.query_id", out.feedback.QueryID))
		return out.feedback, nil
	}
	f := fault.From(err)
	span.RecordError(f)
	span.SetStatus(codes.Error, string(f.Code))
	if out.claimed {
		// The report was not handled: its next delivery is not a duplicate.
		if rerr := h.cfg.State.Release(context.WithoutCancel(ctx), out.key); rerr != nil {
			h.log(ctx, slog.LevelError, "releasing a delivery claim failed", slog.String("error_id", out.errorID), slog.Any("error", fault.From(rerr)))
		}
	}
	var ne *graph.NodeError
	node := ""
	if errors.As(err, &ne) {
		node = ne.Node
	}
	h.metrics.failures.WithLabelValues(string(f.Code)).Inc()
	attrs := []any{slog.String("node", node), slog.Any("fault", f)}
	if out.report != nil {
		attrs = append(attrs, slog.String("query_id", out.report.Data.QueryID), slog.String("agent_id", out.report.AgentID))
	}
	level := slog.LevelError
	if f.Code == fault.InvalidRequest || f.Code == fault.SessionBusy {
		level = slog.LevelWarn
	}
	h.log(ctx, level, "error report not handled", attrs...)
	return nil, f
}

func (h *Handler) log(ctx context.Context, level slog.Level, msg string, attrs ...any) {
	if h.cfg.Logger != nil {
		h.cfg.Logger.Log(ctx, level, msg, attrs...)
	}
}

// traced runs a node in a span named after it, carrying the error and
// query ids once they are known.
func (h *Handler) traced(name string, fn graph.Node[state]) graph.Node[state] {
	spanName := "triage.handler." + name
	return func(ctx context.Context, s state) (state, error) {
		if !trace.SpanFromContext(ctx).IsRecording() {
			return fn(ctx, s) // the report's span is not recorded: neither would the node's be
		}
		ctx, span := h.tracer.Start(ctx, spanName)
		defer span.End()
		out, err := fn(ctx, s)
		if out.errorID != "" {
			span.SetAttributes(attribute.String("triage.error_id", out.errorID))
		}
		if out.report != nil && out.report.Data.QueryID != "" {
			span.SetAttributes(attribute.String("triage.query_id", out.report.Data.QueryID))
		}
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, string(fault.CodeOf(err)))
		}
		return out, err
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

// attemptKey counts attempts per query and error code: the agent's code,
// else the fault's. Both are identifiers, which never hold '/', so the key
// is unambiguous; it is plain text, as every database stores it.
func attemptKey(r *triage.Report, f *fault.Error) string {
	code := strings.ToUpper(r.Data.ErrorCode)
	if code == "" {
		code = string(f.Code)
	}
	return r.Data.QueryID + "/" + code
}

func (h *Handler) ingress(_ context.Context, s state) (state, error) {
	if s.raw != nil {
		s.report, s.invalid = triage.DecodeReport(s.raw) // which redacts the context
		s.raw = nil
	} else if s.report != nil && len(s.report.Data.Context) > 0 {
		// A report built in code: its context is redacted as a decoded
		// one's, on a copy, so that no secret in it reaches the feedback,
		// the stores, the logs or the policy.
		r := *s.report
		r.Data.Context = triage.RedactContext(r.Data.Context)
		s.report = &r
	}
	return s, nil
}

func (h *Handler) validate(_ context.Context, s state) (state, error) {
	err := s.invalid
	if err == nil {
		err = s.report.Validate() // a report given as such; nil is invalid too
	}
	if err != nil {
		h.metrics.invalid.Inc()
		return s, err
	}
	s.fingerprint = triage.Fingerprint(s.report)
	s.errorID = triage.ErrorID(s.fingerprint)
	s.key = s.fingerprint + "@" + s.report.Timestamp.UTC().Format(time.RFC3339Nano) // triage.DeliveryKey
	return s, nil
}

// dedupe claims the delivery, and counts the attempt and records the
// failure of a first one, in one write of the state (see triage.State);
// analyze then uses the counts.
func (h *Handler) dedupe(ctx context.Context, s state) (state, error) {
	code := strings.ToUpper(s.report.Data.ErrorCode)
	if code == "" {
		s.fault = reportFault(s.report) // classify keeps it
		code = string(s.fault.Code)
	}
	res, err := h.cfg.State.Start(ctx, triage.StartRequest{
		Key:        s.key,
		AttemptKey: attemptKey(s.report, s.fault),
		Agent:      s.report.AgentID,
		Code:       code,
		At:         s.report.Timestamp,
		Window:     persistentWindow,
	})
	if err != nil {
		return s, storeFailure("deliveries", err)
	}
	s.claimed, s.duplicate, s.prior = res.First, !res.First, res.Prior
	s.attempt, s.recent = res.Attempt, res.Recent
	return s, nil
}

func (h *Handler) replay(_ context.Context, s state) (state, error) {
	if s.prior == nil {
		return s, fault.New(fault.SessionBusy, "This error report is being handled; send it again shortly.",
			fault.WithRetryAfter(time.Second), fault.WithDetail("error_id", s.errorID))
	}
	fb := *s.prior
	fb.Duplicate, fb.Outcomes = true, nil
	s.feedback = &fb
	return s, nil
}

func (h *Handler) classify(_ context.Context, s state) (state, error) {
	if s.fault == nil {
		s.fault = reportFault(s.report)
	}
	s.class = classify(s.report, s.fault, h.cfg.Model)
	return s, nil
}

func (h *Handler) analyze(ctx context.Context, s state) (state, error) {
	var err error
	s.cause, err = analyze(ctx, analysis{report: s.report, class: s.class, fault: s.fault, synonyms: h.cfg.Synonyms, recent: s.recent})
	return s, err
}

func (h *Handler) decide(_ context.Context, s state) (state, error) {
	d, err := h.policy.Decide(&policy.Input{Report: s.report, Classification: s.class, Cause: s.cause, Attempt: s.attempt, Fault: s.fault})
	if err != nil {
		return s, fmt.Errorf("policy: %w", err)
	}
	s.decision = d
	return s, nil
}

// act runs the decision's actions in order. A failing or panicking action
// is recorded as failed; it never stops the pipeline.
func (h *Handler) act(ctx context.Context, s state) (state, error) {
	env := &ActionEnv{ErrorID: s.errorID, Report: s.report, Class: s.class, Cause: s.cause, Fault: s.fault,
		Attempt: s.attempt, MaxAttempts: h.policy.MaxAttempts(), Decision: s.decision, Now: h.cfg.Now()}
	s.outcomes = make([]triage.Outcome, 0, len(s.decision.Actions))
	if len(s.decision.Actions) == 0 {
		return s, nil
	}
	ctx, cancel := context.WithTimeout(ctx, h.cfg.ActionTimeout)
	defer cancel()
	for _, name := range s.decision.Actions {
		out := h.runAction(ctx, h.actions[name], env)
		h.metrics.actions.WithLabelValues(name, out.Status).Inc()
		if out.Status == triage.OutcomeFailed {
			h.log(ctx, slog.LevelWarn, "recovery action failed", slog.String("error_id", s.errorID),
				slog.String("action", name), slog.String("error", out.Error))
		}
		s.outcomes = append(s.outcomes, out)
	}
	return s, nil
}

func (h *Handler) runAction(ctx context.Context, a Action, env *ActionEnv) (out triage.Outcome) {
	name := a.Name()
	defer func() {
		if v := recover(); v != nil {
			out = triage.Outcome{Action: name, Status: triage.OutcomeFailed, Detail: name + ":failed", Error: fmt.Sprintf("panic: %v", v)}
		}
	}()
	span := trace.SpanFromContext(ctx)
	if span.IsRecording() {
		ctx, span = h.tracer.Start(ctx, "triage.handler.action."+name)
		defer span.End()
	}
	out = a.Run(ctx, env)
	if out.Action == "" {
		out.Action = name
	}
	if out.Status == "" {
		out.Status = triage.OutcomeDone
	}
	if out.Detail == "" {
		out.Detail = name + ":" + out.Status
	}
	if out.Error != "" {
		out.Error = fault.Redact(out.Error)
	}
	span.SetAttributes(attribute.String("triage.action.status", out.Status))
	if out.Status == triage.OutcomeFailed {
		span.SetStatus(codes.Error, out.Error)
	}
	return out
}

// maxUserMessage bounds the user message, in bytes.
const maxUserMessage = 600

// message makes the user message and the suggestions from the decision:
// redacted, bounded, never empty.
func (h *Handler) message(_ context.Context, s state) (state, error) {
	msg := oneLine(s.decision.Message)
	if msg == "" {
		msg = fallbackMessage(s.class.Type)
	}
	s.userMessage = msg
	s.suggestions = nil
	for _, sg := range s.decision.Suggestions {
		if sg = oneLine(sg); sg != "" {
			s.suggestions = append(s.suggestions, sg)
		}
	}
	return s, nil
}

// oneLine is text fit for a user: redacted, on one line, its spaces
// collapsed.
func oneLine(text string) string {
	text = fault.Redact(text)
	if isOneLine(text) {
		return text
	}
	return strings.Join(strings.Fields(text), " ")
}

// isOneLine reports whether text is already what strings.Fields and a
// join would make of it: ASCII, single spaces between words, none at the
// ends.
func isOneLine(text string) bool {
	if text == "" || text[0] == ' ' || text[len(text)-1] == ' ' {
		return text == ""
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c >= 0x80 || c < ' ':
			return false // other spaces (Unicode, control) are for strings.Fields
		case c == ' ' && text[i+1] == ' ':
			return false
		}
	}
	return true
}

// fallbackMessage is the message for a type when the policy's rule gave
// none.
func fallbackMessage(t triage.ErrorType) string {
	switch t {
	case triage.InputError:
		return "I need a little more detail to answer that."
	case triage.SchemaError:
		return "A field this question needs isn't available."
	case triage.QueryError:
		return "The query for this question failed."
	case triage.ChartError:
		return "That chart doesn't fit this data."
	case triage.ValidationError:
		return "One of the values in this request isn't valid."
	}
	return "Something went wrong on our side; the team has the details."
}

// format assembles the feedback from the actions' outcomes (branch 0) and
// the message (branch 1), and stores it for duplicates of this delivery.
func (h *Handler) format(ctx context.Context, s state, branches []state) (state, error) {
	said, acted := branches[0], branches[1]
	s.outcomes, s.userMessage, s.suggestions = acted.outcomes, said.userMessage, said.suggestions
	r := s.report
	fb := &triage.Feedback{
		ErrorID:          s.errorID,
		ErrorType:        s.class.Type,
		ErrorSource:      r.AgentID,
		Severity:         s.decision.Severity,
		Confidence:       round2(s.class.Confidence),
		QueryID:          r.Data.QueryID,
		Timestamp:        r.Timestamp,
		NextAction:       s.decision.NextAction,
		RootCause:        s.cause,
		Attempt:          s.attempt,
		Context:          r.Data.Context,
		ContextRef:       contextRef(r.Data.Context),
		AutomatedActions: make([]string, 0, len(s.outcomes)),
		Fault: triage.FaultInfo{Code: s.fault.Code, HTTPStatus: s.fault.HTTPStatus(), Retryable: s.fault.Retryable,
			RetryAfter: retryAfterSeconds(s.fault.RetryAfter)},
	}
	fb.ContextPreserved = len(fb.Context) > 0 || fb.ContextRef != ""
	msg := []string{s.userMessage}
	suggestions := slices.Clone(s.suggestions)
	done := 0
	for _, o := range s.outcomes {
		fb.AutomatedActions = append(fb.AutomatedActions, o.Detail)
		if o.Status == triage.OutcomeFailed {
			continue
		}
		if o.Retry != nil {
			fb.Retry = o.Retry
		}
		if o.Status == triage.OutcomeDone {
			done++
		}
		// Actions' texts come from stores and reports: redacted like the
		// policy's.
		if note := oneLine(o.Note); note != "" {
			msg = append(msg, note)
		}
		for _, sg := range o.Suggestions {
			if sg = oneLine(sg); sg != "" {
				suggestions = append(suggestions, sg)
			}
		}
	}
	// Resuming needs something to resume with: when every action the
	// decision counted on came to nothing, ask the user instead.
	if fb.NextAction == triage.Resume && len(s.outcomes) > 0 && done == 0 {
		fb.NextAction = triage.AwaitUser
		msg = append(msg, "I couldn't fix this automatically; how would you like to go on?")
	}
	fb.UserMessage = boundText(strings.Join(msg, " "), maxUserMessage)
	fb.RecoverySuggestions = refine(suggestions, len(s.suggestions))
	fb.Outcomes = s.outcomes
	if err := h.cfg.State.Complete(ctx, s.key, fb); err != nil {
		return s, storeFailure("deliveries", err)
	}
	s.feedback = fb
	return s, nil
}

func contextRef(c map[string]any) string {
	for _, k := range []string{"checkpoint_id", "checkpoint", "run_id"} {
		if v, ok := c[k].(string); ok && v != "" {
			return v
		}
	}
	return ""
}

func retryAfterSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}

// boundText cuts s to at most n bytes, at a word boundary, with an ellipsis.
func boundText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n-3], ' ')
	if cut <= 0 {
		cut = n - 3
		for cut > 0 && s[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
			cut--
		}
	}
	return s[:cut] + "..."
}

// refine merges the policy's suggestions (the first n) with the actions':
// an action's suggestion that begins with a policy suggestion ("Narrow the
// date range to 2024-08-02 – 2025-08-01" after "Narrow the date range")
// takes its place; suggestions equal but for case are kept once; at most
// six remain.
func refine(in []string, n int) []string {
	out := make([]string, n, len(in))
	copy(out, in[:n])
	for _, s := range in[n:] {
		if i := slices.IndexFunc(out[:n], func(p string) bool { return hasPrefixFold(s, p) }); i >= 0 && len(s) > len(out[i]) {
			out[i] = s
			continue
		}
		out = append(out, s)
	}
	kept := out[:0]
	for _, s := range out {
		if !slices.ContainsFunc(kept, func(k string) bool { return strings.EqualFold(k, s) }) {
			kept = append(kept, s)
		}
	}
	return kept[:min(len(kept), 6)]
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func (h *Handler) telemetry(ctx context.Context, s state) (state, error) {
	fb := s.feedback
	elapsed := h.cfg.Now().Sub(s.started)
	h.metrics.duration.Observe(elapsed.Seconds())
	if fb.Duplicate {
		h.metrics.duplicates.Inc()
	} else {
		h.metrics.reports.WithLabelValues(string(fb.ErrorType), string(fb.Severity), h.metrics.sources.label(fb.ErrorSource), string(fb.NextAction)).Inc()
	}
	if h.cfg.Logger == nil {
		return s, nil
	}
	h.log(ctx, slog.LevelInfo, "error handled",
		slog.String("error_id", fb.ErrorID),
		slog.String("query_id", fb.QueryID),
		slog.String("error_type", string(fb.ErrorType)),
		slog.String("error_source", fb.ErrorSource),
		slog.String("severity", string(fb.Severity)),
		slog.Any("actions_taken", fb.AutomatedActions),
		slog.String("next_action", string(fb.NextAction)),
		slog.String("root_cause", fb.RootCause.Cause),
		slog.Int("attempt", fb.Attempt),
		slog.Bool("duplicate", fb.Duplicate),
		slog.String("rule", s.decision.Rule),
		slog.Duration("elapsed", elapsed))
	if !fb.Duplicate && h.cfg.Logger.Enabled(ctx, slog.LevelDebug) {
		h.log(ctx, slog.LevelDebug, "error handled: details",
			slog.String("error_id", fb.ErrorID),
			slog.String("fingerprint", s.fingerprint),
			slog.Any("classification", s.class),
			slog.Any("fault", s.fault),
			slog.Any("decision", s.decision),
			slog.Any("outcomes", s.outcomes))
	}
	return s, nil
}

// state is the pipeline's state: seed 004's ErrorContext (the report),
// RCAContext (classification, cause), RecoveryContext (decision, attempt,
// outcomes), SessionContext (the report's context, in the feedback) and
// TelemetryContext (the start time).
type state struct {
	raw     []byte
	report  *triage.Report
	invalid error // why the raw report does not decode or validate

	fingerprint, errorID, key string
	claimed, duplicate        bool
	prior                     *triage.Feedback

	fault   *fault.Error
	class   triage.Classification
	cause   triage.RootCause
	attempt int
	// recent counts the failures of the agent and code in the window
	// (dedupe's Start counted them with the attempt).
	recent   int
	decision policy.Decision

	outcomes    []triage.Outcome
	userMessage string
	suggestions []string

	feedback *triage.Feedback
	started  time.Time
}

// Clone copies the state for the fan-out's branches: each branch sets its
// own slices; the report and the fault are read-only after classify.
func (s state) Clone() state {
	s.outcomes = slices.Clone(s.outcomes)
	s.suggestions = slices.Clone(s.suggestions)
	return s
}
