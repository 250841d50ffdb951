package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/cmd/triage/internal/cli"
)

// triage bridge --service reports a failed tool call to the service, with
// the key TRIAGE_API_KEY holds, after the call's answer; the answer is
// the bridge's as ever.
func TestBridgeReportsToService(t *testing.T) {
	var (
		mu      sync.Mutex
		reports []map[string]any
		auth    []string
	)
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var doc map[string]any
		if r.URL.Path != "/v1/errors" || json.NewDecoder(r.Body).Decode(&doc) != nil {
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		mu.Lock()
		reports, auth = append(reports, doc), append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"error_id":"err_0123456789abcdef","query_id":"mcp:sessions_create","error_type":"system_error","severity":"low","next_action":"await_user","user_message":"x","attempt":1}`)
	}))
	defer svc.Close()
	file := filepath.Join(t.TempDir(), "agents.yaml")
	if err := os.WriteFile(file, []byte("agents:\n  - id: quiet\n    kind: script\n    recordFailures: false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TRIAGE_API_KEY", "acme-key-0123456789ab")
	t.Setenv("TRIAGE_SERVICE_URL", svc.URL)

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(context.Background(), []string{"bridge", "--agents", file, "--max-metadata-bytes", "16"}, cli.Env{Stdin: inR, Stdout: outW, Stderr: &stderr})
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	send := func(msg string) {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[float64]map[string]any{} // answers read before they were waited for
	answer := func(id float64) map[string]any {
		if m, ok := seen[id]; ok {
			return m
		}
		for lines.Scan() {
			var m map[string]any
			if json.Unmarshal(lines.Bytes(), &m) != nil {
				continue
			}
			if got, _ := m["id"].(float64); got == id {
				return m
			} else if got != 0 {
				seen[got] = m
			}
		}
		t.Fatalf("no answer %v; stderr:\n%s", id, stderr.String())
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	answer(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// A call about the agent that opted out, then one about no agent of
	// the file: only the latter is reported.
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sessions_create","arguments":{"agentId":"quiet","metadata":{"note":"more than sixteen bytes"}}}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sessions_create","arguments":{"agentId":"nobody"}}}`)
	for _, id := range []float64{2, 3} {
		if res, _ := answer(id)["result"].(map[string]any); res["isError"] != true {
			t.Fatalf("call %v's answer %v", id, res)
		}
	}
	inW.Close() // the client leaves: the bridge stops once the report is sent
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	select {
	case code := <-done:
		if code != cli.ExitOK {
			t.Fatalf("exit %d:\n%s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the bridge did not stop")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reports) != 1 {
		t.Fatalf("%d reports, want 1:\n%s", len(reports), stderr.String())
	}
	data, _ := reports[0]["data"].(map[string]any)
	if reports[0]["agent_id"] != "mcp-bridge" || data["error_code"] != "CAPABILITY_NOT_FOUND" || auth[0] != "Bearer acme-key-0123456789ab" {
		t.Errorf("the report %v, Authorization %q", reports[0], auth[0])
	}
	if strings.Contains(stderr.String(), "acme-key-0123456789ab") {
		t.Errorf("the key is in the logs:\n%s", stderr.String())
	}
}
