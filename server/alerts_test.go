package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
)

// alertSecret signs the webhook target's posts in these tests.
const alertSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// waitLong is waitFor for the tests whose worker runs some hundreds of
// jobs: bounded by two minutes, for a loaded machine running the race
// detector (never the expected time).
func waitLong(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// metric reads a counter's value from /metrics (-1: not there).
func (f *fixture) metric(name string) string {
	f.t.Helper()
	for line := range strings.Lines(string(f.do("GET", "/metrics", nil, nil).body)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+" "); ok {
			return v
		}
	}
	return "-1"
}

// reporter posts a golden report at a time of the test clock's choosing
// (a new delivery each time: its timestamp differs), as a tenant's key
// says.
func reporter(t *testing.T, f *fixture, golden string, auth map[string]string) func(i int) string {
	report := readFile(t, goldenDir+"/"+golden)
	stamp := regexp.MustCompile(`"timestamp": "[^"]*"`)
	return func(i int) string {
		t.Helper()
		at := scenarioNow.Add(time.Duration(i) * time.Second).UTC().Format(time.RFC3339)
		body := stamp.ReplaceAll(report, []byte(`"timestamp": "`+at+`"`))
		r := f.do("POST", "/v1/errors", body, auth)
		if r.status != 201 {
			t.Fatalf("POST: %d %s", r.status, r.body)
		}
		return r.json(t)["error_id"].(string)
	}
}

// put PUTs a JSON document and returns the answer.
func (f *fixture) put(path, doc string, auth map[string]string) response {
	f.t.Helper()
	return f.do("PUT", path, []byte(doc), auth)
}

// alertsOf decodes the alerts a target received.
func alertsOf(t *testing.T, c *callbacks) []triage.Alert {
	t.Helper()
	bodies, _ := c.calls()
	var out []triage.Alert
	for _, b := range bodies {
		var a triage.Alert
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatalf("an alert %s: %v", b, err)
		}
		out = append(out, a)
	}
	return out
}

// Test200ReportsOneNotification: 200 identical reports with a frequency
// rule give one notification, signed as Standard Webhooks sign, and, once
// the throttle's interval has passed with no firing to carry them, one
// digest with the count of the firings held back.
func Test200ReportsOneNotification(t *testing.T) {
	t.Parallel()
	hook := newCallbacks(t)
	f := newFixture(t, func(c *Config) { fastJobs(c); c.PublicURL = "https://triage.example.com/" })
	if r := f.put("/v1/alerts/targets/hook", `{"kind":"webhook","url":"`+hook.srv.URL+`/alerts","secret":"`+alertSecret+`"}`, nil); r.status != 200 {
		t.Fatalf("PUT target: %d %s", r.status, r.body)
	}
	if r := f.put("/v1/alerts/rules/bursts", `{"when":"frequency","count":10,"window_seconds":3600,"targets":["hook"]}`, nil); r.status != 200 {
		t.Fatalf("PUT rule: %d %s", r.status, r.body)
	}
	post := reporter(t, f, "db_timeout.json", nil)
	var id string
	for i := range 200 {
		id = post(i)
	}
	runWorker(t, f.srv)
	// The 10th to the 200th fire: 191 firings, one notification.
	var held int
	waitLong(t, "190 firings held", func() bool {
		held, _ = strconv.Atoi(f.metric("triage_alerts_held_total"))
		return held >= 190
	})
	if held != 190 {
		t.Fatalf("%d firings held, want 190", held)
	}
	waitFor(t, "one notification", func() bool { return hook.count() == 1 })
	wh, err := standardwebhooks.NewWebhook(alertSecret)
	if err != nil {
		t.Fatal(err)
	}
	bodies, _ := hook.calls()
	// (The timestamp is the test clock's, which the library would find
	// too old: it is checked apart.)
	if err := wh.VerifyIgnoringTimestamp(bodies[0], hook.header(0)); err != nil {
		t.Errorf("the signature: %v", err)
	}
	if ts := hook.header(0).Get("Webhook-Timestamp"); ts != strconv.FormatInt(scenarioNow.Unix(), 10) {
		t.Errorf("webhook-timestamp %s, want the service's clock's", ts)
	}
	a := alertsOf(t, hook)[0]
	if a.Tenant != "default" || a.Rule != "bursts" || a.When != triage.TriggerFrequency || a.ErrorID != id ||
		a.Count != 200 || a.Held != 0 || a.Status != triage.StatusUnresolved ||
		!strings.HasPrefix(a.Title, "DB_TIMEOUT: ") ||
		a.Link != "https://triage.example.com/#/errors/"+id {
		t.Errorf("the notification: %+v", a)
	}

	// An hour on, nothing fired since: the digest says how many were held.
	f.clock.Advance(time.Hour)
	waitFor(t, "the digest", func() bool { return hook.count() == 2 })
	bodies, _ = hook.calls()
	if err := wh.VerifyIgnoringTimestamp(bodies[1], hook.header(1)); err != nil {
		t.Errorf("the digest's signature: %v", err)
	}
	d := alertsOf(t, hook)[1]
	if d.Held != 190 || !d.HeldSince.Equal(scenarioNow) || d.ErrorID != id || d.ID == a.ID {
		t.Errorf("the digest: %+v", d)
	}
	// One digest: once the record's jobs are done, two posts in all.
	f.waitJobs(id, "every job done", func(jobs []store.Job) bool {
		return !slices.ContainsFunc(jobs, func(j store.Job) bool { return !store.JobFinished(j.State) })
	})
	if hook.count() != 2 {
		t.Errorf("%d posts, want 2", hook.count())
	}
}

