package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
)

// Work runs the jobs the accepted reports asked for: here an outage's
// escalation, posted to the operators' webhook with an Idempotency-Key
// that names it (package webhook).
func ExampleService_Work() {
	st, closeStore := exampleStore()
	defer closeStore()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	posted := make(chan string, 1)
	ops := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posted <- r.Header.Get("Idempotency-Key")
	}))
	defer ops.Close()
	svc, err := service.New(service.Config{Store: st, Jobs: service.Jobs{Webhook: ops.URL + "/escalations",
		Options: store.WorkOptions{Poll: 20 * time.Millisecond}}})
	if err != nil {
		log.Fatal(err)
	}
	outage := []byte(`{"agent_id":"context_manager","timestamp":"2025-08-08T12:30:00Z","status":"error",
		"data":{"error_type":"system_error","error_code":"SERVICE_DOWN","message":"Session store unavailable","query_id":"q_901"}}`)
	if _, err := svc.Accept(ctx, service.Submission{Body: outage}); err != nil {
		log.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- svc.Work(ctx) }()
	fmt.Println("Idempotency-Key:", <-posted)
	cancel()
	<-done
	// Output:
	// Idempotency-Key: err_6589a55cadf22a65:1:2025-08-08T12:30:00Z
}

// Without PrivateCallbacks the service refuses, by its host, a callback
// URL that names this machine or a private network.
func ExampleService_RefusesCallback() {
	st, done := exampleStore()
	defer done()
	svc, err := service.New(service.Config{Store: st, Jobs: service.Jobs{PrivateCallbacks: false}})
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range []string{"http://localhost:8081/retry", "http://169.254.169.254/", "https://agents.example/retry"} {
		fmt.Println(u, svc.RefusesCallback(u))
	}
	// Output:
	// http://localhost:8081/retry true
	// http://169.254.169.254/ true
	// https://agents.example/retry false
}

// exampleStore opens a SQLite store in a new directory; done closes it
// and removes the directory.
func exampleStore() (st store.Store, done func()) {
	dir, err := os.MkdirTemp("", "triage-service-example")
	if err != nil {
		log.Fatal(err)
	}
	st, err = sqlite.Open(context.Background(), filepath.Join(dir, "triage.db"), store.Config{})
	if err != nil {
		os.RemoveAll(dir)
		log.Fatal(err)
	}
	return st, func() { st.Close(); os.RemoveAll(dir) }
}

// A door tells the service that a run started and how it ended; the
// record keeps a failed run's fault.
func ExampleService_FinishRun() {
	st, done := exampleStore()
	defer done()
	svc, err := service.New(service.Config{Store: st})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	run := store.Run{RunID: "run-1", ThreadID: "thread-1", AgentID: "analyst"}
	if err := svc.StartRun(ctx, "default", run); err != nil {
		log.Fatal(err)
	}
	fmt.Println(errors.Is(svc.StartRun(ctx, "default", run), store.ErrRunExists))
	svc.FinishRun(ctx, "default", "run-1", "analyst", service.RunEnd{Outcome: store.RunFailed,
		Fault: fault.New(fault.RateLimited, "The model is busy.", fault.WithRetryAfter(3*time.Second))})
	rec, _, err := st.Tenant("default").GetRun(ctx, "run-1")
	if err != nil {
		log.Fatal(err)
	}
	var f fault.Payload
	if err := json.Unmarshal(rec.Fault, &f); err != nil {
		log.Fatal(err)
	}
	fmt.Println(rec.Outcome, f.Code, f.Message, f.RetryAfter)
	// Output:
	// true
	// failed RATE_LIMITED The model is busy. 3
}
