package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// bigDocs saves, straight into the store (the handler's path is not what
// is measured), records whose documents are large: n records of one
// occurrence, and record err_many of m occurrences, each occurrence's
// report and feedback of size bytes together. The documents are made of
// '<', which json.Marshal would write as six bytes each.
func bigDocs(t *testing.T, st store.Store, tenant string, n, m, size int) {
	t.Helper()
	tn := st.Tenant(tenant)
	at := scenarioNow
	doc := func(key string, n int) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"key":%q,"text":"%s"}`, key, strings.Repeat("<", n)))
	}
	save := func(errorID string, i int) {
		at = at.Add(time.Second)
		key := fmt.Sprintf("%s-%d", errorID, i)
		_, err := tn.SaveOccurrence(context.Background(), store.Occurrence{
			DeliveryKey: key, ErrorID: errorID, QueryID: "q_big", AgentID: "agent", ErrorType: "query_error",
			Severity: "medium", NextAction: "resume", Attempt: 1, ReportedAt: at, ReceivedAt: at,
			Report: doc(key, size*3/4), Feedback: doc(key, size/4),
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		save(fmt.Sprintf("err_one_%d", i), 0)
	}
	for i := range m {
		save("err_many", i)
	}
}

// occurrencesOf reads the occurrences of a record's page (or of a page of
// its occurrences) and the cursor of the next page.
func occurrencesOf(t *testing.T, r response, cursorMember string) ([]store.Occurrence, string) {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	var page map[string]json.RawMessage
	if err := json.Unmarshal(r.body, &page); err != nil {
		t.Fatal(err)
	}
	var list []store.Occurrence
	var next string
	if err := json.Unmarshal(page["occurrences"], &list); err != nil {
		t.Fatal(err)
	}
	if c, ok := page[cursorMember]; ok {
		if err := json.Unmarshal(c, &next); err != nil {
			t.Fatal(err)
		}
	}
	return list, next
}

// TestRecordReadsAreBounded: a listing carries no document, whatever the
// reports' size; a record and a page of occurrences carry at most
// store.PageBytes of documents, and paging goes through every occurrence
// once, the latest first.
func TestRecordReadsAreBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	const size = 512 << 10 // an occurrence's report and feedback
	const records, many = 30, 30
	bigDocs(t, f.store, DefaultTenant, records, many, size)
	const slack = 64 << 10 // the members around the documents

	list := f.do("GET", "/v1/errors?limit=500", nil, nil)
	var page store.Page
	if err := json.Unmarshal(list.body, &page); err != nil || list.status != 200 {
		t.Fatalf("%d %v", list.status, err)
	}
	if len(page.Records) != records+1 || len(list.body) > (records+1)*512 || bytes.Contains(list.body, []byte(`"report"`)) {
		t.Errorf("a listing of %d records of %d KiB each: %d records in %d bytes; want summaries, at most 512 bytes each",
			records+1, size>>10, len(page.Records), len(list.body))
	}
	for _, r := range page.Records {
		if r.NextAction != "resume" || r.Count == 0 {
			t.Errorf("summary %+v", r)
		}
	}

	rec := f.do("GET", "/v1/errors/err_many", nil, nil)
	if len(rec.body) > store.PageBytes+slack {
		t.Errorf("the record of %d occurrences of %d KiB: %d bytes, want at most %d", many, size>>10, len(rec.body), store.PageBytes+slack)
	}
	if bytes.Contains(rec.body, []byte(`\u003c`)) || !bytes.Contains(rec.body, []byte(`<<<`)) {
		t.Error("the documents are not written as stored")
	}
	seen, next := occurrencesOf(t, rec, "occurrences_next_cursor")
	if len(seen) == 0 || len(seen) >= many || next == "" {
		t.Fatalf("the record has %d occurrences, next %q: want a first page and a cursor", len(seen), next)
	}
	for pages := 0; next != ""; pages++ {
		if pages > many {
			t.Fatal("more pages than occurrences")
		}
		r := f.do("GET", "/v1/errors/err_many/occurrences?limit=100&cursor="+url.QueryEscape(next), nil, nil)
		if len(r.body) > store.PageBytes+slack {
			t.Errorf("a page of occurrences: %d bytes, want at most %d", len(r.body), store.PageBytes+slack)
		}
		var list []store.Occurrence
		list, next = occurrencesOf(t, r, "next_cursor")
		seen = append(seen, list...)
	}
	if len(seen) != many {
		t.Fatalf("paged through %d occurrences, want %d", len(seen), many)
	}
	for i := 1; i < len(seen); i++ {
		if !seen[i].ReceivedAt.Before(seen[i-1].ReceivedAt) {
			t.Fatalf("occurrence %d received at %v, after %v: want the latest first, each once", i, seen[i].ReceivedAt, seen[i-1].ReceivedAt)
		}
	}
	if r := f.do("GET", "/v1/errors/err_many/occurrences?limit=2", nil, nil); r.status != 200 {
		t.Errorf("limit 2: %d", r.status)
	} else if list, next := occurrencesOf(t, r, "next_cursor"); len(list) != 2 || next == "" {
		t.Errorf("limit 2: %d occurrences, next %q", len(list), next)
	}
}

// The occurrences' route refuses what it does not take, and finds only the
// tenant's own records.
func TestOccurrencesRoute(t *testing.T) {
	t.Parallel()
	const keyA, keyB = "key-a-0123456789abcdef", "key-b-0123456789abcdef"
	f := newFixture(t, func(c *Config) { c.APIKeys = map[string]string{keyA: "acme", keyB: "globex"} })
	a, b := map[string]string{"X-API-Key": keyA}, map[string]string{"X-API-Key": keyB}
	bigDocs(t, f.store, "acme", 2, 3, 100)
	listCursor := f.do("GET", "/v1/errors?limit=1", nil, a).json(t)["next_cursor"].(string)
	for query, field := range map[string]string{
		"limit=0": "limit", "limit=101": "limit", "limit=x": "limit", "color=red": "color",
		"cursor=nope": "cursor", "cursor=" + listCursor: "cursor", "limit=1&limit=2": "limit",
	} {
		r := f.do("GET", "/v1/errors/err_many/occurrences?"+query, nil, a)
		if r.status != 400 || !fieldsOf(t, r)[field] {
			t.Errorf("?%s: %d %s; want 400 naming %s", query, r.status, r.body, field)
		}
	}
	for _, c := range []struct {
		path   string
		header map[string]string
	}{
		{"/v1/errors/err_nope/occurrences", a}, {"/v1/errors/err_many/occurrences", b}, {"/v1/errors/-bad-/occurrences", a},
	} {
		if r := f.do("GET", c.path, nil, c.header); r.status != 404 || codeOf(t, r) != "NOT_FOUND" {
			t.Errorf("GET %s: %d %s", c.path, r.status, r.body)
		}
	}
	if r := f.do("GET", "/v1/errors/err_many/occurrences", nil, nil); r.status != 401 {
		t.Errorf("without a key: %d", r.status)
	}
	r := f.do("GET", "/v1/errors/err_many/occurrences?limit=3", nil, a)
	if list, next := occurrencesOf(t, r, "next_cursor"); len(list) != 3 || next != "" {
		t.Errorf("all three: %d, next %q", len(list), next)
	}
}

// The documents are stored as they are written, without HTML escaping: a
// '<' in a report takes one byte of the store and of the pages' byte
// budgets, not six.
func TestStoredDocumentsNotEscaped(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	note := strings.Repeat("<a&b>", 100)
	r := f.do("POST", "/v1/errors", reportWith("q_lt", `,"context":{"note":"`+note+`"}`), nil)
	if r.status != 201 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if bytes.Contains(r.body, []byte(`\u003c`)) || !bytes.Contains(r.body, []byte(note)) {
		t.Errorf("the answer escapes the note: %.300s", r.body)
	}
	id := r.json(t)["error_id"].(string)
	rec, ok, err := f.store.Tenant(DefaultTenant).ErrorRecord(context.Background(), id)
	if err != nil || !ok {
		t.Fatalf("ErrorRecord: %v %v", ok, err)
	}
	for name, doc := range map[string][]byte{"report": rec.Report, "feedback": rec.Feedback} {
		if bytes.Contains(doc, []byte(`\u003c`)) || !bytes.Contains(doc, []byte(note)) {
			t.Errorf("the stored %s escapes the note: %.300s", name, doc)
		}
	}
}

// The jobs' route pages through every job of a record, the latest first,
// from the record's jobs_next_cursor; it refuses what it does not take and
// finds only the tenant's own records.
func TestJobsRoute(t *testing.T) {
	t.Parallel()
	const keyA, keyB = "key-a-0123456789abcdef", "key-b-0123456789abcdef"
	f := newFixture(t, func(c *Config) { c.APIKeys = map[string]string{keyA: "acme", keyB: "globex"} })
	a, b := map[string]string{"X-API-Key": keyA}, map[string]string{"X-API-Key": keyB}
	bigDocs(t, f.store, "acme", 0, 1, 100)
	const n = store.RecordJobs + 7
	var ids []int64
	for i := range n {
		id, err := f.store.Tenant("acme").Enqueue(t.Context(), store.NewJob{Kind: store.JobEscalation, ErrorID: "err_many",
			Payload: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)), RunAt: scenarioNow.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	var rec struct {
		Jobs     []store.Job `json:"jobs"`
		More     bool        `json:"more_jobs"`
		JobsNext string      `json:"jobs_next_cursor"`
	}
	r := f.do("GET", "/v1/errors/err_many", nil, a)
	if err := json.Unmarshal(r.body, &rec); err != nil || r.status != 200 {
		t.Fatalf("%d %v", r.status, err)
	}
	if len(rec.Jobs) != store.RecordJobs || !rec.More || rec.JobsNext == "" || rec.Jobs[0].ID != ids[n-store.RecordJobs] {
		t.Fatalf("the record's jobs: %d, more %v, next %q; want the latest %d, oldest first, and a cursor", len(rec.Jobs), rec.More, rec.JobsNext, store.RecordJobs)
	}
	var older []int64
	next := rec.JobsNext
	for pages := 0; next != ""; pages++ {
		if pages > n {
			t.Fatal("more pages than jobs")
		}
		r := f.do("GET", "/v1/errors/err_many/jobs?limit=3&cursor="+url.QueryEscape(next), nil, a)
		var page store.JobPage
		if err := json.Unmarshal(r.body, &page); err != nil || r.status != 200 || len(page.Jobs) == 0 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		for _, j := range page.Jobs {
			older = append(older, j.ID)
		}
		next = page.Next
	}
	want := []int64{}
	for i := n - store.RecordJobs - 1; i >= 0; i-- {
		want = append(want, ids[i])
	}
	if fmt.Sprint(older) != fmt.Sprint(want) {
		t.Errorf("older jobs %v; want %v", older, want)
	}
	for query, field := range map[string]string{
		"limit=0": "limit", "limit=101": "limit", "limit=x": "limit", "color=red": "color",
		"cursor=nope": "cursor", "cursor=" + url.QueryEscape(rec.JobsNext[:len(rec.JobsNext)-1]+"!"): "cursor", "limit=1&limit=2": "limit",
	} {
		r := f.do("GET", "/v1/errors/err_many/jobs?"+query, nil, a)
		if r.status != 400 || !fieldsOf(t, r)[field] {
			t.Errorf("?%s: %d %s; want 400 naming %s", query, r.status, r.body, field)
		}
	}
	for _, c := range []struct {
		path   string
		header map[string]string
	}{
		{"/v1/errors/err_nope/jobs", a}, {"/v1/errors/err_many/jobs", b}, {"/v1/errors/-bad-/jobs", a},
	} {
		if r := f.do("GET", c.path, nil, c.header); r.status != 404 || codeOf(t, r) != "NOT_FOUND" {
			t.Errorf("GET %s: %d %s", c.path, r.status, r.body)
		}
	}
	if r := f.do("GET", "/v1/errors/err_many/jobs", nil, nil); r.status != 401 {
		t.Errorf("without a key: %d", r.status)
	}
}
