package handler

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/classify"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/oneline"
	"github.com/triage-go/triage/policy"
)

// run is one report's way through the pipeline: seed 004's ErrorContext
// (the report), RCAContext (classification, cause), RecoveryContext
// (decision, attempt, outcomes), SessionContext (the report's context, in
// the feedback) and TelemetryContext (the start time).
type run struct {
	in      Input
	report  *triage.Report
	errorID string
	started time.Time

	fault    *fault.Error
	class    classify.Result
	cause    triage.RootCause
	decision policy.Decision

	outcomes    []triage.Outcome
	jobs        []triage.Job
	userMessage string
	suggestions []string

	feedback *triage.Feedback

	env    ActionEnv // the actions', in the run's allocation
	result Result    // Decide's
}

// replay answers a repeat with the feedback of its first delivery.
func (h *Handler) replay(_ context.Context, r *run) error {
	prior := r.in.Started.Prior
	if prior == nil {
		return fault.New(fault.SessionBusy, "This error report is being handled; send it again shortly.",
			fault.WithRetryAfter(time.Second), fault.WithDetail("error_id", r.errorID))
	}
	fb := *prior
	fb.Duplicate, fb.Outcomes = true, nil
	r.feedback = &fb
	return nil
}

func (h *Handler) classify(_ context.Context, r *run) error {
	if r.fault = r.in.Prepared.fault; r.fault == nil {
		r.fault = h.classes.Fault(r.report)
	}
	if r.in.Prepared.classified {
		r.class = r.in.Prepared.class
		return nil
	}
	r.class = h.classes.Classify(r.report, r.fault)
	return nil
}

func (h *Handler) analyze(ctx context.Context, r *run) error {
	var err error
	r.cause, err = analyze(ctx, analysis{report: r.report, class: r.class, fault: r.fault, synonyms: r.in.Synonyms, recent: r.in.Started.Recent})
	return err
}

func (h *Handler) decide(_ context.Context, r *run) error {
	d, err := h.policy.Decide(&policy.Input{Report: r.report, Classification: r.class, Cause: r.cause, Attempt: r.in.Started.Attempt, Fault: r.fault})
	if err != nil {
		return fmt.Errorf("policy: %w", err)
	}
	r.decision = d
	return nil
}

// act runs the decision's actions in order. A failing or panicking action
// is recorded as failed; it never stops the pipeline. The jobs the
// actions ask for are collected for the Result.
func (h *Handler) act(ctx context.Context, r *run) error {
	env := &r.env
	*env = ActionEnv{ErrorID: r.errorID, Report: r.report, Class: r.class, Cause: r.cause, Fault: r.fault,
		Attempt: r.in.Started.Attempt, MaxAttempts: h.policy.MaxAttempts(), Decision: r.decision, Now: h.cfg.Now(),
		Synonyms: r.in.Synonyms, Cache: r.in.Cache, Callbacks: r.in.Callbacks, Escalations: r.in.Escalations}
	r.outcomes = make([]triage.Outcome, 0, len(r.decision.Actions))
	if len(r.decision.Actions) == 0 {
		return nil
	}
	// The actions share one deadline. The context that carries it (and
	// its timer) is made for the first action that reads a context: the
	// built-in actions that look nothing up ignore theirs.
	deadline := time.Now().Add(h.cfg.ActionTimeout)
	actx, bounded := ctx, false
	for _, name := range r.decision.Actions {
		a := h.actions[name]
		if !bounded && !ignoresContext(a, env) {
			var cancel context.CancelFunc
			actx, cancel = context.WithDeadline(ctx, deadline)
			defer cancel()
			bounded = true
		}
		out := h.runAction(actx, a, env)
		if out.Status == triage.OutcomeFailed {
			h.log(ctx, slog.LevelWarn, "recovery action failed", slog.String("error_id", r.errorID),
				slog.String("action", name), slog.String("error", out.Error))
		}
		if out.Job != nil && out.Status != triage.OutcomeFailed {
			r.jobs = append(r.jobs, *out.Job)
		}
		out.Job = nil
		r.outcomes = append(r.outcomes, out)
	}
	return nil
}

// ignoresContext reports whether a, run with env, reads nothing of its
// context: one of the built-in actions (their own types, not a type that
// embeds one) that look nothing up, or whose lookup is answered at hand
// (CacheAtHand, CallbacksAtHand).
func ignoresContext(a Action, env *ActionEnv) bool {
	switch a.(type) {
	case Clarify, SuggestChart, ReduceScope, Escalate:
		return true
	case UseCache:
		c, ok := env.Cache.(CacheAtHand)
		return env.Cache == nil || ok && c.GetAtHand(env.Report.Data.QueryID)
	case Retry:
		c, ok := env.Callbacks.(CallbacksAtHand)
		return env.Callbacks == nil || ok && c.HasCallbackAtHand(env.Report.AgentID)
	}
	return false
}

// CacheAtHand is a triage.Cache that tells which of its answers it holds
// already: Get(queryID) answers without a read that could wait (a
// service's answers from what a report's peek read with its delivery).
// The actions' deadline bounds their reads, and its context costs a
// timer and its registration with the report's: use_cache, asking for
// an answer at hand, runs without it.
type CacheAtHand interface {
	triage.Cache
	GetAtHand(queryID string) bool
}

