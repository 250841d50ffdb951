package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// TestJobSharePerTenant: a tenant whose callbacks never answer holds at
// most its share of the job workers (a quarter of them, with two
// tenants); its other jobs are put off, without counting an attempt,
// rather than waiting for a worker; the other tenant's jobs run at once
// meanwhile. Once the tarpit answers, the put-off jobs run too.
func TestJobSharePerTenant(t *testing.T) {
	t.Parallel()
	const keyA, keyB = "key-a-0123456789abcdef", "key-b-0123456789abcdef"
	release := make(chan struct{})
	var inTarpit, most atomic.Int32
	tarpit := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inTarpit.Add(1)
		defer inTarpit.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer tarpit.Close()
	defer close(release) // before the server closes: its handlers return
	quick := newCallbacks(t)
	f := newFixture(t, func(c *Config) {
		fastJobs(c)
		c.APIKeys = map[string]string{keyA: "acme", keyB: "globex"}
		c.PrivateCallbacks = true
		c.JobOptions.Workers = 4
		c.HTTPClient = &http.Client{Timeout: time.Minute}
	})
	if f.srv.cfg.TenantJobWorkers != 1 {
		t.Fatalf("TenantJobWorkers = %d, want 1 (a quarter of 4)", f.srv.cfg.TenantJobWorkers)
	}
	a, b := map[string]string{"X-API-Key": keyA}, map[string]string{"X-API-Key": keyB}
	for who, cb := range map[string]string{keyA: tarpit.URL, keyB: quick.srv.URL} {
		if r := f.do("PUT", "/v1/agents/query_engine", []byte(`{"callback_url":"`+cb+`"}`), map[string]string{"X-API-Key": who}); r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
	}
	post := func(h map[string]string, query string) string {
		t.Helper()
		r := f.do("POST", "/v1/errors", timeoutReport("query_engine", query), h)
		if r.status != 201 {
			t.Fatalf("POST: %d %s", r.status, r.body)
		}
		return r.json(t)["error_id"].(string)
	}
	var aIDs []string
	for _, q := range []string{"q_a1", "q_a2", "q_a3", "q_a4", "q_a5", "q_a6"} {
		aIDs = append(aIDs, post(a, q))
	}
	runWorker(t, f.srv)
	// A's first job in the tarpit, its others put off.
	waitFor(t, "acme's first job in the tarpit", func() bool { return inTarpit.Load() == 1 })
	waitFor(t, "acme's other jobs put off", func() bool {
		return strings.Contains(string(f.do("GET", "/metrics", nil, nil).body), `triage_jobs_total{kind="retry",outcome="deferred"}`)
	})
	start := time.Now()
	bID := post(b, "q_b1")
	f.waitJobsAs(b, bID, "globex's retry beside acme's tarpit", oneJobIn(store.JobCompleted))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("globex's job waited %v behind acme's tarpit", d)
	}
	for _, id := range aIDs {
		rec := f.waitJobsAs(a, id, "acme's job", func(jobs []store.Job) bool { return len(jobs) == 1 })
		if j := rec.Jobs[0]; len(j.Attempts) != 0 || store.JobFinished(j.State) {
			t.Errorf("acme's job %s: %+v; want waiting, no attempt failed", id, j)
		}
	}
	if n := most.Load(); n != 1 {
		t.Errorf("%d of acme's callbacks in the tarpit at once, want its share, 1", n)
	}
	if m := string(f.do("GET", "/metrics", nil, nil).body); !strings.Contains(m, `triage_jobs_total{kind="retry",outcome="deferred"}`) {
		t.Errorf("no job put off counted:\n%s", m)
	}
}
