package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/triage-go/triage/cmd/triage/internal/cli"
)

// TestREADME runs every command the README shows and compares its output
// with what the README says it prints, so the tour stays true.
func TestREADME(t *testing.T) {
	data, err := os.ReadFile("../../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)

	// The quick start: exactly the two set-up commands, the service and
	// the tests.
	if quick := block(t, readme, "```sh\n"); quick != "go run ./cmd/triage serve\ngo test ./...\n" {
		t.Errorf("the README's first commands are %q, want the service and the tests", quick)
	}
	checkCurls(t, readme)

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
		data, err := os.ReadFile("../../../../" + words[n-1])
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

// checkCurls runs every sh block of the README that is a curl command
// against `triage serve` (started as the README says, on a free port and a
// fresh database) and compares the answer with the json block after it
// (as JSON: members and values, not layout). The blocks run in order, so a
// block may show a duplicate of an earlier one.
func checkCurls(t *testing.T, readme string) {
	t.Helper()
	t.Setenv("TRIAGE_API_KEYS", "")
	svc := startServe(t, "--db", t.TempDir()+"/triage.db")
	n := 0
	for rest := readme; ; {
		i := strings.Index(rest, "```sh\ncurl ")
		if i < 0 {
			break
		}
		rest = rest[i:]
		cmd := block(t, rest, "```sh\n")
		rest = rest[len("```sh\n"):]
		want := block(t, rest, "```json\n")
		n++
		got := runCurl(t, svc.base, strings.ReplaceAll(cmd, "\\\n", " "))
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s: the answer is not JSON: %s", cmd, got)
		}
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatalf("README's answer to %s is not JSON: %v", cmd, err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("README shows for %s%s\nthe service answers:\n%s", cmd, want, got)
		}
	}
	if n < 2 {
		t.Errorf("found %d curl examples, want at least 2", n)
	}
}

// runCurl does what the curl command line does (-s, -X, -H, -d @FILE or
// -d DATA), against base instead of http://127.0.0.1:8080.
func runCurl(t *testing.T, base, line string) []byte {
	t.Helper()
	words := shellWords(t, strings.Join(strings.Fields(line), " "))
	method, url := "", ""
	var body []byte
	header := http.Header{}
	for i := 1; i < len(words); i++ {
		switch w := words[i]; {
		case w == "-s" || w == "-N":
		case w == "-X":
			i++
			method = words[i]
		case w == "-H":
			i++
			k, v, _ := strings.Cut(words[i], ":")
			header.Set(k, strings.TrimSpace(v))
		case w == "-d":
			i++
			if file, ok := strings.CutPrefix(words[i], "@"); ok {
				data, err := os.ReadFile("../../../../" + file)
				if err != nil {
					t.Fatal(err)
				}
				body = data
			} else {
				body = []byte(words[i])
			}
		case strings.HasPrefix(w, "http://127.0.0.1:8080"):
			url = base + strings.TrimPrefix(w, "http://127.0.0.1:8080")
		default:
			t.Fatalf("unsupported curl argument %q in %q", w, line)
		}
	}
	if method == "" {
		method = "GET"
		if body != nil {
			method = "POST"
		}
	}
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
