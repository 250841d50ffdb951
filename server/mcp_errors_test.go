package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/client"
)

// errorsReport is the arguments of an errors_report of the scenario's
// timeout: a query that timed out, with a credential in its context.
var errorsReport = map[string]any{"agentId": "planner", "queryId": "q_mcp_1", "message": "Query timed out after 30s",
	"errorType": "query_error", "errorCode": "DB_TIMEOUT", "release": "1.4.0", "timestamp": "2025-08-08T12:20:00Z",
	"context": map[string]any{"table": "orders", "api_key": "sk-live-abcdefghijklmnopqrstuvwxyz"}}

// exerciseErrorTools reports an error through a client session's
// errors_report, finds it with errors_search, reads it with errors_get
// (with its root cause, no secret), and checks that another tenant's
// session (other) sees none of it and that errors_update says it is not
// available. It returns the error's id.
func exerciseErrorTools(t *testing.T, cs, other *mcp.ClientSession) string {
	t.Helper()
	rep, isErr := mcpCall(t, cs, "errors_report", errorsReport)
	id, _ := rep["errorId"].(string)
	if isErr || id == "" || rep["nextAction"] == "" || rep["rootCause"].(map[string]any)["cause"] == "" {
		t.Fatalf("errors_report: %v", rep)
	}
	found, isErr := mcpCall(t, cs, "errors_search", map[string]any{"agentId": "planner", "errorType": "query_error"})
	list, _ := found["errors"].([]any)
	if isErr || len(list) != 1 || list[0].(map[string]any)["errorId"] != id || list[0].(map[string]any)["occurrences"] != 1.0 {
		t.Fatalf("errors_search: %v", found)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "errors_get", Arguments: map[string]any{"errorId": id}})
	if err != nil || res.IsError {
		t.Fatalf("errors_get: %v %+v", err, res)
	}
	data, _ := json.Marshal(res.StructuredContent)
	txt := res.Content[0].(*mcp.TextContent).Text
	var rec struct {
		ErrorID  string `json:"errorId"`
		Analysis struct {
			RootCause struct{ Cause string } `json:"rootCause"`
			Code      string                 `json:"code"`
		}
		Report struct {
			Message string
			Context map[string]any
		}
		Latest []any
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.ErrorID != id || rec.Analysis.RootCause.Cause == "" || rec.Analysis.Code == "" || rec.Report.Message != "Query timed out after 30s" ||
		rec.Report.Context["table"] != "orders" || len(rec.Latest) != 1 {
		t.Errorf("errors_get: %s", data)
	}
	if !strings.Contains(txt, "Root cause: "+rec.Analysis.RootCause.Cause) || !strings.Contains(txt, "Message: Query timed out after 30s") {
		t.Errorf("errors_get's text:\n%s", txt)
	}
	// Found by a word of its message, the most frequent first, with the
	// total; no other word finds it.
	if out, isErr := mcpCall(t, cs, "errors_search", map[string]any{"query": "timed", "sort": "count"}); isErr ||
		len(out["errors"].([]any)) != 1 || out["errors"].([]any)[0].(map[string]any)["errorId"] != id || out["total"] != 1.0 ||
		!strings.Contains(out["errors"].([]any)[0].(map[string]any)["title"].(string), "Query timed out") {
		t.Errorf("errors_search by a word: %v", out)
	}
	if out, isErr := mcpCall(t, cs, "errors_search", map[string]any{"query": "nonesuchword"}); isErr || len(out["errors"].([]any)) != 0 {
		t.Errorf("errors_search by a word no error has: %v", out)
	}
	if strings.Contains(string(data)+txt, "sk-live") {
		t.Errorf("a secret of the report came back: %s\n%s", data, txt)
	}

	// Another tenant sees none of it.
	if out, isErr := mcpCall(t, other, "errors_get", map[string]any{"errorId": id}); !isErr || out["error"].(map[string]any)["code"] != "NOT_FOUND" {
		t.Errorf("another tenant's errors_get: %v", out)
	}
	if out, isErr := mcpCall(t, other, "errors_search", map[string]any{}); isErr || len(out["errors"].([]any)) != 0 {
		t.Errorf("another tenant's errors_search: %v", out)
	}

	// The record is resolved through the tool, and another tenant's cannot be.
	if out, isErr := mcpCall(t, cs, "errors_update", map[string]any{"errorId": id, "status": "resolved", "note": "fixed"}); isErr ||
		out["status"] != "resolved" {
		t.Errorf("errors_update: %v", out)
	}
	if out, isErr := mcpCall(t, cs, "errors_search", map[string]any{"status": "resolved"}); isErr || len(out["errors"].([]any)) != 1 ||
		out["errors"].([]any)[0].(map[string]any)["status"] != "resolved" {
		t.Errorf("errors_search by status resolved: %v", out)
	}
	if out, isErr := mcpCall(t, other, "errors_update", map[string]any{"errorId": id, "status": "ignored"}); !isErr ||
		out["error"].(map[string]any)["code"] != "NOT_FOUND" {
		t.Errorf("another tenant's errors_update: %v", out)
	}
	if out, isErr := mcpCall(t, cs, "errors_update", map[string]any{"errorId": id, "status": "regressed"}); !isErr ||
		out["error"].(map[string]any)["code"] != "INVALID_REQUEST" {
		t.Errorf("errors_update to regressed: %v", out)
	}
	return id
}

