package acpagent_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/triage-go/triage/adapter/acpagent"
	"github.com/triage-go/triage/fault"
)

// harness serves a worker in-process over pipes, with the SDK's client side
// talking to it.
type harness struct {
	conn   *acpsdk.ClientSideConnection
	client *testClient
	stderr *syncBuffer
	raw    *syncBuffer // every line the worker wrote
	served chan error
}

func serve(t *testing.T, o acpagent.Config) *harness {
	t.Helper()
	toWorker, fromClient := io.Pipe()
	toClient, fromWorker := io.Pipe()
	h := &harness{client: &testClient{}, stderr: &syncBuffer{}, raw: &syncBuffer{}, served: make(chan error, 1)}
	if o.Stderr == nil {
		o.Stderr = h.stderr
	}
	go func() { h.served <- acpagent.Serve(context.Background(), toWorker, fromWorker, o) }()
	h.conn = acpsdk.NewClientSideConnection(h.client, fromClient, io.TeeReader(toClient, h.raw))
	h.conn.SetLogger(discard())
	t.Cleanup(func() {
		fromClient.Close()
		select {
		case err := <-h.served:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Serve did not return once its input closed")
		}
		fromWorker.Close()
		<-h.conn.Done()
	})
	return h
}

// session initializes the connection and creates a session.
func (h *harness) session(t *testing.T) acpsdk.SessionId {
	t.Helper()
	ctx := context.Background()
	init, err := h.conn.Initialize(ctx, acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber})
	if err != nil || init.ProtocolVersion != acpsdk.ProtocolVersionNumber {
		t.Fatalf("Initialize = %+v, %v", init, err)
	}
	s, err := h.conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: "/", McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	return s.SessionId
}

func (h *harness) prompt(ctx context.Context, id acpsdk.SessionId, text string) (acpsdk.PromptResponse, error) {
	return h.conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: id, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(text)}})
}

func TestEchoStreamsWordChunks(t *testing.T) {
	t.Parallel()
	h := serve(t, acpagent.Config{Delay: time.Millisecond})
	id := h.session(t)
	r, err := h.prompt(context.Background(), id, "hello brave world")
	if err != nil || r.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("Prompt = %+v, %v", r, err)
	}
	if got, want := h.client.chunks(), []string{"You ", "said: ", "hello ", "brave ", "world"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("chunks = %q, want %q", got, want)
	}
}

func TestCancelStopsTheTurn(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"hang", "a long answer streamed slowly"} {
		h := serve(t, acpagent.Config{Delay: 50 * time.Millisecond})
		id := h.session(t)
		time.AfterFunc(30*time.Millisecond, func() {
			_ = h.conn.Cancel(context.Background(), acpsdk.CancelNotification{SessionId: id})
		})
		r, err := h.prompt(context.Background(), id, text)
		if err != nil || r.StopReason != acpsdk.StopReasonCancelled {
			t.Errorf("%s: Prompt = %+v, %v; want cancelled", text, r, err)
		}
	}
}

// "fail with CODE" answers with the JSON-RPC error wire/jsonrpc writes for
// that code.
func TestFailWithCode(t *testing.T) {
	t.Parallel()
	h := serve(t, acpagent.Config{})
	id := h.session(t)
	_, err := h.prompt(context.Background(), id, "fail with RATE_LIMITED")
	re := requestError(t, err)
	data, _ := re.Data.(map[string]any)
	if re.Code != fault.JSONRPCUpstream || data["code"] != "RATE_LIMITED" || data["retryable"] != true {
		t.Errorf("error = %d %q %v", re.Code, re.Message, re.Data)
	}
}

func TestUnknownSession(t *testing.T) {
	t.Parallel()
	h := serve(t, acpagent.Config{})
	h.session(t)
	_, err := h.prompt(context.Background(), "sess_nope", "hello")
	re := requestError(t, err)
	if data, _ := re.Data.(map[string]any); data["code"] != "SESSION_NOT_FOUND" || data["sessionValid"] != false {
		t.Errorf("error = %d %q %v", re.Code, re.Message, re.Data)
	}
}

