package agent

import (
	"context"

	"google.golang.org/genai"

	"github.com/triage-go/triage/provider/gemini"
)

// geminiKind calls the Gemini API's GenerateContentStream.
var geminiKind = providerKind{
	id:      gemini.ProviderID,
	name:    "Gemini",
	env:     []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"},
	wrap:    gemini.Wrap,
	connect: connectGemini,
}

// geminiRefused are the finish reasons of an answer that Gemini's safety
// filters or policies stopped.
var geminiRefused = map[genai.FinishReason]bool{
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

func connectGemini(ctx context.Context, key string, c Config) (streamFunc, error) {
	cfg := &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI}
	if c.BaseURL != "" {
		cfg.HTTPOptions.BaseURL = c.BaseURL
	}
	client, err := gemini.NewClient(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, history []turn, prompt string, delta func(string)) (ending, error) {
		gc := &genai.GenerateContentConfig{}
		if c.System != "" {
			gc.SystemInstruction = genai.NewContentFromText(c.System, genai.RoleUser)
		}
		if c.MaxTokens > 0 {
			gc.MaxOutputTokens = int32(min(c.MaxTokens, 1<<31-1))
		}
		var end ending
		for resp, err := range client.Models.GenerateContentStream(ctx, c.Model, geminiContents(history, prompt), gc) {
			if err != nil {
				return end, err
			}
			if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
				end.reason, end.refused, end.refusal = string(pf.BlockReason), true, pf.BlockReasonMessage
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
			if cand.FinishReason != "" && cand.FinishReason != genai.FinishReasonUnspecified && !end.refused {
				end.reason = string(cand.FinishReason)
				end.refused = geminiRefused[cand.FinishReason]
				end.truncated = cand.FinishReason == genai.FinishReasonMaxTokens
				end.refusal = cand.FinishMessage
			}
		}
		return end, nil
	}, nil
}

// geminiContents is the conversation as contents: the history and the
// prompt (the system prompt is a setting of its own).
func geminiContents(history []turn, prompt string) []*genai.Content {
	contents := make([]*genai.Content, 0, 2*len(history)+1)
	for _, t := range history {
		contents = append(contents, genai.NewContentFromText(t.user, genai.RoleUser),
			genai.NewContentFromText(t.assistant, genai.RoleModel))
	}
	return append(contents, genai.NewContentFromText(prompt, genai.RoleUser))
}