// Test153EscalationsOneAlert: 153 identical escalating reports give one
// escalation and a count, to the ops webhook and to the tenant's
// escalation rule's Slack target alike.
func Test153EscalationsOneAlert(t *testing.T) {
	t.Parallel()
	ops, slack := newCallbacks(t), newCallbacks(t)
	f := newFixture(t, func(c *Config) {
		fastJobs(c)
		c.Webhook = ops.srv.URL + "/escalations"
		c.Alerts = map[string]service.AlertConfig{"default": {
			Targets: []triage.AlertTarget{{Name: "team", Kind: triage.TargetSlack, URL: slack.srv.URL + "/services/T/B/X"}},
			Rules:   []triage.AlertRule{{ID: "escalation", When: triage.TriggerEscalation, Targets: []string{"team"}}},
		}}
	})
	post := reporter(t, f, "service_outage.json", nil)
	for i := range 153 {
		post(i)
	}
	runWorker(t, f.srv)
	waitLong(t, "152 escalations held", func() bool { return f.metric("triage_escalations_held_total") == "152" })
	waitLong(t, "152 alerts held", func() bool { return f.metric("triage_alerts_held_total") == "152" })
	if ops.count() != 1 || slack.count() != 1 {
		t.Fatalf("%d escalations and %d Slack messages, want 1 and 1", ops.count(), slack.count())
	}
	bodies, _ := slack.calls()
	var msg struct {
		Text   string `json:"text"`
		Blocks []any  `json:"blocks"`
	}
	if err := json.Unmarshal(bodies[0], &msg); err != nil || !strings.Contains(msg.Text, "SERVICE_DOWN") || len(msg.Blocks) == 0 {
		t.Errorf("the Slack message %s (%v)", bodies[0], err)
	}
	// An hour on, with nothing posted since: a digest to each, counting
	// the 152 held.
	f.clock.Advance(time.Hour)
	waitFor(t, "the digests", func() bool { return slack.count() == 2 && ops.count() == 2 })
	bodies, _ = slack.calls()
	if !bytes.Contains(bodies[1], []byte("152")) {
		t.Errorf("the digest does not count the 152 held: %s", bodies[1])
	}
	bodies, _ = ops.calls()
	var e triage.Escalation
	if err := json.Unmarshal(bodies[1], &e); err != nil || e.Held != 152 || !e.HeldSince.Equal(scenarioNow) || e.Tenant != "default" {
		t.Errorf("the escalations' digest %s (%v)", bodies[1], err)
	}
}

