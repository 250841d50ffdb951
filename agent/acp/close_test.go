package acp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/agent/acp"
	"github.com/triage-go/triage/fault"
)

// Close cancels the prompts in flight as ACP asks before it stops the
// worker: the agent on the official TypeScript SDK gets session/cancel for
// each hanging prompt and answers it; then its input closes and it exits.
// The prompts fail as the worker's exit (their sessions are gone). Issue
// 23: Close only closed the worker's input.
func TestCloseCancelsPromptsInFlight(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	cfg := sdkConfig(t)
	cfg.Logger = logs.logger()
	p, err := acp.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, b := newSession(t, p), newSession(t, p)
	pid := workerPID(t, p, a)
	done := make(chan error, 2)
	for _, id := range []string{a, b} {
		go func() { _, err := p.Prompt(context.Background(), id, "hang", nil); done <- err }()
	}
	for _, id := range []string{a, b} {
		waitTurn(t, &logs, id, "hang")
	}
	begun := time.Now()
	p.Close()
	if d := time.Since(begun); d > 2*time.Second {
		t.Errorf("Close took %v: the agent answers session/cancel at once", d)
	}
	for range 2 {
		check(t, <-done, want{fault.TransportError, fault.CategoryTransport, "Worker w1 exited", true, false, "w1"})
	}
	waitGone(t, pid)
	for _, id := range []string{a, b} {
		if !strings.Contains(logs.String(), "sdk agent: session/cancel for "+id) {
			t.Errorf("the agent got no session/cancel for %s:\n%s", id, logs.String())
		}
	}
}

// An agent that ignores session/cancel and the end of its input is killed:
// Close waits the grace for its answer, then closes its input and kills it
// when its output ends or StopTimeout passes.
func TestCloseKillsAStubbornAgent(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	cfg := sdkConfig(t)
	cfg.Logger = logs.logger()
	cfg.CancelGrace, cfg.StopTimeout = 300*time.Millisecond, 300*time.Millisecond
	p, err := acp.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	id := newSession(t, p)
	pid := workerPID(t, p, id)
	done := make(chan error, 1)
	go func() { _, err := p.Prompt(context.Background(), id, "stubborn", nil); done <- err }()
	waitTurn(t, &logs, id, "stubborn")
	begun := time.Now()
	p.Close()
	d := time.Since(begun)
	if d < 300*time.Millisecond || d > 3*time.Second {
		t.Errorf("Close took %v, want the grace (300ms), at most StopTimeout more, and a kill:\n%s", d, logs.String())
	}
	check(t, <-done, want{fault.TransportError, fault.CategoryTransport, "Worker w1 exited", true, false, "w1"})
	waitGone(t, pid)
	if out := logs.String(); !strings.Contains(out, "(ignored)") || !strings.Contains(out, "did not answer session/cancel in time") {
		t.Errorf("log:\n%s", out)
	}
}

// Close waits for the turns of forgotten sessions too, as a Manager's
// shutdown leaves them (it cancels the prompts, then forgets their
// sessions, then closes the pool): the agent, which takes 300 ms to answer
// a cancellation, answers each before its input closes.
func TestCloseWaitsForForgottenTurns(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	cfg := sdkConfig(t)
	cfg.Logger = logs.logger()
	p, err := acp.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{newSession(t, p), newSession(t, p)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, len(ids))
	for _, id := range ids {
		go func() { _, err := p.Prompt(ctx, id, "slow cancel", nil); done <- err }()
	}
	for _, id := range ids {
		waitTurn(t, &logs, id, "slow")
	}
	cancel()
	for _, id := range ids {
		p.Forget(id)
	}
	for range ids {
		check(t, <-done, want{fault.Cancelled, fault.CategoryTransport, "The request was cancelled.", false, true, "w1"})
	}
	p.Close()
	out := logs.String()
	closed := strings.Index(out, "sdk agent: input closed")
	for _, id := range ids {
		answered := strings.Index(out, "sdk agent: answering the cancelled turn of "+id)
		if answered < 0 || closed >= 0 && answered > closed {
			t.Errorf("the agent did not answer %s's cancellation before its input closed:\n%s", id, out)
		}
	}
}

// Forget cancels the prompt running on the session: the caller gets
// CANCELLED (the session is gone) and the worker session/cancel.
func TestForgetSendsSessionCancel(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	cfg := sdkConfig(t)
	cfg.Logger = logs.logger()
	p := start(t, cfg)
	id := newSession(t, p)
	done := make(chan error, 1)
	go func() { _, err := p.Prompt(context.Background(), id, "hang", nil); done <- err }()
	waitTurn(t, &logs, id, "hang")
	p.Forget(id)
	check(t, <-done, want{fault.Cancelled, fault.CategoryTransport, "The request was cancelled.", false, false, "w1"})
	logs.await(t, "sdk agent: session/cancel for "+id)
}
