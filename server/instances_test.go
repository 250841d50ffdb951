package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// TestTwoInstancesRunEachJobOnce: two services on one database share one
// job queue: with both workers running, each job runs once, whichever
// instance fetches it. Each report of a service outage enqueues one
// escalation, posted to the webhook with its error_id.
func TestTwoInstancesRunEachJobOnce(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	clk := &clock{now: scenarioNow}
	ops := newCallbacks(t)
	var srvs []*Server
	var urls []string
	for range 2 {
		st := openStore(t, db, clk)
		t.Cleanup(func() { st.Close() })
		cfg := Config{Store: st, Now: clk.Now, RateLimit: -1, Webhook: ops.srv.URL + "/escalations",
			Logger: slog.New(slog.DiscardHandler)}
		fastJobs(&cfg)
		srv, err := New(cfg)
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

	// Both workers start at once, on a queue of 24 due jobs.
	var stops []func()
	for _, srv := range srvs {
		stops = append(stops, runWorker(t, srv))
	}
	deadline := time.Now().Add(30 * time.Second)
	for ops.count() < reports && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	// Every job is completed, and none runs again: once both workers have
	// stopped (their attempts in progress ended), the webhook has had no
	// more calls.
	for id := range want {
		var rec store.Record
		for {
			resp, err := http.Get(urls[0] + "/v1/errors/" + id)
			if err != nil {
				t.Fatal(err)
			}
			err = json.NewDecoder(resp.Body).Decode(&rec)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Jobs) == 1 && store.JobFinished(rec.Jobs[0].State) || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if len(rec.Jobs) != 1 || rec.Jobs[0].State != store.JobCompleted || rec.Jobs[0].Attempt != 1 {
			t.Errorf("the escalation of %s: %+v", id, rec.Jobs)
		}
	}
	for _, stop := range stops {
		stop()
	}

	seen := map[string]int{}
	bodies, _ := ops.calls()
	for _, b := range bodies {
		for id := range want {
			if bytes.Contains(b, []byte(id)) {
				seen[id]++
			}
		}
	}
	if len(bodies) != reports {
		t.Errorf("the webhook was called %d times for %d escalations", len(bodies), reports)
	}
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("the escalation of %s ran %d times", id, seen[id])
		}
	}
}