// TestNewRecordAlertsOnce: a rule on new records fires once per record,
// and PagerDuty gets a trigger per record, each with its record's dedup
// key, and a resolve with that key when a team resolves the record
// (PATCH); reported again, the record regresses and the regressed rule
// notifies once, however many occurrences follow.
func TestNewRecordAlertsOnce(t *testing.T) {
	t.Parallel()
	pd := newCallbacks(t)
	f := newFixture(t, func(c *Config) { fastJobs(c) })
	if r := f.put("/v1/alerts/targets/pager", `{"kind":"pagerduty","url":"`+pd.srv.URL+`/v2/enqueue","routing_key":"R0UTINGKEY0123456789012345678901"}`, nil); r.status != 200 {
		t.Fatalf("PUT target: %d %s", r.status, r.body)
	}
	if r := f.put("/v1/alerts/rules/new", `{"when":"new","targets":["pager"]}`, nil); r.status != 200 {
		t.Fatalf("PUT rule: %d %s", r.status, r.body)
	}
	if r := f.put("/v1/alerts/rules/back", `{"when":"regressed","targets":["pager"]}`, nil); r.status != 200 {
		t.Fatalf("PUT rule: %d %s", r.status, r.body)
	}
	timeouts, outages := reporter(t, f, "db_timeout.json", nil), reporter(t, f, "chart_incompatible.json", nil)
	var ids []string
	for i := range 3 {
		a, b := timeouts(i), outages(i)
		if i == 0 {
			ids = append(ids, a, b)
		}
	}
	runWorker(t, f.srv)
	waitFor(t, "two triggers", func() bool { return pd.count() >= 2 })
	for _, id := range ids {
		f.waitJobs(id, "the record's jobs done", func(jobs []store.Job) bool {
			return !slices.ContainsFunc(jobs, func(j store.Job) bool { return !store.JobFinished(j.State) })
		})
	}
	if pd.count() != 2 {
		t.Fatalf("%d PagerDuty events, want 2", pd.count())
	}
	bodies, _ := pd.calls()
	var keys []string
	for _, b := range bodies {
		var ev struct {
			RoutingKey string `json:"routing_key"`
			Action     string `json:"event_action"`
			DedupKey   string `json:"dedup_key"`
		}
		if err := json.Unmarshal(b, &ev); err != nil || ev.Action != "trigger" || ev.RoutingKey == "" {
			t.Errorf("a PagerDuty event %s (%v)", b, err)
		}
		keys = append(keys, ev.DedupKey)
	}
	slices.Sort(keys)
	want := []string{"default:" + ids[0], "default:" + ids[1]}
	slices.Sort(want)
	if !slices.Equal(keys, want) {
		t.Errorf("dedup keys %v, want %v", keys, want)
	}

	// A team resolves the record: a resolve with its dedup key, whatever
	// the throttle.
	if r := f.do("PATCH", "/v1/errors/"+ids[0], []byte(`{"status":"resolved","note":"fixed"}`), nil); r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.body)
	}
	waitFor(t, "the resolve", func() bool { return pd.count() == 3 })
	bodies, _ = pd.calls()
	var ev struct {
		Action   string `json:"event_action"`
		DedupKey string `json:"dedup_key"`
	}
	if err := json.Unmarshal(bodies[2], &ev); err != nil || ev.Action != "resolve" || ev.DedupKey != "default:"+ids[0] {
		t.Errorf("the resolve %s (%v)", bodies[2], err)
	}

	// Reported again: it regresses, once, and the regressed rule triggers
	// once for all the occurrences that follow.
	for i := 3; i < 6; i++ {
		timeouts(i)
	}
	// One alert job of the regressed rule (its occurrences' escalations
	// leave a digest waiting an hour), and it has posted.
	f.waitJobs(ids[0], "the regressed rule's one job done", func(jobs []store.Job) bool {
		back := slices.DeleteFunc(slices.Clone(jobs), func(j store.Job) bool {
			return j.Kind != store.JobAlert || !bytes.Contains(j.Payload, []byte(`"rule":"back"`))
		})
		return len(back) == 1 && store.JobFinished(back[0].State)
	})
	if r := f.do("GET", "/v1/errors/"+ids[0], nil, nil); r.status != 200 || !bytes.Contains(r.body, []byte(`"status":"regressed"`)) {
		t.Errorf("the record after the resolve and three reports: %d %.300s", r.status, r.body)
	}
	if pd.count() != 4 {
		t.Fatalf("%d PagerDuty events, want 4 (one trigger for the regression)", pd.count())
	}
	bodies, _ = pd.calls()
	if err := json.Unmarshal(bodies[3], &ev); err != nil || ev.Action != "trigger" || ev.DedupKey != "default:"+ids[0] {
		t.Errorf("the regression's trigger %s (%v)", bodies[3], err)
	}
}

