package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
)

// A door hands the service a tenant and a report's bytes; the answer is
// committed before Accept returns, and the same report again is a
// duplicate with the same error_id.
func ExampleService_Accept() {
	dir, err := os.MkdirTemp("", "triage-service-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "triage.db"), store.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	svc, err := service.New(service.Config{Store: st})
	if err != nil {
		log.Fatal(err)
	}
	report := []byte(`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:05Z","status":"error",
		"data":{"error_code":"DB_TIMEOUT","message":"Query timed out after 30s","query_id":"q_456"}}`)
	for range 2 {
		ans, err := svc.Accept(ctx, service.Submission{Body: report})
		if err != nil {
			log.Fatal(err)
		}
		var fb struct {
			ErrorID   string `json:"error_id"`
			Duplicate bool   `json:"duplicate"`
			Retry     struct {
				Attempt int    `json:"attempt"`
				By      string `json:"by"`
			} `json:"retry"`
		}
		if err := json.Unmarshal(ans.Body, &fb); err != nil {
			log.Fatal(err)
		}
		fmt.Println(ans.Status, fb.ErrorID, "duplicate:", fb.Duplicate, "retry", fb.Retry.Attempt, "by", fb.Retry.By)
	}
	// Output:
	// 201 err_ce123faa023a38c7 duplicate: false retry 2 by caller
	// 200 err_ce123faa023a38c7 duplicate: true retry 2 by caller
}

// Shares bound what one tenant holds of a bound shared by all: here two
// each.
func ExampleShares() {
	shares := service.NewShares(2)
	fmt.Println(shares.Acquire("acme"), shares.Acquire("acme"), shares.Acquire("acme"), shares.Acquire("globex"))
	shares.Release("acme")
	fmt.Println(shares.Held("acme"), shares.Acquire("acme"))
	// Output:
	// true true false true
	// 1 true
}
