package webhook_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/webhook"
)

var alertAt = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

func sampleAlert() triage.Alert {
	return triage.Alert{
		ID: "alr_1", Tenant: "acme", Rule: "frequent", When: triage.TriggerFrequency,
		ErrorID: "err_9f", Title: "RATE_LIMITED: <b>too</b> many requests & more", Status: triage.StatusUnresolved,
		AgentID: "planner", QueryID: "q_1", Code: "RATE_LIMITED", Severity: triage.SeverityHigh,
		Count: 200, Release: "1.4.0", Environment: "prod", Held: 199, HeldSince: alertAt.Add(-time.Minute),
		Link: "https://triage.example/#/errors/err_9f", At: alertAt,
	}
}

// received is one post a local receiver took.
type received struct {
	header http.Header
	body   []byte
}

// receiver is a local server that keeps what it is posted.
func receiver(t *testing.T) (*httptest.Server, <-chan received) {
	t.Helper()
	got := make(chan received, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- received{r.Header.Clone(), b}
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// A webhook's post verifies with the Standard Webhooks reference library
// (the secret in its whsec_ form), and not with another secret or body.
func TestAlertWebhookIsSigned(t *testing.T) {
	t.Parallel()
	srv, got := receiver(t)
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	a := sampleAlert()
	p, err := webhook.AlertPost(triage.AlertTarget{Name: "ops", Kind: triage.TargetWebhook, URL: srv.URL, Secret: secret}, a, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := webhook.Send(t.Context(), nil, p); err != nil {
		t.Fatal(err)
	}
	r := <-got
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(r.body, r.header); err != nil {
		t.Errorf("the reference library refuses the signature: %v (headers %v)", err, r.header)
	}
	if r.header.Get("Webhook-Id") != a.ID || r.header.Get("Idempotency-Key") != a.ID {
		t.Errorf("ids: %v", r.header)
	}
	other, _ := standardwebhooks.NewWebhook("whsec_" + strings.Repeat("A", 32))
	if other.Verify(r.body, r.header) == nil {
		t.Error("verified with another secret")
	}
	if wh.Verify(append(r.body[:len(r.body)-1:len(r.body)-1], ' ', '}'), r.header) == nil {
		t.Error("verified another body")
	}
	var back triage.Alert
	if err := json.Unmarshal(r.body, &back); err != nil || back.Tenant != "acme" || back.ErrorID != "err_9f" || back.Count != 200 || back.Link != a.Link {
		t.Errorf("body %s (%v)", r.body, err)
	}
}

// A Slack message has a text and one mrkdwn section, Slack's markup
// escaped, linking the record.
func TestAlertSlack(t *testing.T) {
	t.Parallel()
	srv, got := receiver(t)
	p, err := webhook.AlertPost(triage.AlertTarget{Kind: triage.TargetSlack, URL: srv.URL}, sampleAlert(), alertAt)
	if err != nil {
		t.Fatal(err)
	}
	if err := webhook.Send(t.Context(), nil, p); err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Text   string `json:"text"`
		Blocks []struct {
			Type string `json:"type"`
			Text struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"text"`
		} `json:"blocks"`
	}
	r := <-got
	if err := json.Unmarshal(r.body, &msg); err != nil {
		t.Fatal(err)
	}
	if msg.Text != "Frequent error: RATE_LIMITED: &lt;b&gt;too&lt;/b&gt; many requests &amp; more" {
		t.Errorf("text %q", msg.Text)
	}
	if len(msg.Blocks) != 1 || msg.Blocks[0].Type != "section" || msg.Blocks[0].Text.Type != "mrkdwn" {
		t.Fatalf("blocks %s", r.body)
	}
	body := msg.Blocks[0].Text.Text
	for _, want := range []string{"<https://triage.example/#/errors/err_9f|Frequent error:", "agent planner", "200 occurrences", "199 more held back since 2026-12-02T11:59:00Z"} {
		if !strings.Contains(body, want) {
			t.Errorf("%q lacks %q", body, want)
		}
	}
	if strings.Contains(body, "<b>") {
		t.Errorf("unescaped markup: %q", body)
	}
}

// PagerDuty gets a trigger with a dedup key per record, and a resolve of
// the same key; the URL defaults to PagerDuty's endpoint.
func TestAlertPagerDuty(t *testing.T) {
	t.Parallel()
	srv, got := receiver(t)
	target := triage.AlertTarget{Kind: triage.TargetPagerDuty, URL: srv.URL, RoutingKey: "R0UT1NGKEY"}
	a := sampleAlert()
	for _, resolved := range []bool{false, true} {
		a.Resolved = resolved
		p, err := webhook.AlertPost(target, a, alertAt)
		if err != nil {
			t.Fatal(err)
		}
		if err := webhook.Send(t.Context(), nil, p); err != nil {
			t.Fatal(err)
		}
	}
	var trigger, resolve map[string]any
	if err := json.Unmarshal((<-got).body, &trigger); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal((<-got).body, &resolve); err != nil {
		t.Fatal(err)
	}
	if trigger["event_action"] != "trigger" || trigger["dedup_key"] != "acme:err_9f" || trigger["routing_key"] != "R0UT1NGKEY" {
		t.Errorf("trigger %v", trigger)
	}
	pl, _ := trigger["payload"].(map[string]any)
	if pl["severity"] != "error" || pl["component"] != "planner" || pl["class"] != "RATE_LIMITED" || pl["source"] != "triage/acme" || pl["timestamp"] != "2026-12-02T12:00:00Z" {
		t.Errorf("payload %v", pl)
	}
	if s, _ := pl["summary"].(string); !strings.HasPrefix(s, "Frequent error: RATE_LIMITED") {
		t.Errorf("summary %q", s)
	}
	if len(resolve) != 3 || resolve["event_action"] != "resolve" || resolve["dedup_key"] != "acme:err_9f" {
		t.Errorf("resolve %v", resolve)
	}
	p, _ := webhook.AlertPost(triage.AlertTarget{Kind: triage.TargetPagerDuty}, a, alertAt)
	if p.URL != triage.PagerDutyEventsURL {
		t.Errorf("default URL %q", p.URL)
	}
}

// A long title is cut to PagerDuty's 1024 bytes on a rune boundary.
func TestAlertPagerDutySummaryBound(t *testing.T) {
	t.Parallel()
	a := sampleAlert()
	a.Title = strings.Repeat("é", 2000)
	p, err := webhook.AlertPost(triage.AlertTarget{Kind: triage.TargetPagerDuty, RoutingKey: "k"}, a, alertAt)
	if err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Payload struct {
			Summary string `json:"summary"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(p.Body, &ev); err != nil {
		t.Fatal(err)
	}
	if n := len(ev.Payload.Summary); n > 1024 || n < 1000 || !strings.HasSuffix(ev.Payload.Summary, "é…") {
		t.Errorf("summary of %d bytes ends %q", n, ev.Payload.Summary[max(0, n-8):])
	}
}

func TestAlertUnknownKind(t *testing.T) {
	t.Parallel()
	if _, err := webhook.AlertPost(triage.AlertTarget{Kind: "email"}, sampleAlert(), alertAt); err == nil {
		t.Error("no error for an unknown kind")
	}
}
