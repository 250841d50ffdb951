package server

import (
	"bufio"
	"bytes"
	"context"
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
	"github.com/triage-go/triage/wire/present"
	"github.com/triage-go/triage/wire/sse"
)

// liveRun is a run's response whose stream is still open.
type liveRun struct {
	resp *http.Response
	body chan []byte // the whole body, once it ends
}

// postLiveRun starts a run on the server at addr and returns at once.
func postLiveRun(t *testing.T, addr string, body []byte, accept string) *liveRun {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "POST", "http://"+addr+"/v1/agents/echo/runs", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	lr := &liveRun{resp: resp, body: make(chan []byte, 1)}
	go func() {
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		lr.body <- b
	}()
	return lr
}

func (lr *liveRun) ended(t *testing.T) []byte {
	t.Helper()
	select {
	case b := <-lr.body:
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("the run's stream did not end within 10s of the shutdown")
	}
	return nil
}

// A shutdown cancels the AG-UI runs in progress at once: each ends with
// a RUN_ERROR (SERVICE_UNAVAILABLE, retryable, with a retry delay; the
// thread goes on), or on a CAP stream its error packet; the records say
// the service stopped them, and Serve returns without waiting out
// ShutdownTimeout.
func TestRunsEndOnShutdown(t *testing.T) {
	t.Parallel()
	clk := &clock{now: scenarioNow}
	st := openStore(t, newDatabase(t), clk)
	t.Cleanup(func() { st.Close() })
	// A prompt timeout shorter than the test's wait: a run the shutdown
	// did not stop still ends.
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{PromptTimeout: 40 * time.Second})
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	srv, err := New(Config{Store: st, Now: clk.Now, JobPoll: -1, Agents: m, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	addr, stop, done := serve(t, srv)

	sseRun := postLiveRun(t, addr, runBody("sse", "hang"), "text/event-stream")
	capRun := postLiveRun(t, addr, runBody("cap", "hang"), "application/x-ndjson")
	deadline := time.Now().Add(10 * time.Second)
	for m.Health().Sessions != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the runs did not start: %d sessions", m.Health().Sessions)
		}
		time.Sleep(5 * time.Millisecond)
	}

	start := time.Now()
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v, want nil: the runs ended", err)
		}
	case <-time.After(ShutdownTimeout - 5*time.Second):
		t.Fatal("Serve waited on the runs in progress")
	}
	t.Logf("Serve returned %v after the shutdown began", time.Since(start).Round(time.Millisecond))

	// The AG-UI run: a RUN_ERROR, the last event, as a 1.0 client checks.
	var events []agui.Event
	stream := sseRun.ended(t)
	t.Logf("the AG-UI stream:\n%s", stream)
	rd := sse.NewReader(bytes.NewReader(stream))
	for {
		f, err := rd.Next()
		if err != nil {
			break
		}
		e, err := agui.Parse([]byte(f.Data))
		if err != nil {
			t.Fatalf("%s: %v", f.Data, err)
		}
		events = append(events, e)
	}
	if err := agui.Verify(events...); err != nil {
		t.Fatalf("the stream breaks a 1.0 client's rules: %v", err)
	}
	last, ok := events[len(events)-1].(*agui.RunError)
	if !ok || last.Code != "SERVICE_UNAVAILABLE" || last.Metadata["retryable"] != true ||
		fmt.Sprint(last.Metadata["retry_after"]) != fmt.Sprint(int(ShutdownRetryAfter/time.Second)) ||
		fmt.Sprint(last.Metadata["http_status"]) != "503" || last.Metadata["session_valid"] != true {
		t.Fatalf("last event %#v, want a retryable SERVICE_UNAVAILABLE RUN_ERROR", events[len(events)-1])
	}
	if d, _ := last.Metadata["details"].(map[string]any); d["reason"] != "shutting_down" {
		t.Errorf("details %v", last.Metadata["details"])
	}

	// The CAP run: its error packet, the last.
	var packet *present.Packet
	for sc := bufio.NewScanner(bytes.NewReader(capRun.ended(t))); sc.Scan(); {
		if packet, err = present.ParsePacket(sc.Bytes()); err != nil {
			t.Fatalf("%s: %v", sc.Bytes(), err)
		}
	}
	if packet == nil || packet.Op != present.OpError || packet.Error.Code != "SERVICE_UNAVAILABLE" || packet.Error.Severity != present.SeverityTransient {
		t.Fatalf("the CAP stream ended with %+v", packet)
	}

	// The records say the service stopped them; so does /metrics.
	for _, id := range []string{"sse", "cap"} {
		run, ok, err := st.Tenant(DefaultTenant).GetRun(t.Context(), id)
		if err != nil || !ok || run.Outcome != store.RunShutdown || run.FinishedAt.IsZero() || run.Fault != nil {
			t.Errorf("run %s: %+v %v %v, want outcome %q", id, run, ok, err, store.RunShutdown)
		}
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if want := `triage_runs_total{agent="echo",code="SERVICE_UNAVAILABLE",outcome="shutdown"} 2`; !strings.Contains(rec.Body.String(), want) {
		t.Errorf("metrics lack %s", want)
	}
	if n := m.Health().Sessions; n != 0 {
		t.Errorf("%d agent sessions left open", n)
	}
}

// A run asked for once the shutdown has begun is refused before its
// stream: 503 with Retry-After, and no record.
func TestRunRefusedWhileShuttingDown(t *testing.T) {
	t.Parallel()
	f := recordsFixture(t, nil)
	f.srv.Close()
	r := f.do("POST", "/v1/agents/echo/runs", runBody("late", "hello"), nil)
	if r.status != http.StatusServiceUnavailable || codeOf(t, r) != "SERVICE_UNAVAILABLE" ||
		r.header.Get("Retry-After") != fmt.Sprint(int(ShutdownRetryAfter/time.Second)) {
		t.Fatalf("%d %v %s", r.status, r.header, r.body)
	}
	if r := f.do("GET", "/v1/runs/late", nil, nil); r.status != http.StatusNotFound {
		t.Errorf("the refused run was recorded: %d %s", r.status, r.body)
	}
}