// "malformed" answers with a line that is not JSON but names the request's
// id; the SDK never sees an answer.
func TestMalformedAnswer(t *testing.T) {
	t.Parallel()
	h := serve(t, acpagent.Config{})
	id := h.session(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := h.prompt(ctx, id, "malformed"); err == nil {
		t.Fatal("the SDK decoded the malformed answer")
	}
	var broken []string
	sc := bufio.NewScanner(strings.NewReader(h.raw.String()))
	for sc.Scan() {
		if !json.Valid(sc.Bytes()) {
			broken = append(broken, sc.Text())
		}
	}
	if len(broken) != 1 || !strings.HasPrefix(broken[0], `{"jsonrpc":"2.0","id":3,"result":`) {
		t.Errorf("lines that are not JSON: %q", broken)
	}
}

// "stray" writes a line that is not JSON-RPC, then answers as usual.
func TestStrayLine(t *testing.T) {
	t.Parallel()
	h := serve(t, acpagent.Config{})
	id := h.session(t)
	r, err := h.prompt(context.Background(), id, "stray loading model\nweights")
	if err != nil || r.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("Prompt = %+v, %v", r, err)
	}
	var broken []string
	sc := bufio.NewScanner(strings.NewReader(h.raw.String()))
	for sc.Scan() {
		if !json.Valid(sc.Bytes()) {
			broken = append(broken, sc.Text())
		}
	}
	if len(broken) != 1 || broken[0] != "loading model weights" {
		t.Errorf("lines that are not JSON: %q", broken)
	}
}

func TestBadAnswers(t *testing.T) {
	t.Parallel()
	h := serve(t, acpagent.Config{})
	id := h.session(t)
	r, err := h.prompt(context.Background(), id, "bad stop reason")
	if err != nil || r.StopReason != "exploded" {
		t.Errorf("bad stop reason: %+v, %v", r, err)
	}
	if _, err := h.prompt(context.Background(), id, "bad result"); err == nil {
		t.Error("bad result decoded")
	}
}

func TestFailStart(t *testing.T) {
	t.Parallel()
	err := acpagent.Serve(context.Background(), strings.NewReader(""), io.Discard, acpagent.Config{FailStart: true})
	if !errors.Is(err, acpagent.ErrFailStart) {
		t.Errorf("Serve = %v, want ErrFailStart", err)
	}
}

func TestNoSessionID(t *testing.T) {
	t.Parallel()
	h := serve(t, acpagent.Config{NoSessionID: true})
	if id := h.session(t); id != "" {
		t.Errorf("session id %q, want none", id)
	}
}

// "crash" streams one chunk, then exits with status 3.
func TestCrash(t *testing.T) {
	t.Parallel()
	exits := make(chan int, 1)
	h := serve(t, acpagent.Config{Exit: func(code int) { exits <- code }})
	id := h.session(t)
	_, err := h.prompt(context.Background(), id, "crash")
	if err == nil {
		t.Error("the crashed turn succeeded")
	}
	if code := <-exits; code != 3 {
		t.Errorf("exit status %d, want 3", code)
	}
	if got := h.client.chunks(); len(got) != 1 || got[0] != "You " {
		t.Errorf("chunks before the crash = %q", got)
	}
}

func TestLogWritesStderr(t *testing.T) {
	t.Parallel()
	h := serve(t, acpagent.Config{})
	id := h.session(t)
	if _, err := h.prompt(context.Background(), id, "log something went wrong"); err != nil {
		t.Fatal(err)
	}
	if got := h.stderr.String(); got != "something went wrong\n" {
		t.Errorf("stderr = %q", got)
	}
	if got := strings.Join(h.client.chunks(), ""); got != "You said: log something went wrong" {
		t.Errorf("echo = %q", got)
	}
}

