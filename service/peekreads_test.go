package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
)

// readingStore counts the reads of agents and alert rules the report path
// makes beside its peek.
type readingStore struct {
	*sqlite.Store
	agents, rules, cache atomic.Int64
	// peeked, when set, runs after each of the report path's peeks.
	peeked func(ctx context.Context, t store.Tenant, req triage.StartRequest)
}

// newReadingService is a service on a new SQLite store whose reads rs
// counts; the store closes with the test.
func newReadingService(t *testing.T) (*readingStore, *service.Service) {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rs := &readingStore{Store: st}
	svc, err := service.New(service.Config{Store: rs})
	if err != nil {
		t.Fatal(err)
	}
	return rs, svc
}

func (r *readingStore) Tenant(id string) store.Tenant { return readingTenant{r.Store.Tenant(id), r} }

type readingTenant struct {
	store.Tenant
	r *readingStore
}

func (t readingTenant) Agent(ctx context.Context, id string) (store.Agent, bool, error) {
	t.r.agents.Add(1)
	return t.Tenant.Agent(ctx, id)
}

func (t readingTenant) Get(ctx context.Context, queryID string) (triage.CachedResult, bool, error) {
	t.r.cache.Add(1)
	return t.Tenant.Get(ctx, queryID)
}

func (t readingTenant) PeekReport(ctx context.Context, req triage.StartRequest) (store.Peeked, error) {
	p, err := t.Tenant.PeekReport(ctx, req)
	if t.r.peeked != nil {
		t.r.peeked(ctx, t.Tenant, req)
	}
	return p, err
}

func (t readingTenant) AlertRules(ctx context.Context) ([]triage.AlertRule, []triage.AlertTarget, error) {
	t.r.rules.Add(1)
	return t.Tenant.AlertRules(ctx)
}

// A report's peek reads whether its agent has a callback URL and the
// version of the alert rules: the handler asks the store nothing more,
// and the rules are read again only when their version moved, so that a
// change takes effect on the next report.
func TestReportReadsWithItsPeek(t *testing.T) {
	rs, svc := newReadingService(t)
	ctx := t.Context()
	n := 0
	send := func() string {
		t.Helper()
		n++
		body := fmt.Sprintf(`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:%02dZ","status":"error",
			"data":{"error_type":"query_error","error_code":"DB_TIMEOUT_%d","message":"Query timed out after 30s","query_id":"q_%d"}}`, n, n, n)
		a, err := svc.Accept(ctx, service.Submission{Body: []byte(body)})
		if err != nil || a.Status != http.StatusCreated {
			t.Fatalf("report %d: %d, %v", n, a.Status, err)
		}
		return string(a.Body)
	}
	// alerts counts the alert jobs of the record whose feedback fb is.
	alerts := func(fb string) int {
		t.Helper()
		var doc struct {
			ErrorID string `json:"error_id"`
		}
		must(t, json.Unmarshal([]byte(fb), &doc))
		jobs, _, err := rs.Store.Tenant(service.DefaultTenant).ErrorJobs(ctx, doc.ErrorID, store.JobFilter{})
		must(t, err)
		n := 0
		for _, j := range jobs.Jobs {
			if j.Kind == store.JobAlert {
				n++
			}
		}
		return n
	}
	for range 3 {
		if fb := send(); !strings.Contains(fb, `"by":"caller"`) {
			t.Fatalf("feedback without a callback: %s; want the retry by the caller", fb)
		}
	}
	if got := rs.rules.Load(); got != 1 {
		t.Errorf("3 reports, no rules: %d reads of the rules, want 1 (then kept)", got)
	}
	must(t, svc.PutAlertTarget(ctx, service.DefaultTenant, triage.AlertTarget{Name: "ops", Kind: triage.TargetWebhook, URL: "https://hooks.example/x", Secret: "whsec_abc"}))
	must(t, svc.PutAlertRule(ctx, service.DefaultTenant, triage.AlertRule{ID: "new", When: triage.TriggerNew, Targets: []string{"ops"}}))
	for i := range 2 {
		if got := alerts(send()); got != 1 {
			t.Errorf("new record %d after the rule's change: %d alert jobs, want 1", i+1, got)
		}
	}
	if got := rs.rules.Load(); got != 2 {
		t.Errorf("after a change and 2 reports: %d reads of the rules, want 2", got)
	}
	must(t, rs.Tenant(service.DefaultTenant).PutAgent(ctx, store.Agent{ID: "query_engine", CallbackURL: "https://agent.example/cb"}))
	if fb := send(); !strings.Contains(fb, `"by":"callback"`) {
		t.Errorf("feedback after the agent's callback was registered: %s; want the retry by the callback", fb)
	}
	if got := rs.agents.Load(); got != 0 {
		t.Errorf("%d reads of the agent beside the peeks, want none", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A report whose decision runs use_cache (a timeout of a query asking for
// too much) reads whether the cache holds its query with its peek: the
// handler reads the cache only for a result the peek found. A result put
// before the report is offered; one put after the report's peek (here
// between the peek and the decision, which the handler's own read would
// have seen) is the next report's, as one put after the handler's read
// was: the report's cache is the cache at one moment of its handling.
func TestUseCacheReadsWithItsPeek(t *testing.T) {
	rs, svc := newReadingService(t)
	ctx := t.Context()
	n := 0
	send := func(query string) []string {
		t.Helper()
		n++
		body := fmt.Sprintf(`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:%02dZ","status":"error",
			"data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s","query_id":%q,
			"context":{"metric":"sales","date_range":{"start":"2015-01-01","end":"2025-08-01"},"row_count":48000000}}}`, n, query)
		a, err := svc.Accept(ctx, service.Submission{Body: []byte(body)})
		if err != nil || a.Status != http.StatusCreated {
			t.Fatalf("report %d: %d, %v", n, a.Status, err)
		}
		var fb struct {
			Actions []string `json:"automated_actions"`
		}
		must(t, json.Unmarshal(a.Body, &fb))
		return fb.Actions
	}
	usesCache := func(actions []string, want string) {
		t.Helper()
		if !slices.Contains(actions, want) {
			t.Fatalf("automated_actions %q; want %s", actions, want)
		}
	}
	usesCache(send("q_1"), "use_cache:false")
	if got := rs.cache.Load(); got != 0 {
		t.Errorf("a report of a query not cached read the cache %d times beside its peek, want none", got)
	}
	tn := rs.Tenant(service.DefaultTenant)
	must(t, tn.PutCache(ctx, "q_2", triage.CachedResult{StoredAt: time.Now().Add(-time.Hour), Summary: "12 rows"}))
	usesCache(send("q_2"), "use_cache:true")
	if got := rs.cache.Load(); got != 1 {
		t.Errorf("a report of a cached query read the cache %d times beside its peek, want 1 (the result)", got)
	}
	// A result put between the report's peek and its decision.
	var putErr error
	rs.peeked = func(ctx context.Context, tn store.Tenant, req triage.StartRequest) {
		if req.QueryID == "q_3" {
			putErr = tn.PutCache(ctx, "q_3", triage.CachedResult{StoredAt: time.Now(), Summary: "3 rows"})
		}
	}
	usesCache(send("q_3"), "use_cache:false")
	rs.peeked = nil
	must(t, putErr)
	usesCache(send("q_3"), "use_cache:true")
	if got := rs.cache.Load(); got != 2 {
		t.Errorf("after the reports of q_3: %d reads of the cache beside the peeks, want 2", got)
	}
}
