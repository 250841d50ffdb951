package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/resilience"
	"github.com/triage-go/triage/wire/problem"
	"io"
)

// A pipeline agent reports a failed query and follows the feedback. The
// stand-in service is busy once (429, Retry-After: 1): the client waits and
// retries with the same Idempotency-Key.
func ExampleClient_Report() {
	calls := 0
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 {
			problem.Write(w, r, fault.New(fault.RateLimited, "", fault.WithRetryAfter(time.Second)), nil)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(triage.Feedback{
			ErrorID:     "err_7f3a",
			ErrorType:   triage.QueryError,
			UserMessage: "The query took too long; I narrowed it to the last 30 days.",
			NextAction:  triage.Resume,
			QueryID:     "q_456",
		})
	}))
	defer svc.Close()

	c, err := client.New(svc.URL, client.Config{APIKey: "tk_example_key"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fb, err := c.Report(context.Background(), &triage.Report{
		AgentID: "sql_agent",
		Data: triage.Data{
			ErrorCode: "DB_TIMEOUT",
			Message:   "query timed out after 30s",
			QueryID:   "q_456",
		},
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(fb.ErrorID, fb.ErrorType, fb.NextAction)
	fmt.Println(fb.UserMessage)
	fmt.Println("requests:", calls)
	// Output:
	// err_7f3a query_error resume
	// The query took too long; I narrowed it to the last 30 days.
	// requests: 2
}

// An invalid report is not retried: the error is a *fault.Error listing the
// fields the service rejected.
func ExampleClient_Report_invalid() {
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		problem.Write(w, r, fault.New(fault.InvalidRequest, "The error report is invalid.",
			fault.WithStatus(http.StatusUnprocessableEntity),
			fault.WithFieldErrors(fault.FieldError{Field: "data.query_id", Message: "is required"})), nil)
	}))
	defer svc.Close()

	c, _ := client.New(svc.URL, client.Config{Resilience: resilience.Config{MaxAttempts: 5}})
	_, err := c.Report(context.Background(), &triage.Report{
		AgentID: "sql_agent",
		Data:    triage.Data{Message: "query timed out"},
	}, nil)
	var f *fault.Error
	if errors.As(err, &f) {
		fmt.Println(f.Code, f.HTTPStatus(), f.Retryable)
		for _, fe := range f.FieldErrors {
			fmt.Println(fe.Field, fe.Message)
		}
	}
	// Output:
	// INVALID_REQUEST 422 false
	// data.query_id is required
}

// A team's tool reads an error's record: a triage.Record, whose latest
// feedback decodes into a triage.Feedback, and follows its occurrences a
// page at a time.
func ExampleClient_Get() {
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/errors/err_7f3a":
			json.NewEncoder(w).Encode(triage.Record{
				RecordSummary:   triage.RecordSummary{ErrorID: "err_7f3a", QueryID: "q_456", Count: 2},
				Feedback:        json.RawMessage(`{"error_id":"err_7f3a","next_action":"resume"}`),
				Occurrences:     []triage.Occurrence{{ErrorID: "err_7f3a", Attempt: 2}},
				OccurrencesNext: "c1",
			})
		case "/v1/errors/err_7f3a/occurrences":
			json.NewEncoder(w).Encode(triage.OccurrencePage{Occurrences: []triage.Occurrence{{ErrorID: "err_7f3a", Attempt: 1}}})
		}
	}))
	defer svc.Close()

	c, err := client.New(svc.URL, client.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rec, err := c.Get(context.Background(), "err_7f3a")
	if err != nil {
		fmt.Println(err)
		return
	}
	var fb triage.Feedback
	if err := json.Unmarshal(rec.Feedback, &fb); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rec.ErrorID, rec.Count, "occurrences; next:", fb.NextAction)
	attempts := []int{rec.Occurrences[0].Attempt}
	for cursor := rec.OccurrencesNext; cursor != ""; {
		page, err := c.Occurrences(context.Background(), rec.ErrorID, cursor)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, o := range page.Occurrences {
			attempts = append(attempts, o.Attempt)
		}
		cursor = page.Next
	}
	fmt.Println("attempts:", attempts)
	// Output:
	// err_7f3a 2 occurrences; next: resume
	// attempts: [2 1]
}

