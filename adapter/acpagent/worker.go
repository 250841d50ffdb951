package acpagent

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/jsonrpc"
)

// DefaultDelay is the pause after each streamed chunk when
// TRIAGE_WORKER_DELAY is unset.
const DefaultDelay = 20 * time.Millisecond

// The environment variables FromEnv reads.
const (
	EnvDelay       = "TRIAGE_WORKER_DELAY"
	EnvFailStart   = "TRIAGE_WORKER_FAIL_START"
	EnvNoSessionID = "TRIAGE_WORKER_NO_SESSION_ID"
)

// ErrFailStart is what Serve returns when Config.FailStart is set.
var ErrFailStart = errors.New("acpagent: refusing to start (" + EnvFailStart + ")")

// Config configures a worker. The zero Config is a worker that streams
// without pausing, writes diagnostics to os.Stderr and crashes with os.Exit.
type Config struct {
	// Delay is the pause after each streamed chunk. Zero streams without
	// pausing.
	Delay time.Duration
	// FailStart makes Serve return ErrFailStart at once, as a worker that
	// cannot start.
	FailStart bool
	// NoSessionID makes session/new answer without a session id.
	NoSessionID bool
	// Stderr receives the log directive's text and the SDK's warnings.
	// Nil means os.Stderr.
	Stderr io.Writer
	// Exit ends the process for the crash directive. Nil means os.Exit.
	// A test that serves in-process sets it to something that closes the
	// streams instead.
	Exit func(code int)
}

// FromEnv returns the Config the environment sets (see the package
// documentation). A TRIAGE_WORKER_DELAY that is not a duration, or is
// negative, is an error.
func FromEnv() (Config, error) {
	cfg := Config{Delay: DefaultDelay}
	if v, ok := os.LookupEnv(EnvDelay); ok {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return cfg, fmt.Errorf("acpagent: %s=%q is not a duration", EnvDelay, v)
		}
		cfg.Delay = d
	}
	cfg.FailStart = os.Getenv(EnvFailStart) == "1"
	cfg.NoSessionID = os.Getenv(EnvNoSessionID) == "1"
	return cfg, nil
}

// Run serves ACP on in and out with the Config the environment sets (see
// FromEnv). It returns when the peer closes in (nil) or ctx is done
// (ctx.Err()); see Serve.
func Run(ctx context.Context, in io.Reader, out io.Writer) error {
	cfg, err := FromEnv()
	if err != nil {
		return err
	}
	return Serve(ctx, in, out, cfg)
}

