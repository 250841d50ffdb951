package acp_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/agent/acp"
	"github.com/triage-go/triage/fault"
)

// The agent's own error (an ACP RequestError("sdk agent refused", -32000)
// from the official TypeScript SDK) reaches the fault's details, and the
// debug log. Issue 23: it appeared nowhere.
func TestWorkerErrorInDetails(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	cfg := sdkConfig(t)
	cfg.Logger = logs.logger()
	p := start(t, cfg)
	id := newSession(t, p)
	_, err := p.Prompt(context.Background(), id, "refuse", nil)
	f := check(t, err, want{fault.UpstreamError, fault.CategoryUpstream, "Worker w1 failed: session/prompt", false, true, "w1"})
	if f.Details["workerErrorCode"] != -32000 || f.Details["workerErrorMessage"] != "sdk agent refused" {
		t.Errorf("details = %v, want the worker's code and message", f.Details)
	}
	if out := logs.String(); !strings.Contains(out, `msg="worker answered with an error"`) || !strings.Contains(out, `message="sdk agent refused"`) {
		t.Errorf("the debug log does not say what the worker answered:\n%s", out)
	}
	echo(t, p, id, "after the refusal")
}

// A worker whose initialize fails: "Failed to start worker" says why in
// its details, the worker's own error included. Issue 23: it gave no
// cause.
func TestStartFailureSaysWhy(t *testing.T) {
	t.Parallel()
	refuse := sdkConfig(t, "SDK_AGENT_REFUSE_INIT=1")
	failStart := config("TRIAGE_WORKER_FAIL_START=1")
	missing := config()
	missing.Command = []string{"/nonexistent/triage-worker"}
	silent := config("TRIAGE_ACP_TEST_SILENT=1")
	silent.StartTimeout = 300 * time.Millisecond
	for name, tc := range map[string]struct {
		cfg     acp.Config
		details map[string]any
	}{
		"initialize refused": {refuse, map[string]any{"reason": "the worker answered initialize with an error",
			"workerErrorCode": -32000, "workerErrorMessage": "sdk agent refused"}},
		"exits at start":       {failStart, map[string]any{"reason": "the worker exited during initialize", "exit": "exit status 2"}},
		"command missing":      {missing, map[string]any{"reason": "the command could not be started"}},
		"initialize times out": {silent, map[string]any{"reason": "initialize timed out"}},
	} {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			_, err := acp.Start(context.Background(), tc.cfg)
			f := check(t, err, want{fault.TransportError, fault.CategoryTransport, "Failed to start worker", true, false, "w1"})
			for k, v := range tc.details {
				if f.Details[k] != v {
					t.Errorf("details.%s = %v, want %v (details %v)", k, f.Details[k], v, f.Details)
				}
			}
		})
	}
}

// The respawn log says how the worker exited. Issue 23: it said exit=""
// (half of the time: the status was read racing a zero timer). Five
// crashes of Triage's worker, and one of the SDK agent with its own code.
func TestRespawnLogSaysExitStatus(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		cfg    func(t *testing.T) acp.Config
		prompt string
		times  int
		exit   string
	}{
		"triage_worker": {func(*testing.T) acp.Config { return config() }, "crash", 5, "exit status 3"},
		"sdk_agent":     {func(t *testing.T) acp.Config { return sdkConfig(t) }, "exit 7", 1, "exit status 7"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var logs logBuffer
			cfg := tc.cfg(t)
			cfg.Logger = logs.logger()
			p := start(t, cfg)
			for range tc.times {
				_, err := p.Prompt(context.Background(), newSession(t, p), tc.prompt, nil)
				check(t, err, want{fault.TransportError, fault.CategoryTransport, "Worker w1 exited", true, false, "w1"})
				waitHealthy(t, p)
			}
			got := regexp.MustCompile(`msg="worker exited; respawning".* exit=("[^"]*"|\S*)`).FindAllStringSubmatch(logs.String(), -1)
			if len(got) != tc.times {
				t.Fatalf("%d respawn records, want %d:\n%s", len(got), tc.times, logs.String())
			}
			for _, m := range got {
				if m[1] != `"`+tc.exit+`"` {
					t.Errorf("respawn logged exit=%s, want %q", m[1], tc.exit)
				}
			}
		})
	}
}
