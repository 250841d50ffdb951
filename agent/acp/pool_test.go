package acp_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/agent/acp"
	"github.com/triage-go/triage/fault"
)

// A whole session: the answer streams as several chunks, in order, and the
// session keeps serving prompts.
func TestSessionStreamsChunksInOrder(t *testing.T) {
	t.Parallel()
	p := start(t, config())
	id := newSession(t, p)
	a := prompt(context.Background(), p, id, "hello brave new world")
	if a.err != nil || a.stop != "end_turn" {
		t.Fatalf("Prompt = %q, %v", a.stop, a.err)
	}
	want := []string{"You ", "said: ", "hello ", "brave ", "new ", "world"}
	if strings.Join(a.chunks, "|") != strings.Join(want, "|") {
		t.Errorf("chunks = %q, want %q", a.chunks, want)
	}
	echo(t, p, id, "and again")
	if alive, total := p.Healthy(); alive != 1 || total != 1 {
		t.Errorf("Healthy() = %d, %d; want 1, 1", alive, total)
	}
}

// onChunk is called as chunks arrive, before the turn ends, on the
// caller's goroutine.
func TestChunksArriveWhileStreaming(t *testing.T) {
	t.Parallel()
	p := start(t, config("TRIAGE_WORKER_DELAY=30ms"))
	id := newSession(t, p)
	begun := time.Now()
	var first time.Duration
	_, err := p.Prompt(context.Background(), id, "one two three four five six", func(string) {
		if first == 0 {
			first = time.Since(begun)
		}
	})
	total := time.Since(begun)
	if err != nil {
		t.Fatal(err)
	}
	if first <= 0 || first > total/2 {
		t.Errorf("first chunk after %v of %v: chunks are not streamed", first, total)
	}
}

// A worker that crashes mid-prompt: the prompt fails as exited, every
// session on the worker is gone, the process is reaped, and the pool
// respawns the worker so that new sessions work.
func TestCrashMidPrompt(t *testing.T) {
	t.Parallel()
	p := start(t, config())
	a, b := newSession(t, p), newSession(t, p)
	pid := workerPID(t, p, a)

	got := prompt(context.Background(), p, a, "crash")
	if len(got.chunks) == 0 || got.chunks[0] != "You " {
		t.Errorf("chunks before the crash = %q, want the first one", got.chunks)
	}
	f := check(t, got.err, want{fault.TransportError, fault.CategoryTransport, "Worker w1 exited", true, false, "w1"})
	if f.Debug.Extra["exit"] != "exit status 3" {
		t.Errorf("Debug exit = %v, want exit status 3", f.Debug.Extra["exit"])
	}
	waitGone(t, pid)

	for _, id := range []string{a, b} {
		_, err := p.Prompt(context.Background(), id, "hello", nil)
		check(t, err, want{fault.SessionNotFound, fault.CategoryUpstream, "Session not found: " + id, false, false, ""})
	}
	waitHealthy(t, p)
	c := newSession(t, p)
	echo(t, p, c, "back again")
	if again := workerPID(t, p, c); again == pid {
		t.Errorf("the respawned worker has the crashed one's pid %d", pid)
	}
}

// A new session right after a crash waits for the respawn.
func TestNewSessionWaitsForRespawn(t *testing.T) {
	t.Parallel()
	p := start(t, config())
	id := newSession(t, p)
	prompt(context.Background(), p, id, "crash")
	echo(t, p, newSession(t, p), "after the crash")
}

// A prompt that hangs past PromptTimeout times out; the worker is told to
// cancel, and the session serves the next prompt.
func TestHangPastPromptTimeout(t *testing.T) {
	t.Parallel()
	cfg := config()
	cfg.PromptTimeout = time.Second
	p := start(t, cfg)
	id := newSession(t, p)
	begun := time.Now()
	_, err := p.Prompt(context.Background(), id, "hang", nil)
	if d := time.Since(begun); d < time.Second || d > 6*time.Second {
		t.Errorf("timed out after %v, want about 1s", d)
	}
	f := check(t, err, want{fault.Timeout, fault.CategoryTransport, "Worker w1 timed out", true, true, "w1"})
	if f.Details["sessionId"] != id || f.Details["operation"] != "session/prompt" {
		t.Errorf("details = %v", f.Details)
	}
	echo(t, p, id, "still here")
}