// TestAlertTenantsIsolated: one tenant's rules never see another's
// records.
func TestAlertTenantsIsolated(t *testing.T) {
	t.Parallel()
	hook := newCallbacks(t)
	acme, globex := map[string]string{"X-API-Key": "acme-key-0123456789"}, map[string]string{"X-API-Key": "globex-key-0123456789"}
	f := newFixture(t, func(c *Config) {
		fastJobs(c)
		c.APIKeys = map[string]string{acme["X-API-Key"]: "acme", globex["X-API-Key"]: "globex"}
		c.PrivateCallbacks = true // the test's target is on loopback
	})
	if r := f.put("/v1/alerts/targets/hook", `{"kind":"webhook","url":"`+hook.srv.URL+`"}`, acme); r.status != 200 {
		t.Fatalf("PUT target: %d %s", r.status, r.body)
	}
	if r := f.put("/v1/alerts/rules/new", `{"when":"new","targets":["hook"]}`, acme); r.status != 200 {
		t.Fatalf("PUT rule: %d %s", r.status, r.body)
	}
	if r := f.do("GET", "/v1/alerts/rules", nil, globex); r.status != 200 || !bytes.Contains(r.body, []byte(`"rules":[]`)) {
		t.Errorf("globex's rules: %d %s", r.status, r.body)
	}
	theirs := reporter(t, f, "db_timeout.json", globex)
	theirID := theirs(0)
	ours := reporter(t, f, "chart_incompatible.json", acme)
	ourID := ours(0)
	runWorker(t, f.srv)
	waitFor(t, "acme's notification", func() bool { return hook.count() == 1 })
	f.waitJobsAs(globex, theirID, "globex's record has no alert job", func(jobs []store.Job) bool {
		return !slices.ContainsFunc(jobs, func(j store.Job) bool { return j.Kind == store.JobAlert })
	})
	f.waitJobsAs(acme, ourID, "acme's alert done", func(jobs []store.Job) bool {
		return slices.ContainsFunc(jobs, func(j store.Job) bool { return j.Kind == store.JobAlert && j.State == store.JobCompleted })
	})
	if a := alertsOf(t, hook); len(a) != 1 || a[0].Tenant != "acme" || a[0].ErrorID != ourID {
		t.Errorf("the notifications: %+v", a)
	}
}

// TestAlertTargetSSRF: with API keys a target at a loopback address is
// refused as it is registered (422), and one the alerts file names is
// refused as its job connects: never posted to.
func TestAlertTargetSSRF(t *testing.T) {
	t.Parallel()
	hook := newCallbacks(t)
	auth := map[string]string{"X-API-Key": "acme-key-0123456789"}
	f := newFixture(t, func(c *Config) {
		fastJobs(c)
		c.APIKeys = map[string]string{auth["X-API-Key"]: "acme", "other-key-0123456789": "other"}
		c.Alerts = map[string]service.AlertConfig{"other": {
			Targets: []triage.AlertTarget{{Name: "hook", Kind: triage.TargetWebhook, URL: hook.srv.URL}},
			Rules:   []triage.AlertRule{{ID: "new", When: triage.TriggerNew, Targets: []string{"hook"}}},
		}}
	})
	r := f.put("/v1/alerts/targets/hook", `{"kind":"webhook","url":"`+hook.srv.URL+`"}`, auth)
	if r.status != 422 || !bytes.Contains(r.body, []byte(`"url"`)) {
		t.Errorf("a loopback target: %d %s, want 422 naming url", r.status, r.body)
	}
	other := map[string]string{"X-API-Key": "other-key-0123456789"}
	id := reporter(t, f, "db_timeout.json", other)(0)
	runWorker(t, f.srv)
	rec := f.waitJobsAs(other, id, "the alert refused", func(jobs []store.Job) bool {
		return slices.ContainsFunc(jobs, func(j store.Job) bool { return j.Kind == store.JobAlert && j.State == store.JobCancelled })
	})
	i := slices.IndexFunc(rec.Jobs, func(j store.Job) bool { return j.Kind == store.JobAlert })
	if j := rec.Jobs[i]; len(j.Attempts) != 1 || !strings.Contains(j.Attempts[0].Error, "loopback, private or link-local") {
		t.Errorf("the alert job: %+v", j)
	}
	if hook.count() != 0 {
		t.Errorf("the target was posted to %d times", hook.count())
	}
	// The file's alerts are read-only through the API.
	if r := f.put("/v1/alerts/rules/new", `{"when":"new","targets":["hook"]}`, other); r.status != 409 {
		t.Errorf("a change of the file's rules: %d %s, want 409", r.status, r.body)
	}
	if r := f.do("GET", "/v1/alerts/rules", nil, other); r.status != 200 || !bytes.Contains(r.body, []byte(`"source":"file"`)) {
		t.Errorf("the file's rules: %d %s", r.status, r.body)
	}
}

