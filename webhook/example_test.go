package webhook_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/webhook"
)

// A Notifier posts each escalation as its JSON; the Idempotency-Key names
// the escalation, so a post repeated is one escalation to the receiver.
func ExampleNotifier() {
	ops := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println(r.Method, r.Header.Get("Content-Type"), r.Header.Get("User-Agent"))
		fmt.Println("Idempotency-Key:", r.Header.Get("Idempotency-Key"))
		w.WriteHeader(http.StatusNoContent)
	}))
	defer ops.Close()
	n := webhook.Notifier{URL: ops.URL + "/escalations"}
	e := triage.Escalation{ErrorID: "err_4f2a9c1e7b3d5a60", Attempt: 3, Severity: triage.SeverityHigh,
		ReportedAt: time.Date(2025, 8, 8, 12, 20, 5, 0, time.UTC)}
	if err := n.Notify(context.Background(), e); err != nil {
		log.Fatal(err)
	}
	// Output:
	// POST application/json triage
	// Idempotency-Key: err_4f2a9c1e7b3d5a60:3:2025-08-08T12:20:05Z
}

// Send's errors name the target by scheme and host, never its path, which
// often holds the webhook's token; Permanent tells the failures a retry
// would meet again.
func ExampleSend() {
	gone := httptest.NewServer(http.NotFoundHandler())
	defer gone.Close()
	err := webhook.Send(context.Background(), nil, webhook.Post{What: "webhook", URL: gone.URL + "/services/T/B/secret", Body: []byte(`{}`)})
	fmt.Println(err != nil, webhook.Permanent(err))
	// Output: true true
}
