package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/service"
)

// TestAccept: Accept, the pipeline of every ingress, checks what HTTP's
// request handling does not cover for another ingress (the tenant, the
// size, the content type, the key under the ingress's own name), and
// answers as POST /v1/errors does: 201, then 200 for the same report;
// under a key, the stored answer again, Replayed.
func TestAccept(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) {
		c.APIKeys = map[string]string{"acme-key-0123456789ab": "acme"}
		c.MaxBody = 4096
	})
	ctx := t.Context()
	report := readFile(t, goldenDir+"/db_timeout.json")
	for _, c := range []struct {
		name string
		sub  service.Submission
		code fault.Code
		want int
	}{
		{"UnknownTenant", service.Submission{Tenant: "globex", Body: report}, fault.TenantUnauthorized, 403},
		{"DefaultTenantWithKeys", service.Submission{Body: report}, fault.TenantUnauthorized, 403},
		{"NotJSON", service.Submission{Tenant: "acme", Body: report, ContentType: "text/plain"}, fault.InvalidRequest, 415},
		{"TooLarge", service.Submission{Tenant: "acme", Body: []byte(`{"pad":"` + strings.Repeat("x", 5000) + `"}`)}, fault.PayloadTooLarge, 413},
		{"BadKey", service.Submission{Tenant: "acme", Body: report, Key: "a key", KeyName: "Nats-Msg-Id"}, fault.InvalidRequest, 400},
		{"Malformed", service.Submission{Tenant: "acme", Body: []byte(`{`)}, fault.InvalidRequest, 400},
	} {
		_, err := f.srv.Service().Accept(ctx, c.sub)
		fe, ok := fault.As(err)
		if !ok || fe.Code != c.code || fe.HTTPStatus() != c.want {
			t.Errorf("%s: %v, want %s %d", c.name, err, c.code, c.want)
			continue
		}
		if c.name == "BadKey" && (len(fe.FieldErrors) != 1 || fe.FieldErrors[0].Field != "Nats-Msg-Id") {
			t.Errorf("BadKey: field errors %+v, want Nats-Msg-Id's", fe.FieldErrors)
		}
	}
	first, err := f.srv.Service().Accept(ctx, service.Submission{Tenant: "acme", Body: report})
	if err != nil || first.Status != 201 || first.ContentType != "application/json" || first.Replayed {
		t.Fatalf("a new report: %+v %v", first, err)
	}
	again, err := f.srv.Service().Accept(ctx, service.Submission{Tenant: "acme", Body: report})
	if err != nil || again.Status != 200 || errorID(t, again.Body) != errorID(t, first.Body) {
		t.Errorf("the same report: %+v %v", again, err)
	}

	chart := readFile(t, goldenDir+"/chart_incompatible.json")
	keyed, err := f.srv.Service().Accept(ctx, service.Submission{Tenant: "acme", Body: chart, Key: "chart-1", KeyName: "Nats-Msg-Id"})
	if err != nil || keyed.Status != 201 {
		t.Fatalf("a keyed report: %+v %v", keyed, err)
	}
	replay, err := f.srv.Service().Accept(ctx, service.Submission{Tenant: "acme", Body: chart, Key: "chart-1"})
	if err != nil || !replay.Replayed || replay.Status != 201 || string(replay.Body) != string(keyed.Body) {
		t.Errorf("the same key again: %+v %v", replay, err)
	}
	// The key is the tenant's, whichever ingress sent it: over HTTP too.
	r := f.do("POST", "/v1/errors", chart, map[string]string{"Idempotency-Key": "chart-1", "X-API-Key": "acme-key-0123456789ab"})
	if r.status != 201 || r.header.Get("Idempotent-Replayed") != "true" || string(r.body) != string(keyed.Body) {
		t.Errorf("the same key over HTTP: %d %v %s", r.status, r.header, r.body)
	}
	_, err = f.srv.Service().Accept(ctx, service.Submission{Tenant: "acme", Body: report, Key: "chart-1", KeyName: "Nats-Msg-Id"})
	if fe, ok := fault.As(err); !ok || fe.HTTPStatus() != 422 || !strings.Contains(fe.Message, "Nats-Msg-Id") {
		t.Errorf("the key with another report: %v, want a 422 naming Nats-Msg-Id", err)
	}
}

func errorID(t *testing.T, body []byte) string {
	t.Helper()
	var fb struct {
		ErrorID string `json:"error_id"`
	}
	if err := json.Unmarshal(body, &fb); err != nil || fb.ErrorID == "" {
		t.Fatalf("not feedback: %s", body)
	}
	return fb.ErrorID
}

// TestRegisterReadiness: /readyz is 503 with the ingress's reason while
// its check fails, and never shows the check's error.
func TestRegisterReadiness(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	var down atomic.Bool
	f.srv.RegisterReadiness("bus", func(context.Context) error {
		if down.Load() {
			return errors.New("connection to nats://user:hunter2@bus:4222 refused")
		}
		return nil
	})
	if status, _ := f.readiness(); status != http.StatusOK {
		t.Fatalf("/readyz with the ingress up: %d", status)
	}
	down.Store(true)
	r := f.do("GET", "/readyz", nil, nil)
	if status, reason := f.readiness(); status != http.StatusServiceUnavailable || reason != "bus_down" {
		t.Errorf("/readyz with the ingress down: %d %q, want 503 bus_down", status, reason)
	}
	if strings.Contains(string(r.body), "hunter2") || strings.Contains(string(r.body), "refused") {
		t.Errorf("/readyz shows the check's error: %s", r.body)
	}
}
