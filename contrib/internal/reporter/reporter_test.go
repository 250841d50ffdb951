package reporter_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/contrib/internal/reporter"
	"github.com/triage-go/triage/contrib/internal/servicetest"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/resilience"
)

const key = "agent-key-0123456789abcdef"

type testBundle struct {
	svc *servicetest.Service
	c   *client.Client
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	svc, err := servicetest.Start(map[string]string{key: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	c, err := client.New(svc.URL, client.Config{APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return &testBundle{svc: svc, c: c}
}

// A failure reported in the background becomes a record of the real
// service, with the query, session, run and trace of the context.
func TestReportBecomesARecord(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r, err := reporter.New(reporter.Config{AgentID: "planner", Client: b.c, Framework: "eino", Environment: "test",
		Tags: map[string]string{"team": "search"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := reporter.WithIDs(t.Context(), reporter.IDs{Query: "q_1", Session: "s_1"})
	ctx = reporter.WithIDs(ctx, reporter.IDs{Run: "run_1"}) // keeps the query and session
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx = trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
	cause := fmt.Errorf("calling the model: %w", fault.New(fault.RateLimited, "", fault.WithRetryAfter(2*time.Second)))
	if err := r.Report(ctx, reporter.Failure{Err: cause, Component: "ChatModel", Name: "model"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	page, err := b.c.Errors(t.Context(), client.ErrorQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 1 {
		t.Fatalf("%d records, want 1", len(page.Records))
	}
	rec, err := b.c.Get(t.Context(), page.Records[0].ErrorID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.QueryID != "q_1" || rec.AgentID != "planner" {
		t.Errorf("record %+v", rec.RecordSummary)
	}
	var got triage.Report
	if err := json.Unmarshal(rec.Report, &got); err != nil {
		t.Fatal(err)
	}
	c := got.Data.Context
	if got.Data.ErrorCode != "RATE_LIMITED" || got.Data.Fault == nil || got.Data.Fault.Code != fault.RateLimited ||
		got.Data.Fault.Source != "model" || c["framework"] != "eino" || c["component"] != "ChatModel" || c["node"] != "model" ||
		c["session_id"] != "s_1" || c["run_id"] != "run_1" || c["trace_id"] != tid.String() ||
		c["traceparent"] != "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" ||
		got.Tags["framework"] != "eino" || got.Tags["team"] != "search" || got.Environment != "test" {
		t.Errorf("report: %+v", got)
	}
	if !strings.Contains(got.Data.Message, "calling the model") {
		t.Errorf("message %q", got.Data.Message)
	}
}

// A failure announced at each level of a run (the node, the graph, the
// graph around it) is reported once, by the outermost level, with the
// innermost's component and error text and the outermost's name as the
// default query.
func TestFramesReportOnce(t *testing.T) {
	t.Parallel()
	ctx, outer := reporter.Enter(t.Context(), "support graph")
	ctx, middle := reporter.Enter(ctx, "subgraph")
	_, inner := reporter.Enter(ctx, "model")
	if !outer.Outermost() || middle.Outermost() || inner.Outermost() {
		t.Fatal("Outermost")
	}
	cause := errors.New("the model failed")
	if _, ok := inner.Fail(reporter.Failure{Err: cause, Component: "ChatModel", Name: "model"}); ok {
		t.Error("the innermost level reports")
	}
	if _, ok := middle.Fail(reporter.Failure{Err: fmt.Errorf("[NodeRunError] %w", cause), Component: "Graph", Name: "subgraph"}); ok {
		t.Error("a middle level reports")
	}
	got, ok := outer.Fail(reporter.Failure{Err: fmt.Errorf("wrapped again: %w", cause), Component: "Graph", Name: "support graph"})
	if !ok || got.Err != cause || got.Component != "ChatModel" || got.Name != "model" || got.Outer != "support graph" {
		t.Errorf("outermost: %+v %v", got, ok)
	}
	if _, ok := outer.Fail(reporter.Failure{Err: cause}); ok {
		t.Error("a run is reported twice")
	}
	if reporter.FrameOf(t.Context()) != nil || reporter.FrameOf(ctx) != middle {
		t.Error("FrameOf")
	}
}

// Seen drops what wraps an error seen under the same query moments
// before, and nothing else.
func TestSeen(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	r, err := reporter.New(reporter.Config{AgentID: "a", Client: newClient(t, "http://127.0.0.1:1"), Framework: "langchaingo",
		Synchronous: true, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	llm := errors.New("rate limited")
	if r.Seen(ctx, llm) {
		t.Error("a new error is seen")
	}
	if !r.Seen(ctx, fmt.Errorf("chain: %w", llm)) {
		t.Error("the chain's error wrapping the model's is not seen")
	}
	if r.Seen(reporter.WithIDs(ctx, reporter.IDs{Query: "q_2"}), fmt.Errorf("chain: %w", llm)) {
		t.Error("another query's error is seen")
	}
	if r.Seen(ctx, errors.New("rate limited")) {
		t.Error("another error with the same text is seen")
	}
	now = now.Add(reporter.SeenWindow)
	if r.Seen(ctx, fmt.Errorf("chain: %w", llm)) {
		t.Error("an error is remembered past the window")
	}
}

func newClient(t *testing.T, url string) *client.Client {
	t.Helper()
	c, err := client.New(url, client.Config{Resilience: resilience.Config{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A report that fails is logged and handed to OnReport, never returned,
// unless Synchronous; the log has no API key.
func TestReportFailureIsLogged(t *testing.T) {
	t.Parallel()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusForbidden)
	}))
	defer down.Close()
	c, err := client.New(down.URL, client.Config{APIKey: "secret-key-0123456789"})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	var mu sync.Mutex
	var got []error
	r, err := reporter.New(reporter.Config{AgentID: "a", Client: c, Framework: "genkit",
		Logger: slog.New(slog.NewTextHandler(&syncWriter{w: &logs, mu: &mu}, nil)),
		OnReport: func(_ *triage.Report, fb *triage.Feedback, err error) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, err)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Report(t.Context(), reporter.Failure{Err: errors.New("boom")}); err != nil {
		t.Errorf("Report returned %v", err)
	}
	if err := r.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || fault.CodeOf(got[0]) != fault.TenantUnauthorized {
		t.Errorf("OnReport got %v", got)
	}
	if !strings.Contains(logs.String(), "triage: report failed") || strings.Contains(logs.String(), "secret-key-0123456789") {
		t.Errorf("log: %s", logs.String())
	}

	sync, err := reporter.New(reporter.Config{AgentID: "a", Client: c, Framework: "genkit", Synchronous: true,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := sync.Report(t.Context(), reporter.Failure{Err: errors.New("boom")}); fault.CodeOf(err) != fault.TenantUnauthorized {
		t.Errorf("synchronous Report returned %v", err)
	}
}

type syncWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// The queue is bounded: what does not fit is dropped and logged, and so is
// a report after Close. Report never waits for the service.
func TestQueueBounded(t *testing.T) {
	t.Parallel()
	release, arrived := make(chan struct{}), make(chan struct{}, 8)
	var calls sync.WaitGroup
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		http.Error(w, "no", http.StatusForbidden)
	}))
	defer slow.Close()
	var logs bytes.Buffer
	var mu sync.Mutex
	posted := 0
	r, err := reporter.New(reporter.Config{AgentID: "a", Client: newClient(t, slow.URL), Framework: "eino", QueueSize: 2,
		Logger: slog.New(slog.NewTextHandler(&syncWriter{w: &logs, mu: &mu}, nil)),
		OnReport: func(*triage.Report, *triage.Feedback, error) {
			mu.Lock()
			defer mu.Unlock()
			posted++
			calls.Done()
		}})
	if err != nil {
		t.Fatal(err)
	}
	calls.Add(1)
	r.Report(t.Context(), reporter.Failure{Err: errors.New("first")})
	<-arrived // the goroutine holds the first, waiting on the service
	deadline := time.Now().Add(5 * time.Second)
	for {
		// Fill the queue: two fit once the goroutine holds the first.
		start := time.Now()
		r.Report(t.Context(), reporter.Failure{Err: errors.New("more")})
		if time.Since(start) > time.Second {
			t.Fatal("Report waited")
		}
		mu.Lock()
		full := strings.Contains(logs.String(), "report queue full")
		mu.Unlock()
		if full {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the queue never filled")
		}
		time.Sleep(time.Millisecond)
	}
	calls.Add(2)
	close(release)
	if err := r.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	calls.Wait()
	r.Report(t.Context(), reporter.Failure{Err: errors.New("late")})
	mu.Lock()
	defer mu.Unlock()
	if posted != 3 || !strings.Contains(logs.String(), "report after Close") {
		t.Errorf("posted %d; log: %s", posted, logs.String())
	}
}

func TestNewChecksConfig(t *testing.T) {
	t.Parallel()
	c := newClient(t, "http://127.0.0.1:1")
	for _, cfg := range []reporter.Config{
		{Client: c, Framework: "eino"},
		{AgentID: "bad agent", Client: c, Framework: "eino"},
		{AgentID: "a", Framework: "eino"},
		{AgentID: "a", Client: c},
	} {
		if _, err := reporter.New(cfg); fault.CodeOf(err) != fault.ConfigError {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
}

// A query id that is not an identifier is ignored: the report's query is
// the framework's and the outermost level's name, as an identifier.
func TestDefaultQuery(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var got []string
	r, err := reporter.New(reporter.Config{AgentID: "planner", Client: b.c, Framework: "genkit", Synchronous: true,
		OnReport: func(rep *triage.Report, _ *triage.Feedback, err error) {
			if err != nil {
				t.Errorf("report: %v", err)
			}
			got = append(got, rep.Data.QueryID)
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := reporter.WithIDs(t.Context(), reporter.IDs{Query: "not an id"})
	for _, f := range []reporter.Failure{
		{Err: errors.New("a"), Name: "model", Outer: "plan trip/v2"},
		{Err: errors.New("b"), Name: "googleai/gemini"},
		{Err: errors.New("c")},
	} {
		if err := r.Report(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"genkit:plan_trip_v2", "genkit:googleai_gemini", "genkit:run"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("queries %q, want %q", got, want)
	}
}
