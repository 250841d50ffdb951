package server

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/wire/agui"
)

// doorAgents is a registry of two script agents: echo, whose failures are
// recorded (the default), and quiet, which opted out.
const doorAgents = `agents:
  - id: echo
    kind: script
  - id: quiet
    kind: script
    recordFailures: false
`

// doorsFixture serves doorAgents for AG-UI runs and at /mcp (tenant acme
// with key-a), with its job worker running.
func doorsFixture(t *testing.T, mods ...func(*Config)) *fixture {
	t.Helper()
	reg, err := agent.Parse([]byte(doorAgents), "agents.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := agent.NewManager(reg.Build(nil), agent.ManagerConfig{OwnerShare: 4})
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	f := newFixture(t, func(c *Config) {
		fastJobs(c)
		c.APIKeys = map[string]string{"key-a": "acme"}
		c.Agents = m
		c.Bridge = bridge.New(bridge.Config{Manager: m, Owner: MCPOwner})
		for _, mod := range mods {
			mod(c)
		}
	})
	runWorker(t, f.srv)
	return f
}

var acme = map[string]string{"X-API-Key": "key-a"}

// waitRunLinked reads the run until it names the record its failure
// became; the test fails after 20 s.
func (f *fixture) waitRunLinked(runID string) store.Run {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		run, _ := f.getRunRecord(runID, acme)
		if run.ErrorID != "" {
			return run
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("run %s is linked to no record: %+v\n%s", runID, run, f.logBuf.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// doorRecord reads the record id as acme.
func (f *fixture) doorRecord(id string) store.Record {
	f.t.Helper()
	r := f.do("GET", "/v1/errors/"+id, nil, acme)
	var rec store.Record
	if err := json.Unmarshal(r.body, &rec); err != nil || r.status != http.StatusOK {
		f.t.Fatalf("GET /v1/errors/%s: %d %s", id, r.status, r.body)
	}
	return rec
}

// doorFailures reads triage_door_failures_total{door, outcome} off /metrics.
func (f *fixture) doorFailures(door, outcome string) int {
	f.t.Helper()
	r := f.do("GET", "/metrics", nil, nil)
	m := regexp.MustCompile(`(?m)^triage_door_failures_total\{door="` + door + `",outcome="` + outcome + `"\} (\d+)$`).FindSubmatch(r.body)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// reportContext is the context of a record's latest report.
func reportContext(t *testing.T, rec store.Record) (map[string]any, map[string]any) {
	t.Helper()
	var rep struct {
		Tags map[string]any `json:"tags"`
		Data struct {
			Context map[string]any `json:"context"`
		} `json:"data"`
	}
	if err := json.Unmarshal(rec.Report, &rep); err != nil {
		t.Fatalf("the record's report %s: %v", rec.Report, err)
	}
	return rep.Data.Context, rep.Tags
}

// A failed AG-UI run becomes an occurrence of a record, linked both ways
// (the run names the record, the record's report the run, its thread and
// its trace), after its RUN_ERROR, which is as it was; runs failing alike
// are one record; an agent that opted out records nothing.
func TestFailedRunsRecorded(t *testing.T) {
	t.Parallel()
	f := doorsFixture(t)
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	tp := "00-" + traceID + "-00f067aa0ba902b7-01"
	h := map[string]string{"X-API-Key": "key-a", "traceparent": tp}
	events := runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody("run-1", "fail with RATE_LIMITED after 7s"), h))
	last, ok := events[len(events)-1].(*agui.RunError)
	if !ok || last.Code != "RATE_LIMITED" {
		t.Fatalf("the stream ended with %+v", events[len(events)-1])
	}
	run := f.waitRunLinked("run-1")
	rec := f.doorRecord(run.ErrorID)
	ctx, tags := reportContext(t, rec)
	if rec.AgentID != "echo" || rec.Count != 1 || ctx["run_id"] != "run-1" || ctx["thread_id"] != "t1" ||
		ctx["trace_id"] != traceID || ctx["door"] != "agui" || tags["door"] != "agui" {
		t.Errorf("the run's record %+v, context %v, tags %v", rec.RecordSummary, ctx, tags)
	}
	var list struct {
		Errors []store.RecordSummary `json:"records"`
	}
	if r := f.do("GET", "/v1/errors?agent_id=echo", nil, acme); json.Unmarshal(r.body, &list) != nil || len(list.Errors) != 1 ||
		list.Errors[0].ErrorID != run.ErrorID {
		t.Errorf("GET /v1/errors: %s", r.body)
	}

	// The quiet agent's failure is not enqueued (FinishRun counts the
	// ones it enqueues before the run's answer ends); a second failure of
	// echo, alike, is a second occurrence of the same record.
	runEvents(t, f.do("POST", "/v1/agents/quiet/runs", runBody("run-quiet", "fail with RATE_LIMITED"), acme))
	f.clock.Advance(time.Second)
	runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody("run-2", "fail with RATE_LIMITED after 7s"), acme))
	if run2 := f.waitRunLinked("run-2"); run2.ErrorID != run.ErrorID {
		t.Errorf("two runs failing alike: records %s and %s", run.ErrorID, run2.ErrorID)
	}
	if rec := f.doorRecord(run.ErrorID); rec.Count != 2 {
		t.Errorf("the record counts %d occurrences, want 2", rec.Count)
	}
	if n := f.doorFailures("agui", "queued"); n != 2 {
		t.Errorf("%d recordings queued, want echo's 2", n)
	}
	if quiet, _ := f.getRunRecord("run-quiet", acme); quiet.ErrorID != "" || quiet.Outcome != store.RunFailed {
		t.Errorf("the quiet agent's run %+v", quiet)
	}
	if r := f.do("GET", "/v1/errors?agent_id=quiet", nil, acme); json.Unmarshal(r.body, &list) != nil || len(list.Errors) != 0 {
		t.Errorf("the quiet agent has records: %s", r.body)
	}
	// A finished run records nothing.
	runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody("run-ok", "hello"), acme))
	if n := f.doorFailures("agui", "queued"); n != 2 {
		t.Errorf("%d recordings queued after a finished run, want 2", n)
	}
}

