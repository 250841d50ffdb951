package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/triage-go/triage"
)

// releaseReport is a report of one error (the same fingerprint every
// time) in release at second sec, so that each is a new delivery.
func releaseReport(release string, sec int) []byte {
	rel := ""
	if release != "" {
		rel = `"release":"` + release + `",`
	}
	return []byte(fmt.Sprintf(`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:%02dZ","status":"error",%s"environment":"prod",`+
		`"data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s","query_id":"q_wf"}}`, sec, rel))
}

// reportIn posts a report in release and returns its error_id.
func (f *fixture) reportIn(h map[string]string, release string, sec int) string {
	f.t.Helper()
	r := f.do("POST", "/v1/errors", releaseReport(release, sec), h)
	if r.status != 201 {
		f.t.Fatalf("POST /v1/errors: %d %s", r.status, r.body)
	}
	return r.json(f.t)["error_id"].(string)
}

// summaryOf decodes a record summary answer.
func summaryOf(t *testing.T, r response) triage.RecordSummary {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	var s triage.RecordSummary
	if err := json.Unmarshal(r.body, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// recordAs reads a record with the headers h.
func recordAs(f *fixture, h map[string]string, id string) triage.Record {
	f.t.Helper()
	r := f.do("GET", "/v1/errors/"+id, nil, h)
	var rec triage.Record
	if err := json.Unmarshal(r.body, &rec); err != nil || r.status != 200 {
		f.t.Fatalf("%d %s", r.status, r.body)
	}
	return rec
}

// problemFields is a problem's status and the fields its errors name.
func problemFields(t *testing.T, r response) (int, []string) {
	t.Helper()
	var p struct {
		Errors []struct {
			Field string `json:"field"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("%d %s", r.status, r.body)
	}
	var fields []string
	for _, e := range p.Errors {
		fields = append(fields, e.Field)
	}
	return r.status, fields
}

// TestResolveThenReportAgainRegresses: what done means for the records'
// statuses, through the API. A record resolved in a release stays
// resolved when an earlier release reports it again and regresses on a
// later one; the history says who did what; the listing filters by
// status; a bulk change counts what it changed.
func TestResolveThenReportAgainRegresses(t *testing.T) {
	t.Parallel()
	const key = "acme-key-0123456789ab"
	f := newFixture(t, func(c *Config) { c.APIKeys = map[string]string{key: "acme"} })
	h := map[string]string{"Authorization": "Bearer " + key}

	id := f.reportIn(h, "1.3", 1)
	f.reportIn(h, "1.4", 2)
	s := summaryOf(t, f.do("PATCH", "/v1/errors/"+id, []byte(`{"status":"resolved","resolution":{"in_release":"1.4"},"note":"fixed in #12"}`), h))
	if s.Status != triage.StatusResolved || s.Resolution == nil || s.Resolution.InRelease != "1.4" || s.FirstRelease != "1.3" || s.LastRelease != "1.4" {
		t.Fatalf("after PATCH: %+v", s)
	}
	f.reportIn(h, "1.3", 3)
	if rec := recordAs(f, h, id); rec.Status != triage.StatusResolved {
		t.Fatalf("reported again in 1.3: %s, want resolved", rec.Status)
	}
	f.reportIn(h, "1.5", 4)
	if rec := recordAs(f, h, id); rec.Status != triage.StatusRegressed || rec.LastRelease != "1.5" || rec.LastEnvironment != "prod" {
		t.Fatalf("reported again in 1.5: %+v, want regressed", rec.RecordSummary)
	}
	list := f.do("GET", "/v1/errors?status=regressed", nil, h)
	var page triage.Page
	if err := json.Unmarshal(list.body, &page); err != nil || len(page.Records) != 1 || page.Records[0].ErrorID != id {
		t.Fatalf("GET ?status=regressed: %d %s", list.status, list.body)
	}
	if r := f.do("GET", "/v1/errors?status=unresolved", nil, h); !strings.Contains(string(r.body), `"records":[]`) {
		t.Errorf("GET ?status=unresolved: %s", r.body)
	}

	r := f.do("GET", "/v1/errors/"+id+"/history?limit=1", nil, h)
	var hist triage.TransitionPage
	if err := json.Unmarshal(r.body, &hist); err != nil || r.status != 200 || len(hist.Transitions) != 1 || hist.Next == "" {
		t.Fatalf("history page 1: %d %s", r.status, r.body)
	}
	if tr := hist.Transitions[0]; tr.By != triage.ByService || tr.To.Status != triage.StatusRegressed || tr.Release != "1.5" {
		t.Errorf("latest transition: %+v", tr)
	}
	r = f.do("GET", "/v1/errors/"+id+"/history?cursor="+hist.Next, nil, h)
	hist = triage.TransitionPage{}
	if err := json.Unmarshal(r.body, &hist); err != nil || len(hist.Transitions) != 1 || hist.Next != "" {
		t.Fatalf("history page 2: %d %s", r.status, r.body)
	}
	if tr := hist.Transitions[0]; tr.By != "acme" || tr.Note != "fixed in #12" || tr.To.Status != triage.StatusResolved {
		t.Errorf("the resolution: %+v, want by the key's name (acme)", tr)
	}

	// Bulk: the regressed ones ignored, once.
	bulk := []byte(`{"change":{"status":"ignored","ignore":{"count":10}},"filter":{"status":"regressed","agent_id":"query_engine"}}`)
	for i, want := range []string{`{"changed":1}`, `{"changed":0}`} {
		if r := f.do("POST", "/v1/errors/changes", bulk, h); r.status != 200 || strings.TrimSpace(string(r.body)) != want {
			t.Errorf("bulk %d: %d %s, want %s", i+1, r.status, r.body, want)
		}
	}
	if rec := recordAs(f, h, id); rec.Status != triage.StatusIgnored || rec.Ignore == nil || rec.Ignore.Count != 10 {
		t.Errorf("after the bulk change: %+v", rec.RecordSummary)
	}
}

// TestChangeProblems: the problems of a change, as problem+json.
func TestChangeProblems(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	id := f.reportIn(nil, "", 1)
	for _, tc := range []struct {
		name, path, body string
		status           int
		fields           []string
	}{
		{"regressed asked", "/v1/errors/" + id, `{"status":"regressed"}`, 422, []string{"status"}},
		{"unknown member", "/v1/errors/" + id, `{"status":"resolved","by":"me"}`, 422, []string{"by"}},
		{"both conditions", "/v1/errors/" + id, `{"status":"ignored","ignore":{"seconds":60,"count":3}}`, 422, []string{"ignore"}},
		{"resolution without resolved", "/v1/errors/" + id, `{"status":"ignored","resolution":{"in_release":"1"}}`, 422, []string{"resolution"}},
		{"next release, none reported", "/v1/errors/" + id, `{"status":"resolved","resolution":{"in_next_release":true}}`, 409, []string{"resolution.in_next_release"}},
		{"NUL in a note", "/v1/errors/" + id, `{"status":"resolved","note":"a\u0000b"}`, 422, []string{"note"}},
		{"malformed", "/v1/errors/" + id, `{"status":`, 400, []string{"(root)"}},
		{"unknown record", "/v1/errors/err_nope", `{"status":"resolved"}`, 404, nil},
		{"bulk: bad filter", "/v1/errors/changes", `{"change":{"status":"resolved"},"filter":{"status":"fixed","error_ids":["a b"]}}`, 422, []string{"filter.status", "filter.error_ids"}},
		{"bulk: bad change", "/v1/errors/changes", `{"change":{"status":"regressed"},"filter":{}}`, 422, []string{"status"}},
		{"bulk: unknown member", "/v1/errors/changes", `{"change":{"status":"resolved"},"filter":{"title":"x"}}`, 422, []string{"filter.title"}},
	} {
		method := "PATCH"
		if strings.HasSuffix(tc.path, "/changes") {
			method = "POST"
		}
		status, fields := problemFields(t, f.do(method, tc.path, []byte(tc.body), nil))
		if status != tc.status || strings.Join(fields, ",") != strings.Join(tc.fields, ",") {
			t.Errorf("%s: %d %q, want %d %q", tc.name, status, fields, tc.status, tc.fields)
		}
	}
	if r := f.do("GET", "/v1/errors?status=fixed", nil, nil); r.status != 400 {
		t.Errorf("GET ?status=fixed: %d", r.status)
	}
	if r := f.do("GET", "/v1/errors/err_nope/history", nil, nil); r.status != 404 {
		t.Errorf("history of an unknown record: %d", r.status)
	}
	// Without API keys, a change is the operator's.
	f.do("PATCH", "/v1/errors/"+id, []byte(`{"status":"resolved"}`), nil)
	r := f.do("GET", "/v1/errors/"+id+"/history", nil, nil)
	var hist triage.TransitionPage
	if err := json.Unmarshal(r.body, &hist); err != nil || len(hist.Transitions) != 1 || hist.Transitions[0].By != ByOperator {
		t.Errorf("history: %d %s, want one transition by the operator", r.status, r.body)
	}
}

// TestFilterByEnvironmentAndRelease: GET /v1/errors and POST
// /v1/errors/changes select records by their latest environment and by
// their first or latest release; an environment or a release that no
// report could name is a problem naming the parameter.
func TestFilterByEnvironmentAndRelease(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	post := func(agent, release, env string, sec int) string {
		t.Helper()
		doc := fmt.Sprintf(`{"agent_id":%q,"timestamp":"2025-08-08T12:20:%02dZ","status":"error","release":%q,"environment":%q,`+
			`"data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s","query_id":"q_env"}}`, agent, sec, release, env)
		r := f.do("POST", "/v1/errors", []byte(doc), nil)
		if r.status != 201 {
			t.Fatalf("POST /v1/errors: %d %s", r.status, r.body)
		}
		return r.json(t)["error_id"].(string)
	}
	a := post("agent_a", "1.0", "prod", 1)
	post("agent_a", "1.1", "staging", 2) // a: 1.0 to 1.1, last in staging
	b := post("agent_b", "1.1", "prod", 3)
	listed := func(query string) []string {
		t.Helper()
		r := f.do("GET", "/v1/errors?sort=first_seen&"+query, nil, nil)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", query, r.status, r.body)
		}
		var p triage.Page
		if err := json.Unmarshal(r.body, &p); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, s := range p.Records {
			ids = append(ids, s.ErrorID)
		}
		if p.Total != len(ids) {
			t.Errorf("%s: total %d for %d records", query, p.Total, len(ids))
		}
		return ids
	}
	for query, want := range map[string][]string{
		"environment=prod":             {b},
		"environment=staging":          {a},
		"release=1.0":                  {a},
		"release=1.1":                  {b, a},
		"release=1.1&environment=prod": {b},
		"release=2.0":                  nil,
	} {
		if got := listed(query); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: %q, want %q", query, got, want)
		}
	}
	r := f.do("POST", "/v1/errors/changes", []byte(`{"change":{"status":"ignored"},"filter":{"environment":"staging","release":"1.1"}}`), nil)
	if r.status != 200 || r.json(t)["changed"] != 1.0 {
		t.Fatalf("bulk ignore of staging 1.1: %d %s", r.status, r.body)
	}
	if got := listed("status=ignored"); strings.Join(got, ",") != a {
		t.Errorf("ignored: %q, want %s", got, a)
	}
	for _, path := range []string{"/v1/errors?environment=" + strings.Repeat("e", 65), "/v1/errors?environment=a+b", "/v1/errors?release=a%2Fb", "/v1/errors?release=.."} {
		name := "environment"
		if strings.Contains(path, "release") {
			name = "release"
		}
		if status, fields := problemFields(t, f.do("GET", path, nil, nil)); status != 400 || strings.Join(fields, ",") != name {
			t.Errorf("%s: %d %q, want a 400 naming %s", path, status, fields, name)
		}
	}
	status, fields := problemFields(t, f.do("POST", "/v1/errors/changes", []byte(`{"change":{"status":"resolved"},"filter":{"environment":"a b","release":"x/y"}}`), nil))
	if status != 422 || strings.Join(fields, ",") != "filter.environment,filter.release" {
		t.Errorf("bulk with a bad environment and release: %d %q", status, fields)
	}
}
