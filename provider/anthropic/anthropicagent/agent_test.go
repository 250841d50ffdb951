package anthropicagent_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/triage-go/triage/agent"
	_ "github.com/triage-go/triage/provider/anthropic/anthropicagent"
	"github.com/triage-go/triage/provider/internal/agenttest"
)

type jsonObj = agenttest.JSON

// fake speaks Anthropic's messages API, streamed.
var fake = agenttest.Fake{
	Kind: agent.KindAnthropic, ProviderID: "anthropic", Env: "ANTHROPIC_API_KEY",
	Path: "/v1/messages",
	Key:  func(h http.Header) string { return h.Get("X-Api-Key") },
	Parse: func(body []byte) (string, []agenttest.Message, error) {
		type text struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		var req struct {
			System   []text `json:"system"`
			Messages []struct {
				Role    string `json:"role"`
				Content []text `json:"content"`
			} `json:"messages"`
			MaxTokens int  `json:"max_tokens"`
			Stream    bool `json:"stream"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return "", nil, err
		}
		if !req.Stream || req.MaxTokens <= 0 {
			return "", nil, fmt.Errorf("stream %v, max_tokens %d", req.Stream, req.MaxTokens)
		}
		var system string
		for _, s := range req.System {
			system += s.Text
		}
		var msgs []agenttest.Message
		for _, m := range req.Messages {
			var s string
			for _, c := range m.Content {
				s += c.Text
			}
			msgs = append(msgs, agenttest.Message{Role: m.Role, Text: s})
		}
		return system, msgs, nil
	},
	Stream: func(w io.Writer, flush func(), chunks []string, finish string) {
		start(w)
		agenttest.SSEEvent(w, "content_block_start", jsonObj{"type": "content_block_start", "index": 0, "content_block": jsonObj{"type": "text", "text": ""}})
		for _, c := range chunks {
			agenttest.SSEEvent(w, "content_block_delta", jsonObj{"type": "content_block_delta", "index": 0, "delta": jsonObj{"type": "text_delta", "text": c}})
			flush()
		}
		if finish != "" {
			stop(w, finish)
		}
		flush()
	},
	Finish: "end_turn",
	Refuse: func(w io.Writer) {
		start(w)
		stop(w, "refusal")
	},
	Fail: func(w http.ResponseWriter, status int, text string) {
		typ := "rate_limit_error"
		if status == http.StatusUnauthorized {
			typ = "authentication_error"
		}
		agenttest.JSONError(w, status, map[string]string{"Retry-After": "7", "request-id": "req_1"},
			jsonObj{"type": "error", "error": jsonObj{"type": typ, "message": text}})
	},
}

func start(w io.Writer) {
	agenttest.SSEEvent(w, "message_start", jsonObj{"type": "message_start", "message": jsonObj{"id": "msg_1", "type": "message", "role": "assistant",
		"model": "test-model", "content": []jsonObj{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": jsonObj{"input_tokens": 5, "output_tokens": 1}}})
	agenttest.SSEEvent(w, "ping", jsonObj{"type": "ping"})
}

func stop(w io.Writer, reason string) {
	agenttest.SSEEvent(w, "content_block_stop", jsonObj{"type": "content_block_stop", "index": 0})
	agenttest.SSEEvent(w, "message_delta", jsonObj{"type": "message_delta", "delta": jsonObj{"stop_reason": reason, "stop_sequence": nil},
		"usage": jsonObj{"output_tokens": 3}})
	agenttest.SSEEvent(w, "message_stop", jsonObj{"type": "message_stop"})
}

func TestAgent(t *testing.T) { agenttest.Exercise(t, fake) }