// refusingStore refuses the first saves of occurrences it is told to.
type refusingStore struct {
	store.Store
	refuse *atomic.Int32
}

func (s refusingStore) Tenant(id string) store.Tenant {
	return refusingTenant{Tenant: s.Store.Tenant(id), refuse: s.refuse}
}

type refusingTenant struct {
	store.Tenant
	refuse *atomic.Int32
}

func (t refusingTenant) SaveOccurrence(ctx context.Context, o store.Occurrence) (store.Saved, error) {
	if t.refuse.Add(-1) >= 0 {
		return store.Saved{}, errDiskOnFire
	}
	return t.Tenant.SaveOccurrence(ctx, o)
}

// Report is the report's one write: refused as SaveOccurrence is.
func (t refusingTenant) Report(ctx context.Context, req triage.StartRequest, seen triage.StartResult, o store.Occurrence) (store.Saved, error) {
	if t.refuse.Add(-1) >= 0 {
		return store.Saved{}, errDiskOnFire
	}
	return t.Tenant.Report(ctx, req, seen, o)
}

// A store refusing the recording changes nothing of the run's stream: the
// refusal is counted, and the recording retried until it is saved, once.
func TestFailedRunRecordingRetried(t *testing.T) {
	t.Parallel()
	refuse := &atomic.Int32{}
	refuse.Store(2)
	f := doorsFixture(t, func(c *Config) { c.Store = refusingStore{Store: c.Store, refuse: refuse} })
	events := runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody("run-1", "fail with UPSTREAM_ERROR"), acme))
	if last, ok := events[len(events)-1].(*agui.RunError); !ok || last.Code != "UPSTREAM_ERROR" {
		t.Fatalf("the stream ended with %+v", events[len(events)-1])
	}
	run := f.waitRunLinked("run-1")
	if rec := f.doorRecord(run.ErrorID); rec.Count != 1 {
		t.Errorf("the record counts %d occurrences, want 1", rec.Count)
	}
	if n := f.doorFailures("agui", "retrying"); n != 2 {
		t.Errorf("%d attempts counted as retrying, want the 2 refused", n)
	}
	// The recording is counted once its attempt ends, a moment after the
	// link.
	deadline := time.Now().Add(20 * time.Second)
	for f.doorFailures("agui", "recorded") != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := f.doorFailures("agui", "recorded"); n != 1 {
		t.Errorf("%d recordings counted, want 1", n)
	}
}

// A failed /mcp tool call becomes an occurrence of a record naming its
// session and tool, after its isError answer; one about an agent that
// opted out records nothing; one about an agent the registry does not
// have is the bridge's.
func TestFailedMCPCallsRecorded(t *testing.T) {
	t.Parallel()
	f := doorsFixture(t)
	cs := mcpConnect(t, f, "X-API-Key", "key-a")
	if out, isErr := mcpCall(t, cs, "sessions_create", map[string]any{"agentId": "quiet", "metadata": map[string]any{"x": string(make([]byte, 70<<10))}}); !isErr {
		t.Fatalf("a quiet call that should fail: %v", out)
	}
	out, isErr := mcpCall(t, cs, "sessions_create", map[string]any{"agentId": "echo", "metadata": map[string]any{"x": string(make([]byte, 70<<10))}})
	if !isErr {
		t.Fatalf("a call that should fail: %v", out)
	}
	if e, _ := out["error"].(map[string]any); e["code"] != "PAYLOAD_TOO_LARGE" {
		t.Fatalf("the answer %v", out)
	}
	if out, isErr := mcpCall(t, cs, "sessions_create", map[string]any{"agentId": "nobody"}); !isErr {
		t.Fatalf("a call about no agent: %v", out)
	}
	// Shutdown waits for the failures being told: every recording is
	// enqueued once it returns.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.srv.cfg.Bridge.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if n := f.doorFailures("mcp", "queued"); n != 2 {
		t.Errorf("%d recordings queued, want echo's and nobody's", n)
	}
	records := waitRecords(t, f, 2)
	seen := map[string]bool{}
	for _, s := range records {
		rec := f.doorRecord(s.ErrorID)
		ctx, tags := reportContext(t, rec)
		seen[rec.AgentID] = true
		if ctx["tool"] != "sessions_create" || ctx["session_id"] != cs.ID() || ctx["door"] != "mcp" || tags["door"] != "mcp" {
			t.Errorf("the call's record %+v, context %v", rec.RecordSummary, ctx)
		}
	}
	if !seen["echo"] || !seen["mcp-bridge"] {
		t.Errorf("records of %v, want echo and mcp-bridge", seen)
	}
}

// waitRecords lists acme's records until there are n; the test fails
// after 20 s.
func waitRecords(t *testing.T, f *fixture, n int) []store.RecordSummary {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var list struct {
			Errors []store.RecordSummary `json:"records"`
		}
		r := f.do("GET", "/v1/errors", nil, acme)
		if err := json.Unmarshal(r.body, &list); err != nil {
			t.Fatalf("GET /v1/errors: %d %s", r.status, r.body)
		}
		if len(list.Errors) >= n {
			if len(list.Errors) > n {
				t.Errorf("%d records, want %d: %s", len(list.Errors), n, r.body)
			}
			return list.Errors
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d records, want %d\n%s", len(list.Errors), n, f.logBuf.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
