package checkpoint_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/checkpoint"
	"github.com/triage-go/triage/store/sqlite"
)

// Report is the state of the checkpointer example's pipeline: it is
// stored as JSON, so its fields are exported.
type Report struct {
	Query string   `json:"query"`
	Rows  []string `json:"rows"`
}

// A graph run checkpointed in the database resumes after the process
// restarts: the node that failed runs again, the one before it does not.
func ExampleNew() {
	dir, err := os.MkdirTemp("", "triage")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "triage.db")
	ctx := context.Background()

	var calls []string
	warehouseUp := false
	// start is what the process does when it starts: open the store and
	// compile the pipeline with the tenant's checkpointer.
	start := func() (*sqlite.Store, *graph.Runnable[Report]) {
		s, err := sqlite.Open(ctx, path, store.Config{})
		if err != nil {
			log.Fatal(err)
		}
		g := graph.New[Report]().
			AddNode("parse", func(_ context.Context, r Report) (Report, error) {
				calls = append(calls, "parse")
				return r, nil
			}).
			AddNode("query", func(_ context.Context, r Report) (Report, error) {
				calls = append(calls, "query")
				if !warehouseUp {
					return r, errors.New("the warehouse is down")
				}
				r.Rows = []string{"42"}
				return r, nil
			}).
			AddEdge("parse", "query").AddEdge("query", graph.End).
			SetEntry("parse")
		run, err := g.Compile(&graph.Config[Report]{Checkpointer: checkpoint.New[Report](s.Tenant("acme"))})
		if err != nil {
			log.Fatal(err)
		}
		return s, run
	}

	s, run := start()
	_, err = run.Invoke(ctx, Report{Query: "revenue?"}, graph.WithRunID("run-7"))
	fmt.Println(err)
	s.Close() // the process stops

	warehouseUp = true
	s, run = start() // and starts again
	defer s.Close()
	out, err := run.Resume(ctx, "run-7")
	fmt.Println(out.Query, out.Rows, err, strings.Join(calls, ","))
	// Output:
	// error in node "query": the warehouse is down
	// revenue? [42] <nil> parse,query,query
}
