package agent

import (
	"context"
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
var (
	failWith = regexp.MustCompile(`\bfail with ([A-Z][A-Z0-9_]{1,63})(?: after (\d{1,5})s)?\b`)
	failBare = regexp.MustCompile(`(?i)^\s*fail\s*$`)
	hangRe   = regexp.MustCompile(`(?i)^\s*hang\s*$`)
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
	case hangRe.MatchString(text):
		<-ctx.Done()
		return Result{}, ctx.Err()
	case failBare.MatchString(text):
		return Result{}, errors.New("scripted failure")
	}
	if m := failWith.FindStringSubmatch(text); m != nil {
		fail = &ScriptFailure{Code: fault.Code(m[1])}
		if m[2] != "" {
			s, _ := strconv.Atoi(m[2])
			fail.RetryAfter = time.Duration(s) * time.Second
		}
	}

	chunks := b.chunks(text)
	var out strings.Builder
	for i, c := range chunks {
		if fail != nil && i == fail.After {
			break
		}
		if b.script.Delay > 0 {
			t := time.NewTimer(b.script.Delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return Result{Text: out.String()}, ctx.Err()
			case <-t.C:
			}
		} else if ctx.Err() != nil {
			return Result{Text: out.String()}, ctx.Err()
		}
		out.WriteString(c)
		emit(Chunk{Text: c})
	}
	if fail != nil {
		return Result{Text: out.String()}, scriptFault(b.id, fail)
	}
	return Result{Text: out.String(), StopReason: "end_turn"}, nil
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
