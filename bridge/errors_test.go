package bridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// fakeErrors is an error store in memory: one record, what the tools
// asked of it, and the answer its Change gives.
type fakeErrors struct {
	mu      sync.Mutex
	owners  []string
	filters []store.Filter
	reports []*triage.Report
	changes []triage.Change
	record  triage.Record
	change  func(triage.Change) (triage.Workflow, error)
}

func (f *fakeErrors) of(owner string) bridge.Errors {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.owners = append(f.owners, owner)
	return f
}

func (f *fakeErrors) List(_ context.Context, flt store.Filter) (triage.Page, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.filters = append(f.filters, flt)
	if flt.Cursor == "bad" {
		return triage.Page{}, fault.Invalid("The query is invalid.", fault.FieldError{Field: "cursor", Message: "is not a cursor this service made"})
	}
	return triage.Page{Records: []triage.RecordSummary{f.record.RecordSummary}, Next: "next-1"}, nil
}

func (f *fakeErrors) Get(_ context.Context, id string) (triage.Record, error) {
	if id != f.record.ErrorID {
		return triage.Record{}, fault.New(fault.NotFound, "No such error.", fault.WithDetail("error_id", id))
	}
	return f.record, nil
}

func (f *fakeErrors) Report(_ context.Context, r *triage.Report) (triage.Feedback, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reports = append(f.reports, r)
	if err := r.Validate(); err != nil {
		return triage.Feedback{}, err
	}
	return triage.Feedback{ErrorID: "err_new", ErrorType: triage.QueryError, Severity: triage.SeverityHigh, NextAction: triage.NextAction("retry"),
		RootCause: triage.RootCause{Cause: triage.CauseTransient, Confidence: 0.7}, Fault: triage.FaultInfo{Code: "TIMEOUT", Retryable: true}}, nil
}

func (f *fakeErrors) Change(_ context.Context, id string, c triage.Change) (triage.Workflow, error) {
	f.mu.Lock()
	f.changes = append(f.changes, c)
	f.mu.Unlock()
	if id != f.record.ErrorID {
		return triage.Workflow{}, fault.New(fault.NotFound, "No such error.", fault.WithDetail("error_id", id))
	}
	return f.change(c)
}

var errorsNow = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

// connectErrors connects a go-sdk client to a bridge serving the errors
// tools over f.
func connectErrors(t *testing.T, f *fakeErrors) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	m := agent.NewManager(agent.Default().Build(nil), agent.ManagerConfig{})
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	b := bridge.New(bridge.Config{Manager: m, Now: func() time.Time { return errorsNow },
		Owner: func(context.Context, *mcp.CallToolRequest) string { return "acme" }})
	b.ServeErrors(f.of)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := b.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// bigRecord is a record whose latest report is over 1 MiB: a long
