package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/cmd/triage/internal/cli"
	"github.com/triage-go/triage/server"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
)

// `triage bridge --service URL` serves the service's error store as the
// tenant of TRIAGE_API_KEY: an error reported through errors_report is
// the tenant's record, which errors_search finds.
func TestBridgeServesTheServicesErrors(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "t.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv, err := server.New(server.Config{Store: st, APIKeys: map[string]string{"key-acme-0123456789": "acme"}, JobPoll: -1,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close() })
	t.Setenv("TRIAGE_API_KEY", "key-acme-0123456789")

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(context.Background(), []string{"bridge", "--service", hs.URL}, cli.Env{Stdin: inR, Stdout: outW, Stderr: &stderr})
		outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	callTool := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		var out map[string]any
		data, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(data, &out)
		return out
	}
	rep := callTool("errors_report", map[string]any{"agentId": "planner", "queryId": "q_1", "message": "Query timed out after 30s", "errorCode": "DB_TIMEOUT"})
	found := callTool("errors_search", map[string]any{"agentId": "planner"})
	if list, _ := found["errors"].([]any); len(list) != 1 || list[0].(map[string]any)["errorId"] != rep["errorId"] {
		t.Errorf("errors_search: %v, want the reported %v", found, rep["errorId"])
	}
	page, err := st.Tenant("acme").ErrorRecords(context.Background(), store.Filter{})
	if err != nil || len(page.Records) != 1 || page.Records[0].ErrorID != rep["errorId"] {
		t.Errorf("acme's records: %+v %v", page, err)
	}
	_ = cs.Close()
	if code := <-done; code != cli.ExitOK {
		t.Errorf("exit %d:\n%s", code, stderr.String())
	}
	if strings.Contains(stderr.String(), "key-acme") {
		t.Errorf("the API key is in the log:\n%s", stderr.String())
	}
}

// A --service that is no URL is a usage error.
func TestBridgeServiceFlag(t *testing.T) {
	r := run(t, "", "bridge", "--service", "not a url")
	if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "--service") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
}
