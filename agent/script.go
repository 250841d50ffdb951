package agent

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/triage-go/triage/fault"
)

// Script describes a scripted agent: what it answers, how fast, and how it
// fails. The zero Script echoes the prompt ("You said: …") a word at a
// time.
type Script struct {
	// Reply is the answer; "{{prompt}}" in it is replaced by the prompt.
	// Empty means "You said: {{prompt}}".
	Reply string `yaml:"reply" json:"reply,omitempty"`
	// Chunks, when set, is the answer as the chunks to stream, in order;
	// otherwise Reply is streamed a word at a time.
	Chunks []string `yaml:"chunks" json:"chunks,omitempty"`
	// Delay is the pause before each chunk.
	Delay time.Duration `yaml:"delay" json:"delay,omitempty"`
	// Fail, when set, makes every prompt fail after FailAfter chunks.
	Fail *ScriptFailure `yaml:"fail" json:"fail,omitempty"`
}

// ScriptFailure is a failure a script plays.
type ScriptFailure struct {
	// Code is a code of the table (RATE_LIMITED, TIMEOUT, …); the fault
	// takes its facets from the table.
	Code fault.Code `yaml:"code" json:"code"`
	// Message replaces the code's default message.
	Message string `yaml:"message" json:"message,omitempty"`
	// After is how many chunks are streamed before the failure.
	After int `yaml:"after" json:"after,omitempty"`
	// RetryAfter is the retry delay the fault carries.
	RetryAfter time.Duration `yaml:"retryAfter" json:"retryAfter,omitempty"`
}

