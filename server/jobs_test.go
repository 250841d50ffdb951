package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

func TestJobs(t *testing.T) {
	ops := newCallbacks(t)
	f := newFixture(t, func(c *Config) { c.Webhook = ops.srv.URL + "/escalations" })
	ctx := context.Background()
	agent := newCallbacks(t, 503, 200)
	if r := f.do("PUT", "/v1/agents/query_engine", []byte(`{"callback_url":"`+agent.srv.URL+`/retry"}`), nil); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	r := f.do("POST", "/v1/errors", readFile(t, goldenDir+"/db_timeout.json"), nil)
	id := r.json(t)["error_id"].(string)

	f.srv.runDue(ctx)
	if agent.count() != 0 {
		t.Fatal("the retry ran before it was due")
	}
	f.clock.Advance(3 * time.Second) // retry:2 is due 2s after the report
	f.srv.runDue(ctx)
	if agent.count() != 1 {
		t.Fatalf("the due retry ran %d times", agent.count())
	}
	var job triage.RetryJob
	if err := json.Unmarshal(agent.bodies[0], &job); err != nil || job.ErrorID != id || job.QueryID != "q_456" || job.Attempt != 2 {
		t.Errorf("callback body %s (%v)", agent.bodies[0], err)
	}
	rec := f.record(id)
	if len(rec.Jobs) != 1 || rec.Jobs[0].State != store.JobAvailable || len(rec.Jobs[0].Attempts) != 1 ||
		!strings.Contains(rec.Jobs[0].Attempts[0].Error, "503") {
		t.Fatalf("after a 503: %+v", rec.Jobs)
	}
	// The agent said Retry-After: 30, longer than the first backoff (5s).
	f.clock.Advance(10 * time.Second)
	f.srv.runDue(ctx)
	if agent.count() != 1 {
		t.Errorf("retried before the agent's Retry-After")
	}
	f.clock.Advance(25 * time.Second)
	f.srv.runDue(ctx)
	rec = f.record(id)
	if agent.count() != 2 || rec.Jobs[0].State != store.JobSucceeded || len(rec.Jobs[0].Attempts) != 2 || rec.Jobs[0].Attempts[1].Error != "" {
		t.Errorf("second attempt: calls %d, jobs %+v", agent.count(), rec.Jobs)
	}

	// An escalation goes to the webhook.
	r = f.do("POST", "/v1/errors", readFile(t, goldenDir+"/service_outage.json"), nil)
	outage := r.json(t)["error_id"].(string)
	f.srv.runDue(ctx)
	if ops.count() != 1 || !bytes.Contains(ops.bodies[0], []byte(outage)) {
		t.Errorf("webhook calls %d", ops.count())
	}

	// A permanent failure: an agent without a callback.
	r = f.do("POST", "/v1/errors", []byte(`{"agent_id":"chart_agent","timestamp":"2025-08-08T12:20:10Z","status":"error","data":{"error_code":"QUERY_TIMEOUT","message":"timed out","query_id":"q_77"}}`), nil)
	lost := r.json(t)["error_id"].(string)
	f.clock.Advance(time.Minute)
	f.srv.runDue(ctx)
	rec = f.record(lost)
	if len(rec.Jobs) != 1 || rec.Jobs[0].State != store.JobFailed || !strings.Contains(rec.Jobs[0].Attempts[0].Error, "no callback URL") {
		t.Errorf("no callback: %+v", rec.Jobs)
	}
}

func TestConcurrentIdentical(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.RateLimit = -1 })
	report := readFile(t, goldenDir+"/db_timeout.json")
	statuses := make(chan int, 50)
	ids := make(chan string, 50)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			for {
				r := f.do("POST", "/v1/errors", report, nil)
				if r.status == 409 {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				statuses <- r.status
				if r.status < 300 {
					ids <- r.json(t)["error_id"].(string)
				}
				return
			}
		})
	}
	wg.Wait()
	close(statuses)
	close(ids)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[201] != 1 || count[200] != 49 {
		t.Errorf("statuses %v, want one 201 and 49 200s", count)
	}
	var id string
	for got := range ids {
		if id != "" && got != id {
			t.Errorf("error_ids %s and %s", id, got)
		}
		id = got
	}
	rec := f.record(id)
	if rec.Count != 1 || len(rec.Jobs) != 1 {
		t.Errorf("occurrences %d, jobs %d: want one of each", rec.Count, len(rec.Jobs))
	}
}

