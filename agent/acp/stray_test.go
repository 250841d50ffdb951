package acp_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/agent/acp"
	"github.com/triage-go/triage/internal/testkit/acptest"
)

// A stray line on a worker's output (an agent printing to stdout by
// mistake) fails no prompt, neither the one of the session that printed
// it nor another session's on the same worker: the line is logged,
// counted, answered with a parse error and dropped, and both prompts get
// their answers. Issue 23: it failed every prompt in flight on the worker.
// Run with Triage's own worker and with the agent on the official
// TypeScript ACP SDK.
func TestStrayLineFailsNoPrompt(t *testing.T) {
	t.Parallel()
	for name, cfg := range map[string]func(t *testing.T) acp.Config{
		"triage_worker": func(*testing.T) acp.Config { return config("TRIAGE_WORKER_DELAY=20ms") },
		"sdk_agent":     func(t *testing.T) acp.Config { return sdkConfig(t, "SDK_AGENT_DELAY_MS=20") },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var logs logBuffer
			c := cfg(t)
			c.Logger = logs.logger()
			p := start(t, c)
			a, b := newSession(t, p), newSession(t, p)

			// b streams a long answer while a prints its stray line.
			long := "one two three four five six seven eight nine ten"
			streaming := make(chan struct{})
			done := make(chan answer, 1)
			go func() {
				var once sync.Once
				var got answer
				got.stop, got.err = p.Prompt(context.Background(), b, long, func(c string) {
					got.chunks = append(got.chunks, c)
					once.Do(func() { close(streaming) })
				})
				done <- got
			}()
			<-streaming
			stray := prompt(context.Background(), p, a, "stray loading the model")
			if stray.err != nil || stray.stop != "end_turn" || stray.text() != "You said: stray loading the model" {
				t.Errorf("the prompt that printed the stray line: %q, %q, %v", stray.text(), stray.stop, stray.err)
			}
			select {
			case other := <-done:
				if other.err != nil || other.stop != "end_turn" || other.text() != "You said: "+long {
					t.Errorf("the other session's prompt: %q, %q, %v", other.text(), other.stop, other.err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the other session's prompt never ended")
			}
			if got := p.Stats().StrayLines; got != 1 {
				t.Errorf("Stats().StrayLines = %d, want 1", got)
			}
			out := logs.String()
			if !strings.Contains(out, "level=WARN") || !strings.Contains(out, "strayLines=1") || !strings.Contains(out, "loading the model") {
				t.Errorf("the stray line is not logged (a warning, and the line at debug level):\n%s", out)
			}
			if name == "sdk_agent" {
				// The pool's parse error reached the agent, which, as its
				// SDK does with an answer to nothing it asked, logs it.
				logs.await(t, "Got response to unknown request null")
			}
			echo(t, p, a, "still here")
		})
	}
}

// An agent that prints a banner on its output before it answers
// initialize starts all the same.
func TestBannerBeforeInitialize(t *testing.T) {
	t.Parallel()
	p := start(t, sdkConfig(t, "SDK_AGENT_BANNER=1"))
	echo(t, p, newSession(t, p), "after the banner")
	if got := p.Stats().StrayLines; got != 1 {
		t.Errorf("Stats().StrayLines = %d, want 1", got)
	}
}

// sdkConfig is a pool of the agent on the official TypeScript ACP SDK
// (cmd/triage/testdata/acp-agent), with config's timeouts; the test is
// skipped when node or the agent's packages are missing.
func sdkConfig(t testing.TB, env ...string) acp.Config {
	cfg := config()
	cfg.Command = acptest.SDKAgent(t)
	cfg.Env = env
	return cfg
}
