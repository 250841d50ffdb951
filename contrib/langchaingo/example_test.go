package triagelangchaingo_test

import (
	"context"
	"fmt"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/prompts"

	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/contrib/internal/servicetest"
	triagelangchaingo "github.com/triage-go/triage/contrib/langchaingo"
	"github.com/triage-go/triage/fault"
)

// A LangChainGo chain whose model is rate limited: the handler reports the
// failure once (the model's and the chain's callbacks both see it) to the
// Error Handler service, where it becomes a record. (The example runs the
// service in-process, as triage serve runs it; an agent passes its
// service's URL and API key to client.New.)
func ExampleHandler() {
	svc, err := servicetest.Start(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer svc.Close()
	ctx := context.Background()

	c, err := client.New(svc.URL, client.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	h, err := triagelangchaingo.NewHandler(triagelangchaingo.Config{AgentID: "research_agent", Client: c})
	if err != nil {
		fmt.Println(err)
		return
	}

	llm := &failingLLM{CallbacksHandler: h, err: llms.NewError(llms.ErrCodeRateLimit, "openai", "rate limit exceeded")}
	chain := chains.NewLLMChain(llm, prompts.NewPromptTemplate("Answer: {{.question}}", []string{"question"}), chains.WithCallback(h))
	_, err = chains.Call(triagelangchaingo.WithQuery(ctx, "q_research_7"), chain, map[string]any{"question": "What changed in v2?"})
	f := fault.From(err)
	fmt.Println("the chain failed:", f.Code, "retryable:", f.Retryable)

	h.Close(ctx) // posts what is queued
	page, err := c.Errors(ctx, client.ErrorQuery{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, rec := range page.Records {
		fmt.Println(rec.ErrorID, rec.Code, rec.QueryID, rec.Count)
		fmt.Println(rec.Title)
	}
	// Output:
	// the chain failed: RATE_LIMITED retryable: true
	// err_8690c80ab7d35918 RATE_LIMITED q_research_7 1
	// RATE_LIMITED: openai: rate_limit: rate limit exceeded
}
