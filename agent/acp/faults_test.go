package acp_test

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/triage-go/triage/agent/acp"
	"github.com/triage-go/triage/fault"
)

// A worker's JSON-RPC error is "Worker {id} failed: session/prompt",
// retryable only when its data says so; the session survives.
func TestWorkerErrorIsUpstream(t *testing.T) {
	t.Parallel()
	p := start(t, config())
	id := newSession(t, p)
	for _, tc := range []struct {
		code      fault.Code
		retryable bool
	}{
		{fault.RateLimited, true},
		{fault.InvalidRequest, false},
		{fault.ServiceUnavailable, true},
	} {
		_, err := p.Prompt(context.Background(), id, "fail with "+string(tc.code), nil)
		f := check(t, err, want{fault.UpstreamError, fault.CategoryUpstream, "Worker w1 failed: session/prompt", tc.retryable, true, "w1"})
		if f.Details["workerCode"] != string(tc.code) || f.Details["operation"] != "session/prompt" || f.Details["sessionId"] != id {
			t.Errorf("%s: details = %v", tc.code, f.Details)
		}
		var re *acpsdk.RequestError
		if !errors.As(err, &re) {
			t.Errorf("%s: cause %v is not the worker's RequestError", tc.code, f.Cause)
		}
	}
	echo(t, p, id, "next")
}

// A worker that says the session is gone is believed: the pool forgets it.
func TestWorkerSaysSessionGone(t *testing.T) {
	t.Parallel()
	p := start(t, config())
	id := newSession(t, p)
	_, err := p.Prompt(context.Background(), id, "fail with SESSION_NOT_FOUND", nil)
	check(t, err, want{fault.UpstreamError, fault.CategoryUpstream, "Worker w1 failed: session/prompt", false, false, "w1"})
	_, err = p.Prompt(context.Background(), id, "hello", nil)
	check(t, err, want{fault.SessionNotFound, fault.CategoryUpstream, "Session not found: " + id, false, false, ""})
}

func TestUnknownSession(t *testing.T) {
	t.Parallel()
	p := start(t, config())
	_, err := p.Prompt(context.Background(), "nope", "hello", nil)
	f := check(t, err, want{fault.SessionNotFound, fault.CategoryUpstream, "Session not found: nope", false, false, ""})
	if f.Details["sessionId"] != "nope" {
		t.Errorf("details = %v", f.Details)
	}
	check(t, p.Cancel(context.Background(), "nope"), want{fault.SessionNotFound, fault.CategoryUpstream, "Session not found: nope", false, false, ""})
}

// Forget drops a session, and cancels the prompt running on it.
func TestForget(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	cfg := config()
	cfg.Logger = logs.logger()
	p := start(t, cfg)
	idle, busy := newSession(t, p), newSession(t, p)
	p.Forget(idle)
	_, err := p.Prompt(context.Background(), idle, "hello", nil)
	check(t, err, want{fault.SessionNotFound, fault.CategoryUpstream, "Session not found: " + idle, false, false, ""})

	done := make(chan error, 1)
	go func() { _, err := p.Prompt(context.Background(), busy, "hang", nil); done <- err }()
	waitTurn(t, &logs, busy, "hang")
	p.Forget(busy)
	select {
	case err := <-done:
		check(t, err, want{fault.Cancelled, fault.CategoryTransport, "The request was cancelled.", false, false, "w1"})
	case <-time.After(5 * time.Second):
		t.Fatal("Prompt still running 5s after Forget")
	}
	p.Forget("never-was")
	echo(t, p, newSession(t, p), "the worker is fine")
}

// The pool refuses what a worker asks of an editor: permission (its reject
// option), files and terminals (method not found).
func TestClientRefusesWorkerRequests(t *testing.T) {
	t.Parallel()
	p := start(t, config())
	id := newSession(t, p)
	for directive, want := range map[string]string{
		"request permission":   "permission: reject",
		"read file /etc/hosts": "read refused: -32601",
		"write file /tmp/x":    "write refused: -32601",
		"terminal":             "terminal refused: -32601",
	} {
		a := prompt(context.Background(), p, id, directive)
		if a.err != nil || a.text() != want {
			t.Errorf("%s: %q, %v; want %q", directive, a.text(), a.err, want)
		}
	}
}

// A worker's stderr goes to the logger at debug level, redacted and cut;
// never to a fault's message.
func TestStderrIsLoggedRedacted(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	cfg := config()
	cfg.Logger = logs.logger()
	p := start(t, cfg)
	id := newSession(t, p)
	const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz123456"
	echo(t, p, id, "log using api_key="+secret)
	echo(t, p, id, "log "+strings.Repeat("x", 3000))
	logs.await(t, "xxxx")
	out := logs.String()
	if strings.Contains(out, secret) {
		t.Errorf("the secret reached the log:\n%s", out)
	}
	if !strings.Contains(out, `msg="worker stderr" agentId=echo workerId=w1`) || !strings.Contains(out, "[REDACTED]") {
		t.Errorf("no redacted stderr line in the log:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "xxxx") && strings.Count(line, "x") > 1100 {
			t.Errorf("a stderr line of %d bytes was not cut to 1 KiB", len(line))
		}
	}
}

// Nothing is left once the pool is closed: no goroutine, no process, even
// after a crash and a respawn.
func TestCloseLeavesNothing(t *testing.T) {
	base := runtime.NumGoroutine()
	var logs logBuffer
	cfg := config()
	cfg.Workers = 2
	cfg.Logger = logs.logger()
	p, err := acp.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, b := newSession(t, p), newSession(t, p)
	pids := []int{workerPID(t, p, a), workerPID(t, p, b)}
	echo(t, p, a, "one")
	prompt(context.Background(), p, b, "crash")
	waitHealthy(t, p)
	c := newSession(t, p)
	pids = append(pids, workerPID(t, p, c))
	ctx, cancel := context.WithCancel(context.Background())
	go prompt(ctx, p, c, "hang")
	waitTurn(t, &logs, c, "hang")
	cancel()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if processExists(pid) {
			t.Errorf("worker %d still exists after Close", pid)
		}
	}
	settleGoroutines(t, base)
}

// A pool whose only worker cannot be respawned says so at once.
func TestRespawnFailureFailsNewSession(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := config()
	// The worker starts once: its first start removes the directory that
	// the command runs in, so that every respawn fails.
	cfg.Dir = dir
	p := start(t, cfg)
	id := newSession(t, p)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	prompt(context.Background(), p, id, "crash")
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := p.NewSession(context.Background())
		if err == nil {
			t.Fatal("NewSession worked without a worker")
		}
		if f, _ := fault.As(err); f.Message == "Failed to start worker" {
			check(t, err, want{fault.TransportError, fault.CategoryTransport, "Failed to start worker", true, false, "w1"})
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("NewSession: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
