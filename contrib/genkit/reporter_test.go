package triagegenkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core"
	"github.com/firebase/genkit/go/genkit"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/client"
	triagegenkit "github.com/triage-go/triage/contrib/genkit"
	"github.com/triage-go/triage/contrib/internal/servicetest"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/resilience"
)

const key = "agent-key-0123456789abcdef"

type testBundle struct {
	c   *client.Client
	rep *triagegenkit.Reporter
	g   *genkit.Genkit
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	svc, err := servicetest.Start(map[string]string{key: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	b := &testBundle{g: genkit.Init(t.Context())}
	if b.c, err = client.New(svc.URL, client.Config{APIKey: key}); err != nil {
		t.Fatal(err)
	}
	b.rep, err = triagegenkit.New(triagegenkit.Config{AgentID: "travel_agent", Client: b.c,
		Logger: slog.New(slog.DiscardHandler),
		OnReport: func(_ *triage.Report, _ *triage.Feedback, err error) {
			if err != nil {
				t.Errorf("report: %v", err)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.rep.Close(context.Background()) })
	return b
}

// records closes the reporter (posting what is queued) and returns the
// latest report of each of the service's records.
func (b *testBundle) records(t *testing.T) []triage.Report {
	t.Helper()
	if err := b.rep.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	page, err := b.c.Errors(t.Context(), client.ErrorQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var out []triage.Report
	for _, s := range page.Records {
		rec, err := b.c.Get(t.Context(), s.ErrorID)
		if err != nil {
			t.Fatal(err)
		}
		var r triage.Report
		if err := json.Unmarshal(rec.Report, &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// failingModel defines a Genkit model that fails with err.
func failingModel(g *genkit.Genkit, name string, err error) ai.Model {
	return genkit.DefineModel(g, name, &ai.ModelOptions{Label: name, Supports: &ai.ModelSupports{Multiturn: true}},
		func(context.Context, *ai.ModelRequest, ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			return nil, err
		})
}

// A model out of quota (Genkit's RESOURCE_EXHAUSTED) inside a flow, both
// watched: one record, RATE_LIMITED, with the model's component and name,
// the flow's query, and the trace of Genkit's own span.
func TestFlowFailureBecomesOneRecord(t *testing.T) {
	t.Parallel()
	b := setup(t)
	m := failingModel(b.g, "test/flaky", core.NewError(core.RESOURCE_EXHAUSTED, "quota exceeded for test/flaky"))
	flow := genkit.DefineFlow(b.g, "plan_trip", triagegenkit.Flow(b.rep, "plan_trip", func(ctx context.Context, city string) (string, error) {
		resp, err := genkit.Generate(ctx, b.g, ai.WithModel(m), ai.WithPrompt("Plan a day in %s", city),
			ai.WithMiddleware(b.rep.ModelMiddleware("test/flaky")))
		if err != nil {
			return "", err
		}
		return resp.Text(), nil
	}))
	ctx := triagegenkit.WithSession(t.Context(), "s_7")
	_, err := flow.Run(ctx, "Lisbon")
	if fault.CodeOf(err) != fault.RateLimited {
		t.Fatalf("the flow's error: %v (%s)", err, fault.CodeOf(err))
	}
	recs := b.records(t)
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1: %+v", len(recs), recs)
	}
	rep := recs[0]
	c := rep.Data.Context
	if rep.Data.ErrorCode != "RATE_LIMITED" || rep.Data.QueryID != "genkit:plan_trip" || c["component"] != "Model" ||
		c["node"] != "test/flaky" || c["session_id"] != "s_7" || c["classified_by"] != "classifier:genkit:RESOURCE_EXHAUSTED" ||
		rep.Data.Message != "quota exceeded for test/flaky" {
		t.Errorf("report: %+v", rep)
	}
	if tid, _ := c["trace_id"].(string); len(tid) != 32 {
		t.Errorf("trace_id %q: Genkit's span is not in the report", c["trace_id"])
	}
}

// A flow that asks for a model Genkit does not have: NOT_FOUND,
// CAPABILITY_NOT_FOUND, reported by the flow.
func TestUnknownModel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	flow := genkit.DefineFlow(b.g, "ask", triagegenkit.Flow(b.rep, "ask", func(ctx context.Context, q string) (string, error) {
		return genkit.GenerateText(ctx, b.g, ai.WithModelName("nowhere/model"), ai.WithPrompt(q))
	}))
	_, err := flow.Run(triagegenkit.WithQuery(t.Context(), "q_ask_1"), "hello")
	if fault.CodeOf(err) != fault.CapabilityNotFound {
		t.Fatalf("the flow's error: %v (%s)", err, fault.CodeOf(err))
	}
	recs := b.records(t)
	if len(recs) != 1 || recs[0].Data.ErrorCode != "CAPABILITY_NOT_FOUND" || recs[0].Data.QueryID != "q_ask_1" ||
		recs[0].Data.Context["component"] != "Flow" {
		t.Errorf("records: %+v", recs)
	}
}

// With Synchronous and ReportErrors, a report that fails is joined to the
// failure; without ReportErrors, the failure is returned as it was.
func TestReportErrors(t *testing.T) {
	t.Parallel()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusForbidden)
	}))
	defer down.Close()
	c, err := client.New(down.URL, client.Config{Resilience: resilience.Config{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	failure := core.NewError(core.UNAVAILABLE, "the model is overloaded")
	run := func(reportErrors bool) error {
		rep, err := triagegenkit.New(triagegenkit.Config{AgentID: "a", Client: c, Synchronous: true, ReportErrors: reportErrors,
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		mw := rep.ModelMiddleware("m")
		_, err = mw(func(context.Context, *ai.ModelRequest, ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			return nil, failure
		})(t.Context(), &ai.ModelRequest{}, nil)
		return err
	}
	if err := run(false); err != failure {
		t.Errorf("without ReportErrors: %v", err)
	}
	err = run(true)
	if !errors.Is(err, failure) || fault.CodeOf(err) == "" {
		t.Errorf("with ReportErrors: %v", err)
	}
	var fs []*fault.Error
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		if f, ok := fault.As(e); ok {
			fs = append(fs, f)
		}
	}
	if len(fs) != 1 || fs[0].Code != fault.TenantUnauthorized {
		t.Errorf("the report's error is not joined: %v", err)
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	for status, want := range map[core.StatusName]fault.Code{
		core.INVALID_ARGUMENT: fault.InvalidRequest, core.DEADLINE_EXCEEDED: fault.Timeout, core.NOT_FOUND: fault.CapabilityNotFound,
		core.UNAUTHENTICATED: fault.ProviderAuthFailed, core.RESOURCE_EXHAUSTED: fault.RateLimited,
		core.ABORTED: fault.AgentExecutionError, core.UNAVAILABLE: fault.ServiceUnavailable, core.INTERNAL: fault.InternalError,
		core.CANCELLED: fault.Cancelled, core.FAILED_PRECONDITION: fault.ConfigError,
	} {
		f := fault.From(core.NewError(status, "x"))
		if f.Code != want {
			t.Errorf("%s: %s, want %s", status, f.Code, want)
		}
		if _, ok := f.Details["stack"]; ok {
			t.Errorf("%s: the stack is copied", status)
		}
	}
	if f := fault.From(core.NewPublicError(core.INVALID_ARGUMENT, "bad city", nil)); f.Code != fault.InvalidRequest {
		t.Errorf("a UserFacingError: %s", f.Code)
	}
	if _, ok := triagegenkit.Classify(core.NewError(core.UNKNOWN, "x")); ok {
		t.Error("UNKNOWN is classified")
	}
	if _, ok := triagegenkit.Classify(errors.New("boom")); ok {
		t.Error("an unknown error is classified")
	}
}
