package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/webhook"
)

// fastJobs makes a Server's job worker quick for a test: it polls every
// 20ms and retries a failed attempt after 50ms (doubling, at most
// 200ms), unless the failure's Retry-After says later. (A job due later
// waits for River's scheduler, which looks every 5s.)
func fastJobs(c *Config) {
	c.RateLimit = -1 // waitJobs polls, and the test clock refills no bucket
	c.JobPoll = 20 * time.Millisecond
	c.JobOptions = store.WorkOptions{BackoffBase: 50 * time.Millisecond, BackoffMax: 200 * time.Millisecond,
		StopTimeout: time.Second}
}

// runWorker runs srv's job worker (River) until the test ends, when it
// stops before the store closes, or until stop is called: stop returns
// once the worker has stopped, its attempts in progress ended.
func runWorker(t *testing.T, srv *Server) (stop func()) {
	t.Helper()
	if srv.cfg.JobPoll <= 0 {
		t.Fatal("runWorker: the Server was made without fastJobs")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); srv.work(ctx) }()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

// waitJobs reads the record id until its jobs are as ok wants, and
// returns it; the test fails after 20s.
func (f *fixture) waitJobs(id, what string, ok func([]store.Job) bool) store.Record {
	f.t.Helper()
	return f.waitJobsAs(nil, id, what, ok)
}

