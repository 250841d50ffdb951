package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
)

// The tests of the /mcp door as a raw HTTP client sees it: sessions and
// their cap, batches, ids, errors, Origin, resumable streams.

const mcpAccept = "application/json, text/event-stream"

// mcpDoor is a fixture whose bridge's prompts time out after promptTimeout.
func mcpDoor(t *testing.T, promptTimeout time.Duration, mods ...func(*Config)) *fixture {
	t.Helper()
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{OwnerShare: 4, PromptTimeout: promptTimeout})
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return newFixture(t, func(c *Config) {
		c.APIKeys = map[string]string{"key-a": "acme", "key-b": "globex"}
		c.Bridge = bridge.New(bridge.Config{Manager: m, Owner: MCPOwner, MaxPromptBytes: 4 << 20})
		for _, mod := range mods {
			mod(c)
		}
	})
}

// mcpInit opens a session at version as the key's tenant (initialize,
// then notifications/initialized) and returns its id.
func mcpInit(t *testing.T, f *fixture, key, version string) string {
	t.Helper()
	r := f.do("POST", "/mcp", []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`),
		map[string]string{"X-API-Key": key, "Accept": mcpAccept})
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %v %s", r.status, r.header, r.body)
	}
	r = mcpPost(t, f, key, sid, version, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if r.status != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", r.status, r.body)
	}
	return sid
}

// mcpPost posts body in the session (version "": no MCP-Protocol-Version).
func mcpPost(t *testing.T, f *fixture, key, sid, version, body string) response {
	t.Helper()
	h := map[string]string{"X-API-Key": key, "Accept": mcpAccept}
	if sid != "" {
		h["Mcp-Session-Id"] = sid
	}
	if version != "" {
		h["Mcp-Protocol-Version"] = version
	}
	return f.do("POST", "/mcp", []byte(body), h)
}

// sseData returns the data of each event of an SSE body.
func sseData(body []byte) []string {
	var out []string
	for block := range strings.SplitSeq(string(body), "\n\n") {
		for line := range strings.SplitSeq(block, "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok && d != "" {
				out = append(out, d)
			}
		}
	}
	return out
}

// mcpDo is f.do with a deadline: a GET that opens a stream is read for at
// most 3 s (a test must not hang on a stream it expected refused).
func mcpDo(t *testing.T, f *fixture, method string, body []byte, header map[string]string) response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, f.http.URL+"/mcp", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := f.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// rpcMessage is the one JSON-RPC message an answer carries (SSE or JSON).
func rpcMessage(t *testing.T, r response) map[string]any {
	t.Helper()
	body := r.body
	if strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
		d := sseData(r.body)
		if len(d) == 0 {
			t.Fatalf("no message in %q", r.body)
		}
		body = []byte(d[len(d)-1])
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%d %q: %v", r.status, r.body, err)
	}
	return m
}

// alive tells whether the session still answers a ping.
func alive(t *testing.T, f *fixture, key, sid string) bool {
	t.Helper()
	r := mcpPost(t, f, key, sid, "2025-06-18", `{"jsonrpc":"2.0","id":99,"method":"ping"}`)
	switch r.status {
	case http.StatusOK:
		return true
	case http.StatusNotFound:
		if codeOf(t, r) != "SESSION_NOT_FOUND" {
			t.Fatalf("404 without SESSION_NOT_FOUND: %s", r.body)
		}
		return false
	}
	t.Fatalf("ping: %d %s", r.status, r.body)
	return false
}

// A client that goes away without DELETE (the TypeScript client's close)
// leaves its session quiet: a tenant at its cap that opens another gets
// it, and the least recently used quiet session makes room.
func TestMCPQuietSessionsMakeRoom(t *testing.T) {
	t.Parallel()
	f := mcpDoor(t, time.Minute, func(c *Config) { c.TenantMCPSessions = 3 })
	var ids []string
	for range 3 {
		ids = append(ids, mcpInit(t, f, "key-a", "2025-06-18"))
	}
	// The first is used again: the second is now the least recently used.
	if !alive(t, f, "key-a", ids[0]) {
		t.Fatal("the first session is gone")
	}
	fourth := mcpInit(t, f, "key-a", "2025-06-18")
	if alive(t, f, "key-a", ids[1]) {
		t.Error("the least recently used quiet session was not the one closed")
	}
	for _, id := range []string{ids[0], ids[2], fourth} {
		if !alive(t, f, "key-a", id) {
			t.Errorf("session %s was closed", id)
		}
	}
	// Another tenant's cap is its own: globex opens three of its own, and
	// acme's stay.
	for range 3 {
		mcpInit(t, f, "key-b", "2025-06-18")
	}
	for _, id := range []string{ids[0], ids[2], fourth} {
		if !alive(t, f, "key-a", id) {
			t.Errorf("another tenant's sessions closed acme's %s", id)
		}
	}
}

// A session with work in flight is never closed to make room: not while
// its POST streams the answer, nor when the client dropped the POST's
// connection while the prompt runs on. With every session busy, the
// tenant is refused (429), as before.
func TestMCPBusySessionsStay(t *testing.T) {
	t.Parallel()
	f := mcpDoor(t, 5*time.Second, func(c *Config) { c.TenantMCPSessions = 2 })
	streaming := mcpInit(t, f, "key-a", "2025-11-25")
	dropped := mcpInit(t, f, "key-a", "2025-11-25")
	hang := func(sid string) net.Conn {
		s := mcpPost(t, f, "key-a", sid, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sessions_create","arguments":{"agentId":"echo"}}}`)
		var out struct {
			Result struct {
				StructuredContent struct {
					SessionID string `json:"sessionId"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		b, _ := json.Marshal(rpcMessage(t, s))
		_ = json.Unmarshal(b, &out)
		body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sessions_prompt","arguments":{"sessionId":"` + out.Result.StructuredContent.SessionID + `","prompt":"hang"}}}`
		return rawPost(t, f, "key-a", sid, "2025-11-25", body)
	}
	c1 := hang(streaming)
	defer c1.Close()
	readPriming(t, c1)
	c2 := hang(dropped)
	readPriming(t, c2)
	// The prompt runs on, with no connection, once the server has seen
	// the POST end (it counts a request when its handler returns).
	ended := requestsEnded(f, "POST /mcp")
	c2.Close()
	waitFor(t, "the dropped POST to end", func() bool { return requestsEnded(f, "POST /mcp") > ended })

	r := f.do("POST", "/mcp", []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`),
		map[string]string{"X-API-Key": "key-a", "Accept": mcpAccept})
	if r.status != http.StatusTooManyRequests || codeOf(t, r) != "RATE_LIMITED" {
		t.Fatalf("a third session with both busy: %d %s", r.status, r.body)
	}
	if !alive(t, f, "key-a", streaming) || !alive(t, f, "key-a", dropped) {
		t.Fatal("a busy session was closed")
	}
	// The other tenant is served meanwhile.
	mcpInit(t, f, "key-b", "2025-06-18")
}

// requestsEnded is how many requests of route (a pattern such as
// "POST /mcp") f's server has counted: it counts one when its handler
// returns, whatever the status.
func requestsEnded(f *fixture, route string) int {
	ch := make(chan prometheus.Metric)
	go func() { f.srv.metrics.requests.Collect(ch); close(ch) }()
	n := 0
	for m := range ch {
		var d dto.Metric
		if m.Write(&d) != nil {
			continue
		}
		for _, l := range d.GetLabel() {
			if l.GetName() == "route" && l.GetValue() == route {
				n += int(d.GetCounter().GetValue())
			}
		}
	}
	return n
}

// rawPost sends a POST on a connection of its own and returns it unread.
func rawPost(t *testing.T, f *fixture, key, sid, version, body string) net.Conn {
	t.Helper()
	host := strings.TrimPrefix(f.http.URL, "http://")
	c, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nX-API-Key: %s\r\nContent-Type: application/json\r\nAccept: %s\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: %s\r\nContent-Length: %d\r\n\r\n%s",
		host, key, mcpAccept, sid, version, len(body), body)
	return c
}

// readPriming reads the answer's head up to its first blank line after
// the header: the status line must be 200 and an event must follow.
func readPriming(t *testing.T, c net.Conn) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	status, err := br.ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		t.Fatalf("status %q: %v", status, err)
	}
	_ = c.SetReadDeadline(time.Time{})
}

// A JSON-RPC batch is refused in a session whose negotiated version has
// none (2025-06-18 and later), whatever MCP-Protocol-Version says or
// leaves out; in a 2025-03-26 session a batch is answered, up to
// MCPMaxBatch messages, each counted against the tenant's rate limit.
func TestMCPBatches(t *testing.T) {
	t.Parallel()
	f := mcpDoor(t, time.Minute, func(c *Config) { c.RateLimit = 0.001; c.RateBurst = 40 })
	batch := func(n int) string {
		msgs := make([]string, n)
		for i := range msgs {
			msgs[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 100+i)
		}
		return "[" + strings.Join(msgs, ",") + "]"
	}
	for _, header := range []string{"", "2025-03-26", "2025-06-18"} {
		sid := mcpInit(t, f, "key-a", "2025-06-18")
		r := mcpPost(t, f, "key-a", sid, header, batch(2))
		m := rpcMessage(t, r)
		e, _ := m["error"].(map[string]any)
		if r.status != http.StatusBadRequest || e == nil || e["code"] != float64(-32600) || m["id"] != nil {
			t.Errorf("a batch in a 2025-06-18 session, header %q: %d %s", header, r.status, r.body)
		}
	}
	// Refused, not answered: before the other requests of the session.
	old := mcpInit(t, f, "key-a", "2025-03-26")
	r := mcpPost(t, f, "key-a", old, "", batch(3))
	if d := sseData(r.body); r.status != http.StatusOK || len(d) != 3 || !strings.Contains(d[0]+d[1]+d[2], `"id":102,"result"`) {
		t.Fatalf("a batch of 3 in a 2025-03-26 session: %d %s", r.status, r.body)
	}
	r = mcpPost(t, f, "key-a", old, "", batch(DefaultMCPMaxBatch+1))
	if e, _ := rpcMessage(t, r)["error"].(map[string]any); r.status != http.StatusBadRequest || e == nil || e["code"] != float64(-32600) {
		t.Errorf("a batch over the cap: %d %s", r.status, r.body)
	}
	// Of the burst of 40, 15 are spent: 4 sessions (2 requests each), 4
	// refused batches (1 each, as any request), a batch of 3. A batch of 16
	// takes 16 more, and then a batch of 10 needs one more than is left.
	if r = mcpPost(t, f, "key-a", old, "", batch(16)); r.status != http.StatusOK {
		t.Fatalf("a batch of 16: %d %s", r.status, r.body)
	}
	r = mcpPost(t, f, "key-a", old, "", batch(10))
	if r.status != http.StatusTooManyRequests || codeOf(t, r) != "RATE_LIMITED" {
		t.Errorf("a batch past the tenant's tokens: %d %s", r.status, r.body)
	}
}

// A request id must come back as it was sent, or be refused: a number
// with a fraction or an exponent, or beyond 2^53, is -32600, not echoed
// altered (the go-sdk's decoder made 1.5e300 -9223372036854775808).
func TestMCPRequestIDs(t *testing.T) {
	t.Parallel()
	f := mcpDoor(t, time.Minute)
	sid := mcpInit(t, f, "key-a", "2025-06-18")
	for _, id := range []string{"1.5e300", "1.5", "1e3", "-0.0", "9007199254740993", "true", "{}"} {
		r := mcpPost(t, f, "key-a", sid, "2025-06-18", `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
		m := rpcMessage(t, r)
		e, _ := m["error"].(map[string]any)
		if r.status != http.StatusBadRequest || e == nil || e["code"] != float64(-32600) || m["id"] != nil {
			t.Errorf("id %s: %d %s", id, r.status, r.body)
		}
	}
	for _, id := range []string{"42", "-7", "9007199254740991", `"abc"`, `"1.5e300"`} {
		r := mcpPost(t, f, "key-a", sid, "2025-06-18", `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
		d := sseData(r.body)
		if r.status != http.StatusOK || len(d) == 0 || !strings.Contains(d[len(d)-1], `"id":`+id+`,`) {
			t.Errorf("id %s: %d %s", id, r.status, r.body)
		}
	}
}

// Every error /mcp answers outside JSON-RPC is a problem (RFC 9457) with a
// code: the go-sdk's own plain-text answers included. Another tenant's
// session is not found, as an unknown one is (404, which clients take as
// "initialize again").
func TestMCPErrorsAreProblems(t *testing.T) {
	t.Parallel()
	f := mcpDoor(t, time.Minute)
	sid := mcpInit(t, f, "key-a", "2025-06-18")
	key := map[string]string{"X-API-Key": "key-a"}
	with := func(h map[string]string) map[string]string {
		out := map[string]string{"X-API-Key": "key-a"}
		for k, v := range h {
			out[k] = v
		}
		return out
	}
	_ = key
	for _, c := range []struct {
		name   string
		method string
		body   string
		header map[string]string
		status int
		code   string
	}{
		{"another tenant's session", "POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			map[string]string{"X-API-Key": "key-b", "Accept": mcpAccept, "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-06-18"}, 404, "SESSION_NOT_FOUND"},
		{"another tenant's GET", "GET", "",
			map[string]string{"X-API-Key": "key-b", "Accept": "text/event-stream", "Mcp-Session-Id": sid}, 404, "SESSION_NOT_FOUND"},
		{"another tenant's DELETE", "DELETE", "",
			map[string]string{"X-API-Key": "key-b", "Mcp-Session-Id": sid}, 404, "SESSION_NOT_FOUND"},
		{"unknown session", "POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			with(map[string]string{"Accept": mcpAccept, "Mcp-Session-Id": "NOSUCHSESSION"}), 404, "SESSION_NOT_FOUND"},
		{"no Accept", "POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			with(map[string]string{"Mcp-Session-Id": sid}), 400, "INVALID_REQUEST"},
		{"not JSON's media type", "POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			with(map[string]string{"Accept": mcpAccept, "Content-Type": "text/plain", "Mcp-Session-Id": sid}), 415, "INVALID_REQUEST"},
		{"unsupported version", "POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			with(map[string]string{"Accept": mcpAccept, "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "1999-01-01"}), 400, "INVALID_REQUEST"},
		{"GET without an SSE Accept", "GET", "", with(map[string]string{"Mcp-Session-Id": sid}), 400, "INVALID_REQUEST"},
		{"GET without a session", "GET", "", with(map[string]string{"Accept": "text/event-stream"}), 400, "INVALID_REQUEST"},
		{"GET with a malformed Last-Event-ID", "GET", "",
			with(map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Last-Event-ID": "nonsense"}), 400, "INVALID_REQUEST"},
		{"DELETE without a session", "DELETE", "", key, 400, "INVALID_REQUEST"},
		{"POST with Last-Event-ID", "POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			with(map[string]string{"Accept": mcpAccept, "Mcp-Session-Id": sid, "Last-Event-ID": "x_1"}), 400, "INVALID_REQUEST"},
		{"a body too large", "POST", `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"` + strings.Repeat("a", 8<<20) + `"}}`,
			with(map[string]string{"Accept": mcpAccept, "Mcp-Session-Id": sid}), 413, "PAYLOAD_TOO_LARGE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var body []byte
			if c.body != "" {
				body = []byte(c.body)
			}
			r := mcpDo(t, f, c.method, body, c.header)
			if r.status != c.status || r.header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("%d %q %s", r.status, r.header.Get("Content-Type"), r.body)
			}
			if got := codeOf(t, r); got != c.code {
				t.Errorf("code %s, want %s: %s", got, c.code, r.body)
			}
		})
	}
	// The session was not another tenant's to close.
	if !alive(t, f, "key-a", sid) {
		t.Error("another tenant's DELETE closed the session")
	}
	// Malformed JSON is JSON-RPC's parse error (id null).
	r := mcpPost(t, f, "key-a", sid, "2025-06-18", `{"jsonrpc":"2.0",`)
	if e, _ := rpcMessage(t, r)["error"].(map[string]any); r.status != http.StatusBadRequest || e == nil || e["code"] != float64(-32700) {
		t.Errorf("malformed JSON: %d %s", r.status, r.body)
	}
}

// The Origin of a browser's request must be the service's own: a request
// from another origin (or "null") is refused with 403, on every method;
// a request without Origin (any client but a browser) is served.
func TestMCPOrigin(t *testing.T) {
	t.Parallel()
	f := mcpDoor(t, time.Minute)
	initialize := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	host := strings.TrimPrefix(f.http.URL, "http://")
	for _, origin := range []string{"http://evil.example", "null", "http://" + host + ".evil.example", "https://127.0.0.2:1"} {
		r := f.do("POST", "/mcp", initialize, map[string]string{"X-API-Key": "key-a", "Accept": mcpAccept, "Origin": origin})
		if r.status != http.StatusForbidden || r.header.Get("Content-Type") != "application/problem+json" || r.header.Get("Mcp-Session-Id") != "" {
			t.Errorf("Origin %s: %d %v %s", origin, r.status, r.header, r.body)
		}
	}
	sid := mcpInit(t, f, "key-a", "2025-06-18")
	r := mcpDo(t, f, "GET", nil, map[string]string{"X-API-Key": "key-a", "Accept": "text/event-stream", "Mcp-Session-Id": sid, "Origin": "http://evil.example"})
	if r.status != http.StatusForbidden {
		t.Errorf("GET from another origin: %d %s", r.status, r.body)
	}
	r = f.do("POST", "/mcp", initialize, map[string]string{"X-API-Key": "key-a", "Accept": mcpAccept, "Origin": "http://" + host})
	if r.status != http.StatusOK {
		t.Errorf("the service's own origin: %d %s", r.status, r.body)
	}
}

// A POST's SSE stream opens with a priming event (an id, a retry field and
// empty data, SEP-1699) in a session negotiated at 2025-11-25, whatever
// MCP-Protocol-Version says; a client whose connection dropped resumes
// from that id with GET and Last-Event-ID, and gets the answer.
func TestMCPStreamsResume(t *testing.T) {
	t.Parallel()
	f := mcpDoor(t, 2*time.Second)
	sid := mcpInit(t, f, "key-a", "2025-11-25")
	for _, header := range []string{"2025-11-25", "2025-03-26", ""} {
		r := mcpPost(t, f, "key-a", sid, header, `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
		if !strings.HasPrefix(string(r.body), "event: prime\nid: ") || !strings.Contains(strings.SplitN(string(r.body), "\n\n", 2)[0], "\nretry: ") {
			t.Errorf("header %q: the stream does not open with a priming event and a retry field: %.200q", header, r.body)
		}
	}
	// A GET stream opens with the retry field too.
	g := mcpDo(t, f, "GET", nil, map[string]string{"X-API-Key": "key-a", "Accept": "text/event-stream", "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"})
	if g.status != http.StatusOK || !strings.HasPrefix(string(g.body), ": ok\nretry: 1000\n\n") {
		t.Errorf("GET stream: %d %.100q", g.status, g.body)
	}
	// A prompt that times out after 2 s; the client reads the priming
	// event and drops the connection.
	s := mcpPost(t, f, "key-a", sid, "2025-11-25", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"sessions_create","arguments":{"agentId":"echo"}}}`)
	b, _ := json.Marshal(rpcMessage(t, s))
	var created struct {
		Result struct {
			StructuredContent struct {
				SessionID string `json:"sessionId"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	_ = json.Unmarshal(b, &created)
	c := rawPost(t, f, "key-a", sid, "2025-11-25",
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sessions_prompt","arguments":{"sessionId":"`+created.Result.StructuredContent.SessionID+`","prompt":"hang"}}}`)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	lastID := ""
	for lastID == "" {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the priming event: %v", err)
		}
		if id, ok := strings.CutPrefix(strings.TrimSpace(line), "id: "); ok {
			lastID = id
		}
	}
	c.Close()

	req, _ := http.NewRequest("GET", f.http.URL+"/mcp", nil)
	req.Header.Set("X-API-Key", "key-a")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", lastID)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var resp *http.Response
	for {
		var err error
		resp, err = f.http.Client().Do(req.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		// 409 (with Retry-After) until the server has seen the dropped
		// connection end and released its stream.
		if resp.StatusCode != http.StatusConflict {
			break
		}
		resp.Body.Close()
		time.Sleep(50 * time.Millisecond)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"id":7,"result"`) || !strings.Contains(string(body), "TIMEOUT") {
		t.Fatalf("resumed from %s: %d %s", lastID, resp.StatusCode, body)
	}
}

// A tenant's /mcp POSTs in progress are bounded by its share of the
// requests (TenantConcurrent), counted apart from the API's: an answer in
// progress holds memory until it is written, however long the client
// takes to read it.
func TestMCPPostsInProgressBounded(t *testing.T) {
	t.Parallel()
	f := mcpDoor(t, 5*time.Second, func(c *Config) { c.TenantConcurrent = 2 })
	sid := mcpInit(t, f, "key-a", "2025-11-25")
	for i := range 2 {
		c := rawPost(t, f, "key-a", sid, "2025-11-25", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"tasks_delegate","arguments":{"agentId":"echo","prompt":"hang"}}}`, 20+i))
		defer c.Close()
		readPriming(t, c)
	}
	r := mcpPost(t, f, "key-a", sid, "2025-11-25", `{"jsonrpc":"2.0","id":30,"method":"ping"}`)
	if r.status != http.StatusTooManyRequests || codeOf(t, r) != "RATE_LIMITED" {
		t.Fatalf("a third POST in progress: %d %s", r.status, r.body)
	}
	// The tenant's API requests and the other tenant's /mcp are served.
	if r := f.do("GET", "/v1/errors", nil, map[string]string{"X-API-Key": "key-a"}); r.status != http.StatusOK {
		t.Errorf("the tenant's API: %d %s", r.status, r.body)
	}
	mcpInit(t, f, "key-b", "2025-11-25")
}

