package cli_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/cmd/triage/internal/cli"
)

// tryIt runs serve and returns what it prints up to its "MCP bridge" line
// (the "Try it" lines among it), then stops it.
func tryIt(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := cli.Run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "t.db")},
			cli.Env{Stdout: pw, Stderr: io.Discard})
		pw.Close()
		done <- code
	}()
	var out strings.Builder
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "MCP bridge") {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	return out.String()
}

// curlLine is the "Try it" curl command: its URL, headers and body, as a
// shell would pass them (the placeholder $TRIAGE_API_KEY expanded to key).
func curlLine(t *testing.T, out, key string) (url string, header http.Header, body string) {
	t.Helper()
	_, rest, ok := strings.Cut(out, "Try it:\n  curl -s ")
	if !ok {
		t.Fatalf("no Try it line in:\n%s", out)
	}
	line, _, _ := strings.Cut(rest, "\n")
	url, line, _ = strings.Cut(line, " ")
	header = http.Header{}
	for {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, `-H "`):
			h, more, _ := strings.Cut(line[4:], `"`)
			k, v, _ := strings.Cut(strings.ReplaceAll(h, "$TRIAGE_API_KEY", key), ": ")
			header.Set(k, v)
			line = more
		case strings.HasPrefix(line, `-H '`):
			h, more, _ := strings.Cut(line[4:], `'`)
			k, v, _ := strings.Cut(h, ": ")
			header.Set(k, v)
			line = more
		case strings.HasPrefix(line, `-d '`):
			body, _, _ = strings.Cut(line[4:], `'`)
			return url, header, body
		default:
			t.Fatalf("cannot read the curl line at %q", line)
		}
	}
}

// With API keys, the "Try it" line sends one, as a placeholder that
// names the variable to set, never a key; the request it makes is
// accepted. Without keys, it sends none.
func TestServeTryItWithKeys(t *testing.T) {
	const key = "acme-key-0123456789ab"
	t.Setenv("TRIAGE_API_KEYS", "acme="+key)
	out := tryIt(t)
	if strings.Contains(out, key) {
		t.Fatalf("serve printed the key:\n%s", out)
	}
	if !strings.Contains(out, `-H "X-API-Key: $TRIAGE_API_KEY"`) || !strings.Contains(out, "TRIAGE_API_KEY") {
		t.Fatalf("the Try it line sends no key:\n%s", out)
	}
	url, header, body := curlLine(t, out, key)
	if header.Get("X-API-Key") != key || header.Get("Content-Type") != "application/json" || !strings.HasSuffix(url, "/v1/errors") || body == "" {
		t.Fatalf("url %q header %v body %q", url, header, body)
	}
	s := startServe(t, "--db", filepath.Join(t.TempDir(), "t.db"))
	hdr := []string{}
	for k := range header {
		hdr = append(hdr, k, header.Get(k))
	}
	if r := call(t, "POST", s.base+"/v1/errors", []byte(body), hdr...); r.status != http.StatusCreated {
		t.Errorf("the Try it request: %d %s", r.status, r.body)
	}

	t.Setenv("TRIAGE_API_KEYS", "")
	if out := tryIt(t); strings.Contains(out, "X-API-Key") || strings.Contains(out, "TRIAGE_API_KEY") {
		t.Errorf("without keys:\n%s", out)
	}
}
