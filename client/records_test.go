package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// A record of large occurrences comes in pages: Get reads the record
// (more than 1 MiB, within the service's bound) and Occurrences the rest,
// following the cursors.
func TestOccurrencesAgainstTheService(t *testing.T) {
	hs, st := startService(t)
	const key = serviceKey
	const n = 6
	at := time.Date(2025, 8, 8, 12, 20, 5, 0, time.UTC)
	for i := range n {
		doc := json.RawMessage(fmt.Sprintf(`{"n":%d,"text":%q}`, i, strings.Repeat("x", 1<<20)))
		_, err := st.Tenant("acme").SaveOccurrence(t.Context(), store.Occurrence{DeliveryKey: fmt.Sprint("d", i),
			ErrorID: "err_big", QueryID: "q_1", AgentID: "agent", ErrorType: "query_error", Severity: "low", NextAction: "resume",
			Attempt: 1, ReportedAt: at, ReceivedAt: at.Add(time.Duration(i) * time.Second), Report: doc, Feedback: json.RawMessage(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(hs.URL, client.Config{APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	var seen []int
	read := func(occurrences []triage.Occurrence) (size int) {
		for _, o := range occurrences {
			var report struct{ N int }
			if err := json.Unmarshal(o.Report, &report); err != nil {
				t.Fatal(err)
			}
			seen = append(seen, report.N)
			size += len(o.Report)
		}
		return size
	}
	rec, err := c.Get(t.Context(), "err_big")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if size := read(rec.Occurrences); size <= 1<<20 || rec.OccurrencesNext == "" {
		t.Fatalf("Get: %d bytes of reports, next %q; want a record of more than 1 MiB, and a cursor", size, rec.OccurrencesNext)
	}
	for cursor := rec.OccurrencesNext; cursor != ""; {
		p, err := c.Occurrences(t.Context(), "err_big", cursor)
		if err != nil {
			t.Fatalf("Occurrences: %v", err)
		}
		read(p.Occurrences)
		cursor = p.Next
	}
	if fmt.Sprint(seen) != "[5 4 3 2 1 0]" {
		t.Errorf("occurrences %v, want the latest first, each once", seen)
	}
	if _, err := c.Occurrences(t.Context(), "err_nope", ""); fault.CodeOf(err) != fault.NotFound {
		t.Errorf("an unknown error: %v", err)
	}
}

func TestOccurrences(t *testing.T) {
	s := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Query().Get("cursor") {
		case "":
			io.WriteString(w, `{"occurrences":[{"attempt":2}],"next_cursor":"c/1=+"}`)
		case "c/1=+":
			io.WriteString(w, `{"occurrences":[{"attempt":1}]}`)
		default:
			io.WriteString(w, `[]`)
		}
	})
	c := newClient(t, s.URL, client.Config{})
	first, err := c.Occurrences(context.Background(), "err_7f3a", "")
	if err != nil || first.Next != "c/1=+" || len(first.Occurrences) != 1 || first.Occurrences[0].Attempt != 2 {
		t.Fatalf("first page: %+v %v", first, err)
	}
	if next, err := c.Occurrences(context.Background(), "err_7f3a", first.Next); err != nil || next.Next != "" ||
		len(next.Occurrences) != 1 || next.Occurrences[0].Attempt != 1 {
		t.Errorf("next page: %+v %v", next, err)
	}
	if _, err := c.Occurrences(context.Background(), "err_7f3a", "other"); fault.CodeOf(err) != fault.ProtocolError {
		t.Errorf("an answer that is not an object: %v", err)
	}
	for _, r := range s.requests() {
		if r.method != http.MethodGet || r.path != "/v1/errors/err_7f3a/occurrences" {
			t.Errorf("request %s %s", r.method, r.path)
		}
	}
	if _, err := c.Occurrences(context.Background(), "../x", ""); fault.CodeOf(err) != fault.InvalidRequest {
		t.Errorf("an invalid id: %v", err)
	}
}

// Runs lists the tenant's runs through the service, filtered and paged;
// a query the service refuses is an INVALID_REQUEST fault.
func TestRunsAgainstTheService(t *testing.T) {
	hs, st := startService(t)
	acme := st.Tenant("acme")
	for i, id := range []string{"r1", "r2", "r3"} {
		if _, err := acme.StartRun(t.Context(), store.Run{RunID: id, AgentID: "echo"}); err != nil {
			t.Fatal(err)
		}
		end := store.RunEnd{Outcome: store.RunFinished}
		if i == 1 {
			end = store.RunEnd{Outcome: store.RunFailed, Fault: json.RawMessage(`{"code":"RATE_LIMITED","message":"Slow down."}`)}
		}
		if _, err := acme.FinishRun(t.Context(), id, end); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(hs.URL, client.Config{APIKey: serviceKey})
	if err != nil {
		t.Fatal(err)
	}
	failed, err := c.Runs(t.Context(), client.RunQuery{Outcome: "failed", Code: "RATE_LIMITED", Since: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if len(failed.Runs) != 1 || failed.Runs[0].RunID != "r2" || failed.Next != "" {
		t.Fatalf("failed runs: %+v", failed)
	}
	var fd struct{ Code string }
	if err := json.Unmarshal(failed.Runs[0].Fault, &fd); err != nil || fd.Code != "RATE_LIMITED" {
		t.Errorf("the run's fault: %s", failed.Runs[0].Fault)
	}
	var ids []string
	for q := (client.RunQuery{Limit: 2}); ; {
		p, err := c.Runs(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Runs {
			ids = append(ids, r.RunID)
		}
		if p.Next == "" {
			break
		}
		q.Cursor = p.Next
	}
	if len(ids) != 3 {
		t.Errorf("paged through %v, want the three runs", ids)
	}
	_, err = c.Runs(t.Context(), client.RunQuery{Outcome: "lost"})
	var f *fault.Error
	if !errors.As(err, &f) || f.Code != fault.InvalidRequest || len(f.FieldErrors) != 1 || f.FieldErrors[0].Field != "outcome" {
		t.Errorf("a refused query: %v", err)
	}
}

// Errors lists the tenant's records through the service, filtered and
// paged; a query the service refuses is an INVALID_REQUEST fault.
func TestErrorsAgainstTheService(t *testing.T) {
	hs, st := startService(t)
	at := time.Date(2025, 8, 8, 12, 20, 5, 0, time.UTC)
	for i, agent := range []string{"planner", "charts", "planner"} {
		_, err := st.Tenant("acme").SaveOccurrence(t.Context(), store.Occurrence{DeliveryKey: fmt.Sprint("d", i),
			ErrorID: fmt.Sprint("err_", i), QueryID: "q_1", AgentID: agent, ErrorType: "query_error", Severity: "low", NextAction: "resume",
			Attempt: 1, ReportedAt: at, ReceivedAt: at.Add(time.Duration(i) * time.Second), Report: json.RawMessage(`{}`), Feedback: json.RawMessage(`{}`),
			Release: fmt.Sprint("1.", i), Environment: "prod"})
		if err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(hs.URL, client.Config{APIKey: serviceKey})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for q := (client.ErrorQuery{AgentID: "planner", Since: at, Limit: 1}); ; {
		p, err := c.Errors(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Records {
			ids = append(ids, r.ErrorID)
		}
		if p.Next == "" {
			break
		}
		q.Cursor = p.Next
	}
	slices.Sort(ids)
	if fmt.Sprint(ids) != "[err_0 err_2]" {
		t.Errorf("paged through %v, want the planner's two records", ids)
	}
	p, err := c.Errors(t.Context(), client.ErrorQuery{Environment: "prod", Release: "1.2"})
	if err != nil || len(p.Records) != 1 || p.Records[0].ErrorID != "err_2" {
		t.Errorf("environment prod, release 1.2: %+v, %v; want err_2 alone", p, err)
	}
	_, err = c.Errors(t.Context(), client.ErrorQuery{Severity: "dire"})
	var f *fault.Error
	if !errors.As(err, &f) || f.Code != fault.InvalidRequest || len(f.FieldErrors) != 1 || f.FieldErrors[0].Field != "severity" {
		t.Errorf("a refused query: %v", err)
	}
}

// Jobs reaches every job of a record through the service: the record's
// latest, then the older ones from its JobsNext, the latest first.
func TestJobsAgainstTheService(t *testing.T) {
	hs, st := startService(t)
	acme := st.Tenant("acme")
	at := time.Date(2025, 8, 8, 12, 20, 5, 0, time.UTC)
	_, err := acme.SaveOccurrence(t.Context(), store.Occurrence{DeliveryKey: "d1", ErrorID: "err_jobs", QueryID: "q_1",
		AgentID: "agent", ErrorType: "query_error", Severity: "low", NextAction: "resume", Attempt: 1, ReportedAt: at,
		ReceivedAt: at, Report: json.RawMessage(`{}`), Feedback: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := range store.RecordJobs + 3 {
		id, err := acme.Enqueue(t.Context(), store.NewJob{Kind: store.JobEscalation, ErrorID: "err_jobs",
			Payload: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)), RunAt: time.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	c, err := client.New(hs.URL, client.Config{APIKey: serviceKey})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := c.Get(t.Context(), "err_jobs")
	if err != nil || !rec.MoreJobs || rec.JobsNext == "" {
		t.Fatalf("Get: more %v, next %q, %v", rec != nil && rec.MoreJobs, rec.JobsNext, err)
	}
	first, err := c.Jobs(t.Context(), "err_jobs", "")
	if err != nil || len(first.Jobs) != store.RecordJobs || first.Jobs[0].ID != ids[len(ids)-1] || first.Next != rec.JobsNext {
		t.Fatalf("first page: %d jobs, next %q, %v", len(first.Jobs), first.Next, err)
	}
	older, err := c.Jobs(t.Context(), "err_jobs", rec.JobsNext)
	var got []int64
	for _, j := range older.Jobs {
		got = append(got, j.ID)
	}
	if err != nil || !slices.Equal(got, []int64{ids[2], ids[1], ids[0]}) || older.Next != "" {
		t.Errorf("older jobs %v, next %q, %v; want %v", got, older.Next, err, ids[:3])
	}
	if _, err := c.Jobs(t.Context(), "err_nope", ""); fault.CodeOf(err) != fault.NotFound {
		t.Errorf("an unknown record: %v", err)
	}
	if _, err := c.Jobs(t.Context(), "err_jobs", "nope"); fault.CodeOf(err) != fault.InvalidRequest {
		t.Errorf("a cursor the service did not make: %v", err)
	}
}