// A session in its handshake (initialize answered, notifications/
// initialized not yet sent) is not closed to make room: its client is
// about to use it. Initialized and quiet, it is.
func TestMCPHandshakeIsKept(t *testing.T) {
	t.Parallel()
	f := mcpDoor(t, time.Minute, func(c *Config) { c.TenantMCPSessions = 2 })
	initialize := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	var ids []string
	for range 2 {
		r := f.do("POST", "/mcp", initialize, map[string]string{"X-API-Key": "key-a", "Accept": mcpAccept})
		ids = append(ids, r.header.Get("Mcp-Session-Id"))
	}
	r := f.do("POST", "/mcp", initialize, map[string]string{"X-API-Key": "key-a", "Accept": mcpAccept})
	if r.status != http.StatusTooManyRequests {
		t.Fatalf("a third session while two are in their handshake: %d %s", r.status, r.body)
	}
	if r := mcpPost(t, f, "key-a", ids[1], "2025-06-18", `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", r.status, r.body)
	}
	mcpInit(t, f, "key-a", "2025-06-18")
	if alive(t, f, "key-a", ids[1]) {
		t.Error("the initialized quiet session was kept")
	}
	if r := mcpPost(t, f, "key-a", ids[0], "2025-06-18", `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != http.StatusAccepted {
		t.Errorf("the session in its handshake was closed: %d %s", r.status, r.body)
	}
}