// A caller's deadline is a timeout too.
func TestCallerDeadline(t *testing.T) {
	t.Parallel()
	p := start(t, config())
	id := newSession(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := p.Prompt(ctx, id, "hang", nil)
	check(t, err, want{fault.Timeout, fault.CategoryTransport, "Worker w1 timed out", true, true, "w1"})
	echo(t, p, id, "still here")
}

// Answers that break the protocol fail at once (not at the timeout) as
// malformed prompt results, and the session goes on.
func TestMalformedPromptResult(t *testing.T) {
	t.Parallel()
	for _, directive := range []string{"malformed", "bad result", "bad stop reason"} {
		t.Run(strings.ReplaceAll(directive, " ", "_"), func(t *testing.T) {
			t.Parallel()
			p := start(t, config())
			id := newSession(t, p)
			begun := time.Now()
			a := prompt(context.Background(), p, id, directive)
			if d := time.Since(begun); d > 5*time.Second {
				t.Errorf("took %v: the malformed answer was waited out", d)
			}
			if a.text() != "You said: "+directive {
				t.Errorf("chunks before the answer = %q", a.text())
			}
			check(t, a.err, want{fault.ProtocolError, fault.CategoryUpstream,
				"Invalid worker response: malformed prompt result", false, true, "w1"})
			echo(t, p, id, "next")
		})
	}
}

// A worker that answers session/new without a session id.
func TestMissingSessionID(t *testing.T) {
	t.Parallel()
	p := start(t, config("TRIAGE_WORKER_NO_SESSION_ID=1"))
	_, err := p.NewSession(context.Background())
	check(t, err, want{fault.ProtocolError, fault.CategoryUpstream, "Invalid worker response: missing sessionId", false, false, "w1"})
}

// Every way a start can fail is "Failed to start worker", retryable, with
// the worker's stderr in Debug only.
func TestStartFails(t *testing.T) {
	t.Parallel()
	failStart := config("TRIAGE_WORKER_FAIL_START=1")
	missing := config()
	missing.Command = []string{"/nonexistent/triage-worker"}
	silent := config("TRIAGE_ACP_TEST_SILENT=1")
	silent.StartTimeout = 300 * time.Millisecond
	for name, tc := range map[string]struct {
		cfg    acp.Config
		stderr string // in Debug
	}{
		"exits at start":       {failStart, "refusing to start"},
		"command missing":      {missing, ""},
		"initialize times out": {silent, ""},
	} {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			tc.cfg.Workers = 2
			p, err := acp.Start(context.Background(), tc.cfg)
			if p != nil {
				t.Fatal("Start returned a pool with its error")
			}
			f := check(t, err, want{fault.TransportError, fault.CategoryTransport, "Failed to start worker", true, false, "w1"})
			if f.Cause == nil {
				t.Error("no cause")
			}
			if tc.stderr != "" {
				if lines, _ := f.Debug.Extra["stderr"].([]string); !strings.Contains(strings.Join(lines, "\n"), tc.stderr) {
					t.Errorf("Debug stderr = %q, want %q in it", lines, tc.stderr)
				}
			}
		})
	}
}

func TestEmptyCommandIsAConfigError(t *testing.T) {
	t.Parallel()
	_, err := acp.Start(context.Background(), acp.Config{Source: "echo"})
	check(t, err, want{fault.ConfigError, fault.CategoryConfig, "Worker command is required", false, true, ""})
}

