package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
)

func Example() {
	dir, err := os.MkdirTemp("", "triage")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(dir, "triage.db"), store.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	acme := s.Tenant("acme")
	for _, key := range []string{"delivery-1", "delivery-2", "delivery-2"} { // the last is a duplicate
		id, err := acme.SaveOccurrence(ctx, store.Occurrence{
			DeliveryKey: key,
			ErrorID:     "err_5f2c",
			QueryID:     "q-42",
			AgentID:     "sql_agent",
			ErrorType:   "schema_error",
			Severity:    "high",
			NextAction:  "resume",
			Report:      json.RawMessage(`{"agent_id":"sql_agent","status":"error"}`),
			Feedback:    json.RawMessage(`{"error_id":"err_5f2c","next_action":"resume"}`),
		})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(key, "saved as occurrence", id) // 0: saved already
	}
	r, _, err := acme.ErrorRecord(ctx, "err_5f2c")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.ErrorID, r.Count, len(r.Occurrences))

	_, found, err := s.Tenant("globex").ErrorRecord(ctx, "err_5f2c")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("another tenant sees it:", found)
	// Output:
	// delivery-1 saved as occurrence 1
	// delivery-2 saved as occurrence 2
	// delivery-2 saved as occurrence 0
	// err_5f2c 2 2
	// another tenant sees it: false
}
