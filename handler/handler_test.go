package handler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/memory"
	"github.com/triage-go/triage/policy"
)

// validReport is seed 004's database timeout, as the root package's
// tests have it.
var validReport = func() string {
	b, err := os.ReadFile("../testdata/report.json")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

func newHandler(t testing.TB, cfg Config) *Handler {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return now }
	}
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// timeoutReport is seed 004's DB timeout during a large aggregation, at the
// given minute past noon.
func timeoutReport(minute int) []byte {
	return []byte(strings.Replace(validReport, "12:20:05", time.Date(2025, 8, 8, 12, minute, 0, 0, time.UTC).Format("15:04:05"), 1))
}

func TestHandleDBTimeout(t *testing.T) {
	cache := &memory.Cache{}
	cache.Put("q_456", triage.CachedResult{StoredAt: now.Add(-2 * time.Hour)})
	h := newHandler(t, Config{Cache: cache})
	fb, err := h.Handle(context.Background(), []byte(validReport))
	if err != nil {
		t.Fatal(err)
	}
	if fb.ErrorType != triage.QueryError || fb.ErrorSource != "query_engine" || fb.NextAction != triage.Resume || fb.Severity != triage.SeverityMedium ||
		fb.QueryID != "q_456" || fb.Attempt != 1 || fb.RootCause.Cause != triage.CauseScope || fb.Confidence != 0.99 {
		t.Errorf("feedback: %+v", fb)
	}
	if !slices.Equal(fb.AutomatedActions, []string{"retry:2", "use_cache:true", "reduce_scope:date_range=12m"}) {
		t.Errorf("automated_actions %q", fb.AutomatedActions)
	}
	if !strings.Contains(fb.UserMessage, "(database timeout)") || !strings.Contains(fb.UserMessage, "cached results from 2 hours ago") {
		t.Errorf("user_message %q", fb.UserMessage)
	}
	if fb.Fault.Code != fault.Timeout || fb.Fault.HTTPStatus != 504 || !fb.Fault.Retryable {
		t.Errorf("fault %+v", fb.Fault)
	}
	if !fb.ContextPreserved || fb.Context["row_count"] != 48e6 {
		t.Errorf("context not preserved: %+v", fb.Context)
	}
	if fb.Retry == nil || *fb.Retry != (triage.RetryPlan{Attempt: 2, DelaySeconds: 2, By: triage.RetryByCaller}) {
		t.Errorf("the retry planned: %+v", fb.Retry)
	}
}

func TestHandleDuplicates(t *testing.T) {
	notes := &memory.Notifier{}
	h := newHandler(t, Config{Notifier: notes})
	first, err := h.Handle(context.Background(), []byte(validReport))
	if err != nil {
		t.Fatal(err)
	}
	again, err := h.Handle(context.Background(), []byte(validReport))
	if err != nil {
		t.Fatal(err)
	}
	if !again.Duplicate || first.Duplicate {
		t.Errorf("duplicate flags: first %v, again %v", first.Duplicate, again.Duplicate)
	}
	again.Duplicate = false
	if a, b := mustJSON(t, first), mustJSON(t, again); !bytes.Equal(a, b) {
		t.Errorf("a duplicate got other feedback:\n%s\n%s", a, b)
	}
	// The same error reported later is a new attempt, with the same
	// error_id.
	later, err := h.Handle(context.Background(), timeoutReport(25))
	if err != nil {
		t.Fatal(err)
	}
	if later.Duplicate || later.Attempt != 2 || later.ErrorID != first.ErrorID || later.Retry == nil || later.Retry.Attempt != 3 {
		t.Errorf("a later report: duplicate %v, attempt %d, id %s (first %s), retry %+v", later.Duplicate, later.Attempt, later.ErrorID, first.ErrorID, later.Retry)
	}
}