// Cancel racing the turn's end: each time, either the completed answer or
// CANCELLED, never both, never a hang.
func TestCancelRacesCompletion(t *testing.T) {
	t.Parallel()
	p := start(t, config("TRIAGE_WORKER_DELAY=0"))
	id := newSession(t, p)
	var completed, cancelled int
	for i := range 60 {
		ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
		done := make(chan answer, 1)
		go func() { done <- prompt(ctx, p, id, "one two three four") }()
		time.Sleep(time.Duration(i%6) * 100 * time.Microsecond)
		if err := p.Cancel(context.Background(), id); err != nil {
			t.Fatalf("Cancel: %v", err)
		}
		var a answer
		select {
		case a = <-done:
		case <-time.After(15 * time.Second):
			t.Fatalf("iteration %d: Prompt hangs", i)
		}
		stop()
		switch {
		case a.err == nil && a.stop == "end_turn" && a.text() == "You said: one two three four":
			completed++
		case a.err != nil && a.stop == "":
			check(t, a.err, want{fault.Cancelled, fault.CategoryTransport, "The request was cancelled.", false, true, "w1"})
			cancelled++
		default:
			t.Fatalf("iteration %d: %q, %q, %v", i, a.text(), a.stop, a.err)
		}
	}
	t.Logf("%d completed, %d cancelled", completed, cancelled)
	echo(t, p, id, "after the races")
}

// Cancel stops a running prompt: the worker answers "cancelled". The
// CancelGrace is so long that a cancel the worker ignored would leave the
// prompt running.
func TestCancelStopsPrompt(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	cfg := config()
	cfg.Logger = logs.logger()
	cfg.CancelGrace = time.Hour
	p := start(t, cfg)
	id := newSession(t, p)
	done := make(chan error, 1)
	go func() { _, err := p.Prompt(context.Background(), id, "hang", nil); done <- err }()
	waitTurn(t, &logs, id, "hang")
	if err := p.Cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		check(t, err, want{fault.Cancelled, fault.CategoryTransport, "The request was cancelled.", false, true, "w1"})
	case <-time.After(15 * time.Second):
		t.Fatal("the prompt still runs 15s after Cancel: the worker ignored the cancel")
	}
	echo(t, p, id, "next")
	if err := p.Cancel(context.Background(), id); err != nil {
		t.Errorf("Cancel on an idle session: %v", err)
	}
}