// The client's answers to the worker's requests are streamed back.
func TestClientRequests(t *testing.T) {
	t.Parallel()
	h := serve(t, acpagent.Config{})
	id := h.session(t)
	for text, want := range map[string]string{
		"request permission": "permission: cancelled",
		"read file /x":       "read refused: -32601",
		"terminal":           "terminal refused: -32601",
	} {
		h.client.reset()
		if _, err := h.prompt(context.Background(), id, text); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(h.client.chunks(), ""); got != want {
			t.Errorf("%s: %q, want %q", text, got, want)
		}
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv(acpagent.EnvDelay, "5ms")
	t.Setenv(acpagent.EnvFailStart, "1")
	t.Setenv(acpagent.EnvNoSessionID, "1")
	o, err := acpagent.FromEnv()
	if err != nil || o.Delay != 5*time.Millisecond || !o.FailStart || !o.NoSessionID {
		t.Errorf("FromEnv = %+v, %v", o, err)
	}
	if err := acpagent.Run(context.Background(), strings.NewReader(""), io.Discard); !errors.Is(err, acpagent.ErrFailStart) {
		t.Errorf("Run = %v, want ErrFailStart", err)
	}
	t.Setenv(acpagent.EnvDelay, "soon")
	if _, err := acpagent.FromEnv(); err == nil {
		t.Error("FromEnv took a delay that is not a duration")
	}
}

// Serve returns ctx's error when ctx ends first.
func TestServeStopsWithContext(t *testing.T) {
	t.Parallel()
	in, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := acpagent.Serve(ctx, in, io.Discard, acpagent.Config{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Serve = %v", err)
	}
}

func requestError(t *testing.T, err error) *acpsdk.RequestError {
	t.Helper()
	var re *acpsdk.RequestError
	if !errors.As(err, &re) {
		t.Fatalf("error %v is not a RequestError", err)
	}
	return re
}

// testClient records agent_message_chunk text and cancels permission
// requests; it offers no files and no terminals.
type testClient struct {
	mu  sync.Mutex
	got []string
}

func (c *testClient) chunks() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.got...)
}

func (c *testClient) reset() {
	c.mu.Lock()
	c.got = nil
	c.mu.Unlock()
}

func (c *testClient) SessionUpdate(_ context.Context, n acpsdk.SessionNotification) error {
	if m := n.Update.AgentMessageChunk; m != nil && m.Content.Text != nil {
		c.mu.Lock()
		c.got = append(c.got, m.Content.Text.Text)
		c.mu.Unlock()
	}
	return nil
}

func (c *testClient) RequestPermission(context.Context, acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.RequestPermissionOutcome{Cancelled: &acpsdk.RequestPermissionOutcomeCancelled{}}}, nil
}

func (c *testClient) ReadTextFile(context.Context, acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	return acpsdk.ReadTextFileResponse{}, acpsdk.NewMethodNotFound(acpsdk.ClientMethodFsReadTextFile)
}

func (c *testClient) WriteTextFile(context.Context, acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	return acpsdk.WriteTextFileResponse{}, acpsdk.NewMethodNotFound(acpsdk.ClientMethodFsWriteTextFile)
}

func (c *testClient) CreateTerminal(context.Context, acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	return acpsdk.CreateTerminalResponse{}, acpsdk.NewMethodNotFound(acpsdk.ClientMethodTerminalCreate)
}

func (c *testClient) KillTerminal(context.Context, acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	return acpsdk.KillTerminalResponse{}, acpsdk.NewMethodNotFound(acpsdk.ClientMethodTerminalKill)
}

func (c *testClient) TerminalOutput(context.Context, acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	return acpsdk.TerminalOutputResponse{}, acpsdk.NewMethodNotFound(acpsdk.ClientMethodTerminalOutput)
}

func (c *testClient) ReleaseTerminal(context.Context, acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	return acpsdk.ReleaseTerminalResponse{}, acpsdk.NewMethodNotFound(acpsdk.ClientMethodTerminalRelease)
}

