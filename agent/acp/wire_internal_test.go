package acp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
)

// tapWorker is a worker with only what the wire filter uses.
func tapWorker() *worker {
	return &worker{log: slog.New(slog.DiscardHandler), sessions: map[string]*session{}, rpcs: map[string]*rpc{}}
}

// inflight registers a request as sent with the given id, with a context
// its abort cancels.
func inflight(w *worker, op, id string) (*rpc, context.Context) {
	ctx, abort := context.WithCancelCause(context.Background())
	r := &rpc{op: op, id: id, abort: abort}
	w.rpcs[id] = r
	return r, ctx
}

func TestOutboundRecordsTrackedRequests(t *testing.T) {
	w := tapWorker()
	s := &session{id: "s1", w: w}
	s.turn = &turn{s: s, rpc: &rpc{op: opPrompt}}
	w.sessions["s1"] = s
	w.sending.newSession = &rpc{op: opNewSession}
	w.outbound([]byte(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"prompt":[],"sessionId":"s1"}}` + "\n"))
	w.outbound([]byte(`{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}` + "\n"))
	w.outbound([]byte(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}` + "\n"))
	w.outbound([]byte(`{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"cancelled"}}}` + "\n"))
	if len(w.rpcs) != 2 || w.rpcs["4"] != s.turn.rpc || w.rpcs["5"] != w.sending.newSession {
		t.Errorf("rpcs = %v", w.rpcs)
	}
}

// A cancel asked for before its prompt is sent waits for the prompt, and
// goes to the worker right after it: the other way round, the worker would
// find the session idle and the turn would wait out its CancelGrace. So
// too for a prompt whose session was forgotten before its request was
// sent: it is still tracked, and its queued cancel still follows it.
func TestCancelQueuedBeforeThePromptFollowsIt(t *testing.T) {
	for _, forgotten := range []bool{false, true} {
		t.Run(map[bool]string{false: "session known", true: "session forgotten"}[forgotten], func(t *testing.T) {
			r, stdin, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer stdin.Close()
			w := tapWorker()
			w.stdin = stdin
			s := &session{id: "s1", w: w}
			tr := &turn{s: s, rpc: &rpc{op: opPrompt}}
			if forgotten {
				w.turns = map[*turn]struct{}{tr: {}} // on the wire, its session gone
			} else {
				s.turn = tr
				w.sessions["s1"] = s
			}
			if err := (&Pool{}).cancelTurn(context.Background(), tr); err != nil {
				t.Fatalf("cancelTurn before the prompt is sent: %v", err)
			}
			prompt := `{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"prompt":[],"sessionId":"s1"}}` + "\n"
			if n, err := (outTap{w}).Write([]byte(prompt)); n != len(prompt) || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
			stdin.Close()
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if want := prompt + `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}` + "\n"; string(got) != want {
				t.Errorf("the worker reads %q, want %q", got, want)
			}
			if w.rpcs["4"] != tr.rpc {
				t.Errorf("rpcs = %v", w.rpcs)
			}
		})
	}
}

func TestInboundAttributesMalformedAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		out        string // what the SDK reads; "=" for the line itself
		malformed  []string
		aborted    bool
	}{
		{"answer that is not JSON", `{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_tu`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32700,"message":"Parse error"}}`, []string{"7"}, false},
		{"result that does not decode", `{"jsonrpc":"2.0","id":7,"result":{"stopReason":42}}`, "=", []string{"7"}, false},
		{"error answer", `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"boom"}}`, "=", nil, false},
		{"good answer", `{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}`, "=", nil, false},
		{"answer to nothing tracked", `{"jsonrpc":"2.0","id":99,"result":{"stopReason":42}}`, "=", nil, false},
		{"broken answer to nothing tracked", `{"jsonrpc":"2.0","id":99,"res`, "", nil, false},
		{"broken request from the worker", `{"jsonrpc":"2.0","id":8,"method":"session/request_permission","par`, "", nil, false},
		// A stray line fails nothing (issue 23: it failed every request in
		// flight on the worker, another session's included).
		{"broken line naming nothing", `<html>502 Bad Gateway`, "", nil, false},
		{"stray print naming an id", `debug: sent {"id":7,"result":{}}`, "", nil, false},
		{"broken object naming no id", `{"jsonrpc":"2.0","result":{"stopRea`, "", nil, false},
		{"blank line", `   `, "", nil, false},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			w := tapWorker()
			r7, ctx7 := inflight(w, opPrompt, "7")
			r8, ctx8 := inflight(w, opNewSession, "8")
			got := strings.TrimSuffix(string(w.inbound([]byte(tc.line), nil)), "\n")
			want := tc.out
			if want == "=" {
				want = tc.line
			}
			if got != want {
				t.Errorf("SDK reads %q, want %q", got, want)
			}
			var malformed []string
			for id, r := range map[string]*rpc{"7": r7, "8": r8} {
				if r.malformed.Load() {
					malformed = append(malformed, id)
				}
			}
			if strings.Join(sorted(malformed), ",") != strings.Join(tc.malformed, ",") {
				t.Errorf("malformed %v, want %v", malformed, tc.malformed)
			}
			aborted := context.Cause(ctx7) != nil || context.Cause(ctx8) != nil
			if aborted != tc.aborted {
				t.Errorf("aborted = %v, want %v", aborted, tc.aborted)
			}
			if got != "" && !json.Valid([]byte(got)) {
				t.Errorf("the SDK would read a line that is not JSON: %q", got)
			}
		})
	}
}

// inTap passes lines on whole, however the SDK's reads cut them.
func TestInTapReadsLines(t *testing.T) {
	w := tapWorker()
	in := `{"jsonrpc":"2.0","method":"session/update","params":{}}` + "\n" + "not json\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	tap := newInTap(w, strings.NewReader(in))
	close(tap.open)
	var out strings.Builder
	buf := make([]byte, 7)
	for {
		n, err := tap.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	want := `{"jsonrpc":"2.0","method":"session/update","params":{}}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	if out.String() != want {
		t.Errorf("read %q, want %q", out.String(), want)
	}
}

func TestStderrLogLines(t *testing.T) {
	var logs strings.Builder
	s := &stderrLog{log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	s.Write([]byte("first li"))
	s.Write([]byte("ne\nsecond password=hunter2\r\n\nthird"))
	for i := range tailLines {
		s.Write([]byte("line " + string(rune('a'+i)) + "\n"))
	}
	tail := s.tail()
	if len(tail) != tailLines || tail[0] != "thirdline a" || tail[tailLines-1] != "line h" {
		t.Errorf("tail = %q", tail)
	}
	out := logs.String()
	if !strings.Contains(out, `line="first line"`) || strings.Contains(out, "hunter2") {
		t.Errorf("log:\n%s", out)
	}
	if got := cut("héllo", 2); got != "h" {
		t.Errorf("cut = %q", got)
	}
}

func sorted(s []string) []string {
	if len(s) == 2 && s[0] > s[1] {
		s[0], s[1] = s[1], s[0]
	}
	return s
}
