package server

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/wire/agui"
	"github.com/triage-go/triage/wire/sse"
)

// earlyStore controls the commit of its tenants' run starts: held until
// hold is closed, or failed (without starting the run in the store).
type earlyStore struct {
	store.Store
	hold       chan struct{}
	failCommit bool
}

func (s earlyStore) Tenant(id string) store.Tenant { return earlyTenant{s.Store.Tenant(id), s} }

type earlyTenant struct {
	store.Tenant
	s earlyStore
}

func (t earlyTenant) StartRunEarly(ctx context.Context, r store.Run) (store.Run, func() error, error) {
	if t.s.failCommit {
		return r, func() error { return errDiskOnFire }, nil
	}
	run, commit, err := t.Tenant.StartRunEarly(ctx, r)
	if err != nil || t.s.hold == nil {
		return run, commit, err
	}
	return run, func() error {
		<-t.s.hold
		return commit()
	}, nil
}

// The client reads RUN_STARTED while the run's start is still committing;
// the agent runs once it is committed.
func TestRunStartedBeforeItsCommit(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	f := recordsFixture(t, func(c *Config) { c.Store = earlyStore{Store: c.Store, hold: hold} })
	req, _ := http.NewRequest("POST", f.http.URL+"/v1/agents/echo/runs", bytes.NewReader(runBody("early", "hello")))
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.http.Client().Do(req)
	if err != nil {
		close(hold)
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := sse.NewReader(resp.Body)
	first := nextFrame(t, rd) // fails after 5s if the stream waits for the commit
	close(hold)
	if !strings.Contains(first.Data, `"type":"RUN_STARTED"`) {
		t.Fatalf("first event %s", first.Data)
	}
	var types []string
	for {
		fr, err := rd.Next()
		if err != nil {
			break
		}
		e, err := agui.Parse([]byte(fr.Data))
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, string(e.Type()))
	}
	if len(types) < 2 || types[0] != "STEP_STARTED" || types[len(types)-1] != "RUN_FINISHED" {
		t.Fatalf("after RUN_STARTED: %v", types)
	}
	if run, _ := f.getRunRecord("early", nil); run.Outcome != store.RunFinished {
		t.Errorf("record %+v, want finished", run)
	}
}

// A start whose commit fails after RUN_STARTED went out ends the stream
// with a retryable SERVICE_UNAVAILABLE RUN_ERROR; the agent never ran, and
// nothing is recorded: the runId is free again. A CAP stream, which has no
// event for a run's start, is a 503 problem instead.
func TestRunStartCommitFails(t *testing.T) {
	t.Parallel()
	f := recordsFixture(t, func(c *Config) { c.Store = earlyStore{Store: c.Store, failCommit: true} })
	events := runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody("lost", "hello"), nil))
	if len(events) != 2 || events[0].Type() != "RUN_STARTED" || events[1].Type() != "RUN_ERROR" {
		t.Fatalf("events %v", events)
	}
	if re := events[1].(*agui.RunError); re.Code != "SERVICE_UNAVAILABLE" {
		t.Errorf("RUN_ERROR %+v", re)
	}
	if r := f.do("GET", "/v1/runs/lost", nil, nil); r.status != http.StatusNotFound {
		t.Errorf("GET /v1/runs/lost: %d %s", r.status, r.body)
	}
	if logs := f.logBuf.String(); !strings.Contains(logs, "start could not be recorded") || strings.Contains(logs, "recording a run's outcome failed") {
		t.Errorf("logs:\n%s", logs)
	}
	r := f.do("POST", "/v1/agents/echo/runs", runBody("lost-cap", "hello"), map[string]string{"Accept": "application/x-ndjson"})
	if r.status != http.StatusServiceUnavailable || codeOf(t, r) != "SERVICE_UNAVAILABLE" {
		t.Errorf("CAP: %d %s", r.status, r.body)
	}
}
