package cli_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/triage-go/triage/internal/cli"
)

// TestREADME runs every command the README shows and compares its output
// with what the README says it prints, so the tour stays true.
func TestREADME(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)

	// The quick start: the first sh block's command, and the JSON after it.
	quick := block(t, readme, "```sh\n")
	cmd := strings.SplitN(quick, "\n", 2)[0]
	want := block(t, readme, "```json\n")
	checkCommand(t, "$ "+cmd, want)

	// Every console block: "$ [printf ... |] go run ./cmd/triage ARGS
	// [< FILE]", then the output.
	n := 0
	for rest := readme; ; n++ {
		i := strings.Index(rest, "```console\n")
		if i < 0 {
			break
		}
		rest = rest[i:]
		body := block(t, rest, "```console\n")
		rest = rest[len("```console\n"):]
		line, out, _ := strings.Cut(body, "\n")
		checkCommand(t, line, out)
	}
	if n < 2 {
		t.Fatalf("found %d console blocks, want at least 2", n)
	}
}

// block returns the body of the first fenced block that opens with fence.
func block(t *testing.T, s, fence string) string {
	t.Helper()
	i := strings.Index(s, fence)
	if i < 0 {
		t.Fatalf("README has no %q block", fence)
	}
	body := s[i+len(fence):]
	j := strings.Index(body, "```\n")
	if j < 0 {
		t.Fatalf("unterminated %q block", fence)
	}
	return body[:j]
}

func checkCommand(t *testing.T, line, want string) {
	t.Helper()
	line = strings.TrimPrefix(line, "$ ")
	var stdin string
	if pipe := strings.Index(line, " | "); pipe >= 0 {
		words := shellWords(t, line[:pipe])
		if len(words) < 2 || words[0] != "printf" || words[1] != `%s\n` {
			t.Fatalf("unsupported pipe in %q", line)
		}
		for _, w := range words[2:] {
			stdin += w + "\n"
		}
		line = line[pipe+3:]
	}
	words := shellWords(t, line)
	// "< FILE" reads standard input from a file of the repository.
	if n := len(words); n >= 2 && words[n-2] == "<" {
		data, err := os.ReadFile("../../" + words[n-1])
		if err != nil {
			t.Fatal(err)
		}
		stdin, words = string(data), words[:n-2]
	}
	if len(words) < 3 || strings.Join(words[:3], " ") != "go run ./cmd/triage" {
		t.Fatalf("not a triage command: %q", line)
	}
	var out, errb bytes.Buffer
	env := cli.Env{Stdout: &out, Stderr: &errb}
	if stdin != "" {
		env.Stdin = strings.NewReader(stdin)
	}
	if code := cli.Run(context.Background(), words[3:], env); code != cli.ExitOK {
		t.Fatalf("%q: exit %d: %s", line, code, errb.String())
	}
	if out.String() != want {
		t.Errorf("README shows for %q:\n%s\nthe command prints:\n%s", line, want, out.String())
	}
}

// shellWords splits a command line on spaces, honouring single and double
// quotes (without escapes inside double quotes beyond what the README uses).
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case '\'', '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				t.Fatalf("unbalanced quote in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