// Directives a prompt to a script agent may hold, so that integrators can
// exercise every failure their client must handle:
//
//	fail with RATE_LIMITED            the fault of that code, with its facets
//	fail with RATE_LIMITED after 5s   … and that retry delay
//	fail                              a plain error: "Agent {id} failed"
//	hang                              no answer until cancelled or timed out
//	call get_weather {"city":"Paris"} a call to the caller's tool
//	                                  get_weather with those arguments,
//	                                  streamed in two pieces; the answer
//	                                  stops there ("tool_call")
//	call NAME {…} then fail with CODE the call's first piece, then the fault:
//	                                  the call is left incomplete
//	warn with SERVICE_UNAVAILABLE …   a notice of that code's fault (seed
//	                                  001's user_error) first, then the
//	                                  answer: the prompt goes on
//
// They compile on first use: their bounded repeats ({1,63}) make large
// programs, which every program that imports agent paid for at init.
var (
	failWith = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bfail with ([A-Z][A-Z0-9_]{1,63})(?: after (\d{1,5})s)?\b`)
	})
	warnWith = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*warn with ([A-Z][A-Z0-9_]{1,63})(?: after (\d{1,5})s)?\b`)
	})
	callRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)^\s*call ([A-Za-z_][A-Za-z0-9_.-]{0,63})\s+(\{.*\})(?:\s+then fail with [A-Z][A-Z0-9_]{1,63}(?: after \d{1,5}s)?)?\s*$`)
	})
	failBare = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^\s*fail\s*$`) })
	hangRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^\s*hang\s*$`) })
)

// defaultRetryAfter is the delay a scripted retryable failure carries
// when the prompt names none.
const defaultRetryAfter = 2 * time.Second

// scriptBackend runs a Script in process.
type scriptBackend struct {
	id     string
	script Script

	mu     sync.Mutex
	cancel map[string]context.CancelFunc // running prompts
	next   int
	calls  int // tool calls made, for their ids
}

func newScript(id string, s Script) *scriptBackend {
	return &scriptBackend{id: id, script: s, cancel: map[string]context.CancelFunc{}}
}

func (b *scriptBackend) Start(context.Context) error { return nil }

func (b *scriptBackend) NewSession(context.Context) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next++
	return "script-" + strconv.Itoa(b.next), nil
}

func (b *scriptBackend) Prompt(ctx context.Context, session, text string, emit func(Chunk)) (Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	b.mu.Lock()
	b.cancel[session] = cancel
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.cancel, session)
		b.mu.Unlock()
		cancel()
	}()

	fail := b.script.Fail
	switch {
	case hangRe().MatchString(text):
		<-ctx.Done()
		return Result{}, ctx.Err()
	case failBare().MatchString(text):
		return Result{}, errors.New("scripted failure")
	}
	if m := failWith().FindStringSubmatch(text); m != nil {
		fail = &ScriptFailure{Code: fault.Code(m[1])}
		if m[2] != "" {
			s, _ := strconv.Atoi(m[2])
			fail.RetryAfter = time.Duration(s) * time.Second
		}
	}

	if m := warnWith().FindStringSubmatch(text); m != nil {
		w := &ScriptFailure{Code: fault.Code(m[1])}
		if m[2] != "" {
			s, _ := strconv.Atoi(m[2])
			w.RetryAfter = time.Duration(s) * time.Second
		}
		emit(Chunk{Notice: scriptFault(b.id, w)})
	}
	if m := callRe().FindStringSubmatch(text); m != nil && json.Valid([]byte(m[2])) {
		return b.call(ctx, session, m[1], m[2], fail, emit)
	}

	chunks := b.chunks(text)
	var out strings.Builder
	for i, c := range chunks {
		if fail != nil && i == fail.After {
			break
		}
		if err := b.pause(ctx); err != nil {
			return Result{Text: out.String()}, err
		}
		out.WriteString(c)
		emit(Chunk{Text: c})
	}
	if fail != nil {
		return Result{Text: out.String()}, scriptFault(b.id, fail)
	}
	return Result{Text: out.String(), StopReason: "end_turn"}, nil
}

// call plays a tool call: the arguments in two pieces, Delay before each;
// with fail, the first piece and then the fault.
func (b *scriptBackend) call(ctx context.Context, session, name, args string, fail *ScriptFailure, emit func(Chunk)) (Result, error) {
	b.mu.Lock()
	b.calls++
	id := "call-" + session + "-" + strconv.Itoa(b.calls)
	b.mu.Unlock()
	half := len(args) / 2
	pieces := []ToolCall{{ID: id, Name: name, Args: args[:half]}, {ID: id, Args: args[half:], End: true}}
	for i, p := range pieces {
		if err := b.pause(ctx); err != nil {
			return Result{}, err
		}
		if fail != nil && i == 1 {
			return Result{}, scriptFault(b.id, fail)
		}
		emit(Chunk{ToolCall: &p})
	}
	return Result{StopReason: StopToolCall}, nil
}

// pause waits Delay, or until ctx ends.
func (b *scriptBackend) pause(ctx context.Context) error {
	if b.script.Delay <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(b.script.Delay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// chunks is the answer to text, as it streams.
func (b *scriptBackend) chunks(text string) []string {
	if len(b.script.Chunks) > 0 {
		out := make([]string, len(b.script.Chunks))
		for i, c := range b.script.Chunks {
			out[i] = strings.ReplaceAll(c, "{{prompt}}", text)
		}
		return out
	}
	reply := b.script.Reply
	if reply == "" {
		reply = "You said: {{prompt}}"
	}
	reply = strings.ReplaceAll(reply, "{{prompt}}", text)
	var out []string
	for len(reply) > 0 {
		i := strings.IndexByte(reply, ' ')
		if i < 0 {
			out = append(out, reply)
			break
		}
		out = append(out, reply[:i+1])
		reply = reply[i+1:]
	}
	return out
}

// scriptFault is the fault a scripted failure plays: the code's facets
// from the table, a retry delay when the code is retryable.
func scriptFault(agentID string, s *ScriptFailure) *fault.Error {
	code := s.Code
	if !code.Known() {
		return fault.New(fault.InvalidRequest, "Unknown fault code: "+string(code),
			fault.WithDetail("code", string(code)), fault.WithSessionValid(true),
			fault.WithSource(agentID))
	}
	f := fault.New(code, s.Message, fault.WithSource(agentID), fault.WithDetail("scripted", true))
	if f.Retryable {
		d := s.RetryAfter
		if d == 0 {
			d = defaultRetryAfter
		}
		f.RetryAfter = d
	}
	return f
}

func (b *scriptBackend) Cancel(_ context.Context, session string) error {
	b.mu.Lock()
	c := b.cancel[session]
	b.mu.Unlock()
	if c != nil {
		c()
	}
	return nil
}

func (b *scriptBackend) CloseSession(session string) { _ = b.Cancel(context.Background(), session) }

func (b *scriptBackend) Close() error { return nil }
