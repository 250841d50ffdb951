package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/wire/agui"
	"github.com/triage-go/triage/wire/sse"
)

// recordsFixture is runsFixture with a Config of its own.
func recordsFixture(t *testing.T, mod func(*Config)) *fixture {
	t.Helper()
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return newFixture(t, func(c *Config) {
		c.Agents = m
		if mod != nil {
			mod(c)
		}
	})
}

// runBody is a RunAgentInput with its own run id.
func runBody(runID, prompt string) []byte {
	return fmt.Appendf(nil, `{"threadId":"t1","runId":%q,"messages":[{"id":"m1","role":"user","content":%q}]}`, runID, prompt)
}

// getRunRecord reads GET /v1/runs/{id}, which must answer 200.
func (f *fixture) getRunRecord(id string, header map[string]string) (store.Run, map[string]any) {
	f.t.Helper()
	r := f.do("GET", "/v1/runs/"+id, nil, header)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
		f.t.Fatalf("GET /v1/runs/%s: %d %s", id, r.status, r.body)
	}
	var run store.Run
	if err := json.Unmarshal(r.body, &run); err != nil {
		f.t.Fatalf("%v: %s", err, r.body)
	}
	return run, r.json(f.t)
}

func TestRunRecords(t *testing.T) {
	t.Parallel()
	f := recordsFixture(t, func(c *Config) { c.Debug = true })
	runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody("run-ok", "hello there"), nil))
	run, doc := f.getRunRecord("run-ok", nil)
	want := store.Run{RunID: "run-ok", ThreadID: "t1", AgentID: "echo", Outcome: store.RunFinished,
		StartedAt: scenarioNow, FinishedAt: scenarioNow, AnswerBytes: int64(len("You said: hello there"))}
	if run.Fault != nil || !run.StartedAt.Equal(want.StartedAt) || !run.FinishedAt.Equal(want.FinishedAt) {
		t.Errorf("finished run %+v, want %+v", run, want)
	}
	run.StartedAt, run.FinishedAt = want.StartedAt, want.FinishedAt
	run.Events = nil // TestRunRecordOutline's
	if fmt.Sprint(run) != fmt.Sprint(want) {
		t.Errorf("finished run %+v, want %+v", run, want)
	}
	if _, ok := doc["fault"]; ok {
		t.Errorf("a finished run has a fault: %v", doc)
	}

	// A failed run keeps its fault, as RUN_ERROR carried it but for the
	// debug output (the service is in debug mode).
	events := runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody("run-failed", "fail with RATE_LIMITED after 7s"), nil))
	runError := events[len(events)-1]
	run, doc = f.getRunRecord("run-failed", nil)
	fd, _ := doc["fault"].(map[string]any)
	if run.Outcome != store.RunFailed || fd["code"] != "RATE_LIMITED" || fd["retry_after"] != 7.0 || fd["retryable"] != true ||
		fd["http_status"] != 429.0 || run.AnswerBytes != 0 {
		t.Errorf("failed run %s", doc)
	}
	if details, _ := fd["details"].(map[string]any); details["node"] != "echo" {
		t.Errorf("the fault does not name the node that failed: %s", doc)
	}
	if _, ok := fd["debug"]; ok || fd["message"] != runError.(*agui.RunError).Message {
		t.Errorf("the record's fault is not the RUN_ERROR's, without debug output: %s", doc)
	}

	for _, id := range []string{"never-ran", strings.Repeat("x", store.MaxRunIDBytes+1), "nul%00"} {
		if r := f.do("GET", "/v1/runs/"+id, nil, nil); r.status != 404 || codeOf(t, r) != "NOT_FOUND" {
			t.Errorf("GET /v1/runs/%.20s: %d %s", id, r.status, r.body)
		}
	}
}

