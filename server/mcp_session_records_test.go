package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// getSessionRecord reads GET /v1/sessions/{id} as the key's tenant.
func getSessionRecord(t *testing.T, f *fixture, key, id string) (int, store.MCPSession, response) {
	t.Helper()
	r := f.do("GET", "/v1/sessions/"+url.PathEscape(id), nil, map[string]string{"X-API-Key": key})
	var s store.MCPSession
	if r.status == http.StatusOK {
		if err := json.Unmarshal(r.body, &s); err != nil {
			t.Fatalf("GET /v1/sessions/%s: %s", id, r.body)
		}
	}
	return r.status, s, r
}

// waitSession reads the session until its outcome is want, for up to 10 s.
func waitSession(t *testing.T, f *fixture, key, id, want string) store.MCPSession {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, s, r := getSessionRecord(t, f, key, id)
		if status == http.StatusOK && s.Outcome == want {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s: %d %s, want outcome %s", id, status, r.body, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An MCP session opened with the go-sdk's client is recorded with its
// client and protocol version; its calls are counted (live while open,
// written with its end); its client's close records it closed; the
// records its failed calls became are listed by session_id; another
// tenant reads none of it.
func TestMCPSessionRecorded(t *testing.T) {
	t.Parallel()
	f := doorsFixture(t, func(c *Config) { c.APIKeys = map[string]string{"key-a": "acme", "key-b": "globex"} })
	cs := mcpConnect(t, f, "X-API-Key", "key-a")
	id := cs.ID()
	s := waitSession(t, f, "key-a", id, store.SessionOpen)
	if s.ClientName != "test" || s.ClientVersion != "1" || s.ProtocolVersion == "" || s.OpenedAt.IsZero() || !s.EndedAt.IsZero() {
		t.Errorf("the open session's record: %+v", s)
	}
	if _, isErr := mcpCall(t, cs, "agents_discover", map[string]any{}); isErr {
		t.Fatal("agents_discover failed")
	}
	if _, isErr := mcpCall(t, cs, "sessions_create", map[string]any{"agentId": "echo", "metadata": map[string]any{"x": string(make([]byte, 70<<10))}}); !isErr {
		t.Fatal("a call that should fail did not")
	}
	if _, isErr := mcpCall(t, cs, "sessions_create", map[string]any{"agentId": "nobody"}); !isErr {
		t.Fatal("a call about no agent did not fail")
	}
	if _, s, _ = getSessionRecord(t, f, "key-a", id); s.Calls != 3 || s.FailedCalls != 2 {
		t.Errorf("the open session's live counts: %d calls, %d failed; want 3 and 2", s.Calls, s.FailedCalls)
	}

	// Another tenant: 404 problem, an empty list.
	status, _, r := getSessionRecord(t, f, "key-b", id)
	if status != http.StatusNotFound || r.header.Get("Content-Type") != "application/problem+json" || codeOf(t, r) != "NOT_FOUND" {
		t.Errorf("another tenant's session: %d %s %s", status, r.header.Get("Content-Type"), r.body)
	}
	var page store.MCPSessionPage
	r = f.do("GET", "/v1/sessions", nil, map[string]string{"X-API-Key": "key-b"})
	if err := json.Unmarshal(r.body, &page); err != nil || r.status != http.StatusOK || len(page.Sessions) != 0 {
		t.Errorf("globex's sessions: %d %s", r.status, r.body)
	}
	r = f.do("GET", "/v1/sessions?outcome=open", nil, acme)
	if err := json.Unmarshal(r.body, &page); err != nil || len(page.Sessions) != 1 || page.Sessions[0].SessionID != id || page.Sessions[0].Calls != 3 {
		t.Errorf("acme's open sessions: %d %s", r.status, r.body)
	}

	// The client closes it (DELETE): closed, with its counts.
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	s = waitSession(t, f, "key-a", id, store.SessionClosed)
	if s.Calls != 3 || s.FailedCalls != 2 || s.EndedAt.Before(s.OpenedAt) || s.ClientName != "test" {
		t.Errorf("the closed session's record: %+v", s)
	}

	// The records of its failed calls, by session_id.
	waitRecords(t, f, 2)
	var list struct {
		Records []store.RecordSummary `json:"records"`
		Total   int                   `json:"total"`
	}
	r = f.do("GET", "/v1/errors?session_id="+url.QueryEscape(id), nil, acme)
	if err := json.Unmarshal(r.body, &list); err != nil || r.status != http.StatusOK || len(list.Records) != 2 || list.Total != 2 {
		t.Errorf("acme's records of the session: %d %s", r.status, r.body)
	}
	r = f.do("GET", "/v1/errors?session_id=other", nil, acme)
	if err := json.Unmarshal(r.body, &list); err != nil || len(list.Records) != 0 {
		t.Errorf("the records of another session: %d %s", r.status, r.body)
	}
	r = f.do("GET", "/v1/errors?session_id="+url.QueryEscape(id), nil, map[string]string{"X-API-Key": "key-b"})
	if err := json.Unmarshal(r.body, &list); err != nil || len(list.Records) != 0 {
		t.Errorf("globex's records of acme's session: %d %s", r.status, r.body)
	}
	r = f.do("GET", "/v1/errors?session_id=a%00b", nil, acme)
	if r.status != http.StatusBadRequest || codeOf(t, r) != "INVALID_REQUEST" {
		t.Errorf("a session_id with a NUL: %d %s", r.status, r.body)
	}
	r = f.do("GET", "/v1/sessions?outcome=gone", nil, acme)
	if r.status != http.StatusBadRequest {
		t.Errorf("an unknown outcome: %d %s", r.status, r.body)
	}
}

// A session closed to make room is recorded evicted; one the go-sdk
// closes itself (its idle timeout) expired; those open when the service
// shuts down, shutdown.
func TestMCPSessionEnds(t *testing.T) {
	t.Parallel()
	f := mcpDoor(t, time.Minute, func(c *Config) { c.TenantMCPSessions = 2 })
	first := mcpInit(t, f, "key-a", "2025-06-18")
	second := mcpInit(t, f, "key-a", "2025-06-18")
	s := waitSession(t, f, "key-a", first, store.SessionOpen)
	if s.ClientName != "raw" || s.ClientVersion != "1" || s.ProtocolVersion != "2025-06-18" {
		t.Errorf("the raw client's session: %+v", s)
	}
	third := mcpInit(t, f, "key-a", "2025-03-26") // the first makes room
	waitSession(t, f, "key-a", first, store.SessionEvicted)
	// As the go-sdk's idle timer does: the session's Close.
	f.srv.mcpSessions.close(second)
	waitSession(t, f, "key-a", second, store.SessionExpired)
	waitSession(t, f, "key-a", third, store.SessionOpen)

	f.srv.Close()
	got, ok, err := f.store.Tenant("acme").GetSession(context.Background(), third)
	if err != nil || !ok || got.Outcome != store.SessionShutdown || got.ProtocolVersion != "2025-03-26" {
		t.Errorf("after shutdown, the open session: %+v %v %v", got, ok, err)
	}
}