func TestHandleConcurrentDuplicates(t *testing.T) {
	h := newHandler(t, Config{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	results := map[string]int{}
	for range 16 {
		wg.Go(func() {
			fb, err := h.Handle(context.Background(), []byte(validReport))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil && fault.CodeOf(err) == fault.SessionBusy:
				results["busy"]++
			case err != nil:
				t.Error(err)
			case fb.Duplicate:
				results["duplicate"]++
			default:
				results["first"]++
			}
		})
	}
	wg.Wait()
	if results["first"] != 1 || results["first"]+results["duplicate"]+results["busy"] != 16 {
		t.Errorf("16 concurrent deliveries: %v", results)
	}
}

func TestHandleEscalatesAfterMaxAttempts(t *testing.T) {
	notes := &memory.Notifier{}
	h := newHandler(t, Config{Notifier: notes})
	var fb *triage.Feedback
	for i := range h.MaxAttempts() + 1 {
		var err error
		if fb, err = h.Handle(context.Background(), timeoutReport(i)); err != nil {
			t.Fatal(err)
		}
		if i < h.MaxAttempts() && fb.NextAction != triage.Resume {
			t.Fatalf("attempt %d: next_action %s", i+1, fb.NextAction)
		}
	}
	if fb.Attempt != 4 || fb.NextAction != triage.Escalate || fb.Severity != triage.SeverityHigh || !slices.Equal(fb.AutomatedActions, []string{"escalate:ops"}) {
		t.Errorf("fourth attempt: %+v", fb)
	}
	if es := notes.Escalations(); len(es) != 1 || es[0].Attempt != 4 || es[0].QueryID != "q_456" {
		t.Errorf("escalations %+v", es)
	}
	// Another query's timeout starts its own count.
	other := strings.Replace(string(timeoutReport(9)), "q_456", "q_457", 1)
	if fb, err := h.Handle(context.Background(), []byte(other)); err != nil || fb.Attempt != 1 {
		t.Errorf("another query: %+v, %v", fb, err)
	}
}

func TestHandleInvalidRecordsNothing(t *testing.T) {
	st := &memory.State{}
	reg := prometheus.NewRegistry()
	h := newHandler(t, Config{State: st, Registerer: reg})
	bad := strings.Replace(validReport, `"query_error"`, `"db_error"`, 1)
	fb, err := h.Handle(context.Background(), []byte(bad))
	if fb != nil {
		t.Errorf("feedback for an invalid report: %+v", fb)
	}
	f, ok := fault.As(err)
	if !ok || f.Code != fault.InvalidRequest || len(f.FieldErrors) != 1 || f.FieldErrors[0].Field != "data.error_type" ||
		!strings.HasPrefix(f.FieldErrors[0].Message, "unknown type") {
		t.Errorf("an invalid report: %v", err)
	}
	if n, _ := st.Next(context.Background(), "q_456/DB_TIMEOUT"); n != 1 {
		t.Errorf("an invalid report counted as an attempt")
	}
	if v := testutil.ToFloat64(h.metrics.invalid); v != 1 {
		t.Errorf("invalid counter %v", v)
	}
	// HandleReport validates too.
	r := &triage.Report{AgentID: "a", Status: "error", Data: triage.Data{Message: "m"}}
	if _, err := h.HandleReport(context.Background(), r); fault.CodeOf(err) != fault.InvalidRequest {
		t.Errorf("HandleReport of an invalid report: %v", err)
	}
}

// failingAction fails, or panics.
type failingAction struct {
	name  string
	panic bool
}

func (a failingAction) Name() string { return a.name }
func (a failingAction) Run(context.Context, *ActionEnv) triage.Outcome {
	if a.panic {
		panic("boom")
	}
	return triage.Outcome{Action: a.name, Status: triage.OutcomeFailed, Detail: a.name + ":failed", Error: "cache unreachable at redis://:hunter2@10.0.0.5"}
}

func TestHandleFailingActions(t *testing.T) {
	var logs bytes.Buffer
	h := newHandler(t, Config{
		Actions: []Action{failingAction{name: "use_cache"}, failingAction{name: "retry", panic: true}, failingAction{name: "reduce_scope"}},
		Logger:  slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	fb, err := h.Handle(context.Background(), []byte(validReport))
	if err != nil {
		t.Fatalf("a failing action failed the report: %v", err)
	}
	if !slices.Equal(fb.AutomatedActions, []string{"retry:failed", "use_cache:failed", "reduce_scope:failed"}) {
		t.Errorf("automated_actions %q", fb.AutomatedActions)
	}
	// Nothing was done, so the pipeline cannot resume on its own.
	if fb.NextAction != triage.AwaitUser || !strings.Contains(fb.UserMessage, "couldn't fix this automatically") {
		t.Errorf("next_action %s, message %q", fb.NextAction, fb.UserMessage)
	}
	if strings.Contains(fb.UserMessage, "redis") || strings.Contains(logs.String(), "hunter2") {
		t.Error("an action's error leaked")
	}
	if !strings.Contains(logs.String(), `"msg":"recovery action failed"`) {
		t.Errorf("no log of the failed action:\n%s", logs.String())
	}
}

// failingComplete is a state whose Complete fails.
type failingComplete struct{ *memory.State }

func (failingComplete) Complete(context.Context, string, *triage.Feedback) error {
	return errors.New("deliveries store down")
}

func TestHandleStoreFailure(t *testing.T) {
	st := failingComplete{&memory.State{}}
	h := newHandler(t, Config{State: st})
	_, err := h.Handle(context.Background(), []byte(validReport))
	if err == nil {
		t.Fatal("a failing deliveries store was ignored")
	}
	if _, ok := errors.AsType[*fault.Error](err); !ok {
		t.Errorf("error %T is not a fault", err)
	}
	// The claim was released: the next delivery is handled, not taken for
	// a duplicate.
	if _, first, _ := st.Claim(context.Background(), triage.DeliveryKey(mustDecode(t, validReport))); !first {
		t.Error("the failed report's claim was kept")
	}
}

func mustDecode(t *testing.T, raw string) *triage.Report {
	r, err := triage.DecodeReport([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHandleTelemetry(t *testing.T) {
	reg := prometheus.NewRegistry()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	var logs bytes.Buffer
	h := newHandler(t, Config{Registerer: reg, TracerProvider: tp,
		Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	fb, err := h.Handle(context.Background(), []byte(validReport))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Handle(context.Background(), []byte(validReport)); err != nil {
		t.Fatal(err)
	}

	if v := testutil.ToFloat64(h.metrics.reports.WithLabelValues("query_error", "medium", "query_engine", "resume")); v != 1 {
		t.Errorf("reports counter %v", v)
	}
	if v := testutil.ToFloat64(h.metrics.duplicates); v != 1 {
		t.Errorf("duplicates counter %v", v)
	}
	if v := testutil.ToFloat64(h.metrics.actions.WithLabelValues("retry", "done")); v != 1 {
		t.Errorf("actions counter %v", v)
	}
	if n := testutil.CollectAndCount(h.metrics.duration); n != 1 {
		t.Errorf("duration histogram: %d series", n)
	}
	if n, err := testutil.GatherAndCount(reg, "triage_handler_reports_total", "triage_handler_duration_seconds"); err != nil || n != 2 {
		t.Errorf("registered metrics: %d, %v", n, err)
	}

	// One span per report, one for the delivery's start, one per step
	// that ran, one per action; each but the actions' carries the error
	// and query ids.
	spans := map[string]int{}
	for _, s := range rec.Ended() {
		spans[s.Name()]++
		attrs := map[string]string{}
		for _, a := range s.Attributes() {
			attrs[string(a.Key)] = a.Value.String()
		}
		if strings.HasPrefix(s.Name(), "triage.handler.") && !strings.HasPrefix(s.Name(), "triage.handler.action.") &&
			(attrs["triage.error_id"] != fb.ErrorID || attrs["triage.query_id"] != "q_456") {
			t.Errorf("span %s attributes %v", s.Name(), attrs)
		}
		if s.Name() == "triage.handler.handle" && s.SpanKind() != trace.SpanKindInternal {
			t.Errorf("span %s kind %v", s.Name(), s.SpanKind())
		}
	}
	for name, want := range map[string]int{
		"triage.handler.start": 2, "triage.handler.handle": 2,
		"triage.handler.replay": 1, "triage.handler.classify": 1, "triage.handler.analyze": 1, "triage.handler.policy": 1,
		"triage.handler.act": 1, "triage.handler.message": 1, "triage.handler.format": 1,
		"triage.handler.action.retry": 1, "triage.handler.action.use_cache": 1, "triage.handler.action.reduce_scope": 1,
	} {
		if spans[name] != want {
			t.Errorf("span %s: %d, want %d", name, spans[name], want)
		}
	}

	// At debug level, one line per report with seed 004's fields (and
	// the details of a first delivery); the duplicate's says it is one.
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d log lines:\n%s", len(lines), logs.String())
	}
	for i, want := range []map[string]any{
		{"level": "DEBUG", "msg": "error handled", "error_id": fb.ErrorID, "query_id": "q_456", "severity": "medium",
			"next_action": "resume", "actions_taken": []any{"retry:2", "use_cache:false", "reduce_scope:date_range=12m"}},
		{"level": "DEBUG", "msg": "error handled: details", "error_id": fb.ErrorID},
		{"level": "DEBUG", "msg": "error handled", "error_id": fb.ErrorID, "duplicate": true},
	} {
		var line map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &line); err != nil {
			t.Fatal(err)
		}
		for k, want := range want {
			if got := line[k]; !jsonEqual(got, want) {
				t.Errorf("log line %d: %s = %v, want %v", i+1, k, got, want)
			}
		}
	}
}

// TestHandleLogsNothingAtInfo: a report handled writes no line at info
// level (issue 28: a line per report is ~365 bytes of log a report); the
// counter counts it.
func TestHandleLogsNothingAtInfo(t *testing.T) {
	var logs bytes.Buffer
	h := newHandler(t, Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	for range 2 { // a first delivery and a duplicate
		if _, err := h.Handle(context.Background(), []byte(validReport)); err != nil {
			t.Fatal(err)
		}
	}
	if logs.Len() != 0 {
		t.Errorf("logged at info:\n%s", logs.String())
	}
	if v := testutil.ToFloat64(h.metrics.reports.WithLabelValues("query_error", "medium", "query_engine", "resume")); v != 1 {
		t.Errorf("reports counter %v, want 1", v)
	}
	if v := testutil.ToFloat64(h.metrics.duplicates); v != 1 {
		t.Errorf("duplicates counter %v, want 1", v)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestHandleNoLeaks(t *testing.T) {
	// An agent's message with a secret and a stack trace never reaches the
	// user message, the suggestions or the log.
	raw := strings.Replace(validReport, "Query timed out after 30s",
		`Query timed out: password=hunter2 Authorization: Bearer sk-live-abcdefghijklmnop\n  at com.acme.Query.run(Query.java:42)`, 1)
	var logs bytes.Buffer // at debug level: every line a report makes
	h := newHandler(t, Config{Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	fb, err := h.Handle(context.Background(), []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	out := string(mustJSON(t, fb.UserMessage)) + string(mustJSON(t, fb.RecoverySuggestions)) + logs.String()
	for _, secret := range []string{"hunter2", "sk-live", "Query.java", "com.acme"} {
		if strings.Contains(out, secret) {
			t.Errorf("%q leaked:\n%s", secret, out)
		}
	}
}

func TestNewRejectsUnknownPolicyAction(t *testing.T) {
	p, err := policy.Parse("custom.yaml", []byte(`version: 1
rules:
  - name: all
    default: true
    actions: [page_oncall]
    next_action: escalate
    severity: high
    message: Paging.
`), &policy.Options{Actions: []string{"page_oncall"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{Policy: p}); err == nil || !strings.Contains(err.Error(), "page_oncall") {
		t.Errorf("New with an unknown action: %v", err)
	}
	if _, err := New(Config{Policy: p, Actions: []Action{failingAction{name: "page_oncall"}}}); err != nil {
		t.Errorf("New with the action given: %v", err)
	}
}

// brokenStart fails its first Start as a database that went away does.
type brokenStart struct {
	*memory.State
	calls int
}

func (b *brokenStart) Start(ctx context.Context, req triage.StartRequest) (triage.StartResult, error) {
	b.calls++
	if b.calls == 1 {
		return triage.StartResult{}, errors.New("dial tcp 10.0.0.5:5432: connect: connection refused (pg)")
	}
	return b.State.Start(ctx, req)
}

// TestStoreFailure: a store that fails makes the report SERVICE_UNAVAILABLE
// (retry in a second), says nothing of the store's error to the caller,
// and releases the delivery, so that the retry is handled, not refused as
// in flight.
func TestStoreFailure(t *testing.T) {
	h := newHandler(t, Config{State: &brokenStart{State: &memory.State{}}})
	_, err := h.Handle(context.Background(), []byte(validReport))
	f, ok := fault.As(err)
	if !ok {
		t.Fatalf("%v is not a fault", err)
	}
	if f.Code != fault.ServiceUnavailable || !f.Retryable || f.RetryAfter != time.Second ||
		strings.Contains(f.Message, "5432") {
		t.Fatalf("store failure: %+v", f)
	}
	fb, err := h.Handle(context.Background(), []byte(validReport))
	if err != nil || fb.Duplicate {
		t.Fatalf("the retry: %+v %v", fb, err)
	}
	// A cancelled request stays cancelled.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := newHandler(t, Config{}).Handle(ctx, []byte(validReport)); fault.CodeOf(err) == fault.ServiceUnavailable {
		t.Errorf("a cancelled request became %v", err)
	}
}

// The agents past MaxMetricSources are counted under one source label.
func TestHandleBoundsMetricSources(t *testing.T) {
	h := newHandler(t, Config{MaxMetricSources: 2})
	for i, agent := range []string{"a1", "a2", "a3", "a4", "a1"} {
		report := strings.Replace(string(timeoutReport(i)), `"query_engine"`, `"`+agent+`"`, 1)
		report = strings.Replace(report, `"q_456"`, fmt.Sprintf(`"q_%d"`, i), 1) // each its first attempt
		if _, err := h.Handle(context.Background(), []byte(report)); err != nil {
			t.Fatal(err)
		}
	}
	for source, want := range map[string]float64{"a1": 2, "a2": 1, OtherSource: 2} {
		if v := testutil.ToFloat64(h.metrics.reports.WithLabelValues("query_error", "medium", source, "resume")); v != want {
			t.Errorf("reports from %s: %v, want %v", source, v, want)
		}
	}
	if n := testutil.CollectAndCount(h.metrics.reports); n != 3 {
		t.Errorf("%d series, want 3 (a1, a2, other)", n)
	}

	// Negative: no agent named.
	h = newHandler(t, Config{MaxMetricSources: -1})
	for i, agent := range []string{"a1", "a2"} {
		report := strings.Replace(string(timeoutReport(i)), `"query_engine"`, `"`+agent+`"`, 1)
		report = strings.Replace(report, `"q_456"`, fmt.Sprintf(`"q_%d"`, i), 1)
		if _, err := h.Handle(context.Background(), []byte(report)); err != nil {
			t.Fatal(err)
		}
	}
	if v := testutil.ToFloat64(h.metrics.reports.WithLabelValues("query_error", "medium", OtherSource, "resume")); v != 2 {
		t.Errorf("reports from %s: %v, want 2", OtherSource, v)
	}
	if n := testutil.CollectAndCount(h.metrics.reports); n != 1 {
		t.Errorf("%d series, want 1 (other)", n)
	}
}

// TestDecideAsksForJobs: the engine stores and sends nothing; a first
// delivery's result asks for the retry (its agent has a callback URL) and
// the escalation, a repeat's for nothing.
func TestDecideAsksForJobs(t *testing.T) {
	h := newHandler(t, Config{})
	r := mustDecode(t, validReport)
	p := h.Prepare(r)
	in := Input{Report: r, Prepared: p, Started: triage.StartResult{First: true, Attempt: 1, Recent: 1},
		Callbacks: callbacks{"query_engine": true}, Escalations: true}
	res, err := h.Decide(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 1 || res.Jobs[0].Retry == nil || res.Jobs[0].Retry.Attempt != 2 || res.Jobs[0].Retry.ErrorID != p.ErrorID ||
		res.Feedback.Retry == nil || res.Feedback.Retry.By != triage.RetryByCallback {
		t.Errorf("a first delivery: jobs %+v, retry %+v", res.Jobs, res.Feedback.Retry)
	}
	for _, o := range res.Feedback.Outcomes {
		if o.Job != nil {
			t.Errorf("an outcome kept its job: %+v", o)
		}
	}
	// The fourth attempt escalates.
	in.Started.Attempt = h.MaxAttempts() + 1
	if res, err = h.Decide(context.Background(), in); err != nil || len(res.Jobs) != 1 || res.Jobs[0].Escalation == nil ||
		res.Jobs[0].Escalation.Attempt != h.MaxAttempts()+1 {
		t.Errorf("past the attempts: %+v, %v", res, err)
	}
	// A repeat answers the feedback given before, and asks for nothing.
	in.Started = triage.StartResult{Prior: res.Feedback}
	again, err := h.Decide(context.Background(), in)
	if err != nil || !again.Feedback.Duplicate || len(again.Jobs) != 0 || again.Feedback.ErrorID != res.Feedback.ErrorID {
		t.Errorf("a repeat: %+v, %v", again, err)
	}
	// One whose first delivery is being handled is SESSION_BUSY.
	in.Started = triage.StartResult{}
	if _, err := h.Decide(context.Background(), in); fault.CodeOf(err) != fault.SessionBusy {
		t.Errorf("a repeat in flight: %v", err)
	}
}