func (c *testClient) WaitForTerminalExit(context.Context, acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	return acpsdk.WaitForTerminalExitResponse{}, acpsdk.NewMethodNotFound(acpsdk.ClientMethodTerminalWaitForExit)
}

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

// A session/cancel stops the prompts written before it and no other,
// however the SDK orders the two: it runs each request on a goroutine of
// its own and the notifications on another, so a cancel may be handled
// before the turn of the prompt it follows has begun, or after the turn of
// the prompt that follows it. Each of many "hang" prompts, written with its
// cancel after it in one write, must answer "cancelled" (a lost cancel
// leaves it hanging till the deadline); each of many prompts written after
// a cancel in one write must answer with its echo.
func TestCancelRightAfterPrompt(t *testing.T) {
	t.Parallel()
	w := serveRaw(t, acpagent.Config{})
	id := w.session(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	prompt := func(n int, text string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":%q}]}}`, n, id, text)
	}
	cancelLine := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":%q}}`, id)
	for i := range 200 {
		n := 10 + i
		w.send(t, prompt(n, "hang")+"\n"+cancelLine)
		if m := w.answer(ctx, t, n); m.Error != nil || m.Result.StopReason != acpsdk.StopReasonCancelled {
			t.Fatalf("prompt %d then cancel: %s; want stopReason cancelled", i, m.line)
		}
	}
	for i := range 200 {
		n := 1000 + i
		w.send(t, cancelLine+"\n"+prompt(n, "hello"))
		if m := w.answer(ctx, t, n); m.Error != nil || m.Result.StopReason != acpsdk.StopReasonEndTurn {
			t.Fatalf("cancel then prompt %d: %s; want stopReason end_turn", i, m.line)
		}
	}
}

// rawWorker serves a worker in-process, written to and read as JSON lines
// by the test itself, so that the test chooses what reaches the worker
// together.
type rawWorker struct {
	in    *io.PipeWriter
	lines chan []byte
}

// rawAnswer is a response of the worker's to one of the test's requests.
type rawAnswer struct {
	ID     *int `json:"id"`
	Result struct {
		SessionID  acpsdk.SessionId  `json:"sessionId"`
		StopReason acpsdk.StopReason `json:"stopReason"`
	} `json:"result"`
	Error *acpsdk.RequestError `json:"error"`
	line  []byte
}

func serveRaw(t *testing.T, o acpagent.Config) *rawWorker {
	t.Helper()
	toWorker, in := io.Pipe()
	out, fromWorker := io.Pipe()
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	w := &rawWorker{in: in, lines: make(chan []byte, 64)}
	served := make(chan error, 1)
	go func() { served <- acpagent.Serve(context.Background(), toWorker, fromWorker, o) }()
	go func() {
		defer close(w.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			w.lines <- bytes.Clone(sc.Bytes())
		}
	}()
	t.Cleanup(func() {
		in.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		fromWorker.Close()
		for range w.lines {
		}
	})
	return w
}

// send writes text and a line break to the worker.
func (w *rawWorker) send(t *testing.T, text string) {
	t.Helper()
	if _, err := io.WriteString(w.in, text+"\n"); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// answer reads the worker's lines until the response to request id,
// skipping its notifications, and fails the test when ctx ends first.
func (w *rawWorker) answer(ctx context.Context, t *testing.T, id int) rawAnswer {
	t.Helper()
	for {
		select {
		case line, ok := <-w.lines:
			if !ok {
				t.Fatalf("the worker's output ended before the answer to %d", id)
			}
			var m rawAnswer
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			if m.ID != nil && *m.ID == id {
				m.line = line
				return m
			}
		case <-ctx.Done():
			t.Fatalf("no answer to request %d: %v", id, ctx.Err())
		}
	}
}

// session initializes the connection and creates a session.
func (w *rawWorker) session(t *testing.T) acpsdk.SessionId {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	w.answer(ctx, t, 1)
	w.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
	m := w.answer(ctx, t, 2)
	if m.Result.SessionID == "" {
		t.Fatalf("session/new: %s", m.line)
	}
	return m.Result.SessionID
}