// message, a context of many large members, a fault with details.
func bigRecord(t *testing.T) triage.Record {
	t.Helper()
	ctx := map[string]any{"a_table": "orders", "b_rows": 12}
	for i := range 64 {
		ctx[fmt.Sprintf("blob_%02d", i)] = strings.Repeat("x", 16<<10)
	}
	report, err := json.Marshal(triage.Report{AgentID: "planner", Timestamp: errorsNow, Status: "error", Release: "1.4.0",
		Data: triage.Data{ErrorType: triage.QueryError, ErrorCode: "DB_TIMEOUT", Message: strings.Repeat("slow query ", 700), QueryID: "q_1", Context: ctx,
			Fault: &fault.Error{Code: "TIMEOUT", Message: "The query timed out.", Details: map[string]any{"table": "orders"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(report) < 1<<20 {
		t.Fatalf("the report is %d bytes, want over 1 MiB", len(report))
	}
	fb, _ := json.Marshal(triage.Feedback{ErrorID: "err_1", ErrorType: triage.QueryError, Severity: triage.SeverityHigh,
		UserMessage: "The query took too long.", NextAction: "retry", Attempt: 2, Fault: triage.FaultInfo{Code: "TIMEOUT", Retryable: true},
		RootCause: triage.RootCause{Cause: triage.CausePersistent, Confidence: 0.8, Evidence: []string{"DB_TIMEOUT 3 times"}}})
	sum := triage.RecordSummary{ErrorID: "err_1", QueryID: "q_1", AgentID: "planner", ErrorType: "query_error", Severity: "high",
		FirstSeen: errorsNow.Add(-time.Hour), LastSeen: errorsNow, Count: 3, NextAction: "retry"}
	rec := triage.Record{RecordSummary: sum, Report: report, Feedback: fb}
	for i := range 8 {
		rec.Occurrences = append(rec.Occurrences, triage.Occurrence{ErrorID: "err_1", Attempt: 8 - i, NextAction: "retry",
			ReceivedAt: errorsNow.Add(-time.Duration(i) * time.Minute), Report: report, Feedback: fb})
	}
	return rec
}

func TestErrorToolsListed(t *testing.T) {
	cs := connectErrors(t, &fakeErrors{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ readOnly, idempotent bool }{
		"errors_search": {true, true}, "errors_get": {true, true}, "errors_report": {false, false}, "errors_update": {false, true},
	}
	for _, tool := range res.Tools {
		w, ok := want[tool.Name]
		if !ok {
			continue
		}
		delete(want, tool.Name)
		a := tool.Annotations
		if a == nil || a.ReadOnlyHint != w.readOnly || a.IdempotentHint != w.idempotent || a.DestructiveHint == nil || *a.DestructiveHint {
			t.Errorf("%s annotations = %+v, want %+v and not destructive", tool.Name, a, w)
		}
		in, _ := json.Marshal(tool.InputSchema)
		if tool.Name != "errors_search" && tool.Name != "errors_report" && !strings.Contains(string(in), `"required":["errorId"]`) {
			t.Errorf("%s input schema: %s", tool.Name, in)
		}
	}
	if len(want) > 0 {
		t.Errorf("tools missing: %v", want)
	}
}

// errors_search passes its filters on, with the page's default size,
// and answers a page with its cursor, in JSON and in text.
func TestErrorsSearch(t *testing.T) {
	f := &fakeErrors{record: bigRecord(t)}
	cs := connectErrors(t, f)
	out, res := call(t, cs, "errors_search", map[string]any{"agentId": "planner", "errorType": "query_error", "severity": "high",
		"since": "2026-12-01T00:00:00Z"})
	if res.IsError {
		t.Fatalf("search: %s", text(res))
	}
	want := store.Filter{AgentID: "planner", ErrorType: "query_error", Severity: "high", Since: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Limit: bridge.DefaultSearchLimit}
	if len(f.filters) != 1 || !reflect.DeepEqual(f.filters[0], want) || f.owners[0] != "acme" {
		t.Errorf("the store was asked %+v by %v, want %+v by acme", f.filters, f.owners, want)
	}
	list := out["errors"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["errorId"] != "err_1" || list[0].(map[string]any)["occurrences"] != 3.0 || out["nextCursor"] != "next-1" {
		t.Errorf("search = %v", out)
	}
	if got := text(res); !strings.Contains(got, "- err_1: query_error, high, agent planner, query q_1; 3×") || !strings.Contains(got, "cursor next-1") {
		t.Errorf("text:\n%s", got)
	}
}

// Bad arguments are the tool's error results, naming the argument: the
// input schema's enumerations and bounds, a since that is no time, a
// cursor the store refuses.
func TestErrorsSearchRefusesBadArguments(t *testing.T) {
	f := &fakeErrors{record: bigRecord(t)}
	cs := connectErrors(t, f)
	for _, args := range []map[string]any{
		{"errorType": "bad_error"}, {"severity": "dire"}, {"limit": 51}, {"limit": 0}, {"agentId": ""},
		{"queryId": "q 1"}, {"since": "yesterday"}, {"cursor": "bad"}, {"page": 2},
		{"query": "*** --"}, {"query": strings.Repeat("word ", 60)}, {"sort": "loudest"},
	} {
		out, res := call(t, cs, "errors_search", args)
		e, _ := out["error"].(map[string]any)
		if !res.IsError || e["code"] != "INVALID_REQUEST" || !strings.HasPrefix(text(res), "Failed to search errors") {
			t.Errorf("%v: %v\n%s", args, out, text(res))
		}
	}
	if len(f.filters) != 1 || f.filters[0].Cursor != "bad" {
		t.Errorf("the store was asked %+v; only the cursor is the store's to refuse", f.filters)
	}
}

// errors_get answers a record of a 1 MiB report in a few KiB: the
// latest occurrences' heads, the latest analysis, the report trimmed,
// and what was cut.
func TestErrorsGet(t *testing.T) {
	f := &fakeErrors{record: bigRecord(t)}
	cs := connectErrors(t, f)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "errors_get", Arguments: map[string]any{"errorId": "err_1"}})
	if err != nil || res.IsError {
		t.Fatalf("get: %v %s", err, text(res))
	}
	data, _ := json.Marshal(res.StructuredContent)
	if len(data) > 16<<10 || len(text(res)) > 8<<10 {
		t.Errorf("a record of a %d-byte report is answered in %d bytes of JSON and %d of text", len(f.record.Report), len(data), len(text(res)))
	}
	var out struct {
		ErrorID  string `json:"errorId"`
		Latest   []struct{ Attempt int }
		Analysis struct {
			RootCause   triage.RootCause `json:"rootCause"`
			UserMessage string           `json:"userMessage"`
			Code        string           `json:"code"`
		}
		Report struct {
			Message string
			Release string
			Fault   struct{ Code, Message string }
			Context map[string]any
		}
		ReportBytes int `json:"reportBytes"`
		Trimmed     []string
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if out.ErrorID != "err_1" || len(out.Latest) != bridge.MaxShownOccurrences || out.Latest[0].Attempt != 8 {
		t.Errorf("record %s, latest %+v", out.ErrorID, out.Latest)
	}
	if out.Analysis.RootCause.Cause != "persistent" || out.Analysis.RootCause.Evidence[0] != "DB_TIMEOUT 3 times" || out.Analysis.Code != "TIMEOUT" {
		t.Errorf("analysis %+v", out.Analysis)
	}
	if out.ReportBytes != len(f.record.Report) || out.Report.Release != "1.4.0" || out.Report.Fault.Code != "TIMEOUT" ||
		len(out.Report.Message) > bridge.MaxShownMessage || !strings.HasSuffix(out.Report.Message, "quer…") || !strings.HasPrefix(out.Report.Message, "slow query slow") {
		t.Errorf("report %+v (%d bytes)", out.Report, out.ReportBytes)
	}
	if out.Report.Context["a_table"] != "orders" || out.Report.Context["b_rows"] != 12.0 || len(out.Report.Context) == 66 {
		t.Errorf("context members shown: %d", len(out.Report.Context))
	}
	trimmed := strings.Join(out.Trimmed, "\n")
	for _, want := range []string{"message: cut to 1024 of its 7700 bytes", "context: 64 of 66 members left out", "blob_00", "and 44 more", "fault.details: not shown"} {
		if !strings.Contains(trimmed, want) {
			t.Errorf("trimmed lacks %q:\n%s", want, trimmed)
		}
	}
	got := text(res)
	for _, want := range []string{"Error err_1: query_error, high; 3×", "Root cause: persistent (confidence 0.80)", "  - DB_TIMEOUT 3 times",
		"Fault: TIMEOUT (retryable)", "Next action: retry", "Code: DB_TIMEOUT", "Not shown: message: cut"} {
		if !strings.Contains(got, want) {
			t.Errorf("text lacks %q:\n%s", want, got)
		}
	}

	out2, res := call(t, cs, "errors_get", map[string]any{"errorId": "err_2"})
	if e, _ := out2["error"].(map[string]any); !res.IsError || e["code"] != "NOT_FOUND" ||
		!strings.HasPrefix(text(res), "Failed to get error 'err_2':") || !strings.Contains(text(res), "errors_search") {
		t.Errorf("an unknown error: %v\n%s", out2, text(res))
	}
	if _, res := call(t, cs, "errors_get", map[string]any{"errorId": "../err_1"}); !res.IsError {
		t.Errorf("an id that is no identifier was read")
	}
}

// errors_report makes a report of the arguments (status error, the
// bridge's clock for a timestamp left out) and answers its analysis.
func TestErrorsReport(t *testing.T) {
	f := &fakeErrors{}
	cs := connectErrors(t, f)
	out, res := call(t, cs, "errors_report", map[string]any{"agentId": "planner", "queryId": "q_9", "message": "connection reset",
		"errorCode": "ECONNRESET", "context": map[string]any{"table": "orders"}, "release": "1.5.0", "tags": map[string]any{"team": "data"}})
	if res.IsError || out["errorId"] != "err_new" || out["nextAction"] != "retry" || out["rootCause"].(map[string]any)["cause"] != "transient" {
		t.Fatalf("report = %v\n%s", out, text(res))
	}
	r := f.reports[0]
	if r.Status != "error" || !r.Timestamp.Equal(errorsNow) || r.AgentID != "planner" || r.Data.QueryID != "q_9" || r.Data.Message != "connection reset" ||
		r.Data.ErrorCode != "ECONNRESET" || r.Data.Context["table"] != "orders" || r.Release != "1.5.0" || r.Tags["team"] != "data" {
		t.Errorf("the report sent: %+v", r)
	}
	if !strings.HasPrefix(text(res), "Reported as error err_new\nRoot cause: transient") {
		t.Errorf("text:\n%s", text(res))
	}
	if _, res := call(t, cs, "errors_report", map[string]any{"agentId": "planner", "queryId": "q_9", "message": "x", "timestamp": "2025-08-08T12:00:00+02:00"}); res.IsError ||
		!f.reports[1].Timestamp.Equal(time.Date(2025, 8, 8, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("a timestamp given: %v %s", f.reports[1].Timestamp, text(res))
	}
	for _, args := range []map[string]any{
		{"agentId": "planner", "queryId": "q_9"},
		{"agentId": "planner", "queryId": "q_9", "message": "x", "timestamp": "now"},
		{"agentId": "planner", "queryId": "q_9", "message": "x", "errorType": "oops"},
		{"agentId": "planner", "queryId": "q_9", "message": strings.Repeat("x", triage.MaxMessage+1)},
	} {
		out, res := call(t, cs, "errors_report", args)
		if e, _ := out["error"].(map[string]any); !res.IsError || e["code"] != "INVALID_REQUEST" || !strings.HasPrefix(text(res), "Failed to report the error") {
			t.Errorf("%.80v: %v", args, out)
		}
	}
	if len(f.reports) != 2 {
		t.Errorf("%d reports reached the store, want the 2 valid ones", len(f.reports))
	}
}

// errors_update asks the store for the triage.Change its arguments say,
// and answers the record's workflow after it.
func TestErrorsUpdate(t *testing.T) {
	f := &fakeErrors{record: bigRecord(t)}
	f.change = func(c triage.Change) (triage.Workflow, error) {
		w := triage.Workflow{Status: c.Status, Resolution: c.Resolution, Changed: errorsNow}
		if c.Ignore != nil {
			w.Ignore = &triage.Ignore{Count: c.Ignore.Count, Window: time.Duration(c.Ignore.WindowSeconds) * time.Second}
		}
		if c.Assignee != nil {
			w.Assignee = *c.Assignee
		}
		if c.Status == triage.StatusResolved && c.Note == "" {
			return triage.Workflow{}, fault.Invalid("The change is invalid.", fault.FieldError{Field: "note", Message: "is required here"})
		}
		return w, nil
	}
	cs := connectErrors(t, f)
	ana := "ana"
	for _, c := range []struct {
		args map[string]any
		want triage.Change
		text string
	}{
		{map[string]any{"errorId": "err_1", "status": "resolved", "inRelease": "1.4.1", "note": "fixed the index"},
			triage.Change{Status: triage.StatusResolved, Resolution: &triage.Resolution{InRelease: "1.4.1"}, Note: "fixed the index"},
			`Error err_1 is resolved in release "1.4.1"`},
		{map[string]any{"errorId": "err_1", "status": "ignored", "ignoreCount": 10, "ignoreWindowSeconds": 3600, "assignee": "ana"},
			triage.Change{Status: triage.StatusIgnored, Ignore: &triage.IgnoreFor{Count: 10, WindowSeconds: 3600}, Assignee: &ana},
			"Error err_1 is ignored until it occurs 10 more times within 3600s, assigned to ana"},
	} {
		out, res := call(t, cs, "errors_update", c.args)
		if res.IsError || out["errorId"] != "err_1" || out["status"] != string(c.want.Status) || text(res) != c.text {
			t.Errorf("%v: %v\n%s", c.args, out, text(res))
		}
		got, _ := json.Marshal(f.changes[len(f.changes)-1])
		want, _ := json.Marshal(c.want)
		if string(got) != string(want) {
			t.Errorf("%v: the store was asked %s, want %s", c.args, got, want)
		}
	}
	// The store's refusal, a status only the service sets, an unknown error.
	for _, args := range []map[string]any{
		{"errorId": "err_1", "status": "resolved"},
		{"errorId": "err_1", "status": "regressed"},
		{"errorId": "err_2", "status": "resolved", "note": "n"},
	} {
		out, res := call(t, cs, "errors_update", args)
		e, _ := out["error"].(map[string]any)
		if !res.IsError || (e["code"] != "INVALID_REQUEST" && e["code"] != "NOT_FOUND") || !strings.HasPrefix(text(res), "Failed to update error '") {
			t.Errorf("%v: %v\n%s", args, out, text(res))
		}
	}
}

// A store's failure reaches the model as the fault's safe message, never
// the cause's text.
func TestErrorsStoreFailureIsSafe(t *testing.T) {
	f := &fakeErrors{record: bigRecord(t)}
	f.change = func(triage.Change) (triage.Workflow, error) {
		return triage.Workflow{}, store.Unavailable(errors.New("dial tcp 10.0.0.7:5432: password=hunter2hunter2 refused"))
	}
	cs := connectErrors(t, f)
	out, res := call(t, cs, "errors_update", map[string]any{"errorId": "err_1", "status": "resolved"})
	data, _ := json.Marshal(out)
	if !res.IsError || strings.Contains(string(data)+text(res), "hunter2") || strings.Contains(string(data)+text(res), "10.0.0.7") ||
		!strings.Contains(text(res), "Storage is unavailable") {
		t.Errorf("update: %s\n%s", data, text(res))
	}
}
