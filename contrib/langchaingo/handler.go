package triagelangchaingo

import (
	"context"

	"github.com/tmc/langchaingo/callbacks"

	"github.com/triage-go/triage/contrib/internal/reporter"
)

// Handler is a LangChainGo callbacks.Handler that reports the failures of
// models, chains, agents and tools to the Error Handler service. Give it
// to the models (their WithCallback option), the chains
// (chains.WithCallback, or their CallbacksHandler) and the agents
// (agents.WithCallbacksHandler) it should watch. It is safe for concurrent
// use; Close it when the program ends, so that the reports still queued
// are posted.
type Handler struct {
	callbacks.SimpleHandler
	r *reporter.Reporter
}

var _ callbacks.Handler = (*Handler)(nil)

// NewHandler returns a Handler. It fails with a CONFIG_ERROR *fault.Error
// when cfg has no Client or its AgentID is not an identifier.
func NewHandler(cfg Config) (*Handler, error) {
	r, err := cfg.reporter()
	if err != nil {
		return nil, err
	}
	return &Handler{r: r}, nil
}

// Close stops taking reports and waits until those queued are posted, or
// ctx is done.
func (h *Handler) Close(ctx context.Context) error { return h.r.Close(ctx) }

// HandleLLMError reports a model's failure.
func (h *Handler) HandleLLMError(ctx context.Context, err error) { h.report(ctx, "LLM", err) }

// HandleChainError reports a chain's (or an agent executor's) failure,
// unless it is one reported already by the model or the chain inside it.
func (h *Handler) HandleChainError(ctx context.Context, err error) { h.report(ctx, "Chain", err) }

// HandleToolError reports a tool's failure.
func (h *Handler) HandleToolError(ctx context.Context, err error) { h.report(ctx, "Tool", err) }

func (h *Handler) report(ctx context.Context, component string, err error) {
	if err == nil || h.r.Seen(ctx, err) {
		return
	}
	_ = h.r.Report(ctx, reporter.Failure{Err: err, Component: component}) // logged by the reporter
}

// Report reports err, a failure no callback announced (an error of the
// work around the chain). Like the callbacks, it returns at once unless
// Config.Synchronous, and then returns the report's error.
func (h *Handler) Report(ctx context.Context, err error) error {
	if err == nil || h.r.Seen(ctx, err) {
		return nil
	}
	return h.r.Report(ctx, reporter.Failure{Err: err})
}
