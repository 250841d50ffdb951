package postgres_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"testing"
	"time"

	"github.com/triage-go/triage/internal/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/postgres"
)

// Two instances of the service share one database: the job one enqueues
// is claimed once, by whichever instance's worker asks first.
//
// The example needs a database, so that it is compiled but not run by go
// test; TestExample runs it when TRIAGE_TEST_POSTGRES is set.
func Example() {
	ctx := context.Background()
	url := os.Getenv("DATABASE_URL") // postgres://triage:…@db:5432/triage

	one, err := postgres.Open(ctx, url, store.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer one.Close()
	two, err := postgres.Open(ctx, url, store.Options{}) // finds the schema migrated
	if err != nil {
		log.Fatal(err)
	}
	defer two.Close()

	id, err := one.Tenant("acme").Enqueue(ctx, store.NewJob{Kind: store.JobRetry, ErrorID: "err_5f2c"})
	if err != nil {
		log.Fatal(err)
	}
	// The second instance's worker asks first.
	for _, instance := range []struct {
		name string
		s    *postgres.Store
	}{{"two", two}, {"one", one}} {
		jobs, err := instance.s.Jobs().Claim(ctx, 10, time.Minute)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("instance %s claimed %d job(s)\n", instance.name, len(jobs))
		for _, j := range jobs {
			fmt.Println(j.ID == id, j.Tenant, j.Kind, "attempt", j.Attempt)
		}
	}
	// It prints:
	//   instance two claimed 1 job(s)
	//   true acme retry attempt 1
	//   instance one claimed 0 job(s)
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
	if want := "instance two claimed 1 job(s)\ntrue acme retry attempt 1\ninstance one claimed 0 job(s)\n"; !bytes.Equal(got, []byte(want)) {
		t.Errorf("Example printed %q, want %q", got, want)
	}
}
