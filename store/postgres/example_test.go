package postgres_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/postgres"
)

// Two instances of the service share one database: the job one saves
// with an occurrence runs once, on whichever instance's River client
// fetches it first.
//
// The example needs a database, so that it is compiled but not run by go
// test; TestExample runs it when TRIAGE_TEST_POSTGRES is set.
func Example() {
	ctx := context.Background()
	url := os.Getenv("DATABASE_URL") // postgres://triage:…@db:5432/triage

	one, err := postgres.Open(ctx, url, store.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer one.Close()
	two, err := postgres.Open(ctx, url, store.Config{}) // finds the schema migrated
	if err != nil {
		log.Fatal(err)
	}
	defer two.Close()

	// The first instance handles a report: its retry is saved with it.
	acme := one.Tenant("acme")
	_, err = acme.SaveOccurrence(ctx, store.Occurrence{
		DeliveryKey: "delivery-1", ErrorID: "err_5f2c", QueryID: "q-42", AgentID: "sql_agent",
		ErrorType: "query_error", Severity: "medium", NextAction: "retry",
		Feedback: json.RawMessage(`{"error_id":"err_5f2c","next_action":"retry"}`),
		Jobs:     []store.NewJob{{Kind: store.JobRetry, ErrorID: "err_5f2c", Payload: json.RawMessage(`{"agent_id":"sql_agent"}`)}},
	})
	if err != nil {
		log.Fatal(err)
	}
	r, _, err := acme.ErrorRecord(ctx, "err_5f2c")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("saved:", r.Jobs[0].Kind, r.Jobs[0].State)

	// Both instances work the queue.
	ran := make(chan store.Job, 2)
	worker := func(_ context.Context, j store.Job) error {
		ran <- j // here the service posts the retry to the agent
		return nil
	}
	work, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, s := range []*postgres.Store{one, two} {
		wg.Go(func() {
			if err := s.Jobs().Work(work, worker, store.WorkOptions{Poll: 100 * time.Millisecond}); err != nil {
				log.Fatal(err)
			}
		})
	}
	j := <-ran
	fmt.Println("ran:", j.Tenant, j.Kind, j.ErrorID, "attempt", j.Attempt)
	for deadline := time.Now().Add(10 * time.Second); r.Jobs[0].State != store.JobCompleted; { // recorded a moment later
		if time.Now().After(deadline) {
			log.Fatalf("the job is %s", r.Jobs[0].State)
		}
		time.Sleep(50 * time.Millisecond)
		if r, _, err = acme.ErrorRecord(ctx, "err_5f2c"); err != nil {
			log.Fatal(err)
		}
	}
	stop()
	wg.Wait()
	fmt.Println("then:", r.Jobs[0].State, "after", len(ran)+1, "run(s)")
	// It prints:
	//   saved: retry available
	//   ran: acme retry err_5f2c attempt 1
	//   then: completed after 1 run(s)
}

// TestExample runs Example on a fresh schema and checks what it prints.
func TestExample(t *testing.T) {
	t.Setenv("DATABASE_URL", pgtest.FreshSchema(t))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	func() {
		defer func() { os.Stdout = stdout }()
		Example()
	}()
	w.Close()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := "saved: retry available\nran: acme retry err_5f2c attempt 1\nthen: completed after 1 run(s)\n"; !bytes.Equal(got, []byte(want)) {
		t.Errorf("Example printed %q, want %q", got, want)
	}
}
