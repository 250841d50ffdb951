package triagelangchaingo_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"
	"github.com/tmc/langchaingo/prompts"
	"github.com/tmc/langchaingo/tools"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/contrib/internal/servicetest"
	triagelangchaingo "github.com/triage-go/triage/contrib/langchaingo"
	"github.com/triage-go/triage/fault"
)

const key = "agent-key-0123456789abcdef"

type testBundle struct {
	c *client.Client
	h *triagelangchaingo.Handler
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	svc, err := servicetest.Start(map[string]string{key: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	b := &testBundle{}
	if b.c, err = client.New(svc.URL, client.Config{APIKey: key}); err != nil {
		t.Fatal(err)
	}
	b.h, err = triagelangchaingo.NewHandler(triagelangchaingo.Config{AgentID: "research_agent", Client: b.c,
		Logger: slog.New(slog.DiscardHandler),
		OnReport: func(_ *triage.Report, _ *triage.Feedback, err error) {
			if err != nil {
				t.Errorf("report: %v", err)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.h.Close(context.Background()) })
	return b
}

// records closes the handler (posting what is queued) and returns the
// latest report of each of the service's records.
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

// failingLLM is a fake llms.Model that fails with err, telling its
// callbacks handler as LangChainGo's providers do.
type failingLLM struct {
	CallbacksHandler callbacks.Handler
	err              error
}

func (m *failingLLM) GenerateContent(ctx context.Context, _ []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	if m.CallbacksHandler != nil {
		m.CallbacksHandler.HandleLLMError(ctx, m.err)
	}
	return nil, m.err
}

func (m *failingLLM) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// A model rate limited inside an LLM chain: the model and the chain both
// fail, one record results: RATE_LIMITED, from the model, its provider
// named.
func TestChainFailureBecomesOneRecord(t *testing.T) {
	t.Parallel()
	b := setup(t)
	llm := &failingLLM{CallbacksHandler: b.h, err: llms.NewError(llms.ErrCodeRateLimit, "openai", "rate limit exceeded")}
	chain := chains.NewLLMChain(llm, prompts.NewPromptTemplate("Answer: {{.question}}", []string{"question"}), chains.WithCallback(b.h))
	ctx := triagelangchaingo.WithRun(triagelangchaingo.WithQuery(t.Context(), "q_research_7"), "run_9")
	_, err := chains.Call(ctx, chain, map[string]any{"question": "What changed in v2?"})
	if fault.CodeOf(err) != fault.RateLimited {
		t.Fatalf("the chain's error: %v (%s)", err, fault.CodeOf(err))
	}
	recs := b.records(t)
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1: %+v", len(recs), recs)
	}
	rep := recs[0]
	f := rep.Data.Fault
	if rep.Data.ErrorCode != "RATE_LIMITED" || rep.Data.QueryID != "q_research_7" || f == nil || !f.Retryable ||
		f.Source != "openai" || f.Details["providerId"] != "openai" || rep.Data.Context["component"] != "LLM" ||
		rep.Data.Context["run_id"] != "run_9" || rep.Data.Context["classified_by"] != "classifier:langchaingo:llms.rate_limit" ||
		rep.Data.Message != "openai: rate_limit: rate limit exceeded" {
		t.Errorf("report: %+v (fault %+v)", rep, f)
	}
}

// An agent whose model answers in no format the agent reads (LangChainGo's
// own fake model): agents.ErrUnableToParseOutput, PROTOCOL_ERROR, from
// the executor's chain.
func TestAgentParseFailure(t *testing.T) {
	t.Parallel()
	b := setup(t)
	llm := fake.NewFakeLLM([]string{"I would rather not say."})
	executor := agents.NewExecutor(agents.NewOneShotAgent(llm, []tools.Tool{tools.Calculator{}}), agents.WithCallbacksHandler(b.h))
	_, err := chains.Run(t.Context(), executor, "What is 6 times 7?")
	if !errors.Is(err, agents.ErrUnableToParseOutput) {
		t.Fatalf("the agent's error: %v", err)
	}
	recs := b.records(t)
	if len(recs) != 1 || recs[0].Data.ErrorCode != "PROTOCOL_ERROR" || recs[0].Data.Context["component"] != "Chain" ||
		recs[0].Data.QueryID != "langchaingo:run" {
		t.Errorf("records: %+v", recs)
	}
}

// A chain called without its inputs: INVALID_REQUEST.
func TestMissingInputs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	chain := chains.NewLLMChain(fake.NewFakeLLM([]string{"ok"}), prompts.NewPromptTemplate("{{.question}}", []string{"question"}),
		chains.WithCallback(b.h))
	_, err := chains.Call(triagelangchaingo.WithQuery(t.Context(), "q_1"), chain, map[string]any{"topic": "x"})
	if fault.CodeOf(err) != fault.InvalidRequest {
		t.Fatalf("the chain's error: %v", err)
	}
	recs := b.records(t)
	if len(recs) != 1 || recs[0].Data.ErrorCode != "INVALID_REQUEST" ||
		recs[0].Data.Context["classified_by"] != "classifier:langchaingo:missing_input_values" {
		t.Errorf("records: %+v", recs)
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	for code, want := range map[llms.ErrorCode]fault.Code{
		llms.ErrCodeAuthentication: fault.ProviderAuthFailed, llms.ErrCodeQuotaExceeded: fault.QuotaExhausted,
		llms.ErrCodeContentFilter: fault.ContentRefused, llms.ErrCodeTokenLimit: fault.PayloadTooLarge,
		llms.ErrCodeProviderUnavailable: fault.ServiceUnavailable, llms.ErrCodeTimeout: fault.Timeout,
	} {
		if f := fault.From(llms.NewError(code, "", "x")); f.Code != want {
			t.Errorf("%s: %s, want %s", code, f.Code, want)
		}
	}
	// An unknown code is its cause's to classify.
	if f := fault.From(llms.NewError(llms.ErrCodeUnknown, "x", "y").WithCause(context.Canceled)); f.Code != fault.Cancelled {
		t.Errorf("unknown with a cancelled cause: %s", f.Code)
	}
	if f := fault.From(agents.ErrNotFinished); f.Code != fault.AgentExecutionError || f.Classification.Rule != "langchaingo:not_finished" {
		t.Errorf("not finished: %+v", f)
	}
	if _, ok := triagelangchaingo.Classify(errors.New("boom")); ok {
		t.Error("an unknown error is classified")
	}
}
