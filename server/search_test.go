package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// TestSearchSortAndCounts: through the API, a record is found by a word
// of its message, its code or a prefix of its agent, with its title; the
// listing sorts by count (in a window too) with totals; the counts of a
// record and by agent add up to its occurrences; bad parameters are
// problems naming them.
func TestSearchSortAndCounts(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	ids := map[string]string{}
	post := func(name string, i int) {
		t.Helper()
		doc := readFile(t, goldenDir+"/"+name+".json")
		// Another timestamp: another delivery of the same error.
		doc = bytes.Replace(doc, []byte(`"timestamp": "2025-08-08T12:`), []byte(fmt.Sprintf(`"timestamp": "2025-08-0%dT12:`, 8-i)), 1)
		r := f.do("POST", "/v1/errors", doc, nil)
		if r.status != 201 {
			t.Fatalf("%s: %d %s", name, r.status, r.body)
		}
		ids[name] = r.json(t)["error_id"].(string)
	}
	for _, name := range scenarios {
		post(name, 0)
	}
	for i := range 3 {
		post("schema_missing", i+1)
	}
	page := func(query string) store.Page {
		t.Helper()
		r := f.do("GET", "/v1/errors?"+query, nil, nil)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", query, r.status, r.body)
		}
		var p store.Page
		if err := json.Unmarshal(r.body, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for q, want := range map[string]string{"timed out": "db_timeout", "db_timeout": "db_timeout", "regoin sales": "schema_missing"} {
		p := page("q=" + url.QueryEscape(q))
		if len(p.Records) != 1 || p.Records[0].ErrorID != ids[want] || p.Total != 1 {
			t.Errorf("q=%s: %+v, want %s's record alone", q, p, want)
		}
	}
	if p := page("q=db_timeout"); len(p.Records) == 1 && p.Records[0].Title != "DB_TIMEOUT: Query timed out after 30s" {
		t.Errorf("title %q", p.Records[0].Title)
	}
	byAgent := map[string]int64{} // occurrences by agent
	engine := 0                   // query_engine's records
	for _, r := range page("").Records {
		byAgent[r.AgentID] += int64(r.Count)
		if r.AgentID == "query_engine" {
			engine++
		}
	}
	if p := page("q=query_eng"); p.Total != engine || engine < 2 {
		t.Errorf("q=query_eng (a prefix of the agent): total %d, want %d", p.Total, engine)
	}
	p := page("sort=count&limit=2")
	if p.Total != len(scenarios) || len(p.Records) != 2 || p.Records[0].ErrorID != ids["schema_missing"] || p.Records[0].Count != 4 {
		t.Errorf("sort=count: %+v", p)
	}
	if p := page("sort=count&window=1h"); len(p.Records) != len(scenarios) || p.Records[0].WindowCount != 4 {
		t.Errorf("sort=count&window=1h: %+v", p)
	}

	counts := func(path string) store.Counts {
		t.Helper()
		r := f.do("GET", path, nil, nil)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", path, r.status, r.body)
		}
		var c store.Counts
		if err := json.Unmarshal(r.body, &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := counts("/v1/errors/" + ids["schema_missing"] + "/counts")
	if len(c.Series) != 1 || c.Series[0].Total != 4 || len(c.Series[0].Counts) != 25 || c.Bucket != "hour" {
		t.Errorf("the record's counts: %+v", c)
	}
	c = counts("/v1/counts?by=agent&bucket=day")
	got := map[string]int64{}
	for _, s := range c.Series {
		got[s.Key] = s.Total
		if len(s.Counts) != 31 || s.Counts[30] != s.Total {
			t.Errorf("by agent, by day: %s's %v, want 31 days, its occurrences today", s.Key, s.Counts)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(byAgent) {
		t.Errorf("by agent: %v, want %v", got, byAgent)
	}
	c = counts("/v1/counts?error_id=" + ids["db_timeout"] + "&error_id=" + ids["schema_missing"])
	if keys := []string{c.Series[0].Key, c.Series[1].Key}; len(c.Series) != 2 || !slices.Equal(keys, []string{ids["schema_missing"], ids["db_timeout"]}) {
		t.Errorf("two records' counts: %+v", c)
	}

	since := url.QueryEscape(scenarioNow.Add(-40 * 24 * time.Hour).Format(time.RFC3339))
	for path, field := range map[string]string{
		"/v1/errors?q=" + url.QueryEscape(`"*():`):                         "q",
		"/v1/errors?q=a+b+c+d+e+f+g+h+i":                                   "q",
		"/v1/errors?sort=random":                                           "sort",
		"/v1/errors?window=24h":                                            "window",
		"/v1/errors?sort=count&window=31d":                                 "window",
		"/v1/counts?bucket=week":                                           "bucket",
		"/v1/counts?by=agent&error_id=" + ids["db_timeout"]:                "error_id",
		"/v1/counts?since=" + since:                                        "since",
		"/v1/errors/" + ids["db_timeout"] + "/counts?by=agent":             "by",
		"/v1/counts?until=2025-01-01T00:00:00Z&since=2025-02-01T00:00:00Z": "until",
	} {
		if r := f.do("GET", path, nil, nil); r.status != 400 || !fieldsOf(t, r)[field] {
			t.Errorf("%s: %d %s, want a 400 naming %s", path, r.status, r.body, field)
		}
	}
	if r := f.do("GET", "/v1/errors/err_0123456789abcdef/counts", nil, nil); r.status != 404 {
		t.Errorf("the counts of no record: %d %s", r.status, r.body)
	}
}
