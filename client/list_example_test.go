package client_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/client"
	triageserver "github.com/triage-go/triage/server"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
)

// A team finds its errors by a word of their message, the most frequent
// first, with how many match, and reads how often one occurred per hour
// over the last day (against the real service on SQLite).
func ExampleClient_Errors_search() {
	dir, err := os.MkdirTemp("", "triage-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "triage.db"), store.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	srv, err := triageserver.New(triageserver.Config{Store: st, JobPoll: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()

	ctx := context.Background()
	c, err := client.New(hs.URL, client.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	at := time.Now().UTC().Truncate(time.Second)
	for i, r := range []triage.Data{
		{ErrorType: triage.QueryError, ErrorCode: "DB_TIMEOUT", Message: "Query timed out after 30s", QueryID: "q_456"},
		{ErrorType: triage.QueryError, ErrorCode: "DB_TIMEOUT", Message: "Query timed out after 30s", QueryID: "q_456"},
		{ErrorType: triage.QueryError, ErrorCode: "DB_TIMEOUT", Message: "Query timed out after 45s", QueryID: "q_789"},
		{ErrorType: triage.SchemaError, ErrorCode: "FIELD_NOT_FOUND", Message: "Field regoin not found", QueryID: "q_235"},
	} {
		// Reports a second apart: each a delivery of its own.
		report := &triage.Report{AgentID: "query_engine", Timestamp: at.Add(time.Duration(i) * time.Second), Data: r}
		if _, err := c.Report(ctx, report, nil); err != nil {
			fmt.Println(err)
			return
		}
	}
	page, err := c.Errors(ctx, client.ErrorQuery{Search: "timed out", Sort: "count"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(page.Total, "records match")
	for _, r := range page.Records {
		fmt.Printf("%d× %s (%s)\n", r.Count, r.Title, r.QueryID)
	}
	counts, err := c.ErrorCounts(ctx, page.Records[0].ErrorID, client.CountQuery{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(counts.Series[0].Counts), "hourly counts;", counts.Series[0].Total, "in all")
	// Output:
	// 2 records match
	// 2× DB_TIMEOUT: Query timed out after 30s (q_456)
	// 1× DB_TIMEOUT: Query timed out after 45s (q_789)
	// 25 hourly counts; 2 in all
}
