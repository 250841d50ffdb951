package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestTwoInstancesRunEachJobOnce: two services on one database share one
// job queue: however their workers interleave, each job runs once,
// whichever instance claims it. Each report of a service outage enqueues
// one escalation, posted to the webhook with its error_id.
func TestTwoInstancesRunEachJobOnce(t *testing.T) {
	db := newDatabase(t)
	clk := &clock{now: scenarioNow}
	ops := newCallbacks(t)
	var srvs []*Server
	var urls []string
	for range 2 {
		st := openStore(t, db, clk)
		t.Cleanup(func() { st.Close() })
		srv, err := New(Config{Store: st, Now: clk.Now, JobPoll: -1, RateLimit: -1, Webhook: ops.srv.URL + "/escalations",
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv)
		t.Cleanup(hs.Close)
		srvs, urls = append(srvs, srv), append(urls, hs.URL)
	}
	template := string(readFile(t, goldenDir+"/service_outage.json"))
	const reports = 24
	want := map[string]bool{}
	for i := range reports {
		body := strings.Replace(template, `"q_901"`, fmt.Sprintf(`"q_outage_%d"`, i), 1)
		resp, err := http.Post(urls[i%2]+"/v1/errors", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 201 {
			t.Fatalf("report %d: %d %s", i, resp.StatusCode, b)
		}
		var fb struct {
			ErrorID string `json:"error_id"`
		}
		if err := json.Unmarshal(b, &fb); err != nil {
			t.Fatal(err)
		}
		want[fb.ErrorID] = true
	}
	if len(want) != reports {
		t.Fatalf("%d distinct records for %d reports", len(want), reports)
	}

	// Both workers poll at once, several times over, as two instances'
	// tickers would.
	var wg sync.WaitGroup
	for _, srv := range srvs {
		for range 3 {
			wg.Go(func() {
				for range 4 {
					srv.runDue(context.Background())
				}
			})
		}
	}
	wg.Wait()

	seen := map[string]int{}
	ops.mu.Lock()
	for _, b := range ops.bodies {
		for id := range want {
			if bytes.Contains(b, []byte(id)) {
				seen[id]++
			}
		}
	}
	calls := len(ops.bodies)
	ops.mu.Unlock()
	if calls != reports {
		t.Errorf("the webhook was called %d times for %d escalations", calls, reports)
	}
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("the escalation of %s ran %d times", id, seen[id])
		}
	}
	// And nothing is left to run: a last poll on each runs nothing.
	for _, srv := range srvs {
		srv.runDue(context.Background())
	}
	if ops.count() != calls {
		t.Errorf("a job ran again: %d calls", ops.count())
	}

}
