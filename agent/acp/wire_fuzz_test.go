package acp

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/triage-go/triage/fault"
)

// FuzzInbound feeds any line a worker may write to inbound, with a prompt
// (id 7) and a session/new (id 8) in flight. The SDK reads nothing, the
// line itself, or one parse error answering a request in flight: never a
// line that is not JSON. A request marked malformed is no longer tracked,
// so that nothing answers it twice. Seeds: testdata/fuzz/FuzzInbound.
func FuzzInbound(f *testing.F) {
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.ContainsAny(line, "\n") {
			return // the scanner splits lines there
		}
		w := &worker{log: slog.New(slog.DiscardHandler), sessions: map[string]*session{}, rpcs: map[string]*rpc{}}
		r7, _ := inflight(w, opPrompt, "7")
		r8, _ := inflight(w, opNewSession, "8")
		out := w.inbound(line, nil)
		switch {
		case len(out) == 0:
		case bytes.Equal(out, append(bytes.Clone(line), '\n')):
			if !json.Valid(line) {
				t.Fatalf("the SDK reads a line that is not JSON: %q", line)
			}
		default:
			answer := bytes.TrimSuffix(out, []byte("\n"))
			var m struct {
				ID    json.RawMessage    `json:"id"`
				Error struct{ Code int } `json:"error"`
			}
			if bytes.Count(out, []byte("\n")) != 1 || json.Unmarshal(answer, &m) != nil || m.Error.Code != -32700 {
				t.Fatalf("%q: the SDK reads %q", line, out)
			}
			if r := map[string]*rpc{"7": r7, "8": r8}[string(m.ID)]; r == nil || !r.malformed.Load() {
				t.Fatalf("%q: a parse error for id %s, not a request in flight marked malformed", line, m.ID)
			}
		}
		for id, r := range map[string]*rpc{"7": r7, "8": r8} {
			if r.malformed.Load() && w.rpcs[id] != nil {
				t.Fatalf("%q: request %s marked malformed and still tracked", line, id)
			}
		}
	})
}

// stderrSecret is a secret the process knows (fault.RegisterSecret): a
// worker's stderr must not carry it into the logs or the faults.
const stderrSecret = "hunter2-ab4b8e0c91d7"

// FuzzStderrLog writes any output to a worker's stderr log, in two
// pieces: at most tailLines lines are kept for the faults, each at most
// maxLogLine bytes, one line, without the secret, and UTF-8 when what was
// written was. Seeds: testdata/fuzz/FuzzStderrLog.
func FuzzStderrLog(f *testing.F) {
	fault.RegisterSecret(stderrSecret)
	f.Fuzz(func(t *testing.T, a, b []byte) {
		s := &stderrLog{log: slog.New(slog.DiscardHandler)}
		s.Write(a)
		s.Write(b)
		tail := s.tail()
		if len(tail) > tailLines {
			t.Fatalf("%d lines kept", len(tail))
		}
		for _, l := range tail {
			if l == "" || len(l) > maxLogLine || strings.Contains(l, "\n") || strings.Contains(l, stderrSecret) {
				t.Fatalf("kept %q", l)
			}
			if utf8.Valid(a) && utf8.Valid(b) && !utf8.ValidString(l) {
				t.Fatalf("cut text into %q", l)
			}
		}
	})
}
