package openaiagent

import (
	"context"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/provider/openai"
)

func init() {
	agent.RegisterProvider(agent.Provider{
		Kind:    agent.KindOpenAI,
		ID:      openai.ProviderID,
		Name:    "OpenAI",
		Env:     []string{"OPENAI_API_KEY"},
		Wrap:    openai.Wrap,
		Connect: connect,
	})
}

// connect builds the agent's client and streams OpenAI's chat
// completions.
func connect(_ context.Context, key string, c agent.Config) (agent.Stream, error) {
	var opts []option.RequestOption
	if c.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(c.BaseURL))
	}
	client, err := openai.NewClient(key, opts...)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, history []agent.Turn, prompt string, delta func(string)) (agent.Ending, error) {
		params := sdk.ChatCompletionNewParams{Model: c.Model, Messages: messages(c.System, history, prompt)}
		if c.MaxTokens > 0 {
			params.MaxCompletionTokens = sdk.Int(int64(c.MaxTokens))
		}
		stream := client.Chat.Completions.NewStreaming(ctx, params)
		defer stream.Close()
		var (
			end     agent.Ending
			refusal strings.Builder
		)
		for stream.Next() {
			chunk := stream.Current()
			for _, choice := range chunk.Choices {
				if choice.Index != 0 {
					continue // one answer was asked for
				}
				delta(choice.Delta.Content)
				refusal.WriteString(choice.Delta.Refusal)
				if choice.FinishReason != "" {
					end.Reason = choice.FinishReason
				}
			}
		}
		if err := stream.Err(); err != nil {
			return end, err
		}
		switch {
		case refusal.Len() > 0, end.Reason == "content_filter":
			end.Refused, end.Refusal = true, refusal.String()
		case end.Reason == "length":
			end.Truncated = true
		}
		return end, nil
	}, nil
}

// messages is the conversation as chat messages: the system prompt, the
// history and the prompt.
func messages(system string, history []agent.Turn, prompt string) []sdk.ChatCompletionMessageParamUnion {
	msgs := make([]sdk.ChatCompletionMessageParamUnion, 0, 2*len(history)+2)
	if system != "" {
		msgs = append(msgs, sdk.SystemMessage(system))
	}
	for _, t := range history {
		msgs = append(msgs, sdk.UserMessage(t.User), sdk.AssistantMessage(t.Assistant))
	}
	return append(msgs, sdk.UserMessage(prompt))
}