// Serve serves ACP on in (the client's requests) and out (the worker's
// answers, one JSON message a line) until the peer closes in, when it
// returns nil, or ctx is done, when it returns ctx.Err(). When ctx ends
// first, the goroutine reading in stays until in is closed: a process
// exits anyway, and a test closes its pipes.
func Serve(ctx context.Context, in io.Reader, out io.Writer, cfg Config) error {
	if cfg.FailStart {
		return ErrFailStart
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	if cfg.Exit == nil {
		cfg.Exit = os.Exit
	}
	a := &agent{cfg: cfg, sessions: make(map[acpsdk.SessionId]*session)}
	a.out = &lineWriter{w: out}
	// The SDK starts reading at once; nothing may arrive before the agent
	// has its connection and the connection its logger.
	gate := &input{r: bufio.NewReader(in), open: make(chan struct{}), a: a}
	a.conn = acpsdk.NewAgentSideConnection(a, a.out, gate)
	a.conn.SetLogger(slog.New(slog.NewTextHandler(cfg.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	close(gate.open)
	select {
	case <-a.conn.Done():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// agent implements the SDK's Agent.
type agent struct {
	cfg  Config
	conn *acpsdk.AgentSideConnection
	out  *lineWriter

	mu       sync.Mutex
	sessions map[acpsdk.SessionId]*session
	stderrMu sync.Mutex
}

var _ acpsdk.Agent = (*agent)(nil)

func (a *agent) Initialize(context.Context, acpsdk.InitializeRequest) (acpsdk.InitializeResponse, error) {
	return acpsdk.InitializeResponse{
		ProtocolVersion: acpsdk.ProtocolVersionNumber,
		AgentInfo:       &acpsdk.Implementation{Name: "triage-worker", Version: "1"},
	}, nil
}

func (a *agent) Authenticate(context.Context, acpsdk.AuthenticateRequest) (acpsdk.AuthenticateResponse, error) {
	return acpsdk.AuthenticateResponse{}, nil
}

func (a *agent) NewSession(context.Context, acpsdk.NewSessionRequest) (acpsdk.NewSessionResponse, error) {
	if a.cfg.NoSessionID {
		return acpsdk.NewSessionResponse{}, nil
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	id := acpsdk.SessionId("sess_" + hex.EncodeToString(b[:]))
	a.mu.Lock()
	a.sessions[id] = newSession()
	a.mu.Unlock()
	return acpsdk.NewSessionResponse{SessionId: id}, nil
}

// Cancel does nothing: input handles each session/cancel before the SDK
// reads it, in the order the client wrote it, and drops the notification.
func (a *agent) Cancel(context.Context, acpsdk.CancelNotification) error { return nil }

func (a *agent) CloseSession(_ context.Context, p acpsdk.CloseSessionRequest) (acpsdk.CloseSessionResponse, error) {
	return acpsdk.CloseSessionResponse{}, acpsdk.NewMethodNotFound(acpsdk.AgentMethodSessionClose)
}

func (a *agent) ListSessions(context.Context, acpsdk.ListSessionsRequest) (acpsdk.ListSessionsResponse, error) {
	return acpsdk.ListSessionsResponse{}, acpsdk.NewMethodNotFound(acpsdk.AgentMethodSessionList)
}

func (a *agent) ResumeSession(context.Context, acpsdk.ResumeSessionRequest) (acpsdk.ResumeSessionResponse, error) {
	return acpsdk.ResumeSessionResponse{}, acpsdk.NewMethodNotFound(acpsdk.AgentMethodSessionResume)
}

func (a *agent) SetSessionConfigOption(context.Context, acpsdk.SetSessionConfigOptionRequest) (acpsdk.SetSessionConfigOptionResponse, error) {
	return acpsdk.SetSessionConfigOptionResponse{}, acpsdk.NewMethodNotFound(acpsdk.AgentMethodSessionSetConfigOption)
}

func (a *agent) SetSessionMode(context.Context, acpsdk.SetSessionModeRequest) (acpsdk.SetSessionModeResponse, error) {
	return acpsdk.SetSessionModeResponse{}, acpsdk.NewMethodNotFound(acpsdk.AgentMethodSessionSetMode)
}

// Prompt runs one turn: a directive, or the echo.
func (a *agent) Prompt(ctx context.Context, p acpsdk.PromptRequest) (acpsdk.PromptResponse, error) {
	ctx, end, known := a.begin(ctx, p.SessionId)
	defer end()
	if !known {
		id := string(p.SessionId)
		return acpsdk.PromptResponse{}, rpcError(fault.New(fault.SessionNotFound, "Session not found: "+id,
			fault.WithDetail("sessionId", id)))
	}
	var text strings.Builder
	for _, b := range p.Prompt {
		if b.Text != nil {
			text.WriteString(b.Text.Text)
		}
	}
	prompt := text.String()
	if ctx.Err() != nil {
		// Cancelled before it began: nothing is streamed, nothing is done.
		return cancelled(), nil
	}
	t := turn{a: a, ctx: ctx, session: p.SessionId}

	switch word, rest := directive(prompt); word {
	case "fail with":
		code := fault.AgentExecutionError
		if f := strings.Fields(rest); len(f) > 0 {
			code = fault.Code(f[0])
		}
		return acpsdk.PromptResponse{}, rpcError(fault.New(code, ""))
	case "hang":
		<-ctx.Done()
		return cancelled(), nil
	case "crash":
		if err := t.say("You "); err != nil {
			return cancelled(), nil
		}
		a.cfg.Exit(3)
		return acpsdk.PromptResponse{}, errors.New("acpagent: crashed")
	case "malformed", "bad result":
		return t.echo(prompt, acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn,
			Meta: map[string]any{mangleKey: word}})
	case "bad stop reason":
		return t.echo(prompt, acpsdk.PromptResponse{StopReason: "exploded"})
	case "refuse":
		return t.echo(prompt, acpsdk.PromptResponse{StopReason: acpsdk.StopReasonRefusal})
	case "stray":
		line := rest
		if line == "" {
			line = "stray output of the worker"
		}
		if err := a.out.raw(line); err != nil {
			return cancelled(), nil
		}
	case "log":
		a.stderrMu.Lock()
		fmt.Fprintln(a.cfg.Stderr, rest)
		a.stderrMu.Unlock()
	case "request permission":
		return t.reply(a.askPermission(ctx, p.SessionId))
	case "read file":
		r, err := a.conn.ReadTextFile(ctx, acpsdk.ReadTextFileRequest{SessionId: p.SessionId, Path: rest})
		return t.reply(answer("read", r.Content, err))
	case "write file":
		_, err := a.conn.WriteTextFile(ctx, acpsdk.WriteTextFileRequest{SessionId: p.SessionId, Path: rest, Content: "triage"})
		return t.reply(answer("write", "ok", err))
	case "pid":
		return t.reply("pid: " + strconv.Itoa(os.Getpid()))
	case "terminal":
		r, err := a.conn.CreateTerminal(ctx, acpsdk.CreateTerminalRequest{SessionId: p.SessionId, Command: "true"})
		return t.reply(answer("terminal", r.TerminalId, err))
	}
	return t.echo(prompt, acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn})
}

// directives are the words a prompt may start with (see the package
// documentation).
var directives = []string{"fail with", "hang", "crash", "malformed", "bad stop reason", "bad result",
	"refuse", "stray", "log", "request permission", "read file", "write file", "terminal", "pid"}

// directive returns the directive prompt starts with and the text after it,
// or "" when it starts with none.
func directive(prompt string) (word, rest string) {
	s := strings.TrimSpace(prompt)
	for _, d := range directives {
		if r, ok := strings.CutPrefix(s, d); ok && (r == "" || r[0] == ' ') {
			return d, strings.TrimSpace(r)
		}
	}
	return "", ""
}

func (a *agent) askPermission(ctx context.Context, sid acpsdk.SessionId) string {
	r, err := a.conn.RequestPermission(ctx, acpsdk.RequestPermissionRequest{
		SessionId: sid,
		ToolCall:  acpsdk.ToolCallUpdate{ToolCallId: "call_1", Title: acpsdk.Ptr("Delete everything")},
		Options: []acpsdk.PermissionOption{
			{Kind: acpsdk.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: "allow"},
			{Kind: acpsdk.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "reject"},
		},
	})
	switch {
	case err != nil:
		return answer("permission", "", err)
	case r.Outcome.Selected != nil:
		return "permission: " + string(r.Outcome.Selected.OptionId)
	default:
		return "permission: cancelled"
	}
}

// answer describes a client's answer to one of the worker's requests.
func answer(what, value string, err error) string {
	if err == nil {
		return what + ": " + value
	}
	var re *acpsdk.RequestError
	if errors.As(err, &re) {
		return fmt.Sprintf("%s refused: %d", what, re.Code)
	}
	return what + " failed"
}

// rpcError is the JSON-RPC error a fault stands for, as wire/jsonrpc writes
// it: data names the code, its retryability and whether the session
// survives.
func rpcError(f *fault.Error) *acpsdk.RequestError {
	e := jsonrpc.From(f)
	return &acpsdk.RequestError{Code: e.Code, Message: e.Message, Data: e.Data}
}

func cancelled() acpsdk.PromptResponse {
	return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonCancelled}
}

// turn streams one answer.
type turn struct {
	a       *agent
	ctx     context.Context
	session acpsdk.SessionId
}

// say sends one chunk, then pauses; it fails once the turn is cancelled.
func (t turn) say(chunk string) error {
	if err := t.ctx.Err(); err != nil {
		return err
	}
	if err := t.a.conn.SessionUpdate(t.ctx, acpsdk.SessionNotification{
		SessionId: t.session,
		Update:    acpsdk.UpdateAgentMessageText(chunk),
	}); err != nil {
		return err
	}
	if t.a.cfg.Delay <= 0 {
		return t.ctx.Err()
	}
	timer := time.NewTimer(t.a.cfg.Delay)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-t.ctx.Done():
		return t.ctx.Err()
	}
}

// stream sends text a word at a time, each word with the space after it.
func (t turn) stream(text string) error {
	for len(text) > 0 {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			i = len(text) - 1
		}
		if err := t.say(text[:i+1]); err != nil {
			return err
		}
		text = text[i+1:]
	}
	return t.ctx.Err()
}

// finish streams text and answers with done, or with "cancelled" when the
// turn was cancelled meanwhile.
func (t turn) finish(text string, done acpsdk.PromptResponse) (acpsdk.PromptResponse, error) {
	if err := t.stream(text); err != nil {
		return cancelled(), nil
	}
	return done, nil
}

// echo streams "You said: <prompt>" and answers with done.
func (t turn) echo(prompt string, done acpsdk.PromptResponse) (acpsdk.PromptResponse, error) {
	return t.finish("You said: "+prompt, done)
}

// reply streams text and ends the turn.
func (t turn) reply(text string) (acpsdk.PromptResponse, error) {
	return t.finish(text, acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn})
}

// mangleKey marks, in a response's _meta, an answer lineWriter replaces by
// a broken one.
const mangleKey = "triage.worker/mangle"

// lineWriter serializes the SDK's writes (one message each) and replaces a
// response marked with mangleKey by the broken line its mark names.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// raw writes text as a line of its own, which is not JSON-RPC: an agent
// printing to its standard output by mistake. Line breaks in text become
// spaces.
func (l *lineWriter) raw(text string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := io.WriteString(l.w, strings.NewReplacer("\n", " ", "\r", " ").Replace(text)+"\n")
	return err
}

func (l *lineWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !bytes.Contains(b, []byte(mangleKey)) {
		return l.w.Write(b)
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result struct {
			Meta map[string]string `json:"_meta"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &m); err != nil || len(m.ID) == 0 {
		return l.w.Write(b)
	}
	var line string
	switch m.Result.Meta[mangleKey] {
	case "malformed":
		line = `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"stopReason":"end_tu` + "\n"
	default:
		line = `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"stopReason":42}}` + "\n"
	}
	if _, err := io.WriteString(l.w, line); err != nil {
		return 0, err
	}
	return len(b), nil
}