// TestAlertsAPI: the rules and targets are checked whole, strictly
// decoded, and a target's credentials are never read back.
func TestAlertsAPI(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	secret, key, slackURL := "whsec_c2VjcmV0c2VjcmV0c2VjcmV0", "R0UTINGKEYabcdefabcdefabcdefabcd", "https://hooks.slack.com/services/T0/B0/SECRETPATH"
	for _, c := range []struct {
		path, doc string
		status    int
		has       string // in the answer
	}{
		{"/v1/alerts/rules/new", `{"when":"new","targets":["hook"]}`, 422, `"targets[0]"`},
		{"/v1/alerts/targets/hook", `{"kind":"webhook","url":"https://hooks.example.com/t","secret":"` + secret + `"}`, 200, `"signed":true`},
		{"/v1/alerts/targets/pager", `{"kind":"pagerduty","routing_key":"` + key + `"}`, 200, `"has_routing_key":true`},
		{"/v1/alerts/targets/team", `{"kind":"slack","url":"` + slackURL + `"}`, 200, `"kind":"slack"`},
		{"/v1/alerts/targets/bad", `{"kind":"webhook","url":"https://x.example.com","colour":"red"}`, 422, `"colour"`},
		{"/v1/alerts/targets/bad", `{"kind":"pagerduty"}`, 422, `"routing_key"`},
		{"/v1/alerts/targets/bad", `{"name":"other","kind":"slack","url":"https://x.example.com"}`, 422, `"name"`},
		{"/v1/alerts/targets/Bad!", `{"kind":"slack","url":"https://x.example.com"}`, 400, `"target"`},
		{"/v1/alerts/rules/new", `{"when":"new","targets":["hook","pager"]}`, 200, `"id":"new"`},
		{"/v1/alerts/rules/bursts", `{"when":"frequency","count":0,"window_seconds":10,"targets":["team"]}`, 422, `"count"`},
		{"/v1/alerts/rules/bursts", `{"when":"frequency","count":5,"window_seconds":600,"throttle_seconds":60,"targets":["team"]}`, 200, `"count":5`},
		{"/v1/alerts/rules/x", `{"when":"sometimes","targets":["team"]}`, 422, `"when"`},
	} {
		r := f.put(c.path, c.doc, nil)
		if r.status != c.status || !bytes.Contains(r.body, []byte(c.has)) {
			t.Errorf("PUT %s %s: %d %s, want %d with %s", c.path, c.doc, r.status, r.body, c.status, c.has)
		}
		for _, s := range []string{secret, key, slackURL} {
			if bytes.Contains(r.body, []byte(s)) {
				t.Errorf("PUT %s answered a credential: %s", c.path, r.body)
			}
		}
	}
	targets := f.do("GET", "/v1/alerts/targets", nil, nil)
	rules := f.do("GET", "/v1/alerts/rules", nil, nil)
	for _, s := range []string{secret, key, slackURL} {
		if bytes.Contains(targets.body, []byte(s)) || strings.Contains(f.logBuf.String(), s) {
			t.Errorf("a credential was shown or logged: %s", targets.body)
		}
	}
	var tl triage.AlertTargetList
	if err := json.Unmarshal(targets.body, &tl); err != nil || tl.Source != "api" || len(tl.Targets) != 3 || tl.Targets[2].URL != "" {
		t.Errorf("the targets: %s (%v)", targets.body, err)
	}
	var rl triage.AlertRuleList
	if err := json.Unmarshal(rules.body, &rl); err != nil || len(rl.Rules) != 2 || rl.Rules[1].ID != "bursts" {
		t.Errorf("the rules: %s (%v)", rules.body, err)
	}
	if r := f.do("GET", "/v1/alerts/rules?x=1", nil, nil); r.status != 400 {
		t.Errorf("a query parameter: %d", r.status)
	}
	// A target a rule names stays; a rule goes; then its target may.
	if r := f.do("DELETE", "/v1/alerts/targets/team", nil, nil); r.status != 422 || !bytes.Contains(r.body, []byte("rules[1].targets[0]")) {
		t.Errorf("DELETE a target in use: %d %s", r.status, r.body)
	}
	if r := f.do("DELETE", "/v1/alerts/rules/bursts", nil, nil); r.status != 204 {
		t.Errorf("DELETE a rule: %d %s", r.status, r.body)
	}
	if r := f.do("DELETE", "/v1/alerts/targets/team", nil, nil); r.status != 204 {
		t.Errorf("DELETE a target: %d %s", r.status, r.body)
	}
	if r := f.do("DELETE", "/v1/alerts/rules/bursts", nil, nil); r.status != 404 {
		t.Errorf("DELETE a rule again: %d %s", r.status, r.body)
	}
}