// A team's tool lists the tenant's errors of one agent, a page at a time:
// summaries, each read whole with Get.
func ExampleClient_Errors() {
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		page := triage.Page{Records: []triage.RecordSummary{{ErrorID: "err_7f3a", AgentID: r.URL.Query().Get("agent_id"), Count: 3}}, Next: "c1"}
		if r.URL.Query().Get("cursor") == "c1" {
			page = triage.Page{Records: []triage.RecordSummary{{ErrorID: "err_19c2", AgentID: "planner", Count: 1}}}
		}
		json.NewEncoder(w).Encode(page)
	}))
	defer svc.Close()

	c, err := client.New(svc.URL, client.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for q := (client.ErrorQuery{AgentID: "planner"}); ; {
		page, err := c.Errors(context.Background(), q)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, r := range page.Records {
			fmt.Println(r.ErrorID, r.AgentID, r.Count)
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	// Output:
	// err_7f3a planner 3
	// err_19c2 planner 1
}

// A team member resolves an error in the release with the fix, then reads
// its history; a bulk change ignores what one agent reported.
func ExampleClient_Change() {
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.Method + " " + r.URL.Path {
		case "PATCH /v1/errors/err_7f3a":
			var c triage.Change
			json.NewDecoder(r.Body).Decode(&c)
			json.NewEncoder(w).Encode(triage.RecordSummary{ErrorID: "err_7f3a",
				Workflow: triage.Workflow{Status: c.Status, Resolution: c.Resolution}})
		case "GET /v1/errors/err_7f3a/history":
			json.NewEncoder(w).Encode(triage.TransitionPage{Transitions: []triage.Transition{
				{By: "acme", From: triage.Workflow{Status: triage.StatusUnresolved}, To: triage.Workflow{Status: triage.StatusResolved}, Note: "fixed in #12"},
			}})
		case "POST /v1/errors/changes":
			json.NewEncoder(w).Encode(triage.RecordsChanged{Changed: 12})
		}
	}))
	defer svc.Close()

	c, err := client.New(svc.URL, client.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	rec, err := c.Change(ctx, "err_7f3a", triage.Change{Status: triage.StatusResolved,
		Resolution: &triage.Resolution{InRelease: "planner@1.4.0"}, Note: "fixed in #12"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rec.ErrorID, rec.Status, "in", rec.Resolution.InRelease)
	h, err := c.History(ctx, "err_7f3a", "")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, tr := range h.Transitions {
		fmt.Printf("%s: %s -> %s (%s)\n", tr.By, tr.From.Status, tr.To.Status, tr.Note)
	}
	n, err := c.ChangeMany(ctx, triage.RecordsChange{
		Change: triage.Change{Status: triage.StatusIgnored, Ignore: &triage.IgnoreFor{Seconds: 86400}},
		Filter: triage.RecordsFilter{AgentID: "legacy_agent", Status: triage.StatusUnresolved},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ignored:", n.Changed)
	// Output:
	// err_7f3a resolved in planner@1.4.0
	// acme: unresolved -> resolved (fixed in #12)
	// ignored: 12
}

// A team's tool sets up its alerts: a PagerDuty target, then a rule that
// pages when a record occurs 100 times within a minute, at most once an
// hour per record. The routing key is written, never read back.
func ExampleClient_PutAlertRule() {
	var stored []byte
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		body, _ := io.ReadAll(r.Body)
		switch r.Method + " " + r.URL.Path {
		case "PUT /v1/alerts/targets/oncall":
			var t triage.AlertTarget
			json.Unmarshal(body, &t)
			json.NewEncoder(w).Encode(t.View())
		case "PUT /v1/alerts/rules/bursts":
			stored = body
			w.Write(body)
		case "GET /v1/alerts/rules":
			fmt.Fprintf(w, `{"source":"api","rules":[%s]}`, stored)
		}
	}))
	defer svc.Close()

	c, err := client.New(svc.URL, client.Config{APIKey: "acme-key-0123456789"})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	target, err := c.PutAlertTarget(ctx, triage.AlertTarget{Name: "oncall", Kind: triage.TargetPagerDuty, RoutingKey: "R0UTINGKEY"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(target.Name, target.Kind, "routing key set:", target.HasRoutingKey)
	_, err = c.PutAlertRule(ctx, triage.AlertRule{ID: "bursts", When: triage.TriggerFrequency, Count: 100, WindowSeconds: 60,
		ThrottleSeconds: 3600, Targets: []string{"oncall"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	rules, err := c.AlertRules(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rules.Rules {
		fmt.Printf("%s: %s %d in %ds -> %v\n", r.ID, r.When, r.Count, r.WindowSeconds, r.Targets)
	}
	// Output:
	// oncall pagerduty routing key set: true
	// bursts: frequency 100 in 60s -> [oncall]
}
