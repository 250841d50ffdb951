package server

import (
	"strings"
	"testing"
)

// TestMetricsKeepTenantsApart: the reporting agents' IDs come from the
// tenants' reports, so /metrics, which no tenant's key scopes, names them
// only where no tenant can read it: with API keys and an operator key,
// /metrics takes the operator key (401 without a key, 403 with a
// tenant's); with API keys and no operator key it stays open but counts
// every agent as "(other)"; without API keys (every request the
// operator's) it is open and names them.
func TestMetricsKeepTenantsApart(t *testing.T) {
	t.Parallel()
	const keyA, keyB, opKey = "key-a-0123456789abcdef", "key-b-0123456789abcdef", "operator-0123456789abcdef"
	report := strings.Replace(string(readFile(t, goldenDir+"/db_timeout.json")), `"query_engine"`, `"acme_secret_agent"`, 1)
	named := `source="acme_secret_agent"`
	for _, c := range []struct {
		name      string
		keys      bool
		operator  string
		open      bool // /metrics without a key
		withNames bool
	}{
		{"KeysAndOperatorKey", true, opKey, false, true},
		{"KeysNoOperatorKey", true, "", true, false},
		{"NoKeys", false, "", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, func(cfg *Config) {
				if c.keys {
					cfg.APIKeys = map[string]string{keyA: "acme", keyB: "globex"}
				}
				cfg.OperatorKey = c.operator
			})
			var tenant map[string]string
			if c.keys {
				tenant = map[string]string{"X-API-Key": keyA}
			}
			if r := f.do("POST", "/v1/errors", []byte(report), tenant); r.status != 201 {
				t.Fatalf("POST: %d %s", r.status, r.body)
			}
			open := f.do("GET", "/metrics", nil, nil)
			if c.open != (open.status == 200) {
				t.Fatalf("/metrics without a key: %d %s", open.status, open.body)
			}
			body := string(open.body)
			if !c.open {
				if open.status != 401 || open.header.Get("Content-Type") != "application/problem+json" {
					t.Errorf("/metrics without a key: %d %q", open.status, open.header.Get("Content-Type"))
				}
				if r := f.do("GET", "/metrics", nil, map[string]string{"X-API-Key": keyB}); r.status != 403 {
					t.Errorf("/metrics with a tenant's key: %d %s", r.status, r.body)
				}
				r := f.do("GET", "/metrics", nil, map[string]string{"Authorization": "Bearer " + opKey})
				if r.status != 200 {
					t.Fatalf("/metrics with the operator key: %d %s", r.status, r.body)
				}
				body = string(r.body)
			}
			if got := strings.Contains(body, named); got != c.withNames {
				t.Errorf("/metrics names the tenant's agent: %v, want %v", got, c.withNames)
			}
			if !strings.Contains(body, "triage_handler_reports_total{") {
				t.Errorf("/metrics does not count the report:\n%.2000s", body)
			}
		})
	}
}