// A run id is used once per tenant: a second run with it is a problem
// before any stream, and the first record stays.
func TestRunIDUsedOnce(t *testing.T) {
	t.Parallel()
	const keyA, keyB = "key-a-0123456789abcdef", "key-b-0123456789abcdef"
	f := recordsFixture(t, func(c *Config) { c.APIKeys = map[string]string{keyA: "acme", keyB: "globex"} })
	a, b := map[string]string{"X-API-Key": keyA}, map[string]string{"X-API-Key": keyB}
	runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody("r1", "hello"), a))
	first, _ := f.getRunRecord("r1", a)

	r := f.do("POST", "/v1/agents/echo/runs", runBody("r1", "fail with TIMEOUT"), a)
	if r.status != http.StatusConflict || codeOf(t, r) != "INVALID_REQUEST" || !fieldsOf(t, r)["runId"] || r.json(t)["retryable"] != false {
		t.Errorf("a run id used again: %d %s", r.status, r.body)
	}
	if again, _ := f.getRunRecord("r1", a); fmt.Sprint(again) != fmt.Sprint(first) {
		t.Errorf("the refused run changed the record: %+v, was %+v", again, first)
	}

	// Another tenant neither sees it nor is kept from the id.
	if r := f.do("GET", "/v1/runs/r1", nil, b); r.status != 404 || codeOf(t, r) != "NOT_FOUND" {
		t.Errorf("another tenant's run: %d %s", r.status, r.body)
	}
	runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody("r1", "fail with TIMEOUT"), b))
	if run, _ := f.getRunRecord("r1", b); run.Outcome != store.RunFailed {
		t.Errorf("globex's r1: %+v", run)
	}
	if run, _ := f.getRunRecord("r1", a); run.Outcome != store.RunFinished {
		t.Errorf("acme's r1 after globex's: %+v", run)
	}

	// An id the store cannot hold is the client's fault.
	r = f.do("POST", "/v1/agents/echo/runs", []byte(`{"threadId":"t\u0000","runId":"r\u0000","messages":[{"id":"m1","role":"user","content":"hi"}]}`), a)
	if fields := fieldsOf(t, r); r.status != http.StatusBadRequest || !fields["runId"] || !fields["threadId"] {
		t.Errorf("ids with NULs: %d %s", r.status, r.body)
	}
}

// A client that goes away leaves a disconnected run.
func TestRunRecordsDisconnect(t *testing.T) {
	t.Parallel()
	f := recordsFixture(t, nil)
	leave := startRun(t, f, runBody("gone", "hang"))
	if run, _ := f.getRunRecord("gone", nil); run.Outcome != store.RunRunning || !run.FinishedAt.IsZero() {
		t.Errorf("while it runs: %+v", run)
	}
	leave()
	deadline := time.Now().Add(5 * time.Second)
	for {
		run, doc := f.getRunRecord("gone", nil)
		if run.Outcome == store.RunDisconnected && run.Fault == nil && !run.FinishedAt.IsZero() {
			break
		}
		if run.Outcome != store.RunRunning || time.Now().After(deadline) {
			t.Fatalf("after the client went: %s", doc)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if body := f.do("GET", "/metrics", nil, nil).body; !strings.Contains(string(body), `triage_runs_total{agent="echo",code="",outcome="disconnected"} 1`) {
		t.Errorf("metrics lack the disconnected run")
	}
}

// recordingStore fails the run records' writes it is told to.
type recordingStore struct {
	store.Store
	failStart, failFinish bool
}

func (s recordingStore) Tenant(id string) store.Tenant {
	return recordingTenant{Tenant: s.Store.Tenant(id), s: s}
}

type recordingTenant struct {
	store.Tenant
	s recordingStore
}

var errDiskOnFire = errors.New("disk on fire")

func (t recordingTenant) StartRunEarly(ctx context.Context, r store.Run) (store.Run, func() error, error) {
	if t.s.failStart {
		return store.Run{}, nil, errDiskOnFire
	}
	return t.Tenant.StartRunEarly(ctx, r)
}

func (t recordingTenant) FinishRun(ctx context.Context, runID string, end store.RunEnd) (store.Run, error) {
	if t.s.failFinish {
		return store.Run{}, errDiskOnFire
	}
	return t.Tenant.FinishRun(ctx, runID, end)
}

// A storage failure before the stream is a 503; after it, a log line: the
// stream has ended as it would have.
func TestRunRecordStoreFailures(t *testing.T) {
	t.Parallel()
	f := recordsFixture(t, func(c *Config) { c.Store = recordingStore{Store: c.Store, failStart: true} })
	r := f.do("POST", "/v1/agents/echo/runs", runBody("r1", "hello"), nil)
	if r.status != http.StatusServiceUnavailable || codeOf(t, r) != "SERVICE_UNAVAILABLE" || r.header.Get("Retry-After") == "" {
		t.Errorf("the run could not be recorded: %d %s", r.status, r.body)
	}

	f = recordsFixture(t, func(c *Config) { c.Store = recordingStore{Store: c.Store, failFinish: true} })
	events := runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody("r1", "hello"), nil))
	if last := events[len(events)-1].Type(); last != "RUN_FINISHED" {
		t.Errorf("the stream ended with %s", last)
	}
	if run, _ := f.getRunRecord("r1", nil); run.Outcome != store.RunRunning {
		t.Errorf("record %+v, want it still running", run)
	}
	if logs := f.logBuf.String(); !strings.Contains(logs, "recording a run's outcome failed") || !strings.Contains(logs, "run_id=r1") {
		t.Errorf("the failure is not logged:\n%s", logs)
	}
}