// CallbacksAtHand is CacheAtHand for triage.Callbacks, for the retry
// action: HasCallback(agentID) answers without a read that could wait.
type CallbacksAtHand interface {
	triage.Callbacks
	HasCallbackAtHand(agentID string) bool
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
	if !span.IsRecording() {
		return out // a span that records nothing would drop them: the attributes' slice is an allocation
	}
	span.SetAttributes(attribute.String("triage.action.status", out.Status))
	if out.Status == triage.OutcomeFailed {
		span.SetStatus(codes.Error, out.Error)
	}
	return out
}

// message makes the user message and the suggestions from the decision:
// redacted, bounded, never empty.
func (h *Handler) message(_ context.Context, r *run) error {
	msg := oneLine(r.decision.Message)
	if msg == "" {
		msg = fallbackMessage(r.class.Type)
	}
	r.userMessage = msg
	// Room for the actions' suggestions too, which format adds.
	n := len(r.decision.Suggestions)
	for _, o := range r.outcomes {
		if o.Status != triage.OutcomeFailed {
			n += len(o.Suggestions)
		}
	}
	r.suggestions = nil
	if n > 0 {
		r.suggestions = make([]string, 0, n)
	}
	for _, sg := range r.decision.Suggestions {
		if sg = oneLine(sg); sg != "" {
			r.suggestions = append(r.suggestions, sg)
		}
	}
	return nil
}

// maxUserMessage bounds the user message, in bytes.
const maxUserMessage = 600

// oneLine is text fit for a user: redacted, on one line, its spaces
// collapsed.
func oneLine(text string) string { return oneline.Join(fault.Redact(text)) }

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

// format assembles the feedback from the actions' outcomes and the
// message.
func (h *Handler) format(_ context.Context, r *run) error {
	rep := r.report
	fb := &triage.Feedback{
		ErrorID:          r.errorID,
		ErrorType:        r.class.Type,
		ErrorSource:      rep.AgentID,
		Severity:         r.decision.Severity,
		Confidence:       round2(r.class.Confidence),
		QueryID:          rep.Data.QueryID,
		Timestamp:        rep.Timestamp,
		NextAction:       r.decision.NextAction,
		RootCause:        r.cause,
		Attempt:          r.in.Started.Attempt,
		Context:          rep.Data.Context,
		ContextRef:       contextRef(rep.Data.Context),
		AutomatedActions: make([]string, 0, len(r.outcomes)),
		Fault: triage.FaultInfo{Code: r.fault.Code, HTTPStatus: r.fault.HTTPStatus(), Retryable: r.fault.Retryable,
			RetryAfter: retryAfterSeconds(r.fault.RetryAfter)},
	}
	fb.ContextPreserved = len(fb.Context) > 0 || fb.ContextRef != ""
	var parts [4]string // the message and the notes; most have one or two
	msg := append(parts[:0], r.userMessage)
	// The policy's suggestions, then the actions': message made
	// r.suggestions for this, and refine copies what it keeps.
	suggestions := r.suggestions
	done := 0
	for _, o := range r.outcomes {
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
	if fb.NextAction == triage.Resume && len(r.outcomes) > 0 && done == 0 {
		fb.NextAction = triage.AwaitUser
		msg = append(msg, "I couldn't fix this automatically; how would you like to go on?")
	}
	fb.UserMessage = boundText(strings.Join(msg, " "), maxUserMessage)
	fb.RecoverySuggestions = refine(suggestions, len(r.suggestions))
	fb.Outcomes = r.outcomes
	r.feedback = fb
	return nil
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
// six remain. It works in in's array, which it reads ahead of where it
// writes; the result is never nil.
func refine(in []string, n int) []string {
	if len(in) == 0 {
		return []string{}
	}
	out := in[:n]
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

// telemetry counts and logs a report handled. The log lines are at
// debug level: at one line per report the log would grow with the traffic
// (~365 bytes a report), and the counters (triage_handler_reports_total,
// triage_handler_duplicates_total) already tell how many were handled and
// how; nothing is built for them when debug is off.
func (h *Handler) telemetry(ctx context.Context, r *run) {
	fb := r.feedback
	elapsed := h.cfg.Now().Sub(r.started)
	h.metrics.duration.Observe(elapsed.Seconds())
	if fb.Duplicate {
		h.metrics.duplicates.Inc()
	} else {
		h.metrics.reports.WithLabelValues(string(fb.ErrorType), string(fb.Severity), h.metrics.sources.label(fb.ErrorSource), string(fb.NextAction)).Inc()
		// The actions are counted with their report, once it is
		// counted: a tentative decision made again runs them again.
		for _, o := range r.outcomes {
			h.metrics.actions.WithLabelValues(o.Action, o.Status).Inc()
		}
	}
	if h.cfg.Logger == nil || !h.cfg.Logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	h.log(ctx, slog.LevelDebug, "error handled",
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
		slog.String("rule", r.decision.Rule),
		slog.Duration("elapsed", elapsed))
	if !fb.Duplicate {
		h.log(ctx, slog.LevelDebug, "error handled: details",
			slog.String("error_id", fb.ErrorID),
			slog.String("fingerprint", r.in.Prepared.Fingerprint),
			slog.Any("classification", r.class),
			slog.Any("fault", r.fault),
			slog.Any("decision", r.decision),
			slog.Any("outcomes", r.outcomes))
	}
}

// round2 rounds a confidence to two decimals.
func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }
