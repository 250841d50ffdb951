package problem_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/problem"
)

func TestHandlerFunc(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		handler    http.Handler
		wantStatus int
		wantBody   string // a substring
		wantType   string
	}{
		{
			name: "success untouched",
			handler: problem.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(http.StatusCreated)
				io.WriteString(w, "created")
				return nil
			}),
			wantStatus: 201,
			wantBody:   "created",
			wantType:   "text/plain",
		},
		{
			name: "error",
			handler: problem.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
				return fault.New(fault.SessionNotFound, "")
			}),
			wantStatus: 404,
			wantBody:   `"code":"SESSION_NOT_FOUND"`,
			wantType:   problem.ContentType,
		},
		{
			name: "options",
			handler: problem.Handler(func(w http.ResponseWriter, r *http.Request) error {
				return errors.New("db: password=hunter2 refused")
			}, &problem.Options{Debug: true, BaseURI: "https://triage.example/"}),
			wantStatus: 500,
			wantBody:   `"cause":"db: password=[REDACTED] refused"`,
			wantType:   problem.ContentType,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := httptest.NewRecorder()
			tt.handler.ServeHTTP(w, httptest.NewRequest("GET", "/v1/sessions/s1", nil))
			if w.Code != tt.wantStatus || !strings.Contains(w.Body.String(), tt.wantBody) {
				t.Errorf("got %d %s; want %d with %s", w.Code, w.Body, tt.wantStatus, tt.wantBody)
			}
			if ct := w.Header().Get("Content-Type"); ct != tt.wantType {
				t.Errorf("Content-Type %q, want %q", ct, tt.wantType)
			}
		})
	}
}

// A handler that fails after starting its response gets it aborted, not
// a problem appended to it.
func TestHandlerFuncAbortsStartedResponse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		start func(http.ResponseWriter)
	}{
		{"WriteHeader", func(w http.ResponseWriter) { w.WriteHeader(http.StatusOK) }},
		{"Write", func(w http.ResponseWriter) { io.WriteString(w, `{"partial":`) }},
		{"Flush", func(w http.ResponseWriter) { w.(http.Flusher).Flush() }},
		{"ResponseController", func(w http.ResponseWriter) { http.NewResponseController(w).Flush() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := problem.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
				tt.start(w)
				return errors.New("failed midway")
			})
			w := httptest.NewRecorder()
			defer func() {
				if v := recover(); v != http.ErrAbortHandler {
					t.Errorf("recovered %v, want http.ErrAbortHandler", v)
				}
				if strings.Contains(w.Body.String(), "AGENT_EXECUTION_ERROR") {
					t.Errorf("problem appended to a started response: %s", w.Body)
				}
			}()
			h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		})
	}
}

// Over a real server, an aborted response is an error for the client.
func TestHandlerFuncAbortOverHTTP(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(problem.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		io.WriteString(w, `{"partial":`)
		w.(http.Flusher).Flush()
		return errors.New("failed midway")
	}))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		return // aborted before the header arrived: also an error
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("client read a partial response without an error")
	}
}

// An informational (1xx) response does not start the real one: the error
// is still written as a problem.
func TestHandlerFuncAfterEarlyHints(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(problem.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Link", "</app.css>; rel=preload; as=style")
		w.WriteHeader(http.StatusEarlyHints)
		return fault.New(fault.Timeout, "")
	}))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p, err := problem.ReadResponse(resp)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 504 || p.Status != 504 || p.Code != fault.Timeout {
		t.Errorf("got %d %+v", resp.StatusCode, p)
	}
}
