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
	t.Parallel()
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

// One tenant holds at most TenantMCPSessions MCP sessions at /mcp: the
// client that opens one more gets it, and the tenant's least recently
// used session with no work in flight is closed (the go-sdk client's
// next call fails: its session is not found); another tenant's sessions
// are not touched, and a session closed (DELETE /mcp) frees its place.
func TestMCPSessionsPerTenant(t *testing.T) {
	t.Parallel()
	f := mcpFixture(t, func(c *Config) { c.TenantMCPSessions = 2 })
	first := mcpConnect(t, f, "X-API-Key", "key-a")
	other := mcpConnect(t, f, "X-API-Key", "key-b")
	second := mcpConnect(t, f, "X-API-Key", "key-a")
	if _, err := second.CallTool(t.Context(), &mcp.CallToolParams{Name: "bridge_health", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	third := mcpConnect(t, f, "X-API-Key", "key-a")
	if _, err := first.CallTool(t.Context(), &mcp.CallToolParams{Name: "bridge_health", Arguments: map[string]any{}}); err == nil {
		t.Fatal("the tenant holds three sessions: the least recently used was not closed")
	}
	for _, cs := range []*mcp.ClientSession{second, third, other} {
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "bridge_health", Arguments: map[string]any{}}); err != nil {
			t.Errorf("session %s: %v", cs.ID(), err)
		}
	}
	if err := third.Close(); err != nil {
		t.Fatal(err)
	}
	mcpConnect(t, f, "X-API-Key", "key-a")
	if _, err := second.CallTool(t.Context(), &mcp.CallToolParams{Name: "bridge_health", Arguments: map[string]any{}}); err != nil {
		t.Errorf("a session was closed though another had been deleted: %v", err)
	}
}

// detail is a problem's detail named name.
func detail(p map[string]any, name string) any {
	d, _ := p["details"].(map[string]any)
	return d[name]
}
