package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/internal/testkit/acptest"
)

// TestBridgeSIGTERM sends SIGTERM to a real `triage bridge` process while a
// prompt hangs, with the default 5-minute prompt timeout, on a script
// agent, on Triage's ACP worker (`triage worker`) and on the ACP agent
// written with the official TypeScript ACP SDK: the go-sdk client gets the
// answer to its call (SERVICE_UNAVAILABLE, retryable after 5s), the bridge
// exits 0 within seconds, and no worker process outlives it. Issue 23: the
// bridge outlived SIGTERM by the prompt timeout (ACP workers still alive
// after 40s), and the client then saw the connection close instead of an
// answer.
func TestBridgeSIGTERM(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "triage")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	agents := map[string]string{
		"script": "  - {id: script, kind: script}\n",
		"worker": fmt.Sprintf("  - {id: worker, kind: acp, command: [%q, worker], env: {TRIAGE_WORKER_DELAY: 1ms}}\n", bin),
	}
	t.Run("script", func(t *testing.T) { sigterm(t, bin, agents["script"], "script") })
	t.Run("triage_worker", func(t *testing.T) { sigterm(t, bin, agents["worker"], "worker") })
	t.Run("sdk_agent", func(t *testing.T) {
		sdk := acptest.SDKAgent(t)
		sigterm(t, bin, fmt.Sprintf("  - {id: sdk, kind: acp, command: [%q, %q]}\n", sdk[0], sdk[1]), "sdk")
	})
}

// sigterm runs the bridge over the agents, hangs a prompt (and a delegated
// task) on agentID, sends SIGTERM and checks what the client and the
// processes do.
func sigterm(t *testing.T, bin, agents, agentID string) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "agents.yaml")
	if err := os.WriteFile(file, []byte("agents:\n"+agents), 0o600); err != nil {
		t.Fatal(err)
	}
	// At debug level the bridge logs its workers' stderr: the SDK agent's
	// "turn of ID begins: WORD" as a prompt reaches it.
	cmd := exec.Command(bin, "bridge", "--agents", file, "--debug")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sigterm-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	callTool := func(name string, args map[string]any) (map[string]any, *mcp.CallToolResult, error) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return nil, nil, err
		}
		var out map[string]any
		data, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(data, &out)
		return out, res, nil
	}
	s, res, err := callTool("sessions_create", map[string]any{"agentId": agentID})
	if err != nil || res.IsError {
		t.Fatalf("create: %v %v\n%s", err, s, stderr.String())
	}
	session := s["sessionId"].(string)
	pid := 0
	if agentID != "script" {
		p, _, err := callTool("sessions_prompt", map[string]any{"sessionId": session, "prompt": "pid"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Sscanf(fmt.Sprint(p["text"]), "pid: %d", &pid); err != nil {
			t.Fatalf("pid: %v", p)
		}
	}

	type answer struct {
		tool string
		out  map[string]any
		res  *mcp.CallToolResult
		err  error
	}
	answers := make(chan answer, 2)
	for tool, args := range map[string]map[string]any{
		"sessions_prompt": {"sessionId": session, "prompt": "hang"},
		"tasks_delegate":  {"agentId": agentID, "prompt": "hang"},
	} {
		go func() {
			out, res, err := callTool(tool, args)
			answers <- answer{tool, out, res, err}
		}()
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, _, _ := callTool("sessions_status", map[string]any{"sessionId": session})
		h, _, _ := callTool("bridge_health", map[string]any{})
		if st["state"] == "running" && h["inFlight"] == 2.0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the prompts are not running: %v %v", st, h)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The prompts reach the agent: a script agent runs in the process, so
	// its prompts have once they run; the SDK agent says so on its stderr.
	// `triage worker` announces nothing, and nothing else tells that a
	// prompt written to its stdin has been read: a pause stays for it.
	switch agentID {
	case "sdk":
		for deadline := time.Now().Add(20 * time.Second); strings.Count(stderr.String(), " begins: hang") < 2; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the prompts did not reach the agent in 20s\n%s", stderr.String())
			}
		}
	case "worker":
		time.Sleep(200 * time.Millisecond)
	}

	begun := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		var a answer
		select {
		case a = <-answers:
		case <-time.After(15 * time.Second):
			t.Fatalf("no answer 15s after SIGTERM\n%s", stderr.String())
		}
		if a.err != nil {
			t.Errorf("%s: %v (the call was not answered)\n%s", a.tool, a.err, stderr.String())
			continue
		}
		data, _ := json.Marshal(a.out["error"])
		var f struct {
			Code, Message string
			Retryable     bool
			RetryAfter    float64
			SessionValid  bool
			Details       map[string]any
		}
		_ = json.Unmarshal(data, &f)
		if !a.res.IsError || f.Code != "SERVICE_UNAVAILABLE" || f.Message != "The bridge is shutting down" ||
			!f.Retryable || f.RetryAfter != 5 || f.SessionValid || f.Details["agentId"] != agentID {
			t.Errorf("%s: %s", a.tool, data)
		}
	}
	select {
	case <-exited:
		var ee *exec.ExitError
		if waitErr != nil && !errors.As(waitErr, &ee) {
			t.Fatal(waitErr)
		}
		if waitErr != nil {
			t.Errorf("the bridge exited with %v\n%s", waitErr, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("the bridge is still running 15s after SIGTERM\n%s", stderr.String())
	}
	t.Logf("%s: answered and exited %v after SIGTERM", agentID, time.Since(begun).Round(time.Millisecond))
	if pid != 0 {
		for time.Since(begun) < 15*time.Second && syscall.Kill(pid, 0) == nil {
			time.Sleep(20 * time.Millisecond)
		}
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("worker %d outlived the bridge", pid)
		}
	}
	if log := stderr.String(); !strings.Contains(log, "MCP bridge shutting down") {
		t.Errorf("the bridge did not log its shutdown:\n%s", log)
	}
}

// syncBuffer is a bytes.Buffer safe for a process's output and a test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
