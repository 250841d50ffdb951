package handler

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/memory"
	"github.com/triage-go/triage/policy"
	"github.com/triage-go/triage/webhook"
)

var now = time.Date(2025, 8, 8, 12, 20, 5, 0, time.UTC)

func env(r *triage.Report) *ActionEnv {
	return &ActionEnv{ErrorID: "err_1", Report: r, Fault: reportFault(r), Attempt: 1, MaxAttempts: 3, Now: now,
		Decision: policy.Decision{Rule: "r", Severity: triage.SeverityHigh}}
}

func TestClarify(t *testing.T) {
	r := withContext(report("parser", triage.InputError, "AMBIGUOUS_INPUT", "m"),
		map[string]any{"candidates": []any{"Revenue by month", "Revenue by product"}})
	out := Clarify{}.Run(context.Background(), env(r))
	if out.Status != triage.OutcomeDone || out.Detail != "clarify:2" || !slices.Equal(out.Suggestions, []string{"Revenue by month", "Revenue by product"}) {
		t.Errorf("candidates: %+v", out)
	}
	out = Clarify{}.Run(context.Background(), env(report("parser", triage.InputError, "AMBIGUOUS_INPUT", "m")))
	if out.Status != triage.OutcomeDone || len(out.Suggestions) != 2 {
		t.Errorf("no candidates: %+v", out)
	}
}

func TestMapSynonym(t *testing.T) {
	syn := &memory.Synonyms{}
	syn.Set("sales", triage.SchemaInfo{Fields: []string{"order_id", "sku_id", "region", "revenue"}, Synonyms: map[string]string{"product_id": "sku_id"}})
	a := MapSynonym{}
	withSyn := func(r *triage.Report, s triage.Synonyms) *ActionEnv { e := env(r); e.Synonyms = s; return e }
	r := withContext(report("qe", triage.SchemaError, "FIELD_NOT_FOUND", "m"), map[string]any{"field": "product_id", "source": "sales"})
	out := a.Run(context.Background(), withSyn(r, syn))
	if out.Status != triage.OutcomeDone || out.Detail != "map_synonym:product_id->sku_id" || out.Note == "" {
		t.Errorf("synonym: %+v", out)
	}
	r = withContext(report("qe", triage.SchemaError, "FIELD_NOT_FOUND", "m"), map[string]any{"field": "regoin", "source": "sales"})
	out = a.Run(context.Background(), withSyn(r, syn))
	if out.Status != triage.OutcomeSkipped || out.Detail != "list_fields:4" || len(out.Suggestions) != 3 || out.Suggestions[0] != "Use “region”" {
		t.Errorf("no synonym: %+v", out)
	}
	out = a.Run(context.Background(), withSyn(r, failingSynonyms{}))
	if out.Status != triage.OutcomeFailed || out.Error != "inventory down" {
		t.Errorf("failing store: %+v", out)
	}
}

func TestSuggestChart(t *testing.T) {
	r := withContext(report("viz", triage.ChartError, "INCOMPATIBLE_CHART_TYPE", "m"), map[string]any{"chart": "pie", "dimension": "date"})
	out := SuggestChart{}.Run(context.Background(), env(r))
	if out.Detail != "suggest_conversion:line" || !slices.Equal(out.Suggestions, []string{"Convert to line chart", "Convert to area chart", "Convert to bar chart"}) {
		t.Errorf("time series: %+v", out)
	}
	r = withContext(report("viz", triage.ChartError, "INCOMPATIBLE_CHART_TYPE", "m"), map[string]any{"chart": "line", "dimension": "product"})
	if out := (SuggestChart{}).Run(context.Background(), env(r)); out.Detail != "suggest_conversion:bar" {
		t.Errorf("categorical: %+v", out)
	}
}