// /mcp's error tools read and write the API key's tenant's records, on
// the service's own path: what they report, GET /v1/errors/{error_id}
// reads.
func TestMCPErrorTools(t *testing.T) {
	t.Parallel()
	f := mcpFixture(t)
	id := exerciseErrorTools(t, mcpConnect(t, f, "X-API-Key", "key-a"), mcpConnect(t, f, "Authorization", "Bearer key-b"))
	if r := f.do("GET", "/v1/errors/"+id, nil, map[string]string{"X-API-Key": "key-a"}); r.status != http.StatusOK {
		t.Errorf("GET /v1/errors/%s: %d %s", id, r.status, r.body)
	}
	if r := f.do("GET", "/v1/errors/"+id, nil, map[string]string{"X-API-Key": "key-b"}); r.status != http.StatusNotFound {
		t.Errorf("GET /v1/errors/%s as another tenant: %d", id, r.status)
	}
}

// The stdio bridge pointed at a service (bridge.ServiceErrors over the Go
// client) serves the same tools, with its API key's tenant's rights.
func TestBridgeErrorToolsOverTheClient(t *testing.T) {
	t.Parallel()
	f := mcpFixture(t)
	connect := func(key string) *mcp.ClientSession {
		c, err := client.New(f.http.URL, client.Config{APIKey: key})
		if err != nil {
			t.Fatal(err)
		}
		m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
		if err := m.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = m.Shutdown() })
		b := bridge.New(bridge.Config{Manager: m})
		b.ServeErrors(func(string) bridge.Errors { return bridge.ServiceErrors(c) })
		st, ct := mcp.NewInMemoryTransports()
		ss, err := b.Server().Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ss.Close() })
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	acme := connect("key-a")
	id := exerciseErrorTools(t, acme, connect("key-b"))
	// What the bridge reported over HTTP, /mcp reads: one store.
	if out, isErr := mcpCall(t, mcpConnect(t, f, "X-API-Key", "key-a"), "errors_get", map[string]any{"errorId": id}); isErr || out["errorId"] != id {
		t.Errorf("/mcp's errors_get of the bridge's report: %v", out)
	}
	// A bad key is the client's fault, without the key.
	out, isErr := mcpCall(t, connect("key-wrong-0123456789"), "errors_search", map[string]any{})
	data, _ := json.Marshal(out)
	if !isErr || strings.Contains(string(data), "key-wrong") {
		t.Errorf("a bad key: %s", data)
	}
}

// Without API keys, every /mcp client is the default tenant, whose
// records the error tools read.
func TestMCPErrorToolsWithoutKeys(t *testing.T) {
	t.Parallel()
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	f := newFixture(t, func(c *Config) { c.Bridge = bridge.New(bridge.Config{Manager: m, Owner: MCPOwner}) })
	cs := mcpConnect(t, f, "X-Unused", "")
	rep, isErr := mcpCall(t, cs, "errors_report", errorsReport)
	if isErr {
		t.Fatalf("errors_report: %v", rep)
	}
	if r := f.do("GET", "/v1/errors/"+rep["errorId"].(string), nil, nil); r.status != http.StatusOK {
		t.Errorf("GET /v1/errors/%v: %d %s", rep["errorId"], r.status, r.body)
	}
}
