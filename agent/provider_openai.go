package agent

import (
	"context"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/triage-go/triage/provider/openai"
)

// openaiKind calls OpenAI's chat completions, streaming.
var openaiKind = providerKind{
	id:      openai.ProviderID,
	name:    "OpenAI",
	env:     []string{"OPENAI_API_KEY"},
	wrap:    openai.Wrap,
	connect: connectOpenAI,
}

func connectOpenAI(_ context.Context, key string, c Config) (streamFunc, error) {
	var opts []option.RequestOption
	if c.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(c.BaseURL))
	}
	client, err := openai.NewClient(key, opts...)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, history []turn, prompt string, delta func(string)) (ending, error) {
		params := sdk.ChatCompletionNewParams{Model: c.Model, Messages: openaiMessages(c.System, history, prompt)}
		if c.MaxTokens > 0 {
			params.MaxCompletionTokens = sdk.Int(int64(c.MaxTokens))
		}
		stream := client.Chat.Completions.NewStreaming(ctx, params)
		defer stream.Close()
		var (
			end     ending
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
					end.reason = choice.FinishReason
				}
			}
		}
		if err := stream.Err(); err != nil {
			return end, err
		}
		switch {
		case refusal.Len() > 0, end.reason == "content_filter":
			end.refused, end.refusal = true, refusal.String()
		case end.reason == "length":
			end.truncated = true
		}
		return end, nil
	}, nil
}

// openaiMessages is the conversation as chat messages: the system prompt,
// the history and the prompt.
func openaiMessages(system string, history []turn, prompt string) []sdk.ChatCompletionMessageParamUnion {
	msgs := make([]sdk.ChatCompletionMessageParamUnion, 0, 2*len(history)+2)
	if system != "" {
		msgs = append(msgs, sdk.SystemMessage(system))
	}
	for _, t := range history {
		msgs = append(msgs, sdk.UserMessage(t.user), sdk.AssistantMessage(t.assistant))
	}
	return append(msgs, sdk.UserMessage(prompt))
}
