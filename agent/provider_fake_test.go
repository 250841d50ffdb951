package agent_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/agent"
)

// A providerFake speaks one provider's HTTP API on a local port, enough of
// it for a provider agent: it records each request's conversation and
// answers by the prompt (the last user message):
//
//	rate limit    429, retry in 7s, as the provider words it
//	unauthorized  401 (its message echoes the key, as a hostile proxy might)
//	hang          the first chunk of an answer, then nothing until the client goes
//	refuse        the model refuses
//	empty         a finished answer without text
//	cut           chunks, then the stream ends without finishing
//	anything else "Answer", " to", " <prompt>", a chunk at a time, finished
type providerFake struct {
	name       string
	kind       agent.Kind
	providerID string
	env        string // the key's default environment variable
	// path is the request path the agent must call (model "test-model").
	path string
	// key returns the key a request carries.
	key func(http.Header) string
	// parse reads a request body: the system prompt and the messages.
	parse func(body []byte) (system string, msgs []fakeMessage, err error)
	// stream writes an answer's chunks, one event each, then finish
	// (the provider's reason) unless it is "".
	stream func(w io.Writer, flush func(), chunks []string, finish string)
	// finish is the provider's reason for a complete answer.
	finish string
	// refuse writes a refusal.
	refuse func(w io.Writer)
	// fail writes an error answer of status (429 or 401), whose message
	// holds text.
	fail func(w http.ResponseWriter, status int, text string)
}

// fakeMessage is one message of a conversation, its role "user" or
// "assistant".
type fakeMessage struct{ role, text string }

// fakeRequest is what a fake recorded of one request.
type fakeRequest struct {
	system string
	msgs   []fakeMessage
	key    string
}

type fakeProviderServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []fakeRequest
}

func (s *fakeProviderServer) Requests() []fakeRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]fakeRequest(nil), s.requests...)
}

