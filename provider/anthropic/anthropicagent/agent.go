package anthropicagent

import (
	"context"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/provider/anthropic"
)

func init() {
	agent.RegisterProvider(agent.Provider{
		Kind:    agent.KindAnthropic,
		ID:      anthropic.ProviderID,
		Name:    "Anthropic",
		Env:     []string{"ANTHROPIC_API_KEY"},
		Wrap:    anthropic.Wrap,
		Connect: connect,
	})
}

// DefaultMaxTokens bounds an answer when the agent's configuration does not
// (maxTokens): Anthropic's messages API requires a bound.
const DefaultMaxTokens = 4096

// connect builds the agent's client and streams Anthropic's messages.
func connect(_ context.Context, key string, c agent.Config) (agent.Stream, error) {
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
		maxTokens = DefaultMaxTokens
	}
	return func(ctx context.Context, history []agent.Turn, prompt string, delta func(string)) (agent.Ending, error) {
		params := sdk.MessageNewParams{Model: c.Model, MaxTokens: maxTokens, Messages: messages(history, prompt)}
		if c.System != "" {
			params.System = []sdk.TextBlockParam{{Text: c.System}}
		}
		stream := client.Messages.NewStreaming(ctx, params)
		defer stream.Close()
		var end agent.Ending
		for stream.Next() {
			ev := stream.Current()
			switch ev.Type {
			case "content_block_delta":
				if ev.Delta.Type == "text_delta" {
					delta(ev.Delta.Text)
				}
			case "message_delta":
				if ev.Delta.StopReason != "" {
					end.Reason = string(ev.Delta.StopReason)
					end.Refusal = ev.Delta.StopDetails.Explanation
				}
			}
		}
		if err := stream.Err(); err != nil {
			return end, err
		}
		switch sdk.StopReason(end.Reason) {
		case sdk.StopReasonRefusal:
			end.Refused = true
		case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
			end.Truncated = true
		}
		return end, nil
	}, nil
}

// messages is the conversation as messages: the history and the prompt
// (the system prompt is a parameter of its own).
func messages(history []agent.Turn, prompt string) []sdk.MessageParam {
	msgs := make([]sdk.MessageParam, 0, 2*len(history)+1)
	for _, t := range history {
		msgs = append(msgs, sdk.NewUserMessage(sdk.NewTextBlock(t.User)), sdk.NewAssistantMessage(sdk.NewTextBlock(t.Assistant)))
	}
	return append(msgs, sdk.NewUserMessage(sdk.NewTextBlock(prompt)))
}
