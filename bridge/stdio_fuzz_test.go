package bridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// FuzzIOTransport: whatever the lines, idCheck passes each one on byte for
// byte or answers it with one -32600 line; it never alters one.
func FuzzIOTransport(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte) {
		var answers bytes.Buffer
		c := &idCheck{r: bufioReader(in), w: &answers}
		passed, err := io.ReadAll(c)
		if err != nil {
			t.Fatal(err)
		}
		// What passed plus what was answered is the input, line by line.
		var lines int
		for line := range bytes.Lines(answers.Bytes()) {
			lines++
			var resp struct {
				ID    json.RawMessage
				Error struct{ Code int }
			}
			if json.Unmarshal(line, &resp) != nil || resp.Error.Code != -32600 || string(resp.ID) != "null" {
				t.Fatalf("answered %q", line)
			}
		}
		rest, refused := passed, 0
		for line := range bytes.Lines(in) {
			if after, ok := bytes.CutPrefix(rest, line); ok {
				rest = after
			} else {
				refused++
			}
		}
		if len(rest) > 0 || refused != lines {
			t.Fatalf("in %q: passed %q, %d answers for %d lines not passed", in, passed, lines, refused)
		}
	})
}

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReaderSize(bytes.NewReader(b), 64<<10) }
