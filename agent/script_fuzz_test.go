package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/triage-go/triage/fault"
)

// FuzzScriptPrompt plays any prompt, as an AG-UI client may send it, to
// the script agent, which reads directives in it ("fail with CODE after
// Ns", "warn with …", "call NAME {…}", "hang"). The answer is the text it
// streamed; a tool call streams one call whose pieces join into its JSON
// arguments; a failure is the scripted error or a *fault.Error of a known
// code with a delay in range; a prompt without a directive is echoed.
// Seeds: testdata/fuzz/FuzzScriptPrompt.
func FuzzScriptPrompt(f *testing.F) {
	f.Fuzz(func(t *testing.T, text string) {
		b := newScript("script", Script{})
		ctx := context.Background()
		if hangRe().MatchString(text) {
			c, cancel := context.WithCancel(ctx)
			cancel()
			ctx = c
		}
		var streamed strings.Builder
		var calls []ToolCall
		res, err := b.Prompt(ctx, "script-1", text, func(c Chunk) {
			streamed.WriteString(c.Text)
			if c.ToolCall != nil {
				calls = append(calls, *c.ToolCall)
			}
			if c.Notice != nil {
				checkScripted(t, text, c.Notice)
			}
		})
		if res.Text != streamed.String() {
			t.Fatalf("%q: answered %q, streamed %q", text, res.Text, streamed.String())
		}
		if len(calls) > 0 {
			var args strings.Builder
			for _, c := range calls {
				if c.ID != calls[0].ID {
					t.Fatalf("%q: pieces of calls %q and %q", text, calls[0].ID, c.ID)
				}
				args.WriteString(c.Args)
			}
			if calls[0].Name == "" || (err == nil && (len(calls) != 2 || !calls[1].End || !json.Valid([]byte(args.String())))) {
				t.Fatalf("%q: tool call %+v", text, calls)
			}
		}
		switch {
		case err == nil:
			if res.StopReason != "end_turn" && res.StopReason != StopToolCall {
				t.Fatalf("%q: stop reason %q", text, res.StopReason)
			}
			if len(calls) == 0 && !warnWith().MatchString(text) && res.Text != "You said: "+text {
				t.Fatalf("%q: answered %q", text, res.Text)
			}
		case errors.Is(err, context.Canceled):
			if !hangRe().MatchString(text) {
				t.Fatalf("%q: cancelled", text)
			}
		default:
			if f, ok := fault.As(err); ok {
				checkScripted(t, text, f)
			} else if err.Error() != "scripted failure" {
				t.Fatalf("%q: error %v", text, err)
			}
		}
	})
}

func checkScripted(t *testing.T, text string, f *fault.Error) {
	t.Helper()
	if !f.Code.Known() || f.Source != "script" || f.RetryAfter < 0 || f.RetryAfter > 99999*1e9 {
		t.Fatalf("%q: fault %s from %q, retry after %v", text, f.Code, f.Source, f.RetryAfter)
	}
	if _, err := json.Marshal(f.Payload(true)); err != nil {
		t.Fatalf("%q: the fault does not encode: %v", text, err)
	}
}
