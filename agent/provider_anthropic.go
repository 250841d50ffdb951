package agent

import (
	"context"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/triage-go/triage/provider/anthropic"
)

// anthropicKind calls Anthropic's messages API, streaming.
var anthropicKind = providerKind{
	id:      anthropic.ProviderID,
	name:    "Anthropic",
	env:     []string{"ANTHROPIC_API_KEY"},
	wrap:    anthropic.Wrap,
	connect: connectAnthropic,
}

func connectAnthropic(_ context.Context, key string, c Config) (streamFunc, error) {
	var opts []option.RequestOption
	if c.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(c.BaseURL))
	}
	client, err := anthropic.NewClient(key, opts...)
	if err != nil {
		return nil, err
	}
	maxTokens := int64(c.MaxTokens)
	if maxTokens <= 0 {
		maxTokens = defaultMaxTokens
	}
	return func(ctx context.Context, history []turn, prompt string, delta func(string)) (ending, error) {
		params := sdk.MessageNewParams{Model: c.Model, MaxTokens: maxTokens, Messages: anthropicMessages(history, prompt)}
		if c.System != "" {
			params.System = []sdk.TextBlockParam{{Text: c.System}}
		}
		stream := client.Messages.NewStreaming(ctx, params)
		defer stream.Close()
		var end ending
		for stream.Next() {
			ev := stream.Current()
			switch ev.Type {
			case "content_block_delta":
				if ev.Delta.Type == "text_delta" {
					delta(ev.Delta.Text)
				}
			case "message_delta":
				if ev.Delta.StopReason != "" {
					end.reason = string(ev.Delta.StopReason)
					end.refusal = ev.Delta.StopDetails.Explanation
				}
			}
		}
		if err := stream.Err(); err != nil {
			return end, err
		}
		switch sdk.StopReason(end.reason) {
		case sdk.StopReasonRefusal:
			end.refused = true
		case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
			end.truncated = true
		}
		return end, nil
	}, nil
}

// anthropicMessages is the conversation as messages: the history and the
// prompt (the system prompt is a parameter of its own).
func anthropicMessages(history []turn, prompt string) []sdk.MessageParam {
	msgs := make([]sdk.MessageParam, 0, 2*len(history)+1)
	for _, t := range history {
		msgs = append(msgs, sdk.NewUserMessage(sdk.NewTextBlock(t.user)), sdk.NewAssistantMessage(sdk.NewTextBlock(t.assistant)))
	}
	return append(msgs, sdk.NewUserMessage(sdk.NewTextBlock(prompt)))
}
