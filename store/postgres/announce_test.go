package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
)

// One instance's announcement reaches another's Listen; when its
// connection is killed, Listen listens again and says so with wake("").
func TestAnnounceListen(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	a, b := open(t, dbURL, store.Config{}), open(t, dbURL, store.Config{})
	t.Cleanup(func() { a.Close(); b.Close() })
	var _ store.Announcer = a
	woken := make(chan string, 16)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- b.Listen(ctx, func(tenant string) { woken <- tenant }) }()
	next := func() string {
		t.Helper()
		select {
		case tn := <-woken:
			return tn
		case <-time.After(5 * time.Second):
			t.Fatal("no announcement within 5s")
			return ""
		}
	}
	// Announce until the listener is up (LISTEN is not instant).
	deadline := time.Now().Add(5 * time.Second)
	for got := ""; got != "acme"; {
		if err := a.Announce(t.Context(), "acme"); err != nil {
			t.Fatal(err)
		}
		select {
		case got = <-woken:
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the listener never heard an announcement")
		}
	}
	// The listening connection dies: Listen comes back and wakes every
	// stream, then hears the next announcement.
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE query LIKE 'LISTEN triage_events%' AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
	for got := next(); got != ""; got = next() { // acme repeats may come first
	}
	for got := ""; got != "globex"; {
		if err := a.Announce(t.Context(), "globex"); err != nil {
			t.Fatal(err)
		}
		got = next()
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Listen: %v", err)
	}
}