// waitJobsAs is waitJobs with the request headers header (a tenant's key).
func (f *fixture) waitJobsAs(header map[string]string, id, what string, ok func([]store.Job) bool) store.Record {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := f.do("GET", "/v1/errors/"+id, nil, header)
		var rec store.Record
		if err := json.Unmarshal(r.body, &rec); err != nil || r.status != 200 {
			f.t.Fatalf("%s: GET the record: %d %s", what, r.status, r.body)
		}
		if ok(rec.Jobs) {
			return rec
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("%s: jobs %+v", what, rec.Jobs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// oneJobIn tells whether jobs are one job in state.
func oneJobIn(state string) func([]store.Job) bool {
	return func(jobs []store.Job) bool { return len(jobs) == 1 && jobs[0].State == state }
}

// timeoutReport is a report of agent's query whose handling enqueues a
// retry.
func timeoutReport(agent, query string) []byte {
	return []byte(`{"agent_id":"` + agent + `","timestamp":"2025-08-08T12:20:10Z","status":"error","data":{"error_code":"QUERY_TIMEOUT","message":"timed out","query_id":"` + query + `"}}`)
}

// TestJobs: the worker posts a retry to the agent's callback, and again
// after a 429, no sooner than its Retry-After; an escalation to the
// webhook; an agent without a callback, or a callback answering 404,
// cancels the job at once; a job failing every attempt is discarded. The
// outcomes are counted in triage_jobs_total.
func TestJobs(t *testing.T) {
	t.Parallel()
	ops := newCallbacks(t)
	f := newFixture(t, func(c *Config) { fastJobs(c); c.Webhook = ops.srv.URL + "/escalations" })
	agent := newCallbacks(t, 429, 200)
	gone := newCallbacks(t, 404)
	flaky := newCallbacks(t, 500, 500, 500, 500, 500)
	for name, cb := range map[string]string{"query_engine": agent.srv.URL + "/retry", "gone_agent": gone.srv.URL + "/retry",
		"flaky_agent": flaky.srv.URL + "/retry"} {
		if r := f.do("PUT", "/v1/agents/"+name, []byte(`{"callback_url":"`+cb+`"}`), nil); r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
	}
	post := func(report []byte) string {
		t.Helper()
		r := f.do("POST", "/v1/errors", report, nil)
		if r.status != 201 {
			t.Fatalf("POST: %d %s", r.status, r.body)
		}
		return r.json(t)["error_id"].(string)
	}
	id := post(readFile(t, goldenDir+"/db_timeout.json"))
	outage := post(readFile(t, goldenDir+"/service_outage.json"))
	// An agent without a callback URL gets no job: the caller retries.
	r := f.do("POST", "/v1/errors", timeoutReport("chart_agent", "q_76"), nil)
	if plan, _ := r.json(t)["retry"].(map[string]any); r.status != 201 || plan["by"] != "caller" || plan["attempt"] != 2.0 {
		t.Errorf("no callback URL: %d, retry %v", r.status, plan)
	}
	if rec := f.record(r.json(t)["error_id"].(string)); len(rec.Jobs) != 0 {
		t.Errorf("no callback URL, yet jobs %+v", rec.Jobs)
	}
	// One whose callback URL is gone by the time the retry is due has
	// its job cancelled.
	if r := f.do("PUT", "/v1/agents/chart_agent", []byte(`{"callback_url":"`+gone.srv.URL+`/late"}`), nil); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	r = f.do("POST", "/v1/errors", timeoutReport("chart_agent", "q_77"), nil)
	if plan, _ := r.json(t)["retry"].(map[string]any); r.status != 201 || plan["by"] != "callback" {
		t.Errorf("a callback URL: %d, retry %v", r.status, plan)
	}
	lost := r.json(t)["error_id"].(string)
	if err := f.store.Tenant(DefaultTenant).PutAgent(context.Background(), store.Agent{ID: "chart_agent", UpdatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	refused := post(timeoutReport("gone_agent", "q_78"))
	failing := post(timeoutReport("flaky_agent", "q_79"))
	// Before the worker runs, the jobs are due: the retry's RunAt is past
	// (on the test clock), the escalation's now.
	for _, e := range []string{id, outage} {
		if rec := f.record(e); len(rec.Jobs) != 1 || rec.Jobs[0].State != store.JobAvailable || rec.Jobs[0].Attempt != 0 {
			t.Fatalf("before the worker: %+v", rec.Jobs)
		}
	}
	runWorker(t, f.srv)

	// The retry: 429 with Retry-After: 1, then 200.
	rec := f.waitJobs(id, "the retry after a 429", oneJobIn(store.JobCompleted))
	j := rec.Jobs[0]
	if agent.count() != 2 || j.Attempt != 2 || len(j.Attempts) != 2 || !strings.Contains(j.Attempts[0].Error, "answered 429") ||
		j.Attempts[1].Error != "" || j.Attempts[0].Duration != 0 {
		t.Errorf("after a 429 and a 200: calls %d, job %+v", agent.count(), j)
	}
	bodies, times := agent.calls()
	var job triage.RetryJob
	if err := json.Unmarshal(bodies[0], &job); err != nil || job.ErrorID != id || job.QueryID != "q_456" || job.Attempt != 2 {
		t.Errorf("callback body %s (%v)", bodies[0], err)
	}
	if !bytes.Equal(bodies[0], bodies[1]) {
		t.Errorf("the second attempt posted %s, the first %s", bodies[1], bodies[0])
	}
	if gap := times[1].Sub(times[0]); gap < time.Second-10*time.Millisecond {
		t.Errorf("retried %v after a 429 with Retry-After: 1 (backoff 50ms)", gap)
	}
	// As the API writes it: River's state; no duration for the failed
	// attempt, one for the successful.
	raw := f.do("GET", "/v1/errors/"+id, nil, nil).json(t)["jobs"].([]any)[0].(map[string]any)
	attempts := raw["attempts"].([]any)
	if _, has := attempts[0].(map[string]any)["duration_ns"]; has || raw["state"] != "completed" {
		t.Errorf("the job as served: %v", raw)
	}

	// The escalation goes to the webhook.
	f.waitJobs(outage, "the escalation", oneJobIn(store.JobCompleted))
	if sent, _ := ops.calls(); len(sent) != 1 || !bytes.Contains(sent[0], []byte(outage)) {
		t.Errorf("webhook calls %d", len(sent))
	}

	// Permanent failures: an agent whose callback URL went, a 404.
	rec = f.waitJobs(lost, "no callback", oneJobIn(store.JobCancelled))
	if j := rec.Jobs[0]; j.Attempt != 1 || len(j.Attempts) != 1 || !strings.Contains(j.Attempts[0].Error, "no callback URL") {
		t.Errorf("no callback: %+v", j)
	}
	rec = f.waitJobs(refused, "a 404", oneJobIn(store.JobCancelled))
	if j := rec.Jobs[0]; gone.count() != 1 || j.Attempt != 1 || len(j.Attempts) != 1 || !strings.Contains(j.Attempts[0].Error, "answered 404") ||
		strings.Contains(j.Attempts[0].Error, "permanent") {
		t.Errorf("a 404: calls %d, job %+v", gone.count(), j)
	}

	// Five 500s: the job's five attempts are spent.
	rec = f.waitJobs(failing, "five 500s", oneJobIn(store.JobDiscarded))
	if j := rec.Jobs[0]; flaky.count() != 5 || j.Attempt != 5 || len(j.Attempts) != 5 || !strings.Contains(j.Attempts[4].Error, "answered 500") {
		t.Errorf("five 500s: calls %d, job %+v", flaky.count(), j)
	}

	metrics := string(f.do("GET", "/metrics", nil, nil).body)
	for _, want := range []string{
		`triage_jobs_total{kind="retry",outcome="succeeded"} 1`,
		`triage_jobs_total{kind="retry",outcome="retrying"} 5`, // the 429, four 500s
		`triage_jobs_total{kind="retry",outcome="failed"} 3`,   // no callback, the 404, the fifth 500
		`triage_jobs_total{kind="escalation",outcome="succeeded"} 1`,
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// TestJobErrorsRedacted: a secret in a callback URL reaches neither the
// attempt's recorded error nor the logs.
func TestJobErrorsRedacted(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-0123456789abcdefSECRET"
	f := newFixture(t, fastJobs)
	agent := newCallbacks(t, 500, 200)
	if r := f.do("PUT", "/v1/agents/query_engine", []byte(`{"callback_url":"`+agent.srv.URL+`/retry?api_key=`+secret+`"}`), nil); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	r := f.do("POST", "/v1/errors", readFile(t, goldenDir+"/db_timeout.json"), nil)
	id := r.json(t)["error_id"].(string)
	runWorker(t, f.srv)
	rec := f.waitJobs(id, "a 500, then a 200", oneJobIn(store.JobCompleted))
	if len(rec.Jobs[0].Attempts) != 2 || !strings.Contains(rec.Jobs[0].Attempts[0].Error, "answered 500") {
		t.Fatalf("job %+v", rec.Jobs[0])
	}
	if body := f.do("GET", "/v1/errors/"+id, nil, nil).body; bytes.Contains(body, []byte(secret)) {
		t.Errorf("the record shows the secret: %s", body)
	}
	if strings.Contains(f.logBuf.String(), secret) {
		t.Errorf("the logs show the secret")
	}
}

// TestJobRunsWhenDue: a retry due in 2s (the clock is now the real one)
// is scheduled, and its callback is not called before it is due.
func TestJobRunsWhenDue(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fastJobs)
	f.clock.mu.Lock()
	f.clock.now = time.Now()
	f.clock.mu.Unlock()
	agent := newCallbacks(t)
	if r := f.do("PUT", "/v1/callbacks/query_engine", []byte(`{"callback_url":"`+agent.srv.URL+`/retry"}`), nil); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	r := f.do("POST", "/v1/errors", readFile(t, goldenDir+"/db_timeout.json"), nil)
	id := r.json(t)["error_id"].(string)
	runWorker(t, f.srv)
	rec := f.record(id)
	if len(rec.Jobs) != 1 || rec.Jobs[0].State != store.JobScheduled || !rec.Jobs[0].RunAt.After(time.Now()) {
		t.Fatalf("a retry due later: %+v", rec.Jobs)
	}
	due := rec.Jobs[0].RunAt
	f.waitJobs(id, "the retry once due", oneJobIn(store.JobCompleted))
	if _, times := agent.calls(); len(times) != 1 || times[0].Before(due) {
		t.Errorf("calls at %v, the job due at %v", times, due)
	}
}

func TestConcurrentIdentical(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.RateLimit = -1 })
	f.callback("query_engine")
	report := readFile(t, goldenDir+"/db_timeout.json")
	statuses := make(chan int, 50)
	ids := make(chan string, 50)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			// 409 while the first is in flight: its Retry-After (1s) is a
			// hint, and a retry sooner is answered alike.
			for deadline := time.Now().Add(30 * time.Second); ; {
				r := f.do("POST", "/v1/errors", report, nil)
				if r.status == 409 {
					if time.Now().After(deadline) {
						t.Errorf("still 409 after 30s: %s", r.body)
						return
					}
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
	t.Parallel()
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
			// 409 while the first is in flight (see TestConcurrentIdentical).
			for deadline := time.Now().Add(30 * time.Second); ; {
				resp, err := http.Post(urls[i%2]+"/v1/errors", "application/json", bytes.NewReader(report))
				if err != nil {
					t.Error(err)
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 409 {
					if time.Now().After(deadline) {
						t.Errorf("still 409 after 30s: %s", body)
						return
					}
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

func (f failingTenant) SaveOccurrence(ctx context.Context, o store.Occurrence) (store.Saved, error) {
	if !*f.failed {
		*f.failed = true
		return store.Saved{}, errors.New("disk full")
	}
	return f.Tenant.SaveOccurrence(ctx, o)
}

// Report is the report's one write: it fails as SaveOccurrence does.
func (f failingTenant) Report(ctx context.Context, req triage.StartRequest, seen triage.StartResult, o store.Occurrence) (store.Saved, error) {
	if !*f.failed {
		*f.failed = true
		return store.Saved{}, errors.New("disk full")
	}
	return f.Tenant.Report(ctx, req, seen, o)
}

// TestSaveFailure: a report whose record could not be saved is a 503, to
// retry in a second; the retry is handled anew (not a 409 for a minute),
// with its jobs.
func TestSaveFailure(t *testing.T) {
	t.Parallel()
	failed := false
	f := newFixture(t, func(c *Config) { c.Store = failingSave{Store: c.Store, failed: &failed} })
	f.callback("query_engine")
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
	t.Parallel()
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

// TestJobErrorsNameOnlyTheHost: a webhook whose path holds its secret
// (as Slack's and Discord's do) is named by scheme and host in the
// attempt's error, as the tenant reads it, and in the log: whether it
// answers 500 or its port is closed (the transport's *url.Error).
func TestJobErrorsNameOnlyTheHost(t *testing.T) {
	t.Parallel()
	const secret = "XoXb7Secret0123456789abcdef"
	closed := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr
	}()
	hook := newCallbacks(t, 500, 500, 500, 500, 500)
	for _, c := range []struct {
		name, origin, want string
	}{
		{"a 500", hook.srv.URL, "the webhook " + hook.srv.URL + " answered 500"},
		{"a closed port", closed, `Post "` + closed + `": dial tcp`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, func(cfg *Config) {
				fastJobs(cfg)
				cfg.Webhook = c.origin + "/services/T000/B000/" + secret + "?token=" + secret
			})
			r := f.do("POST", "/v1/errors", readFile(t, goldenDir+"/service_outage.json"), nil)
			if r.status != 201 {
				t.Fatalf("POST: %d %s", r.status, r.body)
			}
			id := r.json(t)["error_id"].(string)
			runWorker(t, f.srv)
			rec := f.waitJobs(id, "a failed attempt", func(jobs []store.Job) bool {
				return len(jobs) == 1 && len(jobs[0].Attempts) > 0
			})
			if msg := rec.Jobs[0].Attempts[0].Error; !strings.Contains(msg, c.want) || strings.Contains(msg, "/services") {
				t.Errorf("the attempt's error %q, want it to hold %q and no path", msg, c.want)
			}
			if body := f.do("GET", "/v1/errors/"+id, nil, nil).body; bytes.Contains(body, []byte(secret)) {
				t.Errorf("the record shows the secret: %s", body)
			}
			logs := f.logBuf.String()
			if !strings.Contains(logs, strings.TrimPrefix(c.origin, "http://")) || strings.Contains(logs, secret) ||
				strings.Contains(logs, "/services/") {
				t.Errorf("the logs show the secret, or not the host:\n%s", logs)
			}
		})
	}
}

// TestEscalationIdempotencyKey: triage serve's escalation job posts as
// triage handle does (package webhook): the escalation's JSON with
// Content-Type, User-Agent and an Idempotency-Key naming the escalation,
// the same key again on the attempt after a 500.
func TestEscalationIdempotencyKey(t *testing.T) {
	t.Parallel()
	ops := newCallbacks(t, 500)
	f := newFixture(t, func(c *Config) { fastJobs(c); c.Webhook = ops.srv.URL + "/escalations" })
	r := f.do("POST", "/v1/errors", readFile(t, goldenDir+"/service_outage.json"), nil)
	if r.status != 201 {
		t.Fatalf("POST: %d %s", r.status, r.body)
	}
	id := r.json(t)["error_id"].(string)
	runWorker(t, f.srv)
	rec := f.waitJobs(id, "the escalation after a 500", oneJobIn(store.JobCompleted))
	if j := rec.Jobs[0]; j.Attempt != 2 || ops.count() != 2 {
		t.Fatalf("calls %d, job %+v", ops.count(), j)
	}
	bodies, _ := ops.calls()
	var e triage.Escalation
	if err := json.Unmarshal(bodies[0], &e); err != nil || e.ErrorID != id {
		t.Fatalf("the webhook got %s (%v)", bodies[0], err)
	}
	want := webhook.Key(e)
	for i := range 2 {
		h := ops.header(i)
		if h.Get("Idempotency-Key") != want || h.Get("Content-Type") != "application/json" || h.Get("User-Agent") != webhook.UserAgent {
			t.Errorf("post %d: headers %v, want Idempotency-Key %q", i, h, want)
		}
	}
	if !bytes.Equal(bodies[0], bodies[1]) {
		t.Errorf("the second attempt posted %s, the first %s", bodies[1], bodies[0])
	}
}

// TestEscalationsThrottled: twenty reports of one failure, a second apart,
// give one escalation post (naming the tenant), the others held back and
// counted; an hour later the next escalation posts, carrying the count.
func TestEscalationsThrottled(t *testing.T) {
	t.Parallel()
	ops := newCallbacks(t)
	f := newFixture(t, func(c *Config) { fastJobs(c); c.Webhook = ops.srv.URL + "/escalations" })
	report := string(readFile(t, goldenDir+"/service_outage.json"))
	post := func(at time.Time) string {
		t.Helper()
		body := strings.Replace(report, "2025-08-08T12:30:00Z", at.UTC().Format(time.RFC3339), 1)
		r := f.do("POST", "/v1/errors", []byte(body), nil)
		if r.status != 201 {
			t.Fatalf("POST: %d %s", r.status, r.body)
		}
		return r.json(t)["error_id"].(string)
	}
	var id string
	for i := range 20 {
		id = post(scenarioNow.Add(time.Duration(i) * time.Second))
	}
	runWorker(t, f.srv)
	allDone := func(n int) func([]store.Job) bool {
		return func(jobs []store.Job) bool {
			done := 0
			for _, j := range jobs {
				if j.Kind == store.JobEscalation && j.State == store.JobCompleted {
					done++
				}
			}
			return done == n
		}
	}
	// The record shows its latest 20 jobs: the last 19 escalations, and
	// the digest the first one held left (due in an hour).
	rec := f.waitJobs(id, "twenty escalations", allDone(19))
	if n := len(slices.DeleteFunc(slices.Clone(rec.Jobs), func(j store.Job) bool { return j.Kind != store.JobAlert })); n != 1 {
		t.Fatalf("%d digests, want 1: %+v", n, rec.Jobs)
	}
	if ops.count() != 1 {
		t.Fatalf("%d posts, want 1", ops.count())
	}
	bodies, _ := ops.calls()
	var e triage.Escalation
	if err := json.Unmarshal(bodies[0], &e); err != nil || e.ErrorID != id || e.Tenant != "default" || e.Held != 0 {
		t.Fatalf("the escalation %s (%v)", bodies[0], err)
	}
	metrics := f.do("GET", "/metrics", nil, nil).body
	if !bytes.Contains(metrics, []byte("triage_escalations_held_total 19")) {
		t.Errorf("/metrics does not count 19 held")
	}

	// An hour later, the next one posts, for the 19 (or the digest does,
	// when it runs first, and holds the next).
	f.clock.Advance(time.Hour)
	post(scenarioNow.Add(time.Hour))
	// The record shows its latest 20 jobs: the new one is after them all.
	last := slices.MaxFunc(rec.Jobs, func(a, b store.Job) int { return int(a.ID - b.ID) }).ID
	f.waitJobs(id, "the escalation an hour later", func(jobs []store.Job) bool {
		return slices.ContainsFunc(jobs, func(j store.Job) bool { return j.ID > last && j.State == store.JobCompleted })
	})
	if ops.count() != 2 {
		t.Fatalf("%d posts, want 2", ops.count())
	}
	bodies, _ = ops.calls()
	if err := json.Unmarshal(bodies[1], &e); err != nil || e.Held != 19 || e.HeldSince.IsZero() {
		t.Errorf("the second escalation %s (%v): want held 19, and since when", bodies[1], err)
	}
}
