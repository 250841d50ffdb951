package geminiagent_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/triage-go/triage/agent"
	_ "github.com/triage-go/triage/provider/gemini/geminiagent"
	"github.com/triage-go/triage/provider/internal/agenttest"
)

type jsonObj = agenttest.JSON

// fake speaks the Gemini API's streamGenerateContent.
var fake = agenttest.Fake{
	Kind: agent.KindGemini, ProviderID: "google-gemini", Env: "GEMINI_API_KEY",
	Path: "/v1beta/models/test-model:streamGenerateContent",
	Key:  func(h http.Header) string { return h.Get("X-Goog-Api-Key") },
	Parse: func(body []byte) (string, []agenttest.Message, error) {
		type content struct {
			Role  string `json:"role"`
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		}
		var req struct {
			Contents          []content `json:"contents"`
			SystemInstruction *content  `json:"systemInstruction"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return "", nil, err
		}
		text := func(c content) string {
			var s string
			for _, p := range c.Parts {
				s += p.Text
			}
			return s
		}
		var system string
		if req.SystemInstruction != nil {
			system = text(*req.SystemInstruction)
		}
		var msgs []agenttest.Message
		for _, c := range req.Contents {
			role := c.Role
			if role == "model" {
				role = "assistant"
			}
			msgs = append(msgs, agenttest.Message{Role: role, Text: text(c)})
		}
		return system, msgs, nil
	},
	Stream: func(w io.Writer, flush func(), chunks []string, finish string) {
		for i, c := range chunks {
			cand := jsonObj{"content": jsonObj{"role": "model", "parts": []jsonObj{{"text": c}}}, "index": 0}
			if i == len(chunks)-1 && finish != "" {
				cand["finishReason"] = finish
			}
			agenttest.SSEEvent(w, "", jsonObj{"candidates": []jsonObj{cand}})
			flush()
		}
		if len(chunks) == 0 && finish != "" {
			agenttest.SSEEvent(w, "", jsonObj{"candidates": []jsonObj{{"content": jsonObj{"role": "model", "parts": []jsonObj{}}, "finishReason": finish, "index": 0}}})
		}
		flush()
	},
	Finish: "STOP",
	Refuse: func(w io.Writer) {
		agenttest.SSEEvent(w, "", jsonObj{"candidates": []jsonObj{{"finishReason": "SAFETY", "index": 0,
			"safetyRatings": []jsonObj{{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true}}}}})
	},
	Fail: func(w http.ResponseWriter, status int, text string) {
		e := jsonObj{"code": status, "message": text, "status": "UNAUTHENTICATED"}
		if status == http.StatusTooManyRequests {
			e["status"] = "RESOURCE_EXHAUSTED"
			e["details"] = []jsonObj{{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}}
		}
		agenttest.JSONError(w, status, nil, jsonObj{"error": e})
	},
}

func TestAgent(t *testing.T) { agenttest.Exercise(t, fake) }

// Without GEMINI_API_KEY, the key is GOOGLE_API_KEY's, as Google's SDKs
// read it.
func TestGoogleAPIKey(t *testing.T) {
	t.Parallel()
	if _, err := agenttest.Start(t, fake, "http://127.0.0.1:1", agent.ManagerConfig{}, func(_ *agent.Config, vars map[string]string) {
		vars["GEMINI_API_KEY"], vars["GOOGLE_API_KEY"] = "", agenttest.TestKey
	}); err != nil {
		t.Errorf("with GOOGLE_API_KEY: %v", err)
	}
}
