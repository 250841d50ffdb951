package problem_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/problem"
)

// A handler returns an error; HandlerFunc writes it as a problem.
func ExampleHandlerFunc() {
	h := problem.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		return fault.New(fault.RateLimited, "",
			fault.WithRetryAfter(1500*time.Millisecond),
			fault.WithDetail("limit", 60))
	})

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/v1/runs?api_key=secret", nil))

	fmt.Println(w.Code)
	fmt.Println(w.Header().Get("Content-Type"))
	fmt.Println(w.Header().Get("Retry-After"))
	fmt.Print(w.Body)
	// Output:
	// 429
	// application/problem+json
	// 2
	// {"type":"/errors/rate-limited","title":"Rate Limited","status":429,"detail":"Request rate limit exceeded. Please wait before retrying.","instance":"/v1/runs","code":"RATE_LIMITED","category":"UPSTREAM","domain":"client","retryable":true,"retry_after":2,"session_valid":true,"details":{"limit":60}}
}

// Write classifies any error with fault.From; an error it does not
// recognise is a generic 500 whose text only debug output carries.
func ExampleWrite() {
	opts := &problem.Options{BaseURI: "https://triage.example/", Debug: true}
	err := fmt.Errorf("load plan: %w", errors.New("vector store: Authorization: Bearer abc123 rejected"))

	w := httptest.NewRecorder()
	problem.Write(w, httptest.NewRequest("GET", "/v1/plans/7", nil), err, opts)

	fmt.Println(w.Code)
	fmt.Print(w.Body)
	// Output:
	// 500
	// {"type":"https://triage.example/errors/agent-execution","title":"Agent Execution Error","status":500,"detail":"An error occurred processing your request.","instance":"/v1/plans/7","code":"AGENT_EXECUTION_ERROR","category":"INTERNAL","domain":"system","retryable":false,"session_valid":true,"debug":{"error_type":"*errors.errorString","cause":"load plan: vector store: Authorization: [REDACTED] rejected"}}
}

// Parse is lenient: a member of the wrong type is ignored, and unknown
// members are kept.
func ExampleParse() {
	p, err := problem.Parse([]byte(`{
		"title": "Out of credit",
		"status": "403",
		"detail": "Your balance is 30, but that costs 50.",
		"balance": 30
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Type)
	fmt.Println(p.Title)
	fmt.Println(p.Status)
	fmt.Println(string(p.Extensions["balance"]))

	_, err = problem.Parse([]byte(`["not", "an", "object"]`))
	fmt.Println(err)
	// Output:
	// about:blank
	// Out of credit
	// 0
	// 30
	// problem: document is a JSON array, not an object
}

// Fault turns a problem from a Triage peer back into the fault it
// describes.
func ExampleProblem_Fault() {
	p, _ := problem.Parse([]byte(`{
		"type": "/errors/invalid-request",
		"status": 400,
		"detail": "Invalid request. Please check your input.",
		"code": "INVALID_REQUEST",
		"retryable": false,
		"errors": [{"field": "messages[0].role", "message": "must be user or assistant"}]
	}`))
	f := p.Fault()
	fmt.Println(f.Code, f.HTTPStatus(), f.Retryable)
	fmt.Println(f.FieldErrors)
	// Output:
	// INVALID_REQUEST 400 false
	// [{messages[0].role must be user or assistant}]
}

// A client reads a problem from a response, and the fault it stands for.
func ExampleReadResponse() {
	w := httptest.NewRecorder()
	problem.Write(w, nil, fault.New(fault.ServiceUnavailable, "", fault.WithRetryAfter(30*time.Second)), nil)
	resp := w.Result()
	defer resp.Body.Close()

	p, err := problem.ReadResponse(resp)
	if err != nil {
		fmt.Println(err)
		return
	}
	f := p.Fault()
	fmt.Println(f.Code, f.HTTPStatus(), f.Retryable, f.RetryAfter)
	// Output:
	// SERVICE_UNAVAILABLE 503 true 30s
}