// TestTwoInstances: two services on one database are one service: the same
// report posted to both at once is handled once.
func TestTwoInstances(t *testing.T) {
	db := newDatabase(t)
	clk := &clock{now: scenarioNow}
	var urls []string
	for range 2 {
		st := openStore(t, db, clk)
		t.Cleanup(func() { st.Close() })
		srv, err := New(Config{Store: st, Now: clk.Now, JobPoll: -1, RateLimit: -1, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv)
		t.Cleanup(hs.Close)
		urls = append(urls, hs.URL)
	}
	report := readFile(t, goldenDir+"/db_timeout.json")
	statuses := make(chan int, 20)
	ids := make(chan string, 20)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			for {
				resp, err := http.Post(urls[i%2]+"/v1/errors", "application/json", bytes.NewReader(report))
				if err != nil {
					t.Error(err)
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 409 {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				statuses <- resp.StatusCode
				var fb triage.Feedback
				if json.Unmarshal(body, &fb) == nil {
					ids <- fb.ErrorID
				}
				return
			}
		})
	}
	wg.Wait()
	close(statuses)
	close(ids)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[201] != 1 || count[200] != 19 {
		t.Errorf("statuses %v across two instances, want one 201 and 19 200s", count)
	}
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	if len(seen) != 1 {
		t.Errorf("error_ids %v", seen)
	}
}

// failingSave is a store whose first SaveOccurrence fails.
type failingSave struct {
	store.Store
	failed *bool
}

func (f failingSave) Tenant(id string) store.Tenant {
	return failingTenant{Tenant: f.Store.Tenant(id), failed: f.failed}
}

type failingTenant struct {
	store.Tenant
	failed *bool
}

func (f failingTenant) SaveOccurrence(ctx context.Context, o store.Occurrence) (int64, error) {
	if !*f.failed {
		*f.failed = true
		return 0, errors.New("disk full")
	}
	return f.Tenant.SaveOccurrence(ctx, o)
}

// TestSaveFailure: a report whose record could not be saved is a 503, to
// retry in a second; the retry is handled anew (not a 409 for a minute),
// with its jobs.
func TestSaveFailure(t *testing.T) {
	failed := false
	f := newFixture(t, nil)
	f.srv.cfg.Store = failingSave{Store: f.store, failed: &failed}
	report := readFile(t, goldenDir+"/db_timeout.json")
	if r := f.do("POST", "/v1/errors", report, nil); r.status != 503 || codeOf(t, r) != "SERVICE_UNAVAILABLE" ||
		r.header.Get("Retry-After") != "1" || strings.Contains(string(r.body), "disk full") {
		t.Fatalf("save failed: %d %s", r.status, r.body)
	}
	r := f.do("POST", "/v1/errors", report, nil)
	if r.status != 201 {
		t.Fatalf("the retry: %d %s", r.status, r.body)
	}
	rec := f.record(r.json(t)["error_id"].(string))
	if rec.Count != 1 || len(rec.Jobs) != 1 {
		t.Errorf("after the retry: %d occurrences, %d jobs", rec.Count, len(rec.Jobs))
	}
}

// TestExpire: Serve deletes bookkeeping past its retention.
func TestExpire(t *testing.T) {
	clk := &clock{now: scenarioNow}
	st := openStore(t, newDatabase(t), clk)
	defer st.Close()
	srv, err := New(Config{Store: st, Now: clk.Now, JobPoll: -1, ExpireEvery: 10 * time.Millisecond,
		Retention: store.Retention{Idempotency: time.Minute}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	tn := st.Tenant(DefaultTenant)
	if _, _, err := tn.BeginRequest(t.Context(), "k", "h"); err != nil {
		t.Fatal(err)
	}
	if err := tn.FinishRequest(t.Context(), "k", store.StoredResponse{Status: 201, ContentType: "application/json", Body: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Minute)
	if state, _, err := tn.BeginRequest(t.Context(), "k", "h"); err != nil || state != store.IdemDone {
		t.Fatalf("before expiry: %v %v, want IdemDone", state, err)
	}
	_, cancel, done := serve(t, srv)
	deadline := time.Now().Add(5 * time.Second)
	for {
		state, _, err := tn.BeginRequest(t.Context(), "k", "h")
		if err != nil {
			t.Fatal(err)
		}
		if state == store.IdemNew {
			break // expired: the key is new again
		}
		if state != store.IdemDone {
			t.Fatalf("state %v", state)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the key was not expired: %v", state)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