// TestFailureRateAlert: an agent's failed runs fire a failure-rate rule
// once their share of the window's ended runs reaches its rate, over at
// least its min_runs; the agent is the subject its throttle holds.
func TestFailureRateAlert(t *testing.T) {
	t.Parallel()
	hook := newCallbacks(t)
	f := newFixture(t, func(c *Config) { fastJobs(c) })
	if r := f.put("/v1/alerts/targets/hook", `{"kind":"webhook","url":"`+hook.srv.URL+`"}`, nil); r.status != 200 {
		t.Fatalf("PUT target: %d %s", r.status, r.body)
	}
	if r := f.put("/v1/alerts/rules/flaky", `{"when":"failure_rate","rate":0.5,"min_runs":4,"window_seconds":3600,"targets":["hook"]}`, nil); r.status != 200 {
		t.Fatalf("PUT rule: %d %s", r.status, r.body)
	}
	ctx := t.Context()
	run := func(id, outcome string) {
		t.Helper()
		if err := f.srv.svc.StartRun(ctx, "default", store.Run{RunID: id, ThreadID: "th", AgentID: "planner"}); err != nil {
			t.Fatal(err)
		}
		f.srv.svc.FinishRun(ctx, "default", id, "planner", service.RunEnd{Outcome: outcome})
	}
	// Finished, finished, failed (1 of 3: under min_runs), failed (2 of 4:
	// fires), failed, failed (held).
	for i, outcome := range []string{store.RunFinished, store.RunFinished, store.RunFailed, store.RunFailed, store.RunFailed, store.RunFailed} {
		run(fmt.Sprint("run", i), outcome)
	}
	// And another agent's failures: not planner's rate.
	if err := f.srv.svc.StartRun(ctx, "default", store.Run{RunID: "w", ThreadID: "th", AgentID: "writer"}); err != nil {
		t.Fatal(err)
	}
	f.srv.svc.FinishRun(ctx, "default", "w", "writer", service.RunEnd{Outcome: store.RunFailed})
	runWorker(t, f.srv)
	// Three firings of planner (the 4th, 5th and 6th runs): one
	// notification, two held; writer's one run is under min_runs.
	waitFor(t, "two firings held", func() bool { return f.metric("triage_alerts_held_total") == "2" })
	waitFor(t, "the notification", func() bool { return hook.count() == 1 })
	// (Whichever of the three firings' jobs ran first notified: its rate
	// is 2 of 4, 3 of 5 or 4 of 6.)
	a := alertsOf(t, hook)[0]
	if a.When != triage.TriggerFailureRate || a.Rule != "flaky" || a.AgentID != "planner" || a.ErrorID != "" ||
		a.Runs < 4 || a.Runs > 6 || a.Rate != float64(a.Runs-2)/float64(a.Runs) || !strings.Contains(a.Title, "planner") {
		t.Errorf("the notification: %+v", a)
	}
}
