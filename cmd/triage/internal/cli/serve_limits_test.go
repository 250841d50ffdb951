package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/cmd/triage/internal/cli"
)

// The limits against a hostile client are flags (and variables): the
// failed-authentication throttle, and the body timeout, which answers a
// body that stops coming with 408 through the real server's timeouts.
func TestServeLimitFlags(t *testing.T) {
	t.Setenv("TRIAGE_API_KEYS", "acme=acme-key-0123456789ab,globex=globex-key-0123456789")
	t.Setenv("TRIAGE_AUTH_FAIL_RATE", "0.01")
	db := filepath.Join(t.TempDir(), "triage.db")
	svc := startServe(t, "--db", db, "--auth-fail-burst", "2", "--body-timeout", "300ms", "--max-streams-tenant", "1")
	var statuses []int
	for range 3 {
		statuses = append(statuses, call(t, "GET", svc.base+"/v1/errors", nil, "X-API-Key", "wrong-key-0123456789").status)
	}
	if fmt.Sprint(statuses) != "[403 403 429]" {
		t.Errorf("three wrong keys: %v", statuses)
	}
	if r := call(t, "GET", svc.base+"/v1/errors", nil, "X-API-Key", "acme-key-0123456789ab"); r.status != 200 {
		t.Errorf("a valid key from the throttled address: %d", r.status)
	}

	// One event stream a tenant: a second is refused, another tenant's is not.
	open := func(key string) int {
		req, err := http.NewRequestWithContext(t.Context(), "GET", svc.base+"/v1/events", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-API-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp.StatusCode
	}
	if got := []int{open("acme-key-0123456789ab"), open("acme-key-0123456789ab"), open("globex-key-0123456789")}; fmt.Sprint(got) != "[200 429 200]" {
		t.Errorf("two streams of acme's, then globex's: %v; want [200 429 200]", got)
	}

	c, err := net.Dial("tcp", strings.TrimPrefix(svc.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /v1/errors HTTP/1.1\r\nHost: triage\r\nX-API-Key: acme-key-0123456789ab\r\n"+
		"Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{")
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("a body that stops: no answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 408 || !bytes.Contains(body, []byte(`"code":"TIMEOUT"`)) {
		t.Errorf("a body that stops: %d %s", resp.StatusCode, body)
	}

	var stderr bytes.Buffer
	if code := cli.Run(context.Background(), []string{"serve", "-h"}, cli.Env{Stdout: io.Discard, Stderr: &stderr}); code != cli.ExitOK {
		t.Fatalf("serve -h: exit %d", code)
	}
	for _, want := range []string{"--max-concurrent-tenant", "TRIAGE_MAX_CONCURRENT_TENANT", "--body-timeout", "TRIAGE_BODY_TIMEOUT",
		"--min-body-rate", "TRIAGE_MIN_BODY_RATE", "--auth-fail-rate", "TRIAGE_AUTH_FAIL_RATE", "--auth-fail-burst",
		"TRIAGE_AUTH_FAIL_BURST", "--log-repeat", "TRIAGE_LOG_REPEAT", "--max-streams-tenant", "TRIAGE_MAX_STREAMS_TENANT",
		"--max-mcp-sessions-tenant", "TRIAGE_MAX_MCP_SESSIONS_TENANT"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("serve -h does not mention %s", want)
		}
	}
	for _, bad := range [][]string{{"--body-timeout", "0s"}, {"--body-timeout", "1m"}, {"--max-concurrent-tenant", "-1"},
		{"--min-body-rate", "0"}, {"--auth-fail-rate", "0"}, {"--auth-fail-burst", "0"}, {"--log-repeat", "0"},
		{"--max-streams-tenant", "0"}, {"--max-mcp-sessions-tenant", "0"}} {
		var stderr bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // should it serve after all
		code := cli.Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db}, bad...), cli.Env{Stdout: io.Discard, Stderr: &stderr})
		cancel()
		if code != cli.ExitUsage || !strings.Contains(stderr.String(), bad[0]) {
			t.Errorf("%v: exit %d: %s", bad, code, stderr.String())
		}
	}
}