func TestUseCache(t *testing.T) {
	c := &memory.Cache{}
	c.Put("q_1", triage.CachedResult{StoredAt: now.Add(-2 * time.Hour)})
	withCache := func(r *triage.Report) *ActionEnv { e := env(r); e.Cache = c; return e }
	out := UseCache{}.Run(context.Background(), withCache(report("qe", triage.QueryError, "DB_TIMEOUT", "m")))
	if out.Status != triage.OutcomeDone || out.Detail != "use_cache:true" || out.Note != "I can show cached results from 2 hours ago." {
		t.Errorf("cached: %+v", out)
	}
	r := report("qe", triage.QueryError, "DB_TIMEOUT", "m")
	r.Data.QueryID = "q_other"
	if out := (UseCache{}).Run(context.Background(), withCache(r)); out.Status != triage.OutcomeSkipped || out.Detail != "use_cache:false" {
		t.Errorf("not cached: %+v", out)
	}
	for d, want := range map[time.Duration]string{30 * time.Second: "moments ago", time.Minute: "1 minute ago",
		59 * time.Minute: "59 minutes ago", 47 * time.Hour: "47 hours ago", 72 * time.Hour: "3 days ago"} {
		if got := ago(d); got != want {
			t.Errorf("ago(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestReduceScope(t *testing.T) {
	r := withContext(report("qe", triage.QueryError, "DB_TIMEOUT", "m"), map[string]any{
		"date_range": map[string]any{"start": "2015-01-01", "end": "2025-08-01"}, "row_count": 48e6})
	out := ReduceScope{}.Run(context.Background(), env(r))
	if out.Status != triage.OutcomeDone || out.Detail != "reduce_scope:date_range=12m" ||
		!slices.Equal(out.Suggestions, []string{"Narrow the date range to 2024-08-02 – 2025-08-01", "Limit the result to the top 10,000 rows"}) {
		t.Errorf("long range, many rows: %+v", out)
	}
	if want := (map[string]any{"date_range": map[string]string{"start": "2024-08-02", "end": "2025-08-01"}, "limit": 10_000}); !reflect.DeepEqual(out.Data, want) {
		t.Errorf("long range, many rows: data %v, want %v", out.Data, want)
	}
	r = withContext(report("qe", triage.QueryError, "DB_TIMEOUT", "m"), map[string]any{"row_count": 500})
	if out := (ReduceScope{}).Run(context.Background(), env(r)); out.Status != triage.OutcomeSkipped {
		t.Errorf("small query: %+v", out)
	}
}

// callbacks is a triage.Callbacks: the agents named have a callback URL.
type callbacks map[string]bool

func (c callbacks) HasCallback(_ context.Context, agent string) (bool, error) {
	if c["!fail"] {
		return false, errors.New("agents store down")
	}
	return c[agent], nil
}

func TestRetry(t *testing.T) {
	a := Retry{Base: 2 * time.Second, Max: time.Minute}
	run := func(e *ActionEnv) (triage.Outcome, *triage.RetryJob) {
		t.Helper()
		e.Callbacks = callbacks{"qe": true, "llm": true}
		out := a.Run(context.Background(), e)
		if out.Job == nil {
			return out, nil
		}
		return out, out.Job.Retry
	}
	for attempt, want := range map[int]time.Duration{1: 2 * time.Second, 2: 4 * time.Second, 3: 8 * time.Second} {
		e := env(report("qe", triage.QueryError, "DB_TIMEOUT", "m"))
		e.Attempt = attempt
		out, job := run(e)
		if out.Status != triage.OutcomeDone || job == nil || job.Attempt != attempt+1 || !job.At.Equal(now.Add(want)) ||
			out.Retry == nil || out.Retry.By != triage.RetryByCallback || out.Retry.DelaySeconds != int64(want/time.Second) {
			t.Errorf("attempt %d: %+v, job %+v, want delay %v", attempt, out, job, want)
		}
	}
	// The delay never exceeds Max, and never comes before the fault's
	// RetryAfter.
	e := env(report("qe", triage.QueryError, "DB_TIMEOUT", "m"))
	e.Attempt, e.MaxAttempts = 30, 100
	if _, job := run(e); job == nil || !job.At.Equal(now.Add(time.Minute)) {
		t.Errorf("capped delay: %+v", job)
	}
	e = env(report("llm", triage.SystemError, "", "m"))
	e.Fault = fault.New(fault.RateLimited, "", fault.WithRetryAfter(90*time.Second))
	if _, job := run(e); job == nil || !job.At.Equal(now.Add(90*time.Second)) {
		t.Errorf("RetryAfter floor: %+v", job)
	}
	// Past the maximum, nothing is planned.
	e = env(report("qe", triage.QueryError, "DB_TIMEOUT", "m"))
	e.Attempt = 4
	if out, job := run(e); out.Status != triage.OutcomeSkipped || out.Detail != "retry:exhausted" || job != nil || out.Retry != nil {
		t.Errorf("exhausted: %+v", out)
	}
	// An agent without a callback URL: the plan is the caller's, and no
	// job is asked for.
	e = env(report("other", triage.QueryError, "DB_TIMEOUT", "m"))
	if out, job := run(e); out.Status != triage.OutcomeDone || out.Detail != "retry:2" || job != nil || out.Retry == nil || out.Retry.By != triage.RetryByCaller {
		t.Errorf("no callback URL: %+v", out)
	}
	if out := a.Run(context.Background(), env(report("qe", triage.QueryError, "DB_TIMEOUT", "m"))); out.Job != nil || out.Retry.By != triage.RetryByCaller {
		t.Errorf("no Callbacks: %+v", out)
	}
	e = env(report("qe", triage.QueryError, "DB_TIMEOUT", "m"))
	e.Callbacks = callbacks{"!fail": true}
	if out := a.Run(context.Background(), e); out.Status != triage.OutcomeFailed || out.Detail != "retry:failed" || out.Job != nil {
		t.Errorf("failing agents store: %+v", out)
	}
}

func TestEscalate(t *testing.T) {
	e := env(report("any", triage.SystemError, "SERVICE_DOWN", "m"))
	e.Attempt, e.Escalations = 2, true
	out := Escalate{}.Run(context.Background(), e)
	if out.Status != triage.OutcomeDone || out.Detail != "escalate:ops" || out.Job == nil || out.Job.Escalation == nil {
		t.Fatalf("escalate: %+v", out)
	}
	got := *out.Job.Escalation
	if got.ErrorID != "err_1" || got.QueryID != "q_1" || got.AgentID != "any" || got.ErrorCode != "SERVICE_DOWN" ||
		got.Severity != triage.SeverityHigh || got.Attempt != 2 || got.Fault != fault.ServiceUnavailable {
		t.Errorf("escalation asked for: %+v", got)
	}
	e.Escalations = false
	if out := (Escalate{}).Run(context.Background(), e); out.Status != triage.OutcomeSkipped || out.Detail != "escalate:no_notifier" || out.Job != nil {
		t.Errorf("no one told: %+v", out)
	}
}

func TestEscalateWebhook(t *testing.T) {
	var got triage.Escalation
	var key, ctype string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ctype = r.Header.Get("Idempotency-Key"), r.Header.Get("Content-Type")
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &got); err != nil {
			t.Errorf("webhook body: %v", err)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	e := env(report("any", triage.SystemError, "SERVICE_DOWN", "m"))
	e.Attempt, e.Escalations = 2, true
	if err := (webhook.Notifier{URL: srv.URL}).Notify(context.Background(), *Escalate{}.Run(context.Background(), e).Job.Escalation); err != nil {
		t.Fatal(err)
	}
	if got.ErrorID != "err_1" || got.QueryID != "q_1" || got.AgentID != "any" || got.ErrorCode != "SERVICE_DOWN" ||
		got.Severity != triage.SeverityHigh || got.Attempt != 2 || got.Fault != fault.ServiceUnavailable {
		t.Errorf("escalation posted: %+v", got)
	}
	if key != webhook.Key(got) || !strings.HasPrefix(key, "err_1:2:") || ctype != "application/json" {
		t.Errorf("headers: Idempotency-Key %q, Content-Type %q", key, ctype)
	}
}

// deadlineAction records the deadline of the context it runs with.
type deadlineAction struct {
	name string
	got  *[]time.Time
}

func (a deadlineAction) Name() string { return a.name }
func (a deadlineAction) Run(ctx context.Context, _ *ActionEnv) triage.Outcome {
	d, ok := ctx.Deadline()
	if !ok {
		d = time.Time{}
	}
	*a.got = append(*a.got, d)
	return triage.Outcome{Status: triage.OutcomeDone}
}

// embeddedClarify is a custom action that embeds a built-in one that
// ignores its context, and reads its own.
type embeddedClarify struct {
	Clarify
	deadlineAction
}

func (a embeddedClarify) Name() string { return a.deadlineAction.Name() }
func (a embeddedClarify) Run(ctx context.Context, env *ActionEnv) triage.Outcome {
	return a.deadlineAction.Run(ctx, env)
}

// TestActionsShareOneDeadline: every action of a report that reads its
// context gets one deadline, ActionTimeout after the actions began, when
// a built-in action that reads none (and gets none made for it) runs
// first too; a custom action that embeds such a built-in one is still
// custom.
func TestActionsShareOneDeadline(t *testing.T) {
	p, err := policy.Parse("deadline.yaml", []byte(`version: 1
rules:
  - name: all
    default: true
    actions: [clarify, suggest_chart, first, second, embedded]
    next_action: await_user
    severity: low
    message: Which do you mean?
`), &policy.Options{Actions: []string{"first", "second", "embedded"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []time.Time
	h := newHandler(t, Config{Policy: p, ActionTimeout: time.Hour, Actions: []Action{
		deadlineAction{name: "first", got: &got}, deadlineAction{name: "second", got: &got},
		embeddedClarify{deadlineAction: deadlineAction{name: "embedded", got: &got}},
	}})
	before := time.Now()
	fb, err := h.Handle(context.Background(), []byte(validReport))
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"clarify:2", "suggest_conversion:bar", "first:done", "second:done", "embedded:done"}; !slices.Equal(fb.AutomatedActions, want) {
		t.Errorf("automated_actions %q, want %q", fb.AutomatedActions, want)
	}
	if len(got) != 3 {
		t.Fatalf("%d deadlines recorded, want 3", len(got))
	}
	for i, d := range got {
		if d != got[0] {
			t.Errorf("action %d's deadline %v, the first's %v: not one deadline", i, d, got[0])
		}
		if d.Before(before.Add(time.Hour)) || d.After(after.Add(time.Hour)) {
			t.Errorf("action %d's deadline %v, not an hour after the actions began (%v – %v)", i, d, before, after)
		}
	}
}
