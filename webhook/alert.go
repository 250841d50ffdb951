package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/triage-go/triage"
)

// AlertPost returns the Post that tells target about a, at now, in the
// target's format (triage.TargetKind): a signed webhook, a Slack message
// or a PagerDuty event. Every format carries a.ID where it has a place
// for an idempotency or deduplication key.
func AlertPost(target triage.AlertTarget, a triage.Alert, now time.Time) (Post, error) {
	switch target.Kind {
	case triage.TargetWebhook:
		return signedAlert(target, a, now)
	case triage.TargetSlack:
		body, err := json.Marshal(slackMessage(a))
		return Post{What: "Slack webhook", URL: target.URL, Body: body, Key: a.ID}, err
	case triage.TargetPagerDuty:
		u := target.URL
		if u == "" {
			u = triage.PagerDutyEventsURL
		}
		body, err := json.Marshal(pagerDutyEvent(target.RoutingKey, a))
		return Post{What: "PagerDuty endpoint", URL: u, Body: body}, err
	}
	return Post{}, fmt.Errorf("webhook: a target of kind %q", target.Kind)
}

// signedAlert is a's JSON signed as the Standard Webhooks specification
// (standardwebhooks.com) signs: webhook-signature holds "v1," and the
// base64 HMAC-SHA256 of "id.timestamp.body" with the target's secret.
func signedAlert(target triage.AlertTarget, a triage.Alert, now time.Time) (Post, error) {
	body, err := json.Marshal(a)
	if err != nil {
		return Post{}, err
	}
	ts := strconv.FormatInt(now.Unix(), 10)
	h := http.Header{}
	h.Set("Webhook-Id", a.ID)
	h.Set("Webhook-Timestamp", ts)
	if target.Secret != "" {
		h.Set("Webhook-Signature", "v1,"+Sign(target.Secret, a.ID, ts, body))
	}
	return Post{What: "webhook", URL: target.URL, Body: body, Key: a.ID, Header: h}, nil
}

// Sign is the Standard Webhooks signature of a message (without its "v1,"
// prefix): the base64 HMAC-SHA256 of "id.timestamp.body" keyed with
// secret, whose "whsec_" prefix, when it has one, marks the base64 of the
// key's bytes (any other secret is used as it is).
func Sign(secret, id, timestamp string, body []byte) string {
	key := []byte(secret)
	if s, ok := strings.CutPrefix(secret, "whsec_"); ok {
		if k, err := base64.StdEncoding.DecodeString(s); err == nil {
			key = k
		}
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + timestamp + "."))
	m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// slackMessage is a Slack incoming-webhook message: a text (the
// notification's fallback) and the same in blocks.
func slackMessage(a triage.Alert) map[string]any {
	head := alertHeadline(a)
	lines := []string{"*" + slackEscape(head) + "*"}
	if a.Link != "" {
		lines[0] = "*<" + slackEscape(a.Link) + "|" + slackEscape(head) + ">*"
	}
	lines = append(lines, slackEscape(alertFacts(a)))
	text := strings.Join(lines, "\n")
	return map[string]any{
		"text": slackEscape(head),
		"blocks": []any{
			map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": text}},
		},
	}
}

// slackEscape escapes what Slack's message formatting reads as markup.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// pagerDutyEvent is an Events API v2 event: a trigger, or the resolve of
// the record's incident. The dedup key is the tenant's and the record's,
// so that every trigger of one record joins one incident and the resolve
// closes it.
func pagerDutyEvent(routingKey string, a triage.Alert) map[string]any {
	dedup := a.Tenant + ":" + a.ErrorID
	if a.ErrorID == "" {
		dedup = a.Tenant + ":" + a.Rule + ":" + a.AgentID
	}
	if a.Resolved {
		return map[string]any{"routing_key": routingKey, "event_action": "resolve", "dedup_key": dedup}
	}
	summary := alertHeadline(a)
	if len(summary) > 1024 {
		summary = cut(summary, 1024)
	}
	details := map[string]any{"rule": a.Rule, "when": a.When, "status": a.Status, "occurrence_count": a.Count}
	for k, v := range map[string]string{"error_id": a.ErrorID, "query_id": a.QueryID, "release": a.Release, "environment": a.Environment} {
		if v != "" {
			details[k] = v
		}
	}
	if a.Held > 0 {
		details["held"] = a.Held
	}
	if a.Runs > 0 {
		details["rate"], details["runs"] = a.Rate, a.Runs
	}
	payload := map[string]any{
		"summary":        summary,
		"source":         "triage/" + a.Tenant,
		"severity":       pagerDutySeverity(a.Severity),
		"timestamp":      a.At.UTC().Format(time.RFC3339),
		"custom_details": details,
	}
	if a.AgentID != "" {
		payload["component"] = a.AgentID
	}
	if a.Code != "" {
		payload["class"] = a.Code
	}
	ev := map[string]any{"routing_key": routingKey, "event_action": "trigger", "dedup_key": dedup, "payload": payload}
	if a.Link != "" {
		ev["links"] = []any{map[string]any{"href": a.Link, "text": "The record in Triage"}}
	}
	return ev
}

// pagerDutySeverity maps a severity onto PagerDuty's four.
func pagerDutySeverity(s triage.Severity) string {
	switch s {
	case triage.SeverityCritical:
		return "critical"
	case triage.SeverityHigh:
		return "error"
	case triage.SeverityLow:
		return "info"
	}
	return "warning"
}

// alertHeadline is one line: why the notification, and the record's title.
func alertHeadline(a triage.Alert) string {
	var why string
	switch a.When {
	case triage.TriggerNew:
		why = "New error"
	case triage.TriggerRegressed:
		why = "Regressed"
	case triage.TriggerFrequency:
		why = "Frequent error"
	case triage.TriggerFailureRate:
		return fmt.Sprintf("Agent %s: %.0f%% of %d runs failed", a.AgentID, a.Rate*100, a.Runs)
	case triage.TriggerEscalation:
		why = "Escalated"
	default:
		why = "Alert"
	}
	if a.Resolved {
		why = "Resolved"
	}
	return why + ": " + a.Title
}

// alertFacts is one line of the record's facts.
func alertFacts(a triage.Alert) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+" "+v)
		}
	}
	add("agent", a.AgentID)
	add("query", a.QueryID)
	add("release", a.Release)
	add("environment", a.Environment)
	if a.Count > 0 {
		parts = append(parts, fmt.Sprintf("%d occurrences", a.Count))
	}
	if a.Held > 0 {
		parts = append(parts, fmt.Sprintf("%d more held back since %s", a.Held, a.HeldSince.UTC().Format(time.RFC3339)))
	}
	add("rule", a.Rule)
	return strings.Join(parts, " · ")
}

// cut shortens s to at most n bytes, on a rune boundary, with an ellipsis.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - len("…")
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
