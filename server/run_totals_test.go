package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// TestRunTotals: GET /v1/counts/runs counts the tenant's runs of the
// range by agent and outcome, and the failed ones by code (what the
// dashboard's overview reads an agent's failure rate from); another
// tenant's runs are not counted; bad parameters are problems naming them.
func TestRunTotals(t *testing.T) {
	t.Parallel()
	f := recordsFixture(t, func(c *Config) { c.APIKeys = map[string]string{"ka": "acme", "kb": "globex"} })
	acme, globex := map[string]string{"X-API-Key": "ka"}, map[string]string{"X-API-Key": "kb"}
	for _, run := range []struct{ id, prompt string }{
		{"run-a", "hello"}, {"run-b", "fail with RATE_LIMITED after 7s"}, {"run-c", "hi"},
		{"run-d", "fail with RATE_LIMITED after 1s"}, {"run-e", "fail with TIMEOUT"},
	} {
		runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody(run.id, run.prompt), acme))
	}
	runEvents(t, f.do("POST", "/v1/agents/echo/runs", runBody("theirs", "fail with TIMEOUT"), globex))

	totals := func(query string, header map[string]string) store.RunTotals {
		t.Helper()
		r := f.do("GET", "/v1/counts/runs"+query, nil, header)
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
			t.Fatalf("GET /v1/counts/runs%s: %d %s", query, r.status, r.body)
		}
		var c store.RunTotals
		if err := json.Unmarshal(r.body, &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	// The default range is the day up to now (the fixture's clock, when
	// the runs started): they are in it.
	got := totals("", acme)
	want := store.RunTotals{Since: scenarioNow.Add(-24 * time.Hour), Until: scenarioNow, Runs: 5,
		Agents: []store.AgentRuns{{AgentID: "echo", Runs: 5, Finished: 2, Failed: 3}},
		Codes:  []store.CodeRuns{{Code: "RATE_LIMITED", Failed: 2}, {Code: "TIMEOUT", Failed: 1}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("acme's totals =\n%+v\nwant\n%+v", got, want)
	}
	if got := totals("?limit=1", globex); got.Runs != 1 || len(got.Agents) != 1 || got.Agents[0].Failed != 1 ||
		!reflect.DeepEqual(got.Codes, []store.CodeRuns{{Code: "TIMEOUT", Failed: 1}}) {
		t.Errorf("globex's totals = %+v, want its one failed run", got)
	}
	later := url.QueryEscape(scenarioNow.Add(time.Second).Format(time.RFC3339))
	if got := totals("?since="+later+"&until="+url.QueryEscape(scenarioNow.Add(time.Hour).Format(time.RFC3339)), acme); got.Runs != 0 ||
		got.Agents == nil || got.Codes == nil {
		t.Errorf("a range without runs: %+v, want none, as empty lists", got)
	}

	for query, field := range map[string]string{
		"?since=yesterday": "since",
		"?limit=0":         "limit",
		"?limit=101":       "limit",
		"?by=agent":        "by",
		"?since=" + later:  "since", // after now, the default until
		"?since=" + later + "&until=" + url.QueryEscape(scenarioNow.Format(time.RFC3339)): "until",
	} {
		r := f.do("GET", "/v1/counts/runs"+query, nil, acme)
		if r.status != 400 || codeOf(t, r) != "INVALID_REQUEST" || !fieldsOf(t, r)[field] {
			t.Errorf("%s: %d %s, want a 400 naming %s", query, r.status, r.body, field)
		}
	}
	if r := f.do("GET", "/v1/counts/runs", nil, nil); r.status != http.StatusUnauthorized {
		t.Errorf("without a key: %d %s", r.status, r.body)
	}
}
