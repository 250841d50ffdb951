package openaiagent_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/provider/internal/agenttest"
	_ "github.com/triage-go/triage/provider/openai/openaiagent"
)

type jsonObj = agenttest.JSON

// fake speaks OpenAI's chat completions API, streamed.
var fake = agenttest.Fake{
	Kind: agent.KindOpenAI, ProviderID: "openai", Env: "OPENAI_API_KEY",
	Path: "/chat/completions",
	Key: func(h http.Header) string {
		k, _ := strings.CutPrefix(h.Get("Authorization"), "Bearer ")
		return k
	},
	Parse: func(body []byte) (string, []agenttest.Message, error) {
		var req struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
			Stream bool `json:"stream"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return "", nil, err
		}
		if !req.Stream {
			return "", nil, fmt.Errorf("not streamed")
		}
		var system string
		var msgs []agenttest.Message
		for _, m := range req.Messages {
			var text string
			if err := json.Unmarshal(m.Content, &text); err != nil {
				var parts []struct{ Text string }
				if err := json.Unmarshal(m.Content, &parts); err != nil {
					return "", nil, err
				}
				for _, p := range parts {
					text += p.Text
				}
			}
			if m.Role == "system" || m.Role == "developer" {
				system = text
				continue
			}
			msgs = append(msgs, agenttest.Message{Role: m.Role, Text: text})
		}
		return system, msgs, nil
	},
	Stream: func(w io.Writer, flush func(), chunks []string, finish string) {
		agenttest.SSEEvent(w, "", chunk(jsonObj{"role": "assistant", "content": ""}, nil))
		for _, c := range chunks {
			agenttest.SSEEvent(w, "", chunk(jsonObj{"content": c}, nil))
			flush()
		}
		if finish != "" {
			agenttest.SSEEvent(w, "", chunk(jsonObj{}, finish))
			fmt.Fprint(w, "data: [DONE]\n\n")
		}
		flush()
	},
	Finish: "stop",
	Refuse: func(w io.Writer) {
		agenttest.SSEEvent(w, "", chunk(jsonObj{"role": "assistant", "refusal": "I'm sorry, "}, nil))
		agenttest.SSEEvent(w, "", chunk(jsonObj{"refusal": "I can't help with that."}, nil))
		agenttest.SSEEvent(w, "", chunk(jsonObj{}, "stop"))
		fmt.Fprint(w, "data: [DONE]\n\n")
	},
	Fail: func(w http.ResponseWriter, status int, text string) {
		typ, code := "requests", "rate_limit_exceeded"
		if status == http.StatusUnauthorized {
			typ, code = "invalid_request_error", "invalid_api_key"
		}
		agenttest.JSONError(w, status, map[string]string{"Retry-After": "7"},
			jsonObj{"error": jsonObj{"message": text, "type": typ, "param": nil, "code": code}})
	},
}

// chunk is one chunk of a streamed chat completion.
func chunk(delta jsonObj, finish any) jsonObj {
	return jsonObj{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "test-model",
		"choices": []jsonObj{{"index": 0, "delta": delta, "finish_reason": finish}}}
}

func TestAgent(t *testing.T) { agenttest.Exercise(t, fake) }
