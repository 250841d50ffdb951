package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
)

// readingStore counts the reads of agents and alert rules the report path
// makes beside its peek.
type readingStore struct {
	*sqlite.Store
	agents, rules atomic.Int64
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

func (t readingTenant) AlertRules(ctx context.Context) ([]triage.AlertRule, []triage.AlertTarget, error) {
	t.r.rules.Add(1)
	return t.Tenant.AlertRules(ctx)
}

// A report's peek reads whether its agent has a callback URL and the
// version of the alert rules: the handler asks the store nothing more,
// and the rules are read again only when their version moved, so that a
// change takes effect on the next report.
func TestReportReadsWithItsPeek(t *testing.T) {
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rs := &readingStore{Store: st}
	svc, err := service.New(service.Config{Store: rs})
	if err != nil {
		t.Fatal(err)
	}
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
		jobs, _, err := st.Tenant(service.DefaultTenant).ErrorJobs(ctx, doc.ErrorID, store.JobFilter{})
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