// nextFrame reads the stream's next event, within five seconds.
func nextFrame(t *testing.T, rd *sse.Reader) sse.Frame {
	t.Helper()
	type result struct {
		f   sse.Frame
		err error
	}
	c := make(chan result, 1)
	go func() {
		f, err := rd.Next()
		c <- result{f, err}
	}()
	select {
	case r := <-c:
		if r.err != nil {
			t.Fatalf("the stream ended: %v", r.err)
		}
		return r.f
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5s")
	}
	return sse.Frame{}
}

// A finished run is a "run" event on the tenant's streams: live, without
// an id, so that Last-Event-ID stays the last feedback's.
func TestRunRecordEvents(t *testing.T) {
	t.Parallel()
	const keyA, keyB = "key-a-0123456789abcdef", "key-b-0123456789abcdef"
	f := recordsFixture(t, func(c *Config) { c.APIKeys = map[string]string{keyA: "acme", keyB: "globex"} })
	a, b := map[string]string{"X-API-Key": keyA}, map[string]string{"X-API-Key": keyB}
	rd, done := f.stream(a)
	defer done()
	other, otherDone := f.stream(b)
	defer otherDone()

	if r := f.do("POST", "/v1/errors", readFile(t, goldenDir+"/db_timeout.json"), a); r.status != 201 {
		t.Fatalf("POST /v1/errors: %d %s", r.status, r.body)
	}
	fb := nextFrame(t, rd)
	if fb.Event != "feedback" || fb.ID == "" {
		t.Fatalf("first event %+v", fb)
	}
	runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody("r-event", "fail with UPSTREAM_ERROR"), a))
	ev := nextFrame(t, rd)
	var run store.Run
	if err := json.Unmarshal([]byte(ev.Data), &run); err != nil || ev.Event != "run" || ev.ID != "" {
		t.Fatalf("event %+v: %v", ev, err)
	}
	stored, _ := f.getRunRecord("r-event", a)
	if len(stored.Events) == 0 || run.Events != nil {
		t.Errorf("the run's events: %d stored, %d in the event; want them stored only", len(stored.Events), len(run.Events))
	}
	stored.Events = nil // a run's own read has them, not the feed's events
	if fmt.Sprint(run) != fmt.Sprint(stored) || run.Outcome != store.RunFailed {
		t.Errorf("event's run %+v, stored %+v", run, stored)
	}
	if id := rd.LastEventID(); id != fb.ID {
		t.Errorf("Last-Event-ID after the run event %q, want the feedback's %q", id, fb.ID)
	}

	// Globex's stream had none of it: its next event is its own run.
	runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody("r-globex", "hi"), b))
	if ev := nextFrame(t, other); ev.Event != "run" || !strings.Contains(ev.Data, `"run_id":"r-globex"`) {
		t.Errorf("globex's first event %+v", ev)
	}
}

