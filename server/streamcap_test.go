package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// refusedGet sends GET path with header, expecting an answer (not a
// stream) within 5 s: its status and problem.
func refusedGet(t *testing.T, f *fixture, path string, header map[string]string) (int, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", f.http.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := f.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		return resp.StatusCode, nil
	}
	body, _ := io.ReadAll(resp.Body)
	var p map[string]any
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
	}
	if resp.Header.Get("Retry-After") == "" {
		t.Errorf("%d without Retry-After", resp.StatusCode)
	}
	return resp.StatusCode, p
}

// One tenant holds at most TenantStreams event streams; the others still
// open theirs, and a stream closed frees its place.
func TestEventStreamsPerTenant(t *testing.T) {
	const keyA, keyB = "key-a-0123456789abcdef", "key-b-0123456789abcdef"
	f := newFixture(t, func(c *Config) {
		c.APIKeys = map[string]string{keyA: "acme", keyB: "globex"}
		c.TenantStreams = 2
	})
	a, b := map[string]string{"X-API-Key": keyA}, map[string]string{"X-API-Key": keyB}
	_, close1 := f.stream(a)
	_, close2 := f.stream(a)
	defer close2()
	status, p := refusedGet(t, f, "/v1/events", a)
	if status != http.StatusTooManyRequests || p["code"] != "RATE_LIMITED" || detail(p, "max_streams") != 2.0 {
		t.Fatalf("a third stream of one tenant: %d %v; want 429 RATE_LIMITED with max_streams 2", status, p)
	}
	_, closeB := f.stream(b)
	defer closeB()
	close1()
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, _ := refusedGet(t, f, "/v1/events", a)
		if status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a stream closed 10 s ago still counts: %d", status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// One tenant holds at most TenantMCPSessions MCP sessions at /mcp; the
// others still open theirs, and a session closed (DELETE /mcp) frees its
// place.
func TestMCPSessionsPerTenant(t *testing.T) {
	f := mcpFixture(t, func(c *Config) { c.TenantMCPSessions = 2 })
	connect := func(key string) (*mcp.ClientSession, error) {
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		return c.Connect(t.Context(), &mcp.StreamableClientTransport{
			Endpoint: f.http.URL + "/mcp", HTTPClient: &http.Client{Transport: keyTransport{"X-API-Key", key}},
		}, nil)
	}
	first := mcpConnect(t, f, "X-API-Key", "key-a")
	mcpConnect(t, f, "X-API-Key", "key-a")
	if cs, err := connect("key-a"); err == nil {
		cs.Close()
		t.Fatal("a third MCP session of one tenant was opened")
	}
	r := f.do("POST", "/mcp", []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`),
		map[string]string{"X-API-Key": "key-a", "Accept": "application/json, text/event-stream"})
	if p := r.json(t); r.status != http.StatusTooManyRequests || p["code"] != "RATE_LIMITED" || detail(p, "max_mcp_sessions") != 2.0 ||
		r.header.Get("Retry-After") == "" {
		t.Errorf("a third session: %d %v %s", r.status, r.header, r.body)
	}
	mcpConnect(t, f, "X-API-Key", "key-b") // another tenant's
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	cs, err := connect("key-a")
	if err != nil {
		t.Fatalf("after one of its sessions closed, the tenant could not open another: %v", err)
	}
	cs.Close()
}

// detail is a problem's detail named name.
func detail(p map[string]any, name string) any {
	d, _ := p["details"].(map[string]any)
	return d[name]
}
