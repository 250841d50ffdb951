package problem_test

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/testkit/golden"
	"github.com/triage-go/triage/wire/problem"
)

// dump renders a recorded response as its status line, its headers in name
// order and its body, exactly as written.
func dump(w *httptest.ResponseRecorder) []byte {
	var b bytes.Buffer
	resp := w.Result()
	fmt.Fprintf(&b, "%d %s\n", resp.StatusCode, http.StatusText(resp.StatusCode))
	for _, name := range slices.Sorted(maps.Keys(resp.Header)) {
		for _, v := range resp.Header[name] {
			fmt.Fprintf(&b, "%s: %s\n", name, v)
		}
	}
	b.WriteString("\n")
	b.Write(w.Body.Bytes())
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	t.Parallel()
	agentErr := fmt.Errorf("plan step 3: %w",
		errors.New(`tool "search" failed: Authorization: Bearer sk-proj-abcdefghijklmnop rejected by https://api.example/v1`))
	tests := []struct {
		name   string
		method string
		target string
		err    error
		opts   *problem.Options
	}{
		{
			name:   "rate_limited",
			method: "POST",
			target: "/v1/runs",
			err: fault.New(fault.RateLimited, "",
				fault.WithRetryAfter(29500*time.Millisecond),
				fault.WithSource("openai"),
				fault.WithDetails(map[string]any{"limit": 60, "window": "1m"})),
		},
		{
			name:   "invalid_request_with_errors",
			method: "POST",
			target: "/v1/runs",
			err: fault.Invalid("The run request has 2 invalid fields.",
				fault.FieldError{Field: "agent_id", Message: "is required"},
				fault.FieldError{Field: "input.messages[0].role", Message: "must be user or assistant"}),
			opts: &problem.Options{BaseURI: "https://triage.example/"},
		},
		{
			name:   "agent_execution_debug",
			method: "GET",
			target: "/v1/runs/42?token=abc",
			err:    agentErr,
			opts:   &problem.Options{Debug: true},
		},
		{
			name:   "agent_execution_nodebug",
			method: "GET",
			target: "/v1/runs/42?token=abc",
			err:    agentErr,
		},
		{
			name:   "unknown_code",
			method: "GET",
			target: "/v1/runs/42",
			err:    fault.New("FROM_A_NEWER_PEER", "Something new went wrong.", fault.WithStatus(503)),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := httptest.NewRecorder()
			problem.Write(w, httptest.NewRequest(tt.method, tt.target, nil), tt.err, tt.opts)
			golden.Check(t, tt.name+".golden", dump(w))
		})
	}
}
