package geminiagent

import (
	"context"

	"google.golang.org/genai"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/provider/gemini"
)

func init() {
	agent.RegisterProvider(agent.Provider{
		Kind:    agent.KindGemini,
		ID:      gemini.ProviderID,
		Name:    "Gemini",
		Env:     []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"},
		Wrap:    gemini.Wrap,
		Connect: connect,
	})
}

// refused are the finish reasons of an answer that Gemini's safety
// filters or policies stopped.
var refused = map[genai.FinishReason]bool{
	genai.FinishReasonSafety:                 true,
	genai.FinishReasonRecitation:             true,
	genai.FinishReasonBlocklist:              true,
	genai.FinishReasonProhibitedContent:      true,
	genai.FinishReasonSPII:                   true,
	genai.FinishReasonLanguage:               true,
	genai.FinishReasonImageSafety:            true,
	genai.FinishReasonImageProhibitedContent: true,
	genai.FinishReasonImageRecitation:        true,
}

// connect builds the agent's client and streams the Gemini API's
// GenerateContentStream.
func connect(ctx context.Context, key string, c agent.Config) (agent.Stream, error) {
	cfg := &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI}
	if c.BaseURL != "" {
		cfg.HTTPOptions.BaseURL = c.BaseURL
	}
	client, err := gemini.NewClient(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, history []agent.Turn, prompt string, delta func(string)) (agent.Ending, error) {
		gc := &genai.GenerateContentConfig{}
		if c.System != "" {
			gc.SystemInstruction = genai.NewContentFromText(c.System, genai.RoleUser)
		}
		if c.MaxTokens > 0 {
			gc.MaxOutputTokens = int32(min(c.MaxTokens, 1<<31-1))
		}
		var end agent.Ending
		for resp, err := range client.Models.GenerateContentStream(ctx, c.Model, contents(history, prompt), gc) {
			if err != nil {
				return end, err
			}
			if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
				end.Reason, end.Refused, end.Refusal = string(pf.BlockReason), true, pf.BlockReasonMessage
			}
			if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
				continue
			}
			cand := resp.Candidates[0]
			if cand.Content != nil {
				for _, p := range cand.Content.Parts {
					if p != nil && !p.Thought {
						delta(p.Text)
					}
				}
			}
			if cand.FinishReason != "" && cand.FinishReason != genai.FinishReasonUnspecified && !end.Refused {
				end.Reason = string(cand.FinishReason)
				end.Refused = refused[cand.FinishReason]
				end.Truncated = cand.FinishReason == genai.FinishReasonMaxTokens
				end.Refusal = cand.FinishMessage
			}
		}
		return end, nil
	}, nil
}

// contents is the conversation as contents: the history and the prompt
// (the system prompt is a setting of its own).
func contents(history []agent.Turn, prompt string) []*genai.Content {
	out := make([]*genai.Content, 0, 2*len(history)+1)
	for _, t := range history {
		out = append(out, genai.NewContentFromText(t.User, genai.RoleUser),
			genai.NewContentFromText(t.Assistant, genai.RoleModel))
	}
	return append(out, genai.NewContentFromText(prompt, genai.RoleUser))
}