// A cancel that reaches the worker right after its prompt, before the turn
// has begun there, stops it: each of many prompts ends CANCELLED, promptly.
// The CancelGrace is so long that a cancel the worker lost would leave the
// prompt running until its context's deadline, a TIMEOUT.
func TestCancelRightAfterPrompt(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	cfg := config()
	cfg.Logger = logs.logger()
	cfg.CancelGrace = time.Hour
	p := start(t, cfg)
	for i := range 100 {
		id := newSession(t, p)
		ctx, stop := context.WithTimeout(context.Background(), 15*time.Second)
		done := make(chan error, 1)
		go func() { _, err := p.Prompt(ctx, id, "hang", nil); done <- err }()
		waitTurn(t, &logs, id, "hang")
		if err := p.Cancel(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		err := <-done
		stop()
		if fault.CodeOf(err) != fault.Cancelled {
			t.Fatalf("prompt %d: %v; want CANCELLED (a TIMEOUT is a cancel the worker lost)", i, err)
		}
		p.Forget(id)
	}
}

// The caller's cancelled context: CANCELLED at once, the worker is told, the
// session goes on.
func TestCallerCancels(t *testing.T) {
	t.Parallel()
	p := start(t, config())
	id := newSession(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := p.Prompt(ctx, id, "hang", nil)
	check(t, err, want{fault.Cancelled, fault.CategoryTransport, "The request was cancelled.", false, true, "w1"})
	echo(t, p, id, "next")
}

func TestSessionBusy(t *testing.T) {
	t.Parallel()
	p := start(t, config("TRIAGE_WORKER_DELAY=50ms"))
	id := newSession(t, p)
	streaming := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		var once sync.Once
		_, err := p.Prompt(context.Background(), id, "a long answer to come", func(string) { once.Do(func() { close(streaming) }) })
		done <- err
	}()
	<-streaming
	_, err := p.Prompt(context.Background(), id, "hello", nil)
	check(t, err, want{fault.SessionBusy, fault.CategoryUpstream, "The session is busy with another request. Please wait.", true, true, "w1"})
	if err := <-done; err != nil {
		t.Errorf("the running prompt: %v", err)
	}
}

// Prompts on many sessions over two workers at once: each gets its own
// answer, and the sessions are spread over both workers.
func TestConcurrentPrompts(t *testing.T) {
	t.Parallel()
	cfg := config()
	cfg.Workers = 2
	p := start(t, cfg)
	ids := make([]string, 12)
	for i := range ids {
		ids[i] = newSession(t, p)
	}
	pids := map[int]int{}
	for _, id := range ids {
		pids[workerPID(t, p, id)]++
	}
	if len(pids) != 2 {
		t.Errorf("sessions per worker pid: %v, want 6 on each of 2", pids)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(ids)*3)
	for i, id := range ids {
		wg.Go(func() {
			for j := range 3 {
				text := fmt.Sprintf("session %d prompt %d", i, j)
				a := prompt(context.Background(), p, id, text)
				if a.err != nil || a.text() != "You said: "+text {
					errs <- fmt.Errorf("%s: %q, %v", text, a.text(), a.err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Close during a prompt: the prompt returns at once, the process is gone,
// and the pool answers "Executor not started" from then on.
func TestCloseWhilePromptRuns(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	cfg := config()
	cfg.Logger = logs.logger()
	p, err := acp.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	id := newSession(t, p)
	pid := workerPID(t, p, id)
	done := make(chan error, 1)
	go func() { _, err := p.Prompt(context.Background(), id, "hang", nil); done <- err }()
	waitTurn(t, &logs, id, "hang")
	begun := time.Now()
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-done:
		check(t, err, want{fault.TransportError, fault.CategoryTransport, "Worker w1 exited", true, false, "w1"})
	case <-time.After(5 * time.Second):
		t.Fatal("Prompt still running 5s after Close")
	}
	if d := time.Since(begun); d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
	if processExists(pid) {
		t.Errorf("worker %d still exists after Close", pid)
	}
	notStarted := want{fault.InternalError, fault.CategoryInternal, "Executor not started", false, false, ""}
	_, err = p.NewSession(context.Background())
	check(t, err, notStarted)
	_, err = p.Prompt(context.Background(), id, "hello", nil)
	check(t, err, notStarted)
	check(t, p.Cancel(context.Background(), id), notStarted)
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if alive, total := p.Healthy(); alive != 0 || total != 1 {
		t.Errorf("Healthy() after Close = %d, %d", alive, total)
	}
}

// A Pool that was never started answers "Executor not started".
func TestNotStarted(t *testing.T) {
	t.Parallel()
	for name, p := range map[string]*acp.Pool{"zero": {}, "nil": nil} {
		_, err := p.NewSession(context.Background())
		if f, ok := fault.As(err); !ok || f.Code != fault.InternalError || f.Message != "Executor not started" || f.SessionValid {
			t.Errorf("%s NewSession: %v", name, err)
		}
		if _, err := p.Prompt(context.Background(), "s", "x", nil); fault.CodeOf(err) != fault.InternalError {
			t.Errorf("%s Prompt: %v", name, err)
		}
		if err := p.Cancel(context.Background(), "s"); fault.CodeOf(err) != fault.InternalError {
			t.Errorf("%s Cancel: %v", name, err)
		}
		if a, n := p.Healthy(); a != 0 || n != 0 {
			t.Errorf("%s Healthy() = %d, %d", name, a, n)
		}
		p.Forget("s")
		if err := p.Close(); err != nil {
			t.Errorf("%s Close: %v", name, err)
		}
	}
}