// A run another instance on the same store ends is a "run" event on this
// instance's streams too (read from the store at EventPoll), and many
// runs ended at once are all sent, in the order they ended.
func TestRunEventsAcrossInstances(t *testing.T) {
	t.Parallel()
	const key = "key-a-0123456789abcdef"
	keys := map[string]string{key: "acme"}
	f := recordsFixture(t, func(c *Config) { c.APIKeys = keys; c.EventPoll = 50 * time.Millisecond })
	rd, done := f.stream(map[string]string{"X-API-Key": key})
	defer done()

	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	other, err := New(Config{Store: f.store, Now: f.clock.Now, JobPoll: -1, APIKeys: keys, Agents: m,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(other)
	defer hs.Close()
	const n = 70 // more than the 64 runs a stream could queue before they came from the store
	for i := range n {
		req, _ := http.NewRequest("POST", hs.URL+"/v1/agents/echo/runs", bytes.NewReader(runBody(fmt.Sprint("r", i), "hi")))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-API-Key", key)
		resp, err := hs.Client().Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("run %d on the other instance: %v %v", i, resp, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for i := range n {
		ev := nextFrame(t, rd)
		var run store.Run
		if err := json.Unmarshal([]byte(ev.Data), &run); err != nil || ev.Event != "run" || ev.ID != "" {
			t.Fatalf("event %d: %+v (%v)", i, ev, err)
		}
		if want := fmt.Sprint("r", i); run.RunID != want || run.Outcome != store.RunFinished {
			t.Fatalf("event %d: run %+v, want %s finished", i, run, want)
		}
	}
}

// GET /v1/runs lists the tenant's runs, the latest started first (here
// all at one instant: the greatest run id first), filtered, in pages.
func TestListRuns(t *testing.T) {
	t.Parallel()
	f := recordsFixture(t, nil)
	for _, run := range []struct{ id, prompt string }{
		{"run-a", "hello"}, {"run-b", "fail with RATE_LIMITED after 7s"}, {"run-c", "hi"}, {"run-d", "fail with RATE_LIMITED after 1s"},
	} {
		runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody(run.id, run.prompt), nil))
	}
	list := func(query string) (ids []string, next string) {
		t.Helper()
		r := f.do("GET", "/v1/runs"+query, nil, nil)
		if r.status != http.StatusOK {
			t.Fatalf("GET /v1/runs%s: %d %s", query, r.status, r.body)
		}
		var page store.RunPage
		if err := json.Unmarshal(r.body, &page); err != nil {
			t.Fatal(err)
		}
		for _, run := range page.Runs {
			ids = append(ids, run.RunID)
			if run.AgentID != "echo" || (run.Outcome == store.RunFailed) != (run.Fault != nil) {
				t.Errorf("run %+v", run)
			}
		}
		return ids, page.Next
	}
	for _, c := range []struct{ query, want string }{
		{"", "run-d run-c run-b run-a"},
		{"?outcome=failed", "run-d run-b"},
		{"?outcome=finished&agent_id=echo", "run-c run-a"},
		{"?code=RATE_LIMITED", "run-d run-b"},
		{"?code=TIMEOUT", ""},
		{"?agent_id=other", ""},
		{"?since=" + scenarioNow.Add(time.Second).Format(time.RFC3339), ""},
	} {
		if ids, _ := list(c.query); strings.Join(ids, " ") != c.want {
			t.Errorf("GET /v1/runs%s: %v, want %q", c.query, ids, c.want)
		}
	}
	var pages []string
	for q := "?limit=3"; ; {
		ids, next := list(q)
		pages = append(pages, strings.Join(ids, " "))
		if next == "" {
			break
		}
		q = "?limit=3&cursor=" + next
	}
	if got := strings.Join(pages, " | "); got != "run-d run-c run-b | run-a" {
		t.Errorf("pages: %s", got)
	}

	r := f.do("GET", "/v1/runs?outcome=lost&limit=0&agent_id=a%20b&colour=red", nil, nil)
	if r.status != 400 || codeOf(t, r) != "INVALID_REQUEST" {
		t.Fatalf("bad query: %d %s", r.status, r.body)
	}
	for _, field := range []string{`"field":"outcome"`, `"field":"limit"`, `"field":"agent_id"`, `"field":"colour"`} {
		if !strings.Contains(string(r.body), field) {
			t.Errorf("the problem does not name %s: %s", field, r.body)
		}
	}
	if r := f.do("GET", "/v1/runs?cursor=bm9wZQ", nil, nil); r.status != 400 || !strings.Contains(string(r.body), `"field":"cursor"`) {
		t.Errorf("a foreign cursor: %d %s", r.status, r.body)
	}
}
