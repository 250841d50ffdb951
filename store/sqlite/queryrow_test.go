package sqlite

import (
	"context"
	"errors"
	"testing"

	"github.com/triage-go/triage/store"
)

// TestQueryRowContext: a one-row read checks its context before it runs
// (an ended one fails it with the context's error, as database/sql's
// own check does) and is not cut short by a context that ends later,
// which it no longer watches.
func TestQueryRowContext(t *testing.T) {
	s, _ := openTest(t)
	tn := s.Tenant("t")
	if err := tn.PutAgent(t.Context(), store.Agent{ID: "query_engine", CallbackURL: "https://agent.example/retry"}); err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := tn.Agent(ended, "query_engine"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Agent with an ended context: %v, want context.Canceled", err)
	}
	live, cancel := context.WithCancel(t.Context())
	defer cancel()
	a, ok, err := tn.Agent(live, "query_engine")
	if err != nil || !ok || a.CallbackURL != "https://agent.example/retry" {
		t.Fatalf("Agent = %+v, %v, %v", a, ok, err)
	}
}
