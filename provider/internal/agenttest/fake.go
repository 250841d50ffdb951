package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/agent"
)

// A Fake speaks one provider's HTTP API on a local port, enough of it for
// a provider agent: it records each request's conversation and answers by
// the prompt (the last user message):
//
//	rate limit    429, retry in 7s, as the provider words it
//	unauthorized  401 (its message echoes the key, as a hostile proxy might)
//	hang          the first chunk of an answer, then nothing until the client goes
//	refuse        the model refuses
//	empty         a finished answer without text
//	cut           chunks, then the stream ends without finishing
//	anything else "Answer", " to", " <prompt>", a chunk at a time, finished
type Fake struct {
	// Kind is the agents' kind; ProviderID the faults' details.providerId.
	Kind       agent.Kind
	ProviderID string
	// Env is the key's default environment variable.
	Env string
	// Path is the request path the agent must call (model "test-model").
	Path string
	// Key returns the key a request carries.
	Key func(http.Header) string
	// Parse reads a request body: the system prompt and the messages.
	Parse func(body []byte) (system string, msgs []Message, err error)
	// Stream writes an answer's chunks, one event each, then finish (the
	// provider's reason) unless it is "".
	Stream func(w io.Writer, flush func(), chunks []string, finish string)
	// Finish is the provider's reason for a complete answer.
	Finish string
	// Refuse writes a refusal.
	Refuse func(w io.Writer)
	// Fail writes an error answer of status (429 or 401), whose message
	// holds text.
	Fail func(w http.ResponseWriter, status int, text string)
}

// Message is one message of a conversation, its Role "user" or
// "assistant".
type Message struct{ Role, Text string }

// Request is what a fake recorded of one request.
type Request struct {
	System string
	Msgs   []Message
	Key    string
}

// Server is a Fake serving on a local port.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	requests []Request
}

// Requests returns the requests served so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Serve starts f on a local port until the test ends.
func (f Fake) Serve(t *testing.T) *Server {
	t.Helper()
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != f.Path {
			http.Error(w, `{"error":{"message":"no such path `+r.URL.Path+`"}}`, http.StatusNotFound)
			return
		}
		system, msgs, err := f.Parse(body)
		if err != nil || len(msgs) == 0 || msgs[len(msgs)-1].Role != "user" {
			http.Error(w, fmt.Sprintf(`{"error":{"message":"bad request: %v"}}`, err), http.StatusBadRequest)
			return
		}
		key := f.Key(r.Header)
		s.mu.Lock()
		s.requests = append(s.requests, Request{System: system, Msgs: msgs, Key: key})
		s.mu.Unlock()
		flush := func() { _ = http.NewResponseController(w).Flush() }
		sse := func() {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
		}
		switch prompt := msgs[len(msgs)-1].Text; prompt {
		case "rate limit":
			f.Fail(w, http.StatusTooManyRequests, "Rate limit reached for requests.")
		case "unauthorized":
			f.Fail(w, http.StatusUnauthorized, "Incorrect API key provided: "+key)
		case "hang":
			sse()
			f.Stream(w, flush, []string{"Thinking"}, "")
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		case "refuse":
			sse()
			f.Refuse(w)
		case "empty":
			sse()
			f.Stream(w, flush, nil, f.Finish)
		case "cut":
			sse()
			f.Stream(w, flush, []string{"Half", " an"}, "")
		default:
			sse()
			f.Stream(w, flush, []string{"Answer", " to", " " + prompt}, f.Finish)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// SSEEvent writes one server-sent event: its name, when not "", and data
// as JSON.
func SSEEvent(w io.Writer, name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	if name != "" {
		fmt.Fprintf(w, "event: %s\n", name)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
}

// JSONError writes an error answer: status, header and body as JSON.
func JSONError(w http.ResponseWriter, status int, header map[string]string, body any) {
	w.Header().Set("Content-Type", "application/json")
	for k, v := range header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// JSON is a JSON object, for writing fakes' answers.
type JSON = map[string]any