func (f providerFake) serve(t *testing.T) *fakeProviderServer {
	t.Helper()
	s := &fakeProviderServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != f.path {
			http.Error(w, `{"error":{"message":"no such path `+r.URL.Path+`"}}`, http.StatusNotFound)
			return
		}
		system, msgs, err := f.parse(body)
		if err != nil || len(msgs) == 0 || msgs[len(msgs)-1].role != "user" {
			http.Error(w, fmt.Sprintf(`{"error":{"message":"bad request: %v"}}`, err), http.StatusBadRequest)
			return
		}
		key := f.key(r.Header)
		s.mu.Lock()
		s.requests = append(s.requests, fakeRequest{system: system, msgs: msgs, key: key})
		s.mu.Unlock()
		flush := func() { _ = http.NewResponseController(w).Flush() }
		sse := func() {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
		}
		switch prompt := msgs[len(msgs)-1].text; prompt {
		case "rate limit":
			f.fail(w, http.StatusTooManyRequests, "Rate limit reached for requests.")
		case "unauthorized":
			f.fail(w, http.StatusUnauthorized, "Incorrect API key provided: "+key)
		case "hang":
			sse()
			f.stream(w, flush, []string{"Thinking"}, "")
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		case "refuse":
			sse()
			f.refuse(w)
		case "empty":
			sse()
			f.stream(w, flush, nil, f.finish)
		case "cut":
			sse()
			f.stream(w, flush, []string{"Half", " an"}, "")
		default:
			sse()
			f.stream(w, flush, []string{"Answer", " to", " " + prompt}, f.finish)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func sseEvent(w io.Writer, name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	if name != "" {
		fmt.Fprintf(w, "event: %s\n", name)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
}

func fakeJSONError(w http.ResponseWriter, status int, header map[string]string, body any) {
	w.Header().Set("Content-Type", "application/json")
	for k, v := range header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

type jsonObj = map[string]any

var openaiFake = providerFake{
	name: "openai", kind: agent.KindOpenAI, providerID: "openai", env: "OPENAI_API_KEY",
	path: "/chat/completions",
	key: func(h http.Header) string {
		k, _ := strings.CutPrefix(h.Get("Authorization"), "Bearer ")
		return k
	},
	parse: func(body []byte) (string, []fakeMessage, error) {
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
		var msgs []fakeMessage
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
			msgs = append(msgs, fakeMessage{m.Role, text})
		}
		return system, msgs, nil
	},
	stream: func(w io.Writer, flush func(), chunks []string, finish string) {
		chunk := func(delta jsonObj, finish any) jsonObj {
			return jsonObj{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "test-model",
				"choices": []jsonObj{{"index": 0, "delta": delta, "finish_reason": finish}}}
		}
		sseEvent(w, "", chunk(jsonObj{"role": "assistant", "content": ""}, nil))
		for _, c := range chunks {
			sseEvent(w, "", chunk(jsonObj{"content": c}, nil))
			flush()
		}
		if finish != "" {
			sseEvent(w, "", chunk(jsonObj{}, finish))
			fmt.Fprint(w, "data: [DONE]\n\n")
		}
		flush()
	},
	finish: "stop",
	refuse: func(w io.Writer) {
		chunk := func(delta jsonObj, finish any) jsonObj {
			return jsonObj{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "test-model",
				"choices": []jsonObj{{"index": 0, "delta": delta, "finish_reason": finish}}}
		}
		sseEvent(w, "", chunk(jsonObj{"role": "assistant", "refusal": "I'm sorry, "}, nil))
		sseEvent(w, "", chunk(jsonObj{"refusal": "I can't help with that."}, nil))
		sseEvent(w, "", chunk(jsonObj{}, "stop"))
		fmt.Fprint(w, "data: [DONE]\n\n")
	},
	fail: func(w http.ResponseWriter, status int, text string) {
		typ, code := "requests", "rate_limit_exceeded"
		if status == http.StatusUnauthorized {
			typ, code = "invalid_request_error", "invalid_api_key"
		}
		fakeJSONError(w, status, map[string]string{"Retry-After": "7"},
			jsonObj{"error": jsonObj{"message": text, "type": typ, "param": nil, "code": code}})
	},
}

var anthropicFake = providerFake{
	name: "anthropic", kind: agent.KindAnthropic, providerID: "anthropic", env: "ANTHROPIC_API_KEY",
	path: "/v1/messages",
	key:  func(h http.Header) string { return h.Get("X-Api-Key") },
	parse: func(body []byte) (string, []fakeMessage, error) {
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
		var msgs []fakeMessage
		for _, m := range req.Messages {
			var s string
			for _, c := range m.Content {
				s += c.Text
			}
			msgs = append(msgs, fakeMessage{m.Role, s})
		}
		return system, msgs, nil
	},
	stream: func(w io.Writer, flush func(), chunks []string, finish string) {
		fakeAnthropicStart(w)
		sseEvent(w, "content_block_start", jsonObj{"type": "content_block_start", "index": 0, "content_block": jsonObj{"type": "text", "text": ""}})
		for _, c := range chunks {
			sseEvent(w, "content_block_delta", jsonObj{"type": "content_block_delta", "index": 0, "delta": jsonObj{"type": "text_delta", "text": c}})
			flush()
		}
		if finish != "" {
			fakeAnthropicStop(w, finish)
		}
		flush()
	},
	finish: "end_turn",
	refuse: func(w io.Writer) {
		fakeAnthropicStart(w)
		fakeAnthropicStop(w, "refusal")
	},
	fail: func(w http.ResponseWriter, status int, text string) {
		typ := "rate_limit_error"
		if status == http.StatusUnauthorized {
			typ = "authentication_error"
		}
		fakeJSONError(w, status, map[string]string{"Retry-After": "7", "request-id": "req_1"},
			jsonObj{"type": "error", "error": jsonObj{"type": typ, "message": text}})
	},
}

func fakeAnthropicStart(w io.Writer) {
	sseEvent(w, "message_start", jsonObj{"type": "message_start", "message": jsonObj{"id": "msg_1", "type": "message", "role": "assistant",
		"model": "test-model", "content": []jsonObj{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": jsonObj{"input_tokens": 5, "output_tokens": 1}}})
	sseEvent(w, "ping", jsonObj{"type": "ping"})
}

func fakeAnthropicStop(w io.Writer, reason string) {
	sseEvent(w, "content_block_stop", jsonObj{"type": "content_block_stop", "index": 0})
	sseEvent(w, "message_delta", jsonObj{"type": "message_delta", "delta": jsonObj{"stop_reason": reason, "stop_sequence": nil},
		"usage": jsonObj{"output_tokens": 3}})
	sseEvent(w, "message_stop", jsonObj{"type": "message_stop"})
}

var geminiFake = providerFake{
	name: "gemini", kind: agent.KindGemini, providerID: "google-gemini", env: "GEMINI_API_KEY",
	path: "/v1beta/models/test-model:streamGenerateContent",
	key:  func(h http.Header) string { return h.Get("X-Goog-Api-Key") },
	parse: func(body []byte) (string, []fakeMessage, error) {
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
		var msgs []fakeMessage
		for _, c := range req.Contents {
			role := c.Role
			if role == "model" {
				role = "assistant"
			}
			msgs = append(msgs, fakeMessage{role, text(c)})
		}
		return system, msgs, nil
	},
	stream: func(w io.Writer, flush func(), chunks []string, finish string) {
		for i, c := range chunks {
			cand := jsonObj{"content": jsonObj{"role": "model", "parts": []jsonObj{{"text": c}}}, "index": 0}
			if i == len(chunks)-1 && finish != "" {
				cand["finishReason"] = finish
			}
			sseEvent(w, "", jsonObj{"candidates": []jsonObj{cand}})
			flush()
		}
		if len(chunks) == 0 && finish != "" {
			sseEvent(w, "", jsonObj{"candidates": []jsonObj{{"content": jsonObj{"role": "model", "parts": []jsonObj{}}, "finishReason": finish, "index": 0}}})
		}
		flush()
	},
	finish: "STOP",
	refuse: func(w io.Writer) {
		sseEvent(w, "", jsonObj{"candidates": []jsonObj{{"finishReason": "SAFETY", "index": 0,
			"safetyRatings": []jsonObj{{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true}}}}})
	},
	fail: func(w http.ResponseWriter, status int, text string) {
		e := jsonObj{"code": status, "message": text, "status": "UNAUTHENTICATED"}
		if status == http.StatusTooManyRequests {
			e["status"] = "RESOURCE_EXHAUSTED"
			e["details"] = []jsonObj{{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}}
		}
		fakeJSONError(w, status, nil, jsonObj{"error": e})
	},
}

var providerFakes = []providerFake{openaiFake, anthropicFake, geminiFake}
