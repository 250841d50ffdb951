package triageeino_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/client"
	triageeino "github.com/triage-go/triage/contrib/eino"
	"github.com/triage-go/triage/contrib/internal/servicetest"
	"github.com/triage-go/triage/fault"
)

const key = "agent-key-0123456789abcdef"

// testBundle is a test's service, client and handler, and the reports the
// handler made.
type testBundle struct {
	c *client.Client
	h *triageeino.Handler

	mu      sync.Mutex
	reports []*triage.Report
	posted  chan struct{}
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	svc, err := servicetest.Start(map[string]string{key: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	b := &testBundle{posted: make(chan struct{}, 16)}
	if b.c, err = client.New(svc.URL, client.Config{APIKey: key}); err != nil {
		t.Fatal(err)
	}
	b.h, err = triageeino.NewHandler(triageeino.Config{AgentID: "support_agent", Client: b.c,
		Logger: slog.New(slog.DiscardHandler),
		OnReport: func(r *triage.Report, _ *triage.Feedback, err error) {
			if err != nil {
				t.Errorf("report: %v", err)
			}
			b.mu.Lock()
			b.reports = append(b.reports, r)
			b.mu.Unlock()
			b.posted <- struct{}{}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.h.Close(context.Background()) })
	return b
}

// records closes the handler (posting what is queued) and returns the
// service's records with their latest reports, most recent first.
func (b *testBundle) records(t *testing.T) []triage.Report {
	t.Helper()
	if err := b.h.Close(t.Context()); err != nil {
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

// chatModel is a fake model.ToolCallingChatModel: it fails with err, or,
// streaming, sends one chunk and then err.
type chatModel struct {
	err   error
	calls int
}

func (m *chatModel) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	m.calls++
	return nil, m.err
}

func (m *chatModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	r, w := schema.Pipe[*schema.Message](2)
	w.Send(schema.AssistantMessage("Let me look", nil), nil)
	w.Send(nil, m.err)
	w.Close()
	return r, nil
}

func (m *chatModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

// modelGraph is the graph "support": START → model → END.
func modelGraph(t *testing.T, m model.BaseChatModel) compose.Runnable[[]*schema.Message, *schema.Message] {
	t.Helper()
	g := compose.NewGraph[[]*schema.Message, *schema.Message]()
	if err := g.AddChatModelNode("model", m, compose.WithNodeName("model")); err != nil {
		t.Fatal(err)
	}
	g.AddEdge(compose.START, "model")
	g.AddEdge("model", compose.END)
	r, err := g.Compile(t.Context(), compose.WithGraphName("support"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var question = []*schema.Message{schema.UserMessage("Where is my order?")}

// A model that times out inside a graph: the node and the graph both fail,
// one record results, with the node's component and error, the query of
// the context, and the fault TIMEOUT.
func TestGraphFailureBecomesOneRecord(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := modelGraph(t, &chatModel{err: fmt.Errorf("calling the model: %w", context.DeadlineExceeded)})
	ctx := triageeino.WithSession(triageeino.WithQuery(t.Context(), "q_order_1"), "s_42")
	_, err := r.Invoke(ctx, question, compose.WithCallbacks(b.h))
	if fault.CodeOf(err) != fault.Timeout {
		t.Fatalf("the run's error: %v (%s)", err, fault.CodeOf(err))
	}
	recs := b.records(t)
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1: %+v", len(recs), recs)
	}
	rep := recs[0]
	c := rep.Data.Context
	if rep.AgentID != "support_agent" || rep.Data.QueryID != "q_order_1" || rep.Data.ErrorCode != "TIMEOUT" ||
		rep.Data.Fault == nil || !rep.Data.Fault.Retryable || rep.Data.Fault.Source != "model" ||
		c["framework"] != "eino" || c["component"] != "ChatModel" || c["node"] != "model" || c["session_id"] != "s_42" ||
		rep.Data.Message != "calling the model: context deadline exceeded" || rep.Tags["framework"] != "eino" {
		t.Errorf("report: %+v", rep)
	}
	if n := len(b.reports); n != 1 {
		t.Errorf("%d reports, want 1", n)
	}
}

// A graph that loops past its step limit fails with Eino's
// ErrExceedMaxSteps: AGENT_EXECUTION_ERROR by Eino's rule, its query the
// graph's name when the context names none.
func TestMaxStepsIsClassified(t *testing.T) {
	t.Parallel()
	b := setup(t)
	g := compose.NewGraph[string, string]()
	g.AddLambdaNode("think", compose.InvokableLambda(func(_ context.Context, s string) (string, error) { return s + ".", nil }))
	g.AddEdge(compose.START, "think")
	g.AddBranch("think", compose.NewGraphBranch(func(context.Context, string) (string, error) { return "think", nil },
		map[string]bool{"think": true, compose.END: true}))
	r, err := g.Compile(t.Context(), compose.WithGraphName("planner loop"), compose.WithMaxRunSteps(3),
		compose.WithNodeTriggerMode(compose.AnyPredecessor))
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Invoke(t.Context(), "plan", compose.WithCallbacks(b.h))
	if !errors.Is(err, compose.ErrExceedMaxSteps) {
		t.Fatalf("the run's error: %v", err)
	}
	recs := b.records(t)
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	rep := recs[0]
	if rep.Data.ErrorCode != "AGENT_EXECUTION_ERROR" || rep.Data.QueryID != "eino:planner_loop" ||
		rep.Data.Context["classified_by"] != "classifier:eino:exceeds_max_steps" || rep.Data.Context["component"] != "Graph" {
		t.Errorf("report: %+v", rep)
	}
}

// A model that calls a tool the ToolsNode does not have: Eino's own
// error, CAPABILITY_NOT_FOUND by its text, reported from the tools node.
func TestUnknownToolIsClassified(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tools, err := compose.NewToolNode(t.Context(), &compose.ToolsNodeConfig{Tools: []tool.BaseTool{}})
	if err != nil {
		t.Fatal(err)
	}
	g := compose.NewGraph[*schema.Message, []*schema.Message]()
	g.AddToolsNode("tools", tools, compose.WithNodeName("tools"))
	g.AddEdge(compose.START, "tools")
	g.AddEdge("tools", compose.END)
	r, err := g.Compile(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	call := schema.AssistantMessage("", []schema.ToolCall{{ID: "call_1", Function: schema.FunctionCall{Name: "refund", Arguments: "{}"}}})
	_, err = r.Invoke(triageeino.WithQuery(t.Context(), "q_refund"), call, compose.WithCallbacks(b.h))
	if fault.CodeOf(err) != fault.CapabilityNotFound {
		t.Fatalf("the run's error: %v (%s)", err, fault.CodeOf(err))
	}
	recs := b.records(t)
	if len(recs) != 1 || recs[0].Data.ErrorCode != "CAPABILITY_NOT_FOUND" || recs[0].Data.Context["node"] != "tools" ||
		recs[0].Data.Context["classified_by"] != "text:eino:tool_not_found" {
		t.Errorf("records: %+v", recs)
	}
}

// An error inside the graph's output stream is reported once, from the
// run's outermost level.
func TestStreamErrorIsReported(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := modelGraph(t, &chatModel{err: fault.New(fault.ServiceUnavailable, "")})
	sr, err := r.Stream(triageeino.WithQuery(t.Context(), "q_stream"), question, compose.WithCallbacks(b.h))
	if err != nil {
		t.Fatal(err)
	}
	var got error
	for {
		if _, err := sr.Recv(); err != nil {
			if !errors.Is(err, io.EOF) {
				got = err
			}
			break
		}
	}
	sr.Close()
	if fault.CodeOf(got) != fault.ServiceUnavailable {
		t.Fatalf("the stream's error: %v", got)
	}
	select {
	case <-b.posted:
	case <-time.After(10 * time.Second):
		t.Fatal("no report")
	}
	recs := b.records(t)
	if len(recs) != 1 || recs[0].Data.ErrorCode != "SERVICE_UNAVAILABLE" || recs[0].Data.QueryID != "q_stream" ||
		recs[0].Data.Context["node"] != "support" {
		t.Errorf("records: %+v", recs)
	}
}

// An interrupt is a pause, not a failure: nothing is reported.
func TestInterruptIsNotReported(t *testing.T) {
	t.Parallel()
	b := setup(t)
	g := compose.NewGraph[string, string]()
	g.AddLambdaNode("approve", compose.InvokableLambda(func(context.Context, string) (string, error) {
		return "", compose.NewInterruptAndRerunErr("a refund needs approval")
	}))
	g.AddEdge(compose.START, "approve")
	g.AddEdge("approve", compose.END)
	r, err := g.Compile(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Invoke(t.Context(), "refund", compose.WithCallbacks(b.h))
	if err == nil || !triageeino.IsInterrupt(err) {
		t.Fatalf("the run's error: %v", err)
	}
	if recs := b.records(t); len(recs) != 0 {
		t.Errorf("an interrupt was reported: %+v", recs)
	}
}

// An ADK agent whose model fails after its retries: the agent's event
// carries adk.RetryExhaustedError, which Report classifies by the last
// error (RATE_LIMITED), with the number of attempts.
func TestADKRetriesExhausted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	m := &chatModel{err: fault.New(fault.RateLimited, "", fault.WithRetryAfter(time.Second))}
	agent, err := adk.NewChatModelAgent(t.Context(), &adk.ChatModelAgentConfig{Name: "support", Description: "answers customers",
		Model: m, ModelRetryConfig: &adk.ModelRetryConfig{MaxRetries: 2,
			BackoffFunc: func(context.Context, int) time.Duration { return 0 }}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := triageeino.WithQuery(t.Context(), "q_adk")
	events := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "Where is my order?")
	var failed error
	for {
		ev, ok := events.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			failed = ev.Err
		}
	}
	var exhausted *adk.RetryExhaustedError
	if !errors.As(failed, &exhausted) || m.calls != 3 {
		t.Fatalf("the agent's error: %v after %d calls", failed, m.calls)
	}
	b.h.Report(ctx, failed)
	recs := b.records(t)
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	f := recs[0].Data.Fault
	if recs[0].Data.ErrorCode != "RATE_LIMITED" || f == nil || f.Details["attempts"] != float64(3) ||
		recs[0].Data.QueryID != "q_adk" {
		t.Errorf("report: %+v (fault %+v)", recs[0], f)
	}
}
