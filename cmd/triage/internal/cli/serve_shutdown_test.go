package cli_test

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
	"github.com/triage-go/triage/wire/agui"
	"github.com/triage-go/triage/wire/sse"
)

// TestServeShutdownEndsRuns: what SIGTERM does to `triage serve` (the
// real Main, its context cancelled) with AG-UI runs in progress that
// would wait for minutes ("hang"): each stream ends at once with a
// RUN_ERROR SERVICE_UNAVAILABLE (retryable, retry_after 5), or on a CAP
// stream its error packet; serve exits 0 long before its 25 s shutdown
// deadline; the records say the service stopped the runs.
func TestServeShutdownEndsRuns(t *testing.T) {
	db := filepath.Join(t.TempDir(), "triage.db")
	// A prompt timeout that ends the runs, should the shutdown not.
	s := startServe(t, "--db", db, "--prompt-timeout", "60s")
	type live struct {
		id   string
		cap  bool
		body chan string
	}
	var runs []live
	for i := range 4 {
		r := live{id: fmt.Sprint("run-", i), cap: i == 3, body: make(chan string, 1)}
		body := fmt.Sprintf(`{"threadId":"t","runId":%q,"messages":[{"id":"m","role":"user","content":"hang"}]}`, r.id)
		req, err := http.NewRequest("POST", s.base+"/v1/agents/echo/runs", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if r.cap {
			req.Header.Set("Accept", "application/x-ndjson")
		}
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				r.body <- err.Error()
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			r.body <- fmt.Sprintf("%d\n%s", resp.StatusCode, b)
		}()
		runs = append(runs, r)
	}
	// Every run is recorded as running before its stream starts.
	deadline := time.Now().Add(10 * time.Second)
	for _, r := range runs {
		for {
			got := call(t, "GET", s.base+"/v1/runs/"+r.id, nil)
			if got.status == 200 && got.field(t, "outcome") == store.RunRunning {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %s: %d %s", r.id, got.status, got.body)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	start := time.Now()
	code := s.stop()
	took := time.Since(start)
	if code != 0 {
		t.Errorf("serve exited %d; stderr:\n%s", code, s.stderr.String())
	}
	if took > 10*time.Second {
		t.Errorf("serve took %v to exit", took)
	}
	t.Logf("serve exited %d, %v after its context was cancelled", code, took.Round(time.Millisecond))
	if strings.Contains(s.stderr.String(), "deadline exceeded") {
		t.Errorf("stderr:\n%s", s.stderr.String())
	}

	for _, r := range runs {
		var body string
		select {
		case body = <-r.body:
		case <-time.After(10 * time.Second):
			t.Fatalf("run %s: the stream did not end", r.id)
		}
		status, body, _ := strings.Cut(body, "\n")
		if status != "200" {
			t.Fatalf("run %s: %s %s", r.id, status, body)
		}
		if r.cap {
			lines := strings.Split(strings.TrimSpace(body), "\n")
			if last := lines[len(lines)-1]; !strings.Contains(last, `"op":"error"`) || !strings.Contains(last, `"code":"SERVICE_UNAVAILABLE"`) {
				t.Errorf("CAP run %s ended with %q", r.id, last)
			}
			continue
		}
		var events []agui.Event
		rd := sse.NewReader(strings.NewReader(body))
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
			t.Fatalf("run %s: %v\n%s", r.id, err, body)
		}
		last, ok := events[len(events)-1].(*agui.RunError)
		if !ok || last.Code != "SERVICE_UNAVAILABLE" || last.Metadata["retryable"] != true || fmt.Sprint(last.Metadata["retry_after"]) != "5" {
			t.Errorf("run %s ended with %s", r.id, body)
		}
	}

	st, err := sqlite.Open(t.Context(), db, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, r := range runs {
		run, ok, err := st.Tenant("default").GetRun(t.Context(), r.id)
		if err != nil || !ok || run.Outcome != store.RunShutdown {
			t.Errorf("run %s: %+v %v %v, want outcome %s", r.id, run, ok, err, store.RunShutdown)
		}
	}
}
